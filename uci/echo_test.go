package uci

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxReplyLine bounds every line the server may print in reply to a long
// command line it quotes: a short quoted prefix and the error's own words.
const maxReplyLine = 400

// TestLongInputQuotedShort sends 10 MB of text where each command reports
// the GUI's words back in an error: every reply line stays short and
// quotes the start of the text; an Engine's error that quotes it whole is
// cut to maxMessage bytes.
func TestLongInputQuotedShort(t *testing.T) {
	long := "x" + strings.Repeat("é", 5<<20) // 10 MB, multi-byte runes to cut
	tests := []struct {
		name, line string
		engine     bool // the Engine's error, not the server's
	}{
		{"unknown command", long, false},
		{"unknown command before a known one", long + " isready", false},
		{"debug", "debug " + long, false},
		{"position", "position " + long, false},
		{"position fen", "position fen " + long, false},
		{"position moves", "position startpos " + long, false},
		{"go token", "go " + long, false},
		{"go value", "go wtime " + long, false},
		{"setoption name", "setoption name " + long + " value 1", false},
		{"setoption spin", "setoption name UCI_Elo value " + long, false},
		{"setoption check", "setoption name Ponder value " + long, false},
		{"setoption opponent", "setoption name UCI_Opponent value " + long, false},
		{"setoption opponent title", "setoption name UCI_Opponent value " + long + " 1500 human x", false},
		{"engine error", "position fen bad" + long + " w - - 0 1", true},
		{"engine move error", "position startpos moves " + long, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, out := newTestServer(&stub{result: e4})
			run(s, tc.line) // go reports its errors without returning them
			got := out.String()
			require.Contains(t, got, "info string error: ", "no error reported")
			limit := maxReplyLine
			if tc.engine {
				limit = len("info string error: ") + maxMessage + len("...")
			}
			for _, l := range strings.Split(strings.TrimSpace(got), "\n") {
				assert.LessOrEqual(t, len(l), limit, "reply line of %d bytes, starting %.120q", len(l), l)
			}
			assert.Contains(t, got, "xéé", "the start of the text is quoted")
		})
	}
}

// TestQuote checks the quoting of GUI text in errors.
func TestQuote(t *testing.T) {
	assert.Equal(t, `"e2e4"`, quote("e2e4"))
	assert.Equal(t, `"`+strings.Repeat("a", maxQuote)+`"`, quote(strings.Repeat("a", maxQuote)))
	got := quote("a" + strings.Repeat("é", maxQuote))
	want := fmt.Sprintf(`"a%s"... (%d bytes)`, strings.Repeat("é", (maxQuote-1)/2), 1+2*maxQuote)
	assert.Equal(t, want, got, "cut on a rune boundary, with the length")
}
