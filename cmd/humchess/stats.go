package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/humchess/humchess/nets"
	"github.com/humchess/humchess/nets/calib"
	"github.com/humchess/humchess/nets/load"
	"github.com/humchess/humchess/train/data/games"
	"github.com/humchess/humchess/train/data/pgn"
	"github.com/humchess/humchess/train/data/prep"
	"github.com/humchess/humchess/train/tools/stats"
	"github.com/humchess/humchess/uci/client"
)

// runStats is "humchess stats": human-likeness statistics of sets of games,
// side by side.
func runStats(args []string) error {
	fs := flag.NewFlagSet("stats", flag.ContinueOnError)
	setUsage(fs, "stats [flags] [-set NAME=FILE...] [FILE...]",
		"Prints human-likeness statistics of sets of games side by side: think times by\n"+
			"time control, blunder rate by rating band, game lengths and opening variety.")
	var sets listFlag
	fs.Var(&sets, "set", "a set of games NAME=FILE[,FILE...][@PLAYER] (PGN); @PLAYER keeps that player's games and judges only its moves; repeatable; plain arguments are sets named after the file")
	player := fs.String("player", "", "judge only this player's moves (White/Black tag, any case) in every set without its own @PLAYER")
	maxGames := fs.Int64("max-games", 0, "games per set (0 = all)")
	blunders := fs.String("blunders", "auto", "evaluations for blunders: auto (%eval comments, else the engine), evals, stockfish, off")
	loss := fs.Float64("blunder-loss", 0.15, "a blunder loses at least this expected score")
	engine := fs.String("engine", "/usr/games/stockfish", "engine judging blunders (\"\" = none)")
	nodes := fs.Int64("engine-nodes", 20000, "engine nodes per position")
	depth := fs.Int("engine-depth", 0, "engine depth per position (instead of nodes)")
	engineGames := fs.Int64("engine-games", 200, "games per set analysed by the engine")
	workers := fs.Int("workers", 2, "engine processes")
	timing := fs.Bool("timing", false, "print only the clock use by exact time control (median and p90 at 1 s resolution, recapture and only-move ratios, time-trouble pace, time losses)")
	timingPNG := fs.String("timing-png", "", "with -timing, also draw each set's think-time distribution by time control to this PNG")
	timingMin := fs.Int("timing-min-moves", 300, "with -timing, the judged moves a time control needs in a set to be shown")
	timingSkip := fs.Int("timing-skip-plies", 0, "with -timing, leave out each game's first N plies in every set (8 to compare humans with engine games started from humchess match's 8-ply -openings, which carry no clocks there)")
	timingNet := fs.String("timing-replay", "", "with -timing, also replay every set's games with this net's think time (a HumChess net file, or default for the embedded net): the time the engine's HumanTiming would take at each position, fed the human's clocks, ratings and move")
	timingSplit := fs.String("timing-split", "all", "with -timing, the games: all, validation or train (train/data/prep's split by game id, validation fraction 0.05)")
	timingSeed := fs.Uint64("timing-seed", 1, "with -timing-replay, the seed of the replayed think times")
	timingCal := fs.Bool("timing-replay-calibration", true, "with -timing-replay, scale the think time as the engine does, by the net's calibration (NAME.calib.json beside it, or the shipped one)")
	gaps := fs.Bool("gaps", false, "print only the higher-rated player's score by time class and rating gap, beside the Elo formula's")
	gapsSite := fs.String("gaps-site", "", "with -gaps, keep games whose Site contains this (one rating pool, e.g. lichess.org)")
	gapsMin := fs.Int("gaps-min-games", 20, "with -gaps, the games a bucket needs to be shown")
	gapsMax := fs.Int("gaps-max", 800, "with -gaps, the largest gap shown (0 = all)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for _, a := range fs.Args() {
		sets = append(sets, a)
	}
	if len(sets) == 0 {
		return fmt.Errorf("no games: give -set NAME=FILE or files")
	}
	cfg := stats.Config{MaxGames: *maxGames, Blunders: *blunders, BlunderLoss: *loss, EngineGames: *engineGames, Workers: *workers,
		EngineLimits: client.Limits{Nodes: *nodes, Depth: *depth}}
	if *depth > 0 {
		cfg.EngineLimits.Nodes = 0
	}
	if *engine != "" {
		if _, err := os.Stat(strings.Fields(*engine)[0]); err == nil {
			f := strings.Fields(*engine)
			cfg.Engine = client.Config{Path: f[0], Args: f[1:], Options: []client.Option{{Name: "Threads", Value: "1"}, {Name: "Hash", Value: "16"}}}
		} else if *blunders == stats.BlundersStockfish {
			return fmt.Errorf("-engine %s: %w", *engine, err)
		}
	}
	if *timing {
		return runTiming(sets, *player, *timingPNG, *timingMin, *timingSkip, timingReplay{net: *timingNet, split: *timingSplit, seed: *timingSeed, calibrated: *timingCal})
	}
	if *gaps {
		return runGaps(sets, *gapsSite, *gapsMin, *gapsMax)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var out []*stats.Set
	for _, s := range sets {
		name, files, p := parseSet(s, *player)
		cfg.Player = p
		st, err := stats.Run(ctx, name, strings.Split(files, ","), cfg)
		if err != nil {
			return err
		}
		out = append(out, st)
	}
	return stats.WriteText(os.Stdout, out)
}

// runTiming is "humchess stats -timing": the clock use of each set by
// time control, as a table and optionally a PNG.
func runTiming(sets []string, player, png string, minMoves, skip int, r timingReplay) error {
	if skip < 0 {
		return fmt.Errorf("-timing-skip-plies %d: want 0 or more", skip)
	}
	var keep func(*pgn.Game) bool
	switch r.split {
	case "", "all":
	case "validation", "train":
		val, frac := r.split == "validation", prep.DefaultConfig().ValFraction
		keep = func(g *pgn.Game) bool { return games.IsValidation(games.ID(g), frac) == val }
	default:
		return fmt.Errorf("-timing-split %q: want all, validation or train", r.split)
	}
	var net nets.Net
	var reshape func(base, inc float64) (scale, power float64)
	label := ""
	if r.net != "" {
		checkRuntime(os.Stderr)
		var err error
		if r.net == "default" {
			net, err = load.Default(load.Options{Threads: 1})
		} else {
			net, err = load.Open(r.net, load.Options{Threads: 1})
		}
		if err != nil {
			return fmt.Errorf("-timing-replay: %w", err)
		}
		defer net.Close()
		if len(net.Info().ThinkBinEdges) == 0 {
			return fmt.Errorf("-timing-replay %s: net %s has no think-time head", r.net, net.Info().Name)
		}
		if r.calibrated {
			file := r.net
			if file == "default" {
				file = ""
			}
			c, err := calib.For(file, net.Info().Hash)
			if err != nil {
				return fmt.Errorf("-timing-replay: %w", err)
			}
			if c != nil && len(c.Think) > 0 {
				reshape, label = c.ThinkAt, " with its calibration's think scale"
			}
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var out []*stats.TimingSet
	for _, s := range sets {
		name, files, p := parseSet(s, player)
		st, err := stats.RunTimingReplay(name, strings.Split(files, ","), p, skip, keep, nil)
		if err != nil {
			return err
		}
		out = append(out, st)
		if net != nil {
			st, err := stats.RunTimingReplay(name+" replayed by "+net.Info().Name+label, strings.Split(files, ","), p, skip, keep, stats.NetReplay(ctx, net, r.seed, reshape))
			if err != nil {
				return err
			}
			out = append(out, st)
		}
	}
	if err := stats.WriteTimingText(os.Stdout, out, minMoves); err != nil {
		return err
	}
	if png == "" {
		return nil
	}
	b, err := stats.TimingPNG(out, minMoves)
	if err != nil {
		return fmt.Errorf("-timing-png: %w", err)
	}
	return os.WriteFile(png, b, 0o644)
}

// timingReplay is what -timing-replay, -timing-split and -timing-seed ask.
type timingReplay struct {
	net, split string
	seed       uint64
	calibrated bool
}

// runGaps is "humchess stats -gaps": the higher-rated player's score by
// rating gap in each set.
func runGaps(sets []string, site string, minGames, maxGap int) error {
	var out []*stats.Gaps
	for _, s := range sets {
		name, files, _ := parseSet(s, "")
		g, err := stats.RunGaps(name, strings.Split(files, ","), site)
		if err != nil {
			return err
		}
		out = append(out, g)
	}
	return stats.WriteGapsText(os.Stdout, out, minGames, maxGap)
}

// parseSet splits a -set value NAME=FILE[,FILE...][@PLAYER] (or a plain
// FILE, named after itself) into its name, files and player; player is the
// default player when the value names none.
func parseSet(s, player string) (name, files, who string) {
	name, files, ok := strings.Cut(s, "=")
	if !ok {
		files = s
	}
	if i := strings.LastIndex(files, "@"); i >= 0 {
		files, player = files[:i], files[i+1:]
	}
	if !ok {
		name = files
	}
	return name, files, player
}
