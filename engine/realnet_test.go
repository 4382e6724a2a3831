package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/nets/ort"
	"github.com/humchess/humchess/nets/transformer"
	"github.com/humchess/humchess/policy"

	"github.com/humchess/humchess/internal/testenv"
)

// maiaDir returns the folder of the Maia nets: $HUMCHESS_MAIA_DIR, else the
// copies of maia-1100 and maia-1900 kept in testdata/lc0 (see its README).
// Tests that need a net skip when it is absent.
func maiaDir() string {
	if d := os.Getenv("HUMCHESS_MAIA_DIR"); d != "" {
		return d
	}
	return "../testdata/lc0"
}

// ortOrSkip skips tb when the ONNX Runtime library cannot be found.
func ortOrSkip(tb testing.TB) {
	tb.Helper()
	loc, err := ort.Resolve("")
	if err != nil {
		testenv.Missing(tb, "ONNX Runtime not available (run make onnxruntime or set ONNXRUNTIME_SHARED_LIBRARY_PATH): %v", err)
	}
	if _, err := os.Stat(loc.Path); err != nil && loc.Path != "" {
		testenv.Missing(tb, "ONNX Runtime library %s: %v", loc.Path, err)
	}
}

// maiaOrSkip returns the path of the named Maia net, or skips tb.
func maiaOrSkip(tb testing.TB, name string) string {
	tb.Helper()
	p := filepath.Join(maiaDir(), name+".pb.gz")
	if _, err := os.Stat(p); err != nil {
		testenv.Missing(tb, "Maia net not available: %v", err)
	}
	return p
}

