package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/uci/client/clienttest"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/engine/enginetest"
	"github.com/humchess/humchess/nets"
	"github.com/humchess/humchess/policy"
	"github.com/humchess/humchess/uci"
)

// fakeEngine is the real adapter on the nets Fake net (enginetest.OpenFake).
func fakeEngine() *Engine { return New(enginetest.OpenFake) }

// newTestServer is a Server on the Fake net with a stopped clock, Seed 1
// and HumanTiming off, so that its output is deterministic.
func newTestServer(out *clienttest.Buffer) (*uci.Server, *Engine) {
	e := fakeEngine()
	s := uci.NewServer(e, out)
	s.Name = "HumChess test"
	t0 := time.Unix(0, 0)
	s.Now = func() time.Time { return t0 }
	for _, l := range []string{"setoption name Seed value 1", "setoption name HumanTiming value false"} {
		if err := s.Execute(l); err != nil {
			panic(err)
		}
	}
	return s, e
}

// TestSeedReplaysGame plays the engine against itself twice with the same
// seed and gets the same game; another seed gives another game.
func TestSeedReplaysGame(t *testing.T) {
	play := func(seed string) string {
		out := &clienttest.Buffer{}
		s, e := newTestServer(out)
		defer e.Close()
		s.Execute("setoption name Seed value " + seed)
		var moves []string
		for range 16 {
			s.Execute("position startpos moves " + strings.Join(moves, " "))
			s.Execute("go wtime 60000 btime 60000")
			s.Sync()
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			f := strings.Fields(lines[len(lines)-1])
			if len(f) < 2 || f[0] != "bestmove" || f[1] == "0000" {
				break
			}
			moves = append(moves, f[1])
		}
		return strings.Join(moves, " ")
	}
	a, b, c := play("7"), play("7"), play("8")
	if a != b {
		t.Errorf("seed 7 played\n%s\nthen\n%s", a, b)
	}
	if a == c {
		t.Errorf("seeds 7 and 8 played the same game %s", a)
	}
}

// slowHuman is a net whose think-time head is sure the human thinks 9.5 to
// 19.5 s, longer than any safe share these tests give.
type slowHuman struct{ *nets.Fake }

func (n slowHuman) Evaluate(ctx context.Context, in []nets.Input) ([]nets.Output, error) {
	out, err := n.Fake.Evaluate(ctx, in)
	for i := range out {
		if out[i].Time != nil {
			clear(out[i].Time)
			out[i].Time[board.ThinkBin(10)] = 1
		}
	}
	return out, err
}

// TestHumanTimingWaits checks that with HumanTiming the bestmove comes
// after the think time, which for a net sure of a long think is exactly
// the safe share of the clock (policy.Clock.SafeLimit): not before it
// (HumanTiming off answers at once) and not long after; and that stop cuts
// a long think short.
func TestHumanTimingWaits(t *testing.T) {
	out := &clienttest.Buffer{}
	e := New(func(string, int) (nets.Net, error) { return slowHuman{nets.NewFake(1)}, nil })
	defer e.Close()
	s := uci.NewServer(e, out)
	for _, l := range []string{"setoption name MoveOverhead value 0", "isready"} {
		require.NoError(t, s.Execute(l))
	}
	s.Sync()
	// 0.2 of the 2 s beyond the reserve, 400 ms: a 4-second game (its base
	// the first clock) is not in time trouble.
	safe := policy.Clock{Remaining: 4 * time.Second, Base: 4 * time.Second}.SafeLimit()
	start := time.Now()
	require.NoError(t, s.Execute("go wtime 4000 btime 4000"))
	s.Sync()
	if d := time.Since(start); d < safe || d > safe+time.Second {
		t.Errorf("bestmove after %v, want the safe share %v (and less than 1 s more)", d, safe)
	}
	require.NoError(t, s.Execute("go wtime 3600000 btime 3600000")) // up to 3 minutes
	time.Sleep(10 * time.Millisecond)
	start = time.Now()
	require.NoError(t, s.Execute("stop"))
	if d := time.Since(start); d > time.Second {
		t.Errorf("stop took %v", d)
	}
	if n := strings.Count(out.String(), "bestmove"); n != 2 {
		t.Errorf("%d bestmoves for 2 go: %s", n, out.String())
	}
}

