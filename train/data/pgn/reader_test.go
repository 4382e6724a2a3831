package pgn

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixtureDir holds the synthetic PGN fixtures.
const fixtureDir = "../../../testdata/pgn"

// wantGame is what a table test expects of one returned game.
type wantGame struct {
	Event  string
	Moves  []string
	Clocks []float64 // nil: all -1
	Result string    // movetext result token
}

// readAll reads every game of r with Next, copying what the tests compare.
func readAll(t *testing.T, r *Reader) ([]wantGame, []*Game) {
	t.Helper()
	var got []wantGame
	var games []*Game
	for {
		g, err := r.Next()
		if errors.Is(err, io.EOF) {
			return got, games
		}
		require.NoError(t, err)
		require.Len(t, g.Clocks, len(g.Moves), "game %q: clocks not aligned with moves", g.Event)
		require.Len(t, g.Evals, len(g.Moves), "game %q: evals not aligned with moves", g.Event)
		w := wantGame{Event: g.Event, Moves: append([]string(nil), g.Moves...), Result: g.MovetextResult}
		for _, c := range g.Clocks {
			if c >= 0 {
				w.Clocks = append([]float64(nil), g.Clocks...)
				break
			}
		}
		got = append(got, w)
		cp := *g
		cp.Headers = append([]Tag(nil), g.Headers...)
		cp.Evals = append([]float64(nil), g.Evals...)
		games = append(games, &cp)
	}
}

// openFixture reads a fixture file.
func openFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureDir, name))
	require.NoError(t, err)
	return b
}