// randomNetFile writes a HumChess transformer preset with random weights
// (seed 1) to a temporary .onnx and returns its path.
func randomNetFile(tb testing.TB, preset string) string {
	tb.Helper()
	model, err := transformer.RandomONNX(preset, 1)
	if err != nil {
		tb.Fatal(err)
	}
	p := filepath.Join(tb.TempDir(), "random-"+preset+".onnx")
	if err := os.WriteFile(p, model, 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}

// realNets lists the nets the real-net tests play: the embedded default
// net (NetFile ""), maia-1100 and a Tiny transformer with random weights. It
// skips without ONNX Runtime; the Maia net alone is skipped when absent.
func realNets(t *testing.T) map[string]func(t *testing.T) string {
	ortOrSkip(t)
	return map[string]func(t *testing.T) string{
		"default":   func(t *testing.T) string { return "" },
		"maia-1100": func(t *testing.T) string { return maiaOrSkip(t, "maia-1100") },
		"tiny":      func(t *testing.T) string { return randomNetFile(t, "tiny") },
	}
}

// playStarts are the positions the engine plays from in the real-net tests:
// the bench set (openings to endgames, with histories) and positions that
// stress move generation and the end of a game.
func playStarts(t *testing.T) []BenchPosition {
	t.Helper()
	ps, err := ParseBenchPositions(`
fools-mate-checkmated | 1500 1500 | - | startpos | f2f3 e7e5 g2g4 d8h4
stalemate | 1500 1500 | - | 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1 | -
en-passant-pinned | 1200 1200 | wtime 60000 btime 60000 | 8/8/8/8/k2Pp2R/8/8/4K3 b - d3 0 1 | -
promotion-race | 1400 1400 | wtime 60000 btime 60000 | 8/P6k/8/8/8/8/p6K/8 w - - 0 1 | -
rooks-castling-both | 1600 1600 | wtime 60000 btime 60000 | r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 | -
` + BenchPositions)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// playedMove is one bestmove the engine gave.
type playedMove struct {
	start string // the start position's name
	ply   int    // plies played from the start before this move
	move  string // the bestmove ("0000" when there was no legal move)
}

// playFrom drives the UCI server over a transcript-like script: from each
// start in turn it plays up to perStart plies, the engine moving for both
// sides (position ... moves ..., go with the start's clock), until total
// moves are played. Every bestmove must be legal in its position, and
// 0000 exactly when there is no legal move.
func playFrom(t *testing.T, netFile string, seed, total, perStart int) []playedMove {
	t.Helper()
	e := New(nil)
	defer e.Close()
	s := StartSession(e, "HumChess", nil)
	defer s.Close()
	for _, l := range []string{
		"uci", "setoption name NetFile value " + netFile, "setoption name Seed value " + strconv.Itoa(seed),
		"setoption name HumanTiming value false", "isready",
	} {
		if err := s.Send(l); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := s.Expect("readyok", benchStartupWait); err != nil {
		t.Fatalf("startup with %s: %v", netFile, err)
	}
	starts := playStarts(t)
	var out []playedMove
	moves := 0
	for i := 0; moves < total; i++ {
		if i >= 20*len(starts) {
			t.Fatalf("played only %d moves from %d starts, want %d", moves, i, total)
		}
		start := starts[i%len(starts)]
		g, err := start.game()
		if err != nil {
			t.Fatal(err)
		}
		p := start
		p.Moves = slices.Clone(start.Moves)
		if err := s.Send("ucinewgame"); err != nil {
			t.Fatal(err)
		}
		for ply := 0; ply < perStart && moves < total; ply++ {
			for _, l := range []string{
				fmt.Sprintf("setoption name UCI_Elo value %d", p.Elo), p.command(), strings.TrimSpace("go " + p.Clock),
			} {
				if err := s.Send(l); err != nil {
					t.Fatal(err)
				}
			}
			lines, _, err := s.Expect("bestmove", benchGoTimeout)
			if err != nil {
				t.Fatalf("%s after %d plies (%s): %v", start.Name, ply, g.FEN(), err)
			}
			f := strings.Fields(lines[len(lines)-1])
			if len(f) < 2 {
				t.Fatalf("%s after %d plies: malformed %q", start.Name, ply, lines[len(lines)-1])
			}
			best := f[1]
			out = append(out, playedMove{start.Name, ply, best})
			if g.NumLegalMoves() == 0 {
				if best != "0000" {
					t.Errorf("%s after %d plies (%s, no legal move): bestmove %s, want 0000", start.Name, ply, g.FEN(), best)
				}
				break
			}
			m, err := board.ParseMove(best)
			if err != nil || !g.IsLegal(m) {
				t.Fatalf("%s after %d plies (%s): bestmove %q is not legal (%v); legal: %v", start.Name, ply, g.FEN(), best, err, g.LegalMoves())
			}
			if err := g.Play(best); err != nil {
				t.Fatal(err)
			}
			p.Moves = append(p.Moves, best)
			moves++
			if g.Status() != board.Ongoing && g.NumLegalMoves() > 0 {
				break // a claimable draw: a human would stop here too
			}
		}
	}
	return out
}

// TestRealNetsPlayLegalMoves plays 200 moves with each real net from
// varied positions, every bestmove legal, and checks that a fixed Seed
// replays exactly the same moves.
func TestRealNetsPlayLegalMoves(t *testing.T) {
	for name, path := range realNets(t) {
		t.Run(name, func(t *testing.T) {
			file := path(t)
			a := playFrom(t, file, 7, 200, 5)
			b := playFrom(t, file, 7, 200, 5)
			if len(a) != len(b) {
				t.Fatalf("Seed 7 twice: %d and %d moves", len(a), len(b))
			}
			for i := range a {
				if a[i] != b[i] {
					t.Fatalf("Seed 7 twice: move %d differs: %+v then %+v", i, a[i], b[i])
				}
			}
			nulls, distinct := 0, map[string]bool{}
			for _, m := range a {
				if m.move == "0000" {
					nulls++
				}
				distinct[m.move] = true
			}
			if nulls < 2 {
				t.Errorf("%d bestmove 0000 answers; want at least 2 (checkmate and stalemate starts)", nulls)
			}
			t.Logf("%s: %d bestmoves (%d of them 0000), %d distinct moves, replayed identically with Seed 7", name, len(a), nulls, len(distinct))
		})
	}
}

// TestRealNetsHumanTimingWithinClock plays with HumanTiming on at the clocks
// of the last seconds of a 1+0 game and checks that go to bestmove stays
// within the safe share of the mover's clock (policy.Clock.SafeLimit with
// MoveOverhead 100 ms), or within the net's own computing time when that
// is longer, plus 100 ms of scheduling slack; and that the engine did wait
// (the delay is on).
func TestRealNetsHumanTimingWithinClock(t *testing.T) {
	const slack = 100 * time.Millisecond
	const overhead = 100 * time.Millisecond // MoveOverhead default
	clocks := []time.Duration{1500 * time.Millisecond, 2500 * time.Millisecond, 4000 * time.Millisecond, 6000 * time.Millisecond}
	for name, path := range realNets(t) {
		t.Run(name, func(t *testing.T) {
			file := path(t)
			e := New(nil)
			defer e.Close()
			s := StartSession(e, "HumChess", nil)
			defer s.Close()
			for _, l := range []string{"setoption name NetFile value " + file, "setoption name Seed value 3", "isready"} {
				if err := s.Send(l); err != nil {
					t.Fatal(err)
				}
			}
			if _, _, err := s.Expect("readyok", benchStartupWait); err != nil {
				t.Fatal(err)
			}
			ps, err := ParseBenchPositions(BenchPositions)
			if err != nil {
				t.Fatal(err)
			}
			waited, worst := 0, time.Duration(0)
			for i := range 12 {
				p := ps[(i*5)%len(ps)]
				clock := clocks[i%len(clocks)]
				opp := clocks[(i+1)%len(clocks)]
				g, err := p.game()
				if err != nil {
					t.Fatal(err)
				}
				wt, bt := clock, opp
				if g.SideToMove() == board.Black {
					wt, bt = opp, clock
				}
				goLine := fmt.Sprintf("go wtime %d btime %d", wt.Milliseconds(), bt.Milliseconds())
				if err := s.Send(p.command()); err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				if err := s.Send(goLine); err != nil {
					t.Fatal(err)
				}
				lines, at, err := s.Expect("bestmove", benchGoTimeout)
				if err != nil {
					t.Fatalf("%s %s: %v", p.Name, goLine, err)
				}
				wall := at.Sub(start)
				compute := infoTime(lines)
				limit := policy.Clock{Remaining: clock, Inc: 0, Overhead: overhead}.SafeLimit()
				if wall > max(limit, compute)+slack {
					t.Errorf("%s %s: go to bestmove %v, over the safe share %v (computing took %v, slack %v)", p.Name, goLine, wall, limit, compute, slack)
				}
				if wall-compute >= 10*time.Millisecond {
					waited++
				}
				worst = max(worst, wall-limit)
			}
			if waited == 0 {
				t.Errorf("no move waited 10 ms beyond computing: HumanTiming seems off")
			}
			t.Logf("%s: %d of 12 moves waited a human delay; worst excess over the safe share %v", name, waited, worst)
		})
	}
}

// infoTime returns the "time" of the first "info depth" line: how long the
// engine computed before printing it.
func infoTime(lines []string) time.Duration {
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) == 0 || f[0] != "info" || !slices.Contains(f, "depth") {
			continue
		}
		if i := slices.Index(f, "time"); i >= 0 && i+1 < len(f) {
			if v, err := strconv.Atoi(f[i+1]); err == nil {
				return time.Duration(v) * time.Millisecond
			}
		}
	}
	return 0
}

// TestRealNetBenchSignature runs the bench on maia-1100 twice, with 1 and
// 2 threads: the signature is the same.
func TestRealNetBenchSignature(t *testing.T) {
	ortOrSkip(t)
	path := maiaOrSkip(t, "maia-1100")
	ps, err := ParseBenchPositions(BenchPositions)
	if err != nil {
		t.Fatal(err)
	}
	var sigs []uint64
	for _, threads := range []int{1, 2} {
		e := New(nil)
		rep, err := Bench(e, ps, BenchConfig{NetFile: path, Threads: threads})
		e.Close()
		if err != nil {
			t.Fatalf("bench maia-1100 threads %d: %v", threads, err)
		}
		if !strings.HasPrefix(rep.Net, "maia-1100") {
			t.Errorf("net %q, want maia-1100", rep.Net)
		}
		sigs = append(sigs, rep.Signature)
		t.Logf("maia-1100 threads %d: Bench: %016x, go to bestmove p50 %v p99 %v, startup %v", threads, rep.Signature, percentile(rep.Go, 0.5), percentile(rep.Go, 0.99), rep.Startup)
	}
	if sigs[0] != sigs[1] {
		t.Errorf("maia-1100 bench signature: threads 1 %016x, threads 2 %016x; want equal", sigs[0], sigs[1])
	}
}
