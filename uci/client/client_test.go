package client

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/humchess/humchess/uci/client/clienttest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/internal/testenv"
)

// fakeEngine builds testdata/match/fakeengine once per test binary.
func fakeEngine(t *testing.T) string {
	t.Helper()
	return clienttest.FakeEngine(t, "../../testdata/match/fakeengine")
}

func TestMain(m *testing.M) { clienttest.Main(m) }

func TestLimitsCommand(t *testing.T) {
	for _, tc := range []struct {
		l    Limits
		want string
	}{
		{Limits{WTime: 60 * time.Second, BTime: 59500 * time.Millisecond, WInc: time.Second, BInc: time.Second}, "go wtime 60000 btime 59500 winc 1000 binc 1000"},
		{Limits{Nodes: 1}, "go nodes 1"},
		{Limits{MoveTime: 100 * time.Millisecond}, "go movetime 100"},
		{Limits{Depth: 8}, "go depth 8"},
		{Limits{Raw: " nodes 5 "}, "go nodes 5"},
		{Limits{}, "go infinite"},
	} {
		assert.Equal(t, tc.want, tc.l.Command(), "%+v", tc.l)
	}
}

func TestLooksLikeMove(t *testing.T) {
	for s, want := range map[string]bool{"e2e4": true, "e7e8q": true, "a1h8": true, "e7e8k": false, "e2e": false, "i2e4": false, "e2e9": false, "": false, "0000": false} {
		assert.Equal(t, want, LooksLikeMove(s), "LooksLikeMove(%q)", s)
	}
}

func TestParseInfo(t *testing.T) {
	for _, tc := range []struct {
		line string
		want Result
	}{
		{"info depth 12 seldepth 15 score cp -35 nodes 12000 pv e2e4", Result{Depth: 12, Nodes: 12000, Score: Score{Valid: true, Value: -35}}},
		{"info depth 5 score mate -3 pv a1a2", Result{Depth: 5, Score: Score{Valid: true, Mate: true, Value: -3}}},
		{"info string depth 7 score cp 10", Result{}},
		{"info score cp", Result{}},
		{"info depth x", Result{}},
	} {
		var r Result
		parseInfo(strings.Fields(tc.line), &r)
		assert.Equal(t, tc.want, r, tc.line)
	}
}

func TestRefusal(t *testing.T) {
	for _, tc := range []struct {
		line, msg string
		refused   bool
	}{
		{"info string error: setoption: unknown option \"Bogus\"", "error: setoption: unknown option \"Bogus\"", true}, // HumChess
		{"info string ERROR: bad value", "ERROR: bad value", true},
		{"No such option: Bogus", "No such option: Bogus", true}, // Stockfish
		{"info string NNUE evaluation using nn-1.nnue", "", false},
		{"info depth 1 score cp 3", "", false},
		{"id name error", "", false},
	} {
		msg, ok := refusal(tc.line)
		assert.Equal(t, tc.refused, ok, "refusal(%q)", tc.line)
		assert.Equal(t, tc.msg, msg, "refusal(%q)", tc.line)
	}
}

// TestStartRefusedOption checks that a refused option fails Start with the
// option and the engine's own words.
func TestStartRefusedOption(t *testing.T) {
	_, err := Start(context.Background(), Config{Path: fakeEngine(t), InitTimeout: 2 * time.Second,
		Options: []Option{{Name: "UCI_Elo", Value: "9999"}}})
	require.ErrorIs(t, err, ErrRefused)
	assert.Contains(t, err.Error(), "UCI_Elo = 9999")
	assert.Contains(t, err.Error(), "not in 100..3000")
	_, err = Start(context.Background(), Config{Path: fakeEngine(t), InitTimeout: 2 * time.Second,
		Options: []Option{{Name: "Bogus", Value: "1"}}})
	require.ErrorIs(t, err, ErrRefused)
	assert.Contains(t, err.Error(), "declares no such option")
}

