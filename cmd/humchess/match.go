package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/humchess/humchess/train/tools/match"
	"github.com/humchess/humchess/uci/client"
)

// runMatch is "humchess match": two UCI engines play each other.
func runMatch(args []string) error {
	fs := flag.NewFlagSet("match", flag.ContinueOnError)
	setUsage(fs, "match -engine1 COMMAND -engine2 COMMAND [flags]",
		"Plays games between two UCI engines (each opening twice, colours swapped) and\n"+
			"prints the score; -pgn writes the games.")
	var cmds, names, options [2]string
	var elos [2]int
	for i := range 2 {
		n := i + 1
		fs.StringVar(&cmds[i], fmt.Sprintf("engine%d", n), "", fmt.Sprintf("engine %d: command line (program and arguments)", n))
		fs.StringVar(&names[i], fmt.Sprintf("name%d", n), "", fmt.Sprintf("engine %d: name in the PGN (default its id name)", n))
		fs.StringVar(&options[i], fmt.Sprintf("options%d", n), "", fmt.Sprintf("engine %d: setoption Name=Value,Name=Value", n))
		fs.IntVar(&elos[i], fmt.Sprintf("elo%d", n), 0, fmt.Sprintf("engine %d: rating written in the PGN (default its UCI_Elo option)", n))
	}
	tc := fs.String("tc", "", "time control base+inc in seconds, e.g. 60+0.6")
	nodes := fs.Int64("nodes", 0, "go nodes N (instead of or with a clock)")
	depth := fs.Int("depth", 0, "go depth N")
	movetime := fs.Duration("movetime", 0, "go movetime")
	games := fs.Int("games", 10, "games to play (openings are played twice, colours swapped)")
	conc := fs.Int("concurrency", 1, "games at once")
	openings := fs.String("openings", "", "openings: a PGN (.pgn/.zst/.bz2, its games' first -opening-plies moves) or an .epd/.fen file")
	openPlies := fs.Int("opening-plies", 8, "plies taken from each PGN game")
	seed := fs.Uint64("seed", 1, "shuffle of the openings")
	maxPlies := fs.Int("max-plies", 400, "a game this long is a draw (0 = no limit)")
	margin := fs.Duration("margin", 50*time.Millisecond, "time an engine may overstep its clock")
	stall := fs.Duration("stall", 10*time.Second, "wait for a move beyond the limit before declaring a stall")
	thinkClock := fs.Bool("think-clock", false, "with -tc: charge each move the think time the engine reports (HumChess in debug mode, which the match turns on) plus -lag, not the wall time, so a loaded machine does not change the clocks")
	lag := fs.Duration("lag", 20*time.Millisecond, "with -think-clock: charged per move on top of the reported think")
	ready := fs.Duration("ready-timeout", 0, "how long an engine may take to start (uciok, readyok) and to answer isready; 0 = 10 s to start, 5 s for isready (raise it for engines under Wine)")
	adjCmd := fs.String("adjudicate", "", "adjudicating engine command, e.g. /usr/games/stockfish")
	adjNodes := fs.Int64("adjudicate-nodes", 20000, "adjudicator's nodes per position")
	adjCP := fs.Int("adjudicate-cp", 800, "adjudicate a win at this evaluation, centipawns")
	adjPlies := fs.Int("adjudicate-plies", 6, "... held for this many consecutive plies")
	pgnOut := fs.String("pgn", "", "write the games to this PGN file")
	event := fs.String("event", "", "PGN Event tag")
	quiet := fs.Bool("quiet", false, "no progress lines")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg := match.Config{Games: *games, Concurrency: *conc, MaxPlies: *maxPlies, Margin: *margin, StallTimeout: *stall, ReadyTimeout: *ready, Event: *event,
		ThinkClock: *thinkClock, Lag: *lag,
		TC: match.TimeControl{Nodes: *nodes, Depth: *depth, MoveTime: *movetime}}
	if *tc != "" {
		t, err := match.ParseTimeControl(*tc)
		if err != nil {
			return err
		}
		cfg.TC.Base, cfg.TC.Inc = t.Base, t.Inc
	}
	for i := range 2 {
		f := strings.Fields(cmds[i])
		if len(f) == 0 {
			return fmt.Errorf("-engine%d is required", i+1)
		}
		opts, err := parseOptions(options[i])
		if err != nil {
			return fmt.Errorf("-options%d: %w", i+1, err)
		}
		cfg.Engines[i] = match.EngineSpec{Name: names[i], Path: f[0], Args: f[1:], Options: opts, Elo: elos[i]}
	}
	if *adjCmd != "" {
		f := strings.Fields(*adjCmd)
		cfg.Adjudicate = &match.Adjudication{Engine: match.EngineSpec{Path: f[0], Args: f[1:]},
			Limits: client.Limits{Nodes: *adjNodes}, WinCP: *adjCP, Plies: *adjPlies}
	}
	if *openings != "" {
		o, err := match.LoadOpenings(*openings, *openPlies, 0)
		if err != nil {
			return err
		}
		cfg.Openings = match.Shuffle(o, *seed)
	}
	if *pgnOut != "" {
		f, err := os.Create(*pgnOut)
		if err != nil {
			return err
		}
		defer f.Close()
		cfg.PGN = f
	}
	if !*quiet {
		cfg.Progress = os.Stderr
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	sum, err := match.Run(ctx, cfg)
	if sum == nil && *pgnOut != "" {
		_ = os.Remove(*pgnOut) // the match never started (an engine failed or refused an option): leave no empty PGN
	}
	if sum != nil {
		if werr := sum.WriteText(os.Stdout); werr != nil && err == nil {
			err = werr
		}
	}
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("interrupted: %w", err)
	}
	return err
}
