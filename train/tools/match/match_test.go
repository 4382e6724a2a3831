package match

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/train/data/pgn"
	"github.com/humchess/humchess/uci/client"
	"github.com/humchess/humchess/uci/client/clienttest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/internal/testenv"
)

// fakeEngine builds testdata/match/fakeengine once per test binary.
func fakeEngine(t *testing.T) string {
	t.Helper()
	return clienttest.FakeEngine(t, "../../../testdata/match/fakeengine")
}

func TestMain(m *testing.M) { clienttest.Main(m) }

// readPGN parses every game of a PGN text.
func readPGN(t *testing.T, text string) []pgn.Game {
	t.Helper()
	r := pgn.NewReader(strings.NewReader(text))
	var out []pgn.Game
	for {
		g, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		require.NoError(t, err)
		c := *g
		c.Headers = append([]pgn.Tag(nil), g.Headers...)
		c.Moves = append([]string(nil), g.Moves...)
		c.Clocks = append([]float64(nil), g.Clocks...)
		out = append(out, c)
	}
}

// TestFailures plays engine 0 (misbehaving by plan) against a well-behaved
// random mover: a crash, an illegal move, a time loss, a malformed answer,
// each in its own game, must each be a loss for engine 0, counted, and must
// not stop the match.
func TestFailures(t *testing.T) {
	bin := fakeEngine(t)
	state := filepath.Join(t.TempDir(), "state")
	var out, progress bytes.Buffer
	cfg := Config{
		Engines: [2]EngineSpec{
			{Name: "flaky", Path: bin, Args: []string{"-plan", "crash:2,ok,illegal:3,ok,sleep:1,garbage:0", "-state", state, "-seed", "3"}},
			{Name: "steady", Path: bin, Args: []string{"-seed", "4"}, Options: []client.Option{{Name: "UCI_Elo", Value: "1100"}}},
		},
		TC:       TimeControl{Base: 800 * time.Millisecond, Inc: 50 * time.Millisecond},
		Margin:   50 * time.Millisecond,
		Games:    6,
		MaxPlies: 30,
		PGN:      &out,
		Progress: &progress,
	}
	begin := time.Now()
	sum, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.Less(t, time.Since(begin), 30*time.Second)
	assert.Equal(t, 6, sum.Games)
	assert.Equal(t, map[string]int{FailCrash: 1, FailIllegal: 1, FailTime: 1, FailMalformed: 1}, sum.Failures[0], "engine 0 failures")
	assert.Empty(t, sum.Failures[1], "engine 1 failures")
	assert.GreaterOrEqual(t, sum.Score.Losses, 4, "each failure is a loss: %+v", sum.Score)
	assert.Equal(t, 6, strings.Count(progress.String(), "\n"), "one progress line a game")

	games := readPGN(t, out.String())
	require.Len(t, games, 6)
	failures := map[int]string{1: "abandoned", 3: "rules infraction", 5: "time forfeit", 6: "abandoned"}
	for _, g := range games {
		round, _ := g.Header("Round")
		var n int
		for _, c := range round {
			n = n*10 + int(c-'0')
		}
		flakyWhite := n%2 == 1
		assert.Equal(t, flakyWhite, g.White == "flaky", "round %d colours alternate", n)
		if want, ok := failures[n]; ok {
			assert.Equal(t, want, g.Termination, "round %d termination", n)
			wantResult := "0-1"
			if !flakyWhite {
				wantResult = "1-0"
			}
			assert.Equal(t, wantResult, g.Result, "round %d: the culprit loses", n)
		}
		if g.White == "steady" {
			assert.Equal(t, 1100, g.WhiteElo, "Elo header from UCI_Elo")
		}
		// Every move carries a clock, within the time control.
		require.Len(t, g.Clocks, len(g.Moves), "round %d", n)
		for k, c := range g.Clocks {
			assert.True(t, c >= 0 && c <= 0.85+0.05*float64(k), "round %d ply %d clock %v", n, k, c)
		}
		tcTag, _ := g.Header("TimeControl")
		assert.Equal(t, "0.8+0.05", tcTag, "round %d", n)
	}
}

