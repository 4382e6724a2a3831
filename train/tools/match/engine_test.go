package match

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/humchess/humchess/uci/client/clienttest"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/nets/ort"
	"github.com/humchess/humchess/uci/client"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/internal/testenv"
)

// moduleRoot is the directory of the go.mod this test belongs to.
func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	require.NoError(t, err, "go env GOMOD")
	mod := strings.TrimSpace(string(out))
	require.True(t, mod != "" && mod != os.DevNull, "not in a module: GOMOD=%q", mod)
	return filepath.Dir(mod)
}

// TestRealEngineVsStockfish builds the real engine and plays it, on the
// maia-1100 net with HumanTiming on, against Stockfish at its lowest
// UCI_Elo (1350 in Stockfish 15.1, 1320 from 16) at 1+0, one game with
// each colour, two at once. Games stop at MaxPlies (a draw) to keep the test
// near a minute and a half. HumChess must play every move legally, in time
// and without crashing or stalling; the result does not matter.
func TestRealEngineVsStockfish(t *testing.T) {
	if testing.Short() {
		t.Skip("short: plays two 1+0 games")
	}
	if _, err := os.Stat(stockfish); err != nil {
		testenv.Missing(t, "no stockfish at %s", stockfish)
	}
	if _, err := ort.Resolve(""); err != nil {
		testenv.Missing(t, "ONNX Runtime not available: %v", err)
	}
	root := moduleRoot(t)
	net := filepath.Join(root, "testdata", "lc0", "maia-1100.pb.gz")
	if _, err := os.Stat(net); err != nil {
		testenv.Missing(t, "Maia net not available: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "humchess")
	build := exec.Command("go", "build", "-o", bin, "./cmd/humchess")
	build.Dir = root
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build ./cmd/humchess:\n%s", out)

	hc := EngineSpec{Path: bin, Name: "HumChess", Options: []client.Option{
		{Name: "NetFile", Value: net}, {Name: "UCI_Elo", Value: "1100"}, {Name: "HumanTiming", Value: "true"}}}
	sf := EngineSpec{Path: stockfish, Name: "Stockfish", Options: []client.Option{{Name: "Threads", Value: "1"}, {Name: "Hash", Value: "16"},
		{Name: "UCI_LimitStrength", Value: "true"}, {Name: "UCI_Elo", Value: "1350"}}}
	var pgnOut bytes.Buffer
	var stderr clienttest.Buffer
	const maxPlies = 80
	cfg := Config{
		Engines:      [2]EngineSpec{hc, sf},
		TC:           TimeControl{Base: 60 * time.Second},
		Margin:       50 * time.Millisecond, // humchess match's default; the engine keeps MoveOverhead 100 ms
		Games:        2,
		Concurrency:  2,
		MaxPlies:     maxPlies,
		PGN:          &pgnOut,
		EngineStderr: &stderr,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sum, err := Run(ctx, cfg)
	require.NoError(t, err, "engines' stderr:\n%s", stderr.String())
	t.Logf("%s; ended by %v; %.0f s", sum.ResultLine(), sum.Reasons, sum.Elapsed.Seconds())

	assert.Equal(t, 2, sum.Games)
	assert.Empty(t, sum.Failures[0], "HumChess failures (crash, stall, time forfeit, illegal move)\nPGN:\n%s\nstderr:\n%s", pgnOut.String(), stderr.String())
	games := readPGN(t, pgnOut.String())
	require.Len(t, games, 2, "PGN:\n%s", pgnOut.String())
	var white [2]int // games HumChess played as White, as Black
	for n, pg := range games {
		hcWhite := pg.White == "HumChess"
		if !hcWhite {
			require.Equal(t, "HumChess", pg.Black, "game %d", n+1)
			white[1]++
		} else {
			white[0]++
		}
		if len(sum.Failures[1]) == 0 {
			assert.Positive(t, len(pg.Moves), "game %d played no move", n+1)
		}
		assert.LessOrEqual(t, len(pg.Moves), maxPlies, "game %d", n+1)
		require.Len(t, pg.Clocks, len(pg.Moves), "game %d: a [%%clk] per move", n+1)
		// Every move replays legally, and HumChess's clock never ran out.
		g, err := board.NewGame("")
		require.NoError(t, err)
		hcMoves, hcClock := 0, 60.0
		for i, m := range pg.Moves {
			require.NoError(t, g.PlaySAN(m), "game %d ply %d: %s", n+1, i+1, m)
			if (i%2 == 0) == hcWhite {
				assert.Positive(t, pg.Clocks[i], "game %d ply %d: HumChess's clock after %s", n+1, i+1, m)
				hcMoves, hcClock = hcMoves+1, pg.Clocks[i]
			}
		}
		t.Logf("game %d: %s, %d plies, HumChess (%s) %d moves, %.1f s left", n+1, pg.Result, len(pg.Moves),
			map[bool]string{true: "White", false: "Black"}[hcWhite], hcMoves, hcClock)
		if hcMoves >= 20 { // HumanTiming thinks like a human: seconds, not milliseconds, over 20 moves
			assert.Less(t, hcClock, 58.0, "game %d: HumChess's clock after %d moves", n+1, hcMoves)
		}
	}
	assert.Equal(t, [2]int{1, 1}, white, "HumChess played each colour once")
}
