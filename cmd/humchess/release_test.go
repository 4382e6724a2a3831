package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/engine"
	"github.com/humchess/humchess/uci/client"
)

// Environment of TestReleaseEngine, set by scripts/ci-windows.sh (or by hand
// to time a build):
//
//	HUMCHESS_RELEASE_ENGINE     the engine's command line, e.g.
//	                            "../shared/tools/wine/run build/release/humchess-windows-amd64.exe"
//	HUMCHESS_RELEASE_POSITIONS  positions to play, cycling through the bench set (default: each once)
//	HUMCHESS_RELEASE_DIR        the working directory for the command (default: the repository root)
const (
	envReleaseEngine    = "HUMCHESS_RELEASE_ENGINE"
	envReleasePositions = "HUMCHESS_RELEASE_POSITIONS"
	envReleaseDir       = "HUMCHESS_RELEASE_DIR"
)

// TestReleaseEngine drives a built engine as a GUI would: uci, isready,
// then the bench positions (promotions, en passant, castling, checks) with
// the blunder filter and human timing off, checking that every bestmove is
// legal, and logs go to bestmove (p50, p99) timed from outside the process.
// It runs only when HUMCHESS_RELEASE_ENGINE names the engine.
func TestReleaseEngine(t *testing.T) {
	cmdline := os.Getenv(envReleaseEngine)
	if cmdline == "" {
		t.Skipf("%s is not set (scripts/ci-windows.sh sets it)", envReleaseEngine)
	}
	ps, err := engine.ParseBenchPositions(engine.BenchPositions)
	if err != nil {
		t.Fatal(err)
	}
	n := len(ps)
	if s := os.Getenv(envReleasePositions); s != "" {
		if n, err = strconv.Atoi(s); err != nil || n < 1 {
			t.Fatalf("%s=%q: want a positive count", envReleasePositions, s)
		}
	}
	dir := os.Getenv(envReleaseDir)
	if dir == "" {
		dir = "../.."
	}
	f := strings.Fields(cmdline)
	var stderr bytes.Buffer
	ctx := context.Background()
	t0 := time.Now()
	e, err := client.Start(ctx, client.Config{
		Path: f[0], Args: f[1:], Dir: dir, Stderr: &stderr,
		Options: []client.Option{
			{Name: "BlunderFilter", Value: "false"},
			{Name: "HumanTiming", Value: "false"},
			{Name: "Temperature", Value: "0"},
		},
		InitTimeout:  2 * time.Minute, // Wine's first start makes its prefix
		ReadyTimeout: time.Minute,
	})
	if err != nil {
		t.Fatalf("starting %q: %v\nstderr:\n%s", cmdline, err, stderr.String())
	}
	defer e.Close()
	started := time.Since(t0)
	if !strings.HasPrefix(e.Name(), "HumChess") {
		t.Errorf("id name %q, want HumChess ...", e.Name())
	}
	var times []time.Duration
	for i := range n {
		p := ps[i%len(ps)]
		g, err := board.NewGame(p.FEN)
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		for _, m := range p.Moves {
			if err := g.Play(m); err != nil {
				t.Fatalf("%s: move %s: %v", p.Name, m, err)
			}
		}
		for _, o := range []client.Option{{Name: "UCI_Elo", Value: strconv.Itoa(p.Elo)}, {Name: "OpponentElo", Value: strconv.Itoa(p.OppElo)}} {
			if err := e.SetOption(o.Name, o.Value); err != nil {
				t.Fatalf("%s: setoption %s: %v", p.Name, o.Name, err)
			}
		}
		if err := e.Position(p.FEN, p.Moves); err != nil {
			t.Fatalf("%s: position: %v", p.Name, err)
		}
		clock := p.Clock
		if clock == "" {
			clock = "movetime 1000"
		}
		r, err := e.Go(ctx, client.Limits{Raw: clock}, time.Minute)
		if err != nil {
			t.Fatalf("%s: go %s: %v\nstderr:\n%s", p.Name, clock, err, stderr.String())
		}
		legal := slices.ContainsFunc(g.LegalMoves(), func(m board.Move) bool { return m.String() == r.BestMove })
		if !legal {
			t.Errorf("%s (%s): bestmove %s is not legal", p.Name, g.FEN(), r.BestMove)
		}
		times = append(times, r.Elapsed)
	}
	if err := e.IsReady(ctx); err != nil {
		t.Fatalf("isready after the positions: %v", err)
	}
	if s := stderr.String(); strings.Contains(s, "panic") || strings.Contains(s, "error") {
		t.Errorf("the engine's stderr:\n%s", s)
	}
	slices.Sort(times)
	q := func(x float64) string {
		return fmt.Sprintf("%.2f ms", float64(times[int(x*float64(len(times)-1))])/1e6)
	}
	t.Logf("%s: started (uciok, readyok) in %.1f s; %d positions, go to bestmove p50 %s p99 %s max %s (BlunderFilter false, HumanTiming false, Temperature 0)",
		cmdline, started.Seconds(), len(times), q(0.5), q(0.99), q(1))
}