func TestStallWithNodes(t *testing.T) {
	bin := fakeEngine(t)
	cfg := Config{
		Engines:      [2]EngineSpec{{Path: bin, Args: []string{"-sleep-after", "3", "-name", "sleepy"}}, {Path: bin}},
		TC:           TimeControl{Nodes: 1},
		StallTimeout: 300 * time.Millisecond,
		Games:        2,
		MaxPlies:     20,
	}
	sum, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.Equal(t, [2]string{"sleepy", "fakeengine"}, sum.Names)
	// The counter survives within one process only: the first game stalls,
	// the restarted engine stalls again in game 2.
	assert.Equal(t, map[string]int{FailStall: 2}, sum.Failures[0])
	assert.Equal(t, Score{Losses: 2}, sum.Score)
}

func TestConcurrentOpenings(t *testing.T) {
	bin := fakeEngine(t)
	openings := []Opening{{Moves: []string{"e2e4", "e7e5"}}, {FEN: "4k3/8/8/8/8/8/4P3/4K3 b - - 0 40"}}
	var out bytes.Buffer
	cfg := Config{
		Engines:     [2]EngineSpec{{Path: bin, Args: []string{"-seed", "1"}}, {Path: bin, Args: []string{"-seed", "2"}}},
		TC:          TimeControl{Nodes: 1},
		Games:       8,
		Concurrency: 3,
		Openings:    openings,
		MaxPlies:    60,
		PGN:         &out,
		Now:         func() time.Time { return time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC) },
	}
	sum, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.Equal(t, 8, sum.Games)
	assert.Equal(t, 8, sum.Score.Games())
	assert.Empty(t, sum.Failures[0])
	assert.Empty(t, sum.Failures[1])
	assert.Equal(t, [2]string{"fakeengine (1)", "fakeengine (2)"}, sum.Names, "equal names are told apart")
	games := readPGN(t, out.String())
	require.Len(t, games, 8)
	fens := 0
	for _, g := range games {
		assert.Equal(t, "2026.01.02", g.Date)
		if g.FEN != "" {
			fens++
			continue
		}
		require.GreaterOrEqual(t, len(g.Moves), 2)
		assert.Equal(t, []string{"e4", "e5"}, g.Moves[:2], "the opening is played first")
		// Replay: every move legal, the result consistent with the end.
		b := board.MustNewGame("")
		for _, san := range g.Moves {
			require.NoError(t, b.PlaySAN(san))
		}
	}
	assert.Equal(t, 4, fens, "rounds 3,4,7,8 start from the FEN opening")
	assert.Contains(t, out.String(), "[SetUp \"1\"]")
	assert.Contains(t, out.String(), "40... ", "a Black-to-move FEN starts with the move number and dots")
}

func TestStartFailure(t *testing.T) {
	bin := fakeEngine(t)
	_, err := Run(context.Background(), Config{
		Engines: [2]EngineSpec{{Path: bin}, {Path: bin, Args: []string{"-no-uciok"}}},
		TC:      TimeControl{Nodes: 1}, Games: 1,
	})
	require.ErrorIs(t, err, client.ErrTimeout)
	assert.Contains(t, err.Error(), "engine 2")
}

