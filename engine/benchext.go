package engine

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/uci/client"
)

// ExternalBenchConfig says how to time another UCI engine (an engine
// binary, HumChess or not) on the bench positions.
type ExternalBenchConfig struct {
	Command []string        // the program and its arguments
	Options []client.Option // setoptions sent after uciok (a refused one fails the run)
	Go      string          // the go arguments, the same for every position ("nodes 1")
	N       int             // positions to play; 0 = each once
	Each    io.Writer       // one line per position played (time, bestmove); nil = none
}

// ExternalBenchReport is what one run against an external engine measured.
type ExternalBenchReport struct {
	Engine  string          // the engine's UCI id name
	Command string          // its command line
	GoLine  string          // the go command sent
	Startup time.Duration   // from starting the process to the first readyok (options included)
	Go      []time.Duration // go to bestmove, per position, timed from outside the process
}

// Write prints the report.
func (r ExternalBenchReport) Write(w io.Writer) {
	var total time.Duration
	for _, d := range r.Go {
		total += d
	}
	fmt.Fprintf(w, "engine              %s (%s)\n", r.Engine, r.Command)
	fmt.Fprintf(w, "go                  %s\n", r.GoLine)
	fmt.Fprintf(w, "positions           %d\n", len(r.Go))
	fmt.Fprintf(w, "startup to readyok  %s\n", ms(r.Startup))
	if len(r.Go) > 0 {
		fmt.Fprintf(w, "go to bestmove      p50 %s  p90 %s  p99 %s  max %s  mean %s\n",
			ms(percentile(r.Go, 0.50)), ms(percentile(r.Go, 0.90)), ms(percentile(r.Go, 0.99)),
			ms(slices.Max(r.Go)), ms(total/time.Duration(len(r.Go))))
	}
}

// BenchExternal plays the bench positions ps on the engine cfg.Command
// starts, as a GUI would (position with the moves, then go), and times each
// go to its bestmove from outside the process: the figure to put beside
// Bench's for another engine (Lc0 with a Maia net at "go nodes 1") or for a
// HumChess binary. One untimed go on the first position comes first. Every
// bestmove must be legal.
func BenchExternal(ctx context.Context, ps []BenchPosition, cfg ExternalBenchConfig) (ExternalBenchReport, error) {
	rep := ExternalBenchReport{Command: strings.Join(cfg.Command, " ")}
	if len(cfg.Command) == 0 {
		return rep, fmt.Errorf("no engine command")
	}
	if strings.TrimSpace(cfg.Go) == "" {
		return rep, fmt.Errorf("the go arguments are empty: give a limit such as \"nodes 1\"")
	}
	lim := client.Limits{Raw: cfg.Go}
	rep.GoLine = lim.Command()
	n := cfg.N
	if n <= 0 {
		n = len(ps)
	}
	games := make([]*board.Game, len(ps)) // for the legality check, built once
	for i, p := range ps {
		g, err := p.game()
		if err != nil {
			return rep, fmt.Errorf("position %d (%s): %w", i+1, p.Name, err)
		}
		games[i] = g
	}
	var stderr bytes.Buffer
	t0 := time.Now()
	e, err := client.Start(ctx, client.Config{
		Path: cfg.Command[0], Args: cfg.Command[1:], Options: cfg.Options, Stderr: &stderr,
		InitTimeout: benchStartupWait, ReadyTimeout: benchGoTimeout,
	})
	if err != nil {
		return rep, fmt.Errorf("starting %q: %w%s", rep.Command, err, tail(stderr.String()))
	}
	defer e.Close()
	rep.Startup = time.Since(t0)
	rep.Engine = e.Name()
	// One untimed go first: Lc0 loads its net at the first go, not at isready.
	if len(ps) > 0 {
		if err := e.Position(ps[0].FEN, ps[0].Moves); err != nil {
			return rep, fmt.Errorf("warm-up: %w", err)
		}
		if _, err := e.Go(ctx, lim, benchStartupWait); err != nil {
			return rep, fmt.Errorf("warm-up: %s: %w%s", rep.GoLine, err, tail(stderr.String()))
		}
	}
	for i := range n {
		p, g := ps[i%len(ps)], games[i%len(ps)]
		if err := e.Position(p.FEN, p.Moves); err != nil {
			return rep, fmt.Errorf("position %d (%s): %w", i+1, p.Name, err)
		}
		r, err := e.Go(ctx, lim, benchGoTimeout)
		if err != nil {
			return rep, fmt.Errorf("position %d (%s): %s: %w%s", i+1, p.Name, rep.GoLine, err, tail(stderr.String()))
		}
		if !slices.ContainsFunc(g.LegalMoves(), func(m board.Move) bool { return m.String() == r.BestMove }) {
			return rep, fmt.Errorf("position %d (%s, %s): bestmove %q is not legal", i+1, p.Name, g.FEN(), r.BestMove)
		}
		rep.Go = append(rep.Go, r.Elapsed)
		if cfg.Each != nil {
			fmt.Fprintf(cfg.Each, "%4d %-60s %9s  bestmove %s\n", i+1, p.Name, ms(r.Elapsed), r.BestMove)
		}
	}
	return rep, nil
}

// tail is the end of an engine's stderr, for an error message.
func tail(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if len(s) > 500 {
		s = "..." + s[len(s)-500:]
	}
	return "\nstderr: " + s
}