// TestTinyClockAnswersInTime plays on a net that takes 35 ms per
// evaluation: with a clock of 70 ms and MoveOverhead 10 the bestmove must
// come before 60 ms, so the move costs one evaluation (no blunder filter,
// no ponder reply; the fastest of up to three tries is timed, as load only
// adds time); with a long clock the filter still runs.
func TestTinyClockAnswersInTime(t *testing.T) {
	net := &nets.Fake{Seed: 1, Latency: 35 * time.Millisecond}
	e := New(func(string, int) (nets.Net, error) { return net, nil })
	defer e.Close()
	out := &clienttest.Buffer{}
	s := uci.NewServer(e, out)
	for _, l := range []string{"setoption name MoveOverhead value 10", "setoption name Ponder value true", "isready"} {
		require.NoError(t, s.Execute(l))
	}
	s.Sync()
	bestmoves := 0
	for _, tc := range []struct {
		wtime, overhead int // ms
		calls           int // net evaluations
	}{
		{70, 10, 1},
		{50, 100, 1},  // less than the overhead: at once
		{1000, 0, 1},  // 1000/20 = 50 ms, below policy.HurryBelow
		{6000, 10, 2}, // 6000/20 - 10 = 290 ms: the filter runs
	} {
		require.NoError(t, s.Execute(fmt.Sprintf("setoption name MoveOverhead value %d", tc.overhead)))
		limit := time.Duration(max(tc.wtime-tc.overhead, 60)) * time.Millisecond // 60: one evaluation and some scheduling
		// A loaded machine only ever adds time: up to three tries, the
		// fastest one counts.
		took := time.Duration(math.MaxInt64)
		for try := 0; try < 3 && took >= limit; try++ {
			require.NoError(t, s.Execute("position startpos moves e2e4"))
			before := net.Calls()
			start := time.Now()
			require.NoError(t, s.Execute(fmt.Sprintf("go wtime 600000 btime %d", tc.wtime)))
			s.Sync()
			took = min(took, time.Since(start))
			bestmoves++
			assert.Equal(t, tc.calls, net.Calls()-before, "btime %d overhead %d: net evaluations", tc.wtime, tc.overhead)
			if tc.calls != 1 {
				break // the filter runs: no time limit to check
			}
		}
		if tc.calls == 1 {
			assert.Less(t, took, limit, "btime %d overhead %d: bestmove after %v (fastest of 3)", tc.wtime, tc.overhead, took)
		}
	}
	assert.Equal(t, bestmoves, strings.Count(out.String(), "bestmove"), out.String())
}

// TestHugeClocksThinkCapped asks for moves with clocks no game has, on nets
// with and without a think-time head: the human think time stays within
// policy.MaxThink (it was hours without a time head).
func TestHugeClocksThinkCapped(t *testing.T) {
	for _, netFile := range []string{"", enginetest.NoWDL} {
		e := fakeEngine()
		o := uci.DefaultOptions()
		o.NetFile = netFile
		require.NoError(t, e.Configure(o))
		for _, clock := range []time.Duration{1e9 * time.Millisecond, 1 << 62, math.MaxInt64} {
			for _, inc := range []time.Duration{0, clock} {
				lim := uci.NoLimits()
				lim.WTime, lim.BTime, lim.WInc, lim.BInc = clock, clock, inc, inc
				res, err := e.Think(context.Background(), lim)
				require.NoError(t, err)
				assert.True(t, res.Think > 0 && res.Think <= policy.MaxThink, "net %q, clocks %v inc %v: think %v, want within 0..%v", netFile, clock, inc, res.Think, policy.MaxThink)
			}
		}
		require.NoError(t, e.Close())
	}
}

func TestEloRangeCoversAnchors(t *testing.T) {
	lo, hi := board.RatingAnchors[0], board.RatingAnchors[len(board.RatingAnchors)-1]
	if float32(uci.MinElo) < lo || float32(uci.MaxElo) > hi {
		t.Errorf("UCI_Elo range %d..%d leaves the rating anchors %v..%v", uci.MinElo, uci.MaxElo, lo, hi)
	}
}

func TestNoDefaultNet(t *testing.T) {
	saved := openDefaultNet
	defer func() { openDefaultNet = saved }()
	openDefaultNet = nil
	e := New(nil)
	if err := e.Ready(); !errors.Is(err, ErrNoDefaultNet) {
		t.Errorf("Ready without a default net: %v, want ErrNoDefaultNet", err)
	}
	if err := e.Configure(func() uci.Options { o := uci.DefaultOptions(); o.NetFile = "/nonexistent/net.onnx"; return o }()); err == nil {
		t.Error("Configure with a missing NetFile: no error")
	}
	if _, err := OpenNet("net.txt", 1); err == nil {
		t.Error("OpenNet of an unknown format: no error")
	}
}

// BenchmarkGoToBestmove measures one "go" to its bestmove through the
// protocol, the adapter and the policy pipeline on the Fake net.
func BenchmarkGoToBestmove(b *testing.B) {
	out := &clienttest.Buffer{}
	s, e := newTestServer(out)
	defer e.Close()
	s.Execute("position startpos moves e2e4 e7e5 g1f3 b8c6 f1c4 g8f6")
	s.Execute("isready")
	for b.Loop() {
		s.Execute("go wtime 60000 btime 60000 winc 1000 binc 1000")
		s.Sync()
	}
}

// FuzzEngineLine drives the adapter (board validation, policy) with
// arbitrary command lines: nothing may panic, every go gets its bestmove.
func FuzzEngineLine(f *testing.F) {
	for _, s := range []string{
		"position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 moves e2e4",
		"position fen 8/8/8/8/8/8/8/K6k w - - 0 1",
		"position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
		"position startpos moves e2e4 e7e5 e1e2 e8e7",
		"go searchmoves e2e4 zz wtime 5 btime -3 movestogo 1",
		"setoption name UCI_Opponent value GM 2900 human x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		out := &clienttest.Buffer{}
		s, e := newTestServer(out)
		defer e.Close()
		s.Execute(line)
		s.Execute("go depth 1")
		s.Sync()
		s.Close()
		if !strings.Contains(out.String(), "bestmove ") {
			t.Errorf("after %q and go: no bestmove in %q", line, out.String())
		}
	})
}