// TestRefusedOptions checks that options an engine refuses stop the match
// before any game, naming the engine and the option, with nothing in the PGN.
func TestRefusedOptions(t *testing.T) {
	bin := fakeEngine(t)
	for _, opts := range [][]client.Option{
		{{Name: "UCI_Elo", Value: "9999"}},
		{{Name: "UCI_Elo", Value: "1500"}, {Name: "Bogus", Value: "1"}},
	} {
		var pgn bytes.Buffer
		sum, err := Run(context.Background(), Config{
			Engines: [2]EngineSpec{{Path: bin, Options: opts}, {Path: bin}},
			TC:      TimeControl{Nodes: 1}, Games: 2, PGN: &pgn,
		})
		require.ErrorIs(t, err, client.ErrRefused, "options %v", opts)
		assert.Nil(t, sum, "no game is played")
		assert.Contains(t, err.Error(), "engine 1")
		assert.Contains(t, err.Error(), opts[len(opts)-1].Name)
		assert.Empty(t, pgn.String())
	}
}

func TestCancel(t *testing.T) {
	bin := fakeEngine(t)
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	begin := time.Now()
	sum, err := Run(ctx, Config{
		Engines: [2]EngineSpec{{Path: bin, Args: []string{"-think", "20ms"}}, {Path: bin}},
		TC:      TimeControl{MoveTime: 10 * time.Millisecond}, Games: 1000, Concurrency: 2,
	})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.NotNil(t, sum)
	assert.Less(t, sum.Games, 1000)
	assert.Less(t, time.Since(begin), 10*time.Second, "cancel stops the match")
}

func TestValidate(t *testing.T) {
	good := Config{Engines: [2]EngineSpec{{Path: "a"}, {Path: "b"}}, TC: TimeControl{Nodes: 1}, Games: 1}
	for _, tc := range []struct {
		name string
		edit func(c *Config)
	}{
		{"no engine", func(c *Config) { c.Engines[1].Path = "" }},
		{"no games", func(c *Config) { c.Games = 0 }},
		{"no limit", func(c *Config) { c.TC = TimeControl{} }},
		{"negative margin", func(c *Config) { c.Margin = -1 }},
		{"bad opening", func(c *Config) { c.Openings = []Opening{{Moves: []string{"e2e5"}}} }},
		{"adjudication without limit", func(c *Config) { c.Adjudicate = &Adjudication{Engine: EngineSpec{Path: "x"}, WinCP: 500, Plies: 4} }},
		{"adjudication without threshold", func(c *Config) {
			c.Adjudicate = &Adjudication{Engine: EngineSpec{Path: "x"}, Limits: client.Limits{Nodes: 1}}
		}},
	} {
		c := good
		tc.edit(&c)
		assert.ErrorIs(t, c.Validate(), ErrConfig, tc.name)
	}
	assert.NoError(t, good.Validate())
}