// TestReaderFixtures reads each synthetic fixture and compares the games
// returned and the skip counts.
func TestReaderFixtures(t *testing.T) {
	tests := []struct {
		file    string
		games   []wantGame
		skipped map[string]int64
	}{
		{
			file: "annotated.pgn",
			games: []wantGame{{Event: "Annotated", Result: "1-0",
				Moves: []string{"e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "O-O-O", "Be7", "e8=Q+", "exd8Q#"}}},
			skipped: map[string]int64{},
		},
		{
			file: "fen.pgn",
			games: []wantGame{
				{Event: "From FEN", Result: "0-1", Moves: []string{"Nf3", "Nc6", "Bc4", "Nf6"}},
				{Event: "From FEN, Black to move", Result: "*", Moves: []string{"c5", "Nf3"}},
			},
			skipped: map[string]int64{},
		},
		{
			file: "empty.pgn",
			games: []wantGame{
				{Event: "No moves", Result: "1/2-1/2", Moves: []string{}},
				{Event: "Result only, no blank line after", Result: "0-1", Moves: []string{}},
				{Event: "Normal", Result: "1-0", Moves: []string{"d4", "d5", "c4"}},
			},
			skipped: map[string]int64{},
		},
		{
			file:    "truncated.pgn",
			games:   []wantGame{{Event: "Complete", Result: "1-0", Moves: []string{"e4", "e5"}}},
			skipped: map[string]int64{"truncated": 1},
		},
		{
			file:  "malformed.pgn",
			games: []wantGame{{Event: "Good", Result: "1-0", Moves: []string{"e4"}}},
			skipped: map[string]int64{"no headers": 1, "bad token": 3, "unterminated comment": 1, "unbalanced variation": 2,
				"bad tag": 1, "no result": 1, "text after result": 1},
		},
		{
			file: "clocks.pgn",
			games: []wantGame{{Event: "Clocks", Result: "0-1",
				Moves:  []string{"e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4"},
				Clocks: []float64{600, 596.5, 3659.25, -1, 580, 580.1, -1}}},
			skipped: map[string]int64{},
		},
		{
			file:    "tags.pgn",
			games:   []wantGame{{Event: `Tags "quoted" and \ backslash`, Result: "*", Moves: []string{"e4"}}},
			skipped: map[string]int64{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data := openFixture(t, tt.file)
			variants := map[string][]byte{
				"lf":   data,
				"crlf": bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n")),
				"bom":  append(append([]byte(nil), bom...), data...),
			}
			for name, in := range variants {
				r := NewReader(bytes.NewReader(in))
				got, _ := readAll(t, r)
				for i := range got {
					if got[i].Moves == nil {
						got[i].Moves = []string{}
					}
				}
				assert.Equal(t, tt.games, got, "%s (%s): games", tt.file, name)
				st := r.Stats()
				assert.Equal(t, tt.skipped, st.Skipped, "%s (%s): skipped", tt.file, name)
				assert.Equal(t, int64(len(tt.games)), st.Games, "%s (%s): Stats.Games", tt.file, name)
				assert.Equal(t, int64(len(in)), st.Bytes, "%s (%s): Stats.Bytes", tt.file, name)
			}
		})
	}
}

// TestHeaders checks the typed header fields.
func TestHeaders(t *testing.T) {
	_, games := readAll(t, NewReader(bytes.NewReader(openFixture(t, "clocks.pgn"))))
	require.Len(t, games, 1)
	g := games[0]
	assert.Equal(t, "https://lichess.org/abcdefgh", g.Site)
	assert.Equal(t, "A", g.White)
	assert.Equal(t, "B", g.Black)
	assert.Equal(t, 2240, g.WhiteElo)
	assert.Equal(t, 2401, g.BlackElo)
	assert.Equal(t, "BOT", g.WhiteTitle)
	assert.Equal(t, "CM", g.BlackTitle)
	assert.Equal(t, "0-1", g.Result)
	assert.Equal(t, "Normal", g.Termination)
	assert.Equal(t, "Standard", g.Variant)
	assert.True(t, g.Standard())
	assert.Equal(t, TimeControl{Base: 600, Increment: 0}, g.TimeControl)
	assert.Equal(t, int64(1), g.Line)
	wantEvals := []float64{0.33, math.NaN(), -(MateEval - 7), math.NaN(), math.NaN(), MateEval - 3, math.NaN()}
	require.Len(t, g.Evals, len(wantEvals))
	for i, w := range wantEvals {
		if math.IsNaN(w) {
			assert.True(t, math.IsNaN(g.Evals[i]), "eval %d: want none, got %v", i, g.Evals[i])
		} else {
			assert.InDelta(t, w, g.Evals[i], 1e-9, "eval %d", i)
		}
	}

	_, games = readAll(t, NewReader(bytes.NewReader(openFixture(t, "tags.pgn"))))
	require.Len(t, games, 1)
	g = games[0]
	assert.Equal(t, "Two tags on a line", g.Site)
	assert.Equal(t, "Indented tag", g.White)
	assert.Equal(t, Unknown, g.WhiteElo)
	assert.Equal(t, 1850, g.BlackElo)
	assert.Equal(t, TimeControl{Base: Unknown, Increment: Unknown, PerMove: 86400, Correspondence: true}, g.TimeControl)
	v, ok := g.Header("CustomTag")
	assert.True(t, ok)
	assert.Equal(t, "kept", v)
	_, ok = g.Header("Missing")
	assert.False(t, ok)
	assert.Len(t, g.Headers, 9)

	_, games = readAll(t, NewReader(bytes.NewReader(openFixture(t, "fen.pgn"))))
	require.Len(t, games, 2)
	assert.True(t, games[0].SetUp)
	assert.Equal(t, "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", games[0].FEN)
	assert.False(t, games[0].Standard())
}

// TestParseTimeControl covers the TimeControl forms seen in real files.
func TestParseTimeControl(t *testing.T) {
	tests := []struct {
		in   string
		want TimeControl
	}{
		{"180+2", TimeControl{Base: 180, Increment: 2}},
		{"600", TimeControl{Base: 600, Increment: 0}},
		{"15+0", TimeControl{Base: 15, Increment: 0}},
		{"-", TimeControl{Base: Unknown, Increment: Unknown, Correspondence: true}},
		{"1/86400", TimeControl{Base: Unknown, Increment: Unknown, PerMove: 86400, Correspondence: true}},
		{"1/259200", TimeControl{Base: Unknown, Increment: Unknown, PerMove: 259200, Correspondence: true}},
		{"40/7200:3600", TimeControl{Base: 7200, Increment: 0, Moves: 40}},
		{"?", TimeControl{Base: Unknown, Increment: Unknown}},
		{"", TimeControl{Base: Unknown, Increment: Unknown}},
		{"abc", TimeControl{Base: Unknown, Increment: Unknown}},
		{"180+x", TimeControl{Base: Unknown, Increment: Unknown}},
		{"-5+2", TimeControl{Base: Unknown, Increment: Unknown}},
		{"0/0", TimeControl{Base: Unknown, Increment: Unknown}},
		{"60+0.6", TimeControl{Base: 60, Increment: 0.6}},   // cutechess/humchess match tags
		{"0.5+0.1", TimeControl{Base: 0.5, Increment: 0.1}}, // fractional base too
		{"180+NaN", TimeControl{Base: Unknown, Increment: Unknown}},
		{"Inf+2", TimeControl{Base: Unknown, Increment: Unknown}},
		{"180+-0.5", TimeControl{Base: Unknown, Increment: Unknown}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ParseTimeControl(tt.in), "ParseTimeControl(%q)", tt.in)
	}
}

// TestParseClock covers the %clk forms.
func TestParseClock(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{" 0:03:00]", 180, true},
		{" 0:09:56.5]", 596.5, true},
		{"1:00:00.25 ]", 3600.25, true},
		{" 9:40]", 580, true},
		{" 12]", 12, true},
		{" 0:bad]", 0, false},
		{" 0:01:00", 0, false},
		{" ]", 0, false},
		{" 1:2:3:4]", 0, false},
		{" 0:00:01.]", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseClock([]byte(tt.in))
		assert.Equal(t, tt.ok, ok, "parseClock(%q) ok", tt.in)
		if tt.ok {
			assert.InDelta(t, tt.want, got, 1e-9, "parseClock(%q)", tt.in)
		}
	}
}

// TestIsSAN covers the SAN shape check.
func TestIsSAN(t *testing.T) {
	good := []string{"e4", "exd5", "Nf3", "Nbd7", "R1e2", "Qh4xe1", "O-O", "O-O-O+", "0-0", "e8=Q", "e8Q", "exd8=N#", "Kxh2", "Pe4"}
	bad := []string{"", "e9", "i4", "Zz9", "--", "P@d2", "d1=K", "Nf3x", "O-O-O-O", "e4e5", "xe4x", "None", "Nf"}
	for _, s := range good {
		assert.True(t, isSAN([]byte(s)), "isSAN(%q)", s)
	}
	for _, s := range bad {
		assert.False(t, isSAN([]byte(s)), "isSAN(%q)", s)
	}
}

// TestFilter checks that a rejected game is counted and never tokenized.
func TestFilter(t *testing.T) {
	r := NewReader(bytes.NewReader(openFixture(t, "malformed.pgn")))
	var seen []string
	r.Filter = func(g *Game) bool {
		seen = append(seen, g.Event)
		assert.Empty(t, g.Moves, "Filter sees no moves")
		return g.Variant == "" && g.Event != "Garbage token"
	}
	got, _ := readAll(t, r)
	require.Len(t, got, 1)
	st := r.Stats()
	assert.Equal(t, int64(2), st.Filtered)
	assert.Equal(t, int64(1), st.Skipped["bad token"], "the garbage and crazyhouse games are filtered before tokenizing")
	assert.Equal(t, int64(11), st.Total())
	assert.Len(t, seen, 9, "Filter runs on every game whose headers parse")
}

// TestNextHeaders checks the lazy path: headers first, moves on demand,
// and the stats moving a game from read to skipped when its moves fail.
func TestNextHeaders(t *testing.T) {
	r := NewReader(bytes.NewReader(openFixture(t, "malformed.pgn")))
	var errs []string
	r.OnSkip = func(err error) {
		var ge *GameError
		require.True(t, errors.As(err, &ge), "OnSkip gets a *GameError: %v", err)
		errs = append(errs, Reason(err))
	}
	var events []string
	for {
		g, err := r.NextHeaders()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		events = append(events, g.Event)
		if g.Event == "Garbage token" {
			err := g.ParseMoves()
			require.ErrorIs(t, err, ErrBadToken)
			assert.Contains(t, err.Error(), "Zz9")
			assert.Equal(t, err, g.ParseMoves(), "ParseMoves twice gives the same result")
		}
		if g.Event == "Good" {
			require.NoError(t, g.ParseMoves())
			assert.Equal(t, []string{"e4"}, g.Moves)
		}
	}
	assert.Len(t, events, 9)
	st := r.Stats()
	assert.Equal(t, int64(8), st.Games, "9 with headers, one of which failed ParseMoves")
	assert.Equal(t, map[string]int64{"no headers": 1, "bad tag": 1, "bad token": 1}, st.Skipped)
	assert.Equal(t, []string{"no headers", "bad token", "bad tag"}, errs)
}

// TestTooLarge checks that an oversized game is skipped and the next one read.
func TestTooLarge(t *testing.T) {
	var in strings.Builder
	in.WriteString("[Event \"Big\"]\n[Result \"*\"]\n\n")
	for i := 0; i < 2000; i++ {
		in.WriteString("{ padding padding padding } ")
	}
	in.WriteString("\n*\n\n")
	in.WriteString("[Event \"Long line\"]\n[Result \"*\"]\n\n" + strings.Repeat("e4 ", 100000) + "*\n\n")
	in.WriteString("[Event \"Small\"]\n[Result \"*\"]\n\n1. e4 *\n")
	r := NewReader(strings.NewReader(in.String()))
	r.MaxGameBytes = 4096
	got, _ := readAll(t, r)
	require.Len(t, got, 1)
	assert.Equal(t, "Small", got[0].Event)
	assert.Equal(t, map[string]int64{"too large": 2}, r.Stats().Skipped)
}

// errReader returns data then a non-EOF error.
type errReader struct {
	data []byte
	err  error
}

func (e *errReader) Read(p []byte) (int, error) {
	if len(e.data) == 0 {
		return 0, e.err
	}
	n := copy(p, e.data)
	e.data = e.data[n:]
	return n, nil
}

// TestReadError checks that a read error ends the run with that error,
// after the complete games, and counts the game it cut.
func TestReadError(t *testing.T) {
	boom := errors.New("boom")
	data := openFixture(t, "empty.pgn")
	r := NewReader(&errReader{data: data[:len(data)-5], err: boom})
	n := 0
	var err error
	for {
		if _, err = r.Next(); err != nil {
			break
		}
		n++
	}
	require.ErrorIs(t, err, boom)
	assert.Equal(t, 2, n)
	assert.Equal(t, map[string]int64{"truncated": 1}, r.Stats().Skipped)
	_, err = r.Next()
	assert.ErrorIs(t, err, boom, "the error is sticky")
}

// TestEmptyInput checks that empty and blank input is io.EOF with no games.
func TestEmptyInput(t *testing.T) {
	for _, in := range []string{"", "\n\n  \n", "\xef\xbb\xbf", "% only an escape line\n"} {
		r := NewReader(strings.NewReader(in))
		_, err := r.Next()
		assert.ErrorIs(t, err, io.EOF, "input %q", in)
		assert.Zero(t, r.Stats().Total(), "input %q", in)
	}
}

// TestParseEval checks the %eval forms and that the fast decimal path
// agrees with strconv.ParseFloat.
func TestParseEval(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{" 0.33]", 0.33, true},
		{" -1.50,23]", -1.5, true},
		{" #-7]", -(MateEval - 7), true},
		{" #3 ]", MateEval - 3, true},
		{" 12]", 12, true},
		{" 1e2]", 100, true},
		{" x]", 0, false},
		{" #]", 0, false},
		{" #0]", 0, false},
		{" NaN]", 0, false},
		{" 0.5", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseEval([]byte(tt.in))
		assert.Equal(t, tt.ok, ok, "parseEval(%q) ok", tt.in)
		if tt.ok {
			assert.Equal(t, tt.want, got, "parseEval(%q)", tt.in)
		}
	}
	for _, s := range []string{"0.1", "-0.07", "3.14159", "99.99", "-15.00", "0.0", "123456789.012345", "7"} {
		want, err := strconv.ParseFloat(s, 64)
		require.NoError(t, err)
		got, ok := parseDecimal([]byte(s))
		assert.True(t, ok, "parseDecimal(%q) ok", s)
		assert.Equal(t, want, got, "parseDecimal(%q)", s)
	}
}

// TestClone checks that a clone survives the reader moving on and parses
// its moves on its own, concurrently with the reader, without touching
// the reader's stats.
func TestClone(t *testing.T) {
	r := NewReader(bytes.NewReader(openFixture(t, "empty.pgn")))
	var clones []*Game
	for {
		g, err := r.NextHeaders()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		clones = append(clones, g.Clone())
	}
	require.Len(t, clones, 3)
	done := make(chan error, len(clones))
	for _, c := range clones {
		go func() { done <- c.ParseMoves() }()
	}
	for range clones {
		require.NoError(t, <-done)
	}
	assert.Equal(t, "Normal", clones[2].Event)
	assert.Equal(t, []string{"d4", "d5", "c4"}, clones[2].Moves)
	assert.Empty(t, clones[0].Moves)
	assert.Equal(t, int64(3), r.Stats().Games)
}

// TestMatchComments reads the think times and times left that cutechess-cli
// and fastchess write in their move comments.
func TestMatchComments(t *testing.T) {
	const games = `[Event "cutechess"]
[TimeControl "10+0.1"]

1. e4 {book} e5 {book} 2. Nf3 {+0.31/12 0.52s} Nc6 {-0.20/11 1.2s} 3. Bb5 {+M3/20 0.010s} a6 {-M3/1 0s, White mates} 1-0

[Event "fastchess"]
[TimeControl "8+0.08"]

1. d4 {+0.25/16 0.512s, tl=7.568s} d5 {-0.18/15 0.400s, n=12345, tl=7.680s, latency=1.002s} 2. c4 {0.00/1 0.123s} e6 {[%clk 0:00:07.1] tl=5.000s} 3. Nc3 {1.5s} Nf6 {White wins on time 2.5s} 1/2-1/2
`
	r := NewReader(strings.NewReader(games))
	for _, want := range []struct {
		event  string
		spent  []float64
		clocks []float64
	}{
		{"cutechess", []float64{-1, -1, 0.52, 1.2, 0.01, 0}, []float64{-1, -1, -1, -1, -1, -1}},
		{"fastchess", []float64{0.512, 0.4, 0.123, -1, 1.5, -1}, []float64{7.568, 7.68, -1, 7.1, -1, -1}},
	} {
		g, err := r.Next()
		require.NoError(t, err)
		assert.Equal(t, want.event, g.Event)
		assert.Equal(t, want.spent, g.Spent, "%s: think times", g.Event)
		assert.Equal(t, want.clocks, g.Clocks, "%s: clocks", g.Event)
	}
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"0.5s", true}, {"12s", true}, {"s", false}, {"-1s", false}, {"1e3s", false}, {"0x1p3s", false}, {"1.2.3s", false}, {"1.5", false}, {".5s", false},
	} {
		_, ok := seconds([]byte(tc.in))
		assert.Equal(t, tc.ok, ok, "seconds(%q)", tc.in)
	}
}