func TestEngine(t *testing.T) {
	bin := fakeEngine(t)
	ctx := context.Background()
	cfg := func(args ...string) Config {
		return Config{Path: bin, Args: args, InitTimeout: 2 * time.Second, ReadyTimeout: time.Second}
	}
	for _, tc := range []struct {
		name     string
		cfg      Config
		startErr error
		goErr    error // of the second go (the first is always fine unless the mode fires at 0)
		timeout  time.Duration
	}{
		{name: "well behaved", cfg: cfg()},
		{name: "missing program", cfg: Config{Path: filepath.Join(t.TempDir(), "nope")}, startErr: ErrStart},
		{name: "no program", cfg: Config{}, startErr: ErrStart},
		{name: "no uciok", cfg: cfg("-no-uciok"), startErr: ErrTimeout},
		{name: "no readyok", cfg: cfg("-no-readyok"), startErr: ErrTimeout},
		{name: "crash", cfg: cfg("-crash-after", "1"), goErr: ErrCrashed},
		{name: "stall", cfg: cfg("-sleep-after", "1"), goErr: ErrTimeout, timeout: 300 * time.Millisecond},
		{name: "malformed bestmove", cfg: cfg("-garbage-after", "1"), goErr: ErrMalformed},
		{name: "bad option name", cfg: Config{Path: bin, Options: []Option{{Name: " "}}}, startErr: ErrBadRequest},
		{name: "option with newline", cfg: Config{Path: bin, Options: []Option{{Name: "UCI_Elo", Value: "1\nquit"}}}, startErr: ErrBadRequest},
		{name: "accepted option", cfg: Config{Path: bin, Options: []Option{{Name: "uci_elo", Value: "1200"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			begin := time.Now()
			e, err := Start(ctx, tc.cfg)
			if tc.startErr != nil {
				require.ErrorIs(t, err, tc.startErr, "Start(%+v)", tc.cfg)
				assert.Less(t, time.Since(begin), 5*time.Second, "Start must not hang")
				return
			}
			require.NoError(t, err)
			defer e.Close()
			assert.Equal(t, "fakeengine", e.Name())
			assert.True(t, e.HasOption("uci_elo"), "declared option UCI_Elo")
			assert.False(t, e.HasOption("Hash"))
			require.NoError(t, e.SetOption("UCI_Elo", "1200"))
			require.NoError(t, e.NewGame(ctx))
			require.NoError(t, e.Position("", []string{"e2e4"}))
			r, err := e.Go(ctx, Limits{Nodes: 1}, 2*time.Second)
			require.NoError(t, err)
			assert.True(t, LooksLikeMove(r.BestMove), "bestmove %q", r.BestMove)
			assert.True(t, r.Score.Valid, "score parsed from the info line")
			require.NoError(t, e.Position("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", []string{r.BestMove}))
			timeout := tc.timeout
			if timeout == 0 {
				timeout = 2 * time.Second
			}
			begin = time.Now()
			r, err = e.Go(ctx, Limits{WTime: time.Second, BTime: time.Second}, timeout)
			if tc.goErr == nil {
				require.NoError(t, err)
				assert.True(t, e.Alive())
				require.NoError(t, e.IsReady(ctx))
				return
			}
			require.ErrorIs(t, err, tc.goErr)
			assert.Less(t, time.Since(begin), timeout+3*time.Second, "Go must not hang")
			assert.False(t, e.Alive(), "a failed engine is not reused")
			assert.ErrorIs(t, e.IsReady(ctx), ErrClosed)
			assert.ErrorIs(t, e.Position("", nil), ErrClosed)
		})
	}
}

func TestContextCancel(t *testing.T) {
	e, err := Start(context.Background(), Config{Path: fakeEngine(t), Args: []string{"-sleep-after", "0"}})
	require.NoError(t, err)
	defer e.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	require.NoError(t, e.Position("", nil))
	_, err = e.Go(ctx, Limits{Nodes: 1}, time.Minute)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.False(t, e.Alive())
}

func TestCloseTwice(t *testing.T) {
	e, err := Start(context.Background(), Config{Path: fakeEngine(t)})
	require.NoError(t, err)
	require.NoError(t, e.Close())
	require.NoError(t, e.Close())
	assert.ErrorIs(t, e.IsReady(context.Background()), ErrClosed)
}

func TestGoWithoutLimit(t *testing.T) {
	e, err := Start(context.Background(), Config{Path: fakeEngine(t)})
	require.NoError(t, err)
	defer e.Close()
	_, err = e.Go(context.Background(), Limits{}, time.Second)
	assert.ErrorIs(t, err, ErrBadRequest)
}

// TestDebugStrings: after Debug(true) the engine's info strings come back
// in Result.Strings, in order; without debug the fake engine says none.
func TestDebugStrings(t *testing.T) {
	e, err := Start(context.Background(), Config{Path: fakeEngine(t), Args: []string{"-report-think", "1.5s"}})
	require.NoError(t, err)
	defer e.Close()
	require.NoError(t, e.Position("", nil))
	r, err := e.Go(context.Background(), Limits{MoveTime: time.Second}, 5*time.Second)
	require.NoError(t, err)
	assert.Empty(t, r.Strings, "no debug, no notes")

	require.NoError(t, e.Debug(true))
	r, err = e.Go(context.Background(), Limits{MoveTime: time.Second}, 5*time.Second)
	require.NoError(t, err)
	assert.Equal(t, []string{"played " + r.BestMove + " think 1.5s"}, r.Strings)
}

const stockfish = "/usr/games/stockfish"

func TestStockfish(t *testing.T) {
	if _, err := os.Stat(stockfish); err != nil {
		testenv.Missing(t, "no stockfish at %s", stockfish)
	}
	ctx := context.Background()
	e, err := Start(ctx, Config{Path: stockfish, Options: []Option{{"Threads", "1"}, {"Hash", "16"}}})
	require.NoError(t, err)
	defer e.Close()
	assert.Contains(t, e.Name(), "Stockfish")
	assert.True(t, e.HasOption("UCI_Elo"))
	require.NoError(t, e.NewGame(ctx))
	// Mate in one: the queen takes f7.
	require.NoError(t, e.Position("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", nil))
	r, err := e.Go(ctx, Limits{Depth: 5}, 10*time.Second)
	require.NoError(t, err)
	assert.Equal(t, "h5f7", r.BestMove)
	assert.Equal(t, Score{Valid: true, Mate: true, Value: 1}, r.Score)
	assert.Equal(t, 5, r.Depth, "the last info line's depth")

	_, err = Start(ctx, Config{Path: stockfish, Options: []Option{{"Threads", "1"}, {"Bogus", "1"}}})
	require.ErrorIs(t, err, ErrRefused, "Stockfish answers an unknown option with No such option")
	assert.Contains(t, err.Error(), "No such option: Bogus")
}