func TestParseTimeControl(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want TimeControl
		err  bool
	}{
		{in: "60+1", want: TimeControl{Base: time.Minute, Inc: time.Second}},
		{in: "10+0.1", want: TimeControl{Base: 10 * time.Second, Inc: 100 * time.Millisecond}},
		{in: "180", want: TimeControl{Base: 3 * time.Minute}},
		{in: "0+1", err: true},
		{in: "x", err: true},
		{in: "60+-1", err: true},
	} {
		got, err := ParseTimeControl(tc.in)
		if tc.err {
			assert.ErrorIs(t, err, ErrConfig, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
		assert.Equal(t, strings.TrimSpace(tc.in), got.String(), "String round trip")
	}
}

func TestLoadOpenings(t *testing.T) {
	dir := t.TempDir()
	epd := filepath.Join(dir, "o.epd")
	require.NoError(t, os.WriteFile(epd, []byte("# comment\nrnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - bm e5; id \"x\";\n\n4k3/8/8/8/8/8/4P3/4K3 w - - 0 50\n4k3/8/8/8/8/8/4P3/4K3 w - - 0 50\n"), 0o644))
	o, err := LoadOpenings(epd, 0, 0)
	require.NoError(t, err)
	require.Len(t, o, 2, "duplicates dropped")
	assert.Equal(t, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", o[0].FEN)
	assert.Equal(t, "4k3/8/8/8/8/8/4P3/4K3 w - - 0 50", o[1].FEN)

	pg := filepath.Join(dir, "o.pgn")
	require.NoError(t, os.WriteFile(pg, []byte("[Event \"a\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n[Event \"b\"]\n\n1. d4 1-0\n\n[Event \"c\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 0-1\n"), 0o644))
	o, err = LoadOpenings(pg, 4, 0)
	require.NoError(t, err)
	require.Len(t, o, 1, "short game skipped, duplicate dropped")
	assert.Equal(t, []string{"e2e4", "e7e5", "g1f3", "b8c6"}, o[0].Moves)

	bad := filepath.Join(dir, "bad.epd")
	require.NoError(t, os.WriteFile(bad, []byte("not a fen\n"), 0o644))
	_, err = LoadOpenings(bad, 0, 0)
	assert.ErrorIs(t, err, ErrOpenings)
	_, err = LoadOpenings(filepath.Join(dir, "missing.pgn"), 4, 0)
	assert.ErrorIs(t, err, ErrOpenings)
}

func TestFmtClock(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0:00:00.0", 59*time.Second + 460*time.Millisecond: "0:00:59.5", 3723 * time.Second: "1:02:03.0", -time.Second: "0:00:00.0",
	} {
		assert.Equal(t, want, fmtClock(d), "%v", d)
	}
}

const stockfish = "/usr/games/stockfish"

// TestStockfish plays a short real match: Stockfish limited to UCI_Elo 1320
// against a random mover, with Stockfish adjudicating. The random mover is
// expected to lose every game; the test checks the match runs end to end.
func TestStockfish(t *testing.T) {
	if _, err := os.Stat(stockfish); err != nil {
		testenv.Missing(t, "no stockfish at %s", stockfish)
	}
	if testing.Short() {
		t.Skip("short")
	}
	bin := fakeEngine(t)
	sf := EngineSpec{Path: stockfish, Options: []client.Option{{Name: "Threads", Value: "1"}, {Name: "Hash", Value: "16"},
		{Name: "UCI_LimitStrength", Value: "true"}, {Name: "UCI_Elo", Value: "1320"}}}
	var out bytes.Buffer
	sum, err := Run(context.Background(), Config{
		Engines:    [2]EngineSpec{sf, {Path: bin, Name: "random"}},
		TC:         TimeControl{Base: 2 * time.Second, Inc: 20 * time.Millisecond},
		Margin:     100 * time.Millisecond,
		Games:      2,
		MaxPlies:   300,
		Adjudicate: &Adjudication{Engine: EngineSpec{Path: stockfish}, Limits: client.Limits{Nodes: 2000}, WinCP: 800, Plies: 4},
		PGN:        &out,
	})
	require.NoError(t, err)
	assert.Equal(t, 2, sum.Games)
	assert.Empty(t, sum.Failures[0], "stockfish failures")
	assert.Equal(t, 2, sum.Score.Wins, "Stockfish beats a random mover: %s\n%s", sum.ResultLine(), out.String())
	assert.Contains(t, out.String(), "[WhiteElo \"1320\"]")
}

// TestVirtualClock: with Charge, each move costs the charge on the clock
// (written in the PGN's [%clk]) whatever the engine took, and nobody loses
// on time even on a clock shorter than the engines' real time.
func TestVirtualClock(t *testing.T) {
	bin := fakeEngine(t)
	var out strings.Builder
	cfg := Config{
		Engines: [2]EngineSpec{{Path: bin}, {Path: bin}},
		TC:      TimeControl{Base: 180 * time.Second, Inc: 2 * time.Second},
		Games:   1, MaxPlies: 6, PGN: &out,
		Charge: func(remaining, inc time.Duration) time.Duration { return 10 * time.Second },
	}
	sum, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	require.Equal(t, 1, sum.Games)
	gs := readPGN(t, out.String())
	require.Len(t, gs, 1)
	// Each side: 180 - 10 + 2 = 172, then 164, then 156.
	assert.Equal(t, []float64{172, 172, 164, 164, 156, 156}, gs[0].Clocks)

	cfg.TC = TimeControl{Base: 20 * time.Millisecond}
	cfg.Charge = HumanCharge
	out.Reset()
	sum, err = Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.Empty(t, sum.Failures[0], "a virtual clock of 20 ms: no time forfeit")
	assert.Empty(t, sum.Failures[1], "a virtual clock of 20 ms: no time forfeit")
}

// TestThinkClock: with ThinkClock, each move costs the think time the
// engine reports in debug mode (which the match turns on) plus Lag,
// whatever the wall time; a report beyond the clock loses on time.
func TestThinkClock(t *testing.T) {
	bin := fakeEngine(t)
	reports := func(d string) EngineSpec { return EngineSpec{Path: bin, Args: []string{"-report-think", d}} }
	var out strings.Builder
	cfg := Config{
		Engines: [2]EngineSpec{reports("2s"), reports("1.5s")},
		TC:      TimeControl{Base: 60 * time.Second},
		Games:   1, MaxPlies: 4, PGN: &out, ThinkClock: true, Lag: 100 * time.Millisecond,
	}
	sum, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	require.Equal(t, 1, sum.Games)
	gs := readPGN(t, out.String())
	require.Len(t, gs, 1)
	// White 60 - 2.1 = 57.9, then 55.8; Black 60 - 1.6 = 58.4, then 56.8.
	assert.Equal(t, []float64{57.9, 58.4, 55.8, 56.8}, gs[0].Clocks, "clocks charged the reported think plus lag")

	// A reported think beyond the clock loses on time at once, though the
	// fake engine answers in milliseconds.
	cfg.Engines[0] = reports("61s")
	out.Reset()
	sum, err = Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.Equal(t, 1, sum.Failures[0][FailTime], "engine 1 reported 61 s on a 60 s clock: %+v", sum.Failures)

	// Without a report the wall time counts.
	cfg.Engines = [2]EngineSpec{{Path: bin}, {Path: bin}}
	out.Reset()
	sum, err = Run(context.Background(), cfg)
	require.NoError(t, err)
	gs = readPGN(t, out.String())
	require.Len(t, gs, 1)
	assert.Greater(t, gs[0].Clocks[0], 59.0, "a fast engine without reports keeps its clock")
}

func TestReportedThink(t *testing.T) {
	for _, tt := range []struct {
		in   []string
		want time.Duration
		ok   bool
	}{
		{[]string{"net x", "played e2e4 prob 12.0% threshold 0.000 rejected [] think 1.234s"}, 1234 * time.Millisecond, true},
		{[]string{"played e2e4 think 850ms", "strength something"}, 850 * time.Millisecond, true},
		{[]string{"played e2e4 think 0s"}, 0, true},
		{[]string{"played e2e4 think 1s", "played d2d4 think 2s"}, 2 * time.Second, true}, // the last one
		{[]string{"think about it"}, 0, false},
		{[]string{"played e2e4 think -1s"}, 0, false},
		{nil, 0, false},
	} {
		got, ok := ReportedThink(tt.in)
		assert.Equal(t, tt.ok, ok, "ReportedThink(%q) ok", tt.in)
		assert.Equal(t, tt.want, got, "ReportedThink(%q)", tt.in)
	}
}

func TestHumanCharge(t *testing.T) {
	for _, tt := range []struct{ remaining, inc, want time.Duration }{
		{180 * time.Second, 2 * time.Second, 7200*time.Millisecond + 1600*time.Millisecond},
		{10 * time.Second, 0, 400 * time.Millisecond},
		{2 * time.Second, 10 * time.Second, time.Second}, // at most half the remaining time
	} {
		if got := HumanCharge(tt.remaining, tt.inc); got != tt.want {
			t.Errorf("HumanCharge(%v, %v) = %v, want %v", tt.remaining, tt.inc, got, tt.want)
		}
	}
}
