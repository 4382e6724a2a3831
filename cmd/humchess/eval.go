package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/humchess/humchess/nets"
	"github.com/humchess/humchess/nets/load"
	"github.com/humchess/humchess/train/data/games"
	"github.com/humchess/humchess/train/tools/eval"
	"github.com/humchess/humchess/uci/client"
)

// listFlag collects a repeated string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// parseOptions parses "Name=Value,Name2=Value2" into UCI options.
func parseOptions(s string) ([]client.Option, error) {
	var out []client.Option
	for _, kv := range strings.Split(s, ",") {
		if strings.TrimSpace(kv) == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("option %q: want Name=Value", kv)
		}
		out = append(out, client.Option{Name: strings.TrimSpace(k), Value: strings.TrimSpace(v)})
	}
	return out, nil
}

// meanSpec parses a -mean value, NAME=A[:W],B[:W],..., whose members are
// contestants already given.
func meanSpec(v string, have []eval.Spec) (eval.Spec, error) {
	name, list, ok := strings.Cut(v, "=")
	if !ok || strings.TrimSpace(name) == "" {
		return eval.Spec{}, fmt.Errorf("-mean %q: want NAME=A,B[,...]", v)
	}
	var members []eval.Spec
	var weights []float64
	for _, m := range strings.Split(list, ",") {
		mn, ws, hasW := strings.Cut(strings.TrimSpace(m), ":")
		w := 1.0
		if hasW {
			var err error
			if w, err = strconv.ParseFloat(ws, 64); err != nil {
				return eval.Spec{}, fmt.Errorf("-mean %q: weight %q: %v", v, ws, err)
			}
		}
		i := slices.IndexFunc(have, func(s eval.Spec) bool { return s.Name == mn })
		if i < 0 {
			return eval.Spec{}, fmt.Errorf("-mean %q: %q is not a -net contestant given before", v, mn)
		}
		members = append(members, have[i])
		weights = append(weights, w)
	}
	s, err := eval.MeanSpec(strings.TrimSpace(name), members, weights)
	if err != nil {
		return eval.Spec{}, fmt.Errorf("-mean %q: %w", v, err)
	}
	return s, nil
}

// runEval is "humchess eval": move matching of nets and engines on a PGN.
func runEval(args []string) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	var netsF, engines listFlag
	fs.Var(&netsF, "net", "contestant NAME=PATH: a HumChess .onnx, a Maia/Lc0 .pb.gz, or a folder of maia-1100..1900.pb.gz for maia-auto (the net of the mover's band), or default for the embedded net; repeatable")
	fs.Var(&engines, "engine", "contestant NAME=COMMAND [ARGS...]: an external UCI engine (top-1 only); repeatable")
	engineGo := fs.String("engine-go", "nodes 1", "what follows \"go\" for -engine contestants")
	engineOpts := fs.String("engine-options", "", "setoption for -engine contestants: Name=Value,Name=Value")
	engineElo := fs.Bool("engine-elo", false, "send setoption UCI_Elo <mover rating> before each position to -engine contestants")
	eloMin := fs.Int("engine-elo-min", 0, "clamp the UCI_Elo sent to at least this (0 = no clamp)")
	eloMax := fs.Int("engine-elo-max", 0, "clamp the UCI_Elo sent to at most this (0 = no clamp)")
	split := fs.String("split", "all", "games: all, validation or train (train/data/prep's split by game id)")
	valFrac := fs.Float64("val-fraction", 0.05, "the validation fraction of the split (train/data/prep's -val-fraction)")
	workers := fs.Int("workers", 0, "goroutines (0 = all cores)")
	maxGames := fs.Int64("max-games", 0, "stop after this many games (0 = all)")
	keepBots := fs.Bool("keep-bots", false, "keep games a BOT account plays")
	keepUnrated := fs.Bool("keep-unrated", false, "keep games with a missing rating")
	oppBand := fs.Int("opp-band", 100, "width of the opponent-rating bands (100 or 200)")
	ratingMap := fs.String("rating-map", "", "move other sites' ratings onto one scale first, as prep's -rating-map: \"\" (none), \""+games.ShippedRatingMap+"\" or a JSON file")
	var netMaps listFlag
	fs.Var(&netMaps, "net-rating-map", "NAME=MAP: contestant NAME reads ratings mapped by MAP instead of -rating-map's (\"none\" for the PGN's), for a net trained on another scale; the tables keep -rating-map's; repeatable")
	var means listFlag
	fs.Var(&means, "mean", "contestant NAME=A,B[,...]: an ensemble of the -net contestants A, B, ...: the weighted mean of their move distributions (weights as A:3,B:1; equal by default), the first member's value and think-time heads; repeatable")
	var compares listFlag
	fs.Var(&compares, "compare", "two contestants whose paired difference is reported, NAME1,NAME2 (first minus second); repeatable, one column each (default: the first two)")
	dims := fs.String("dims", strings.Join(eval.Dimensions, ","), "breakdowns printed on the terminal")
	csvPath := fs.String("csv", "", "write the full tables as CSV to this file")
	plots := fs.String("plots", "", "write PNG plots (accuracy by rating band) into this folder")
	quiet := fs.Bool("quiet", false, "no progress lines")
	setUsage(fs, "eval [flags] GAMES.pgn[.zst|.bz2] ...",
		"Measures how often nets and engines play the move the human played in the games\n"+
			"(move matching: top-1, top-3, cross-entropy), by rating band, time class, phase and clock.")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg := eval.Config{Inputs: fs.Args(), Split: *split, ValFraction: *valFrac, Workers: *workers, MaxGames: *maxGames,
		KeepBots: *keepBots, KeepUnrated: *keepUnrated, OppBand: *oppBand}
	rmap, err := games.LoadRatingMap(*ratingMap)
	if err != nil {
		return err
	}
	cfg.RatingMap = rmap
	if len(cfg.Inputs) == 0 {
		fs.Usage()
		return errors.New("no PGN given")
	}
	for _, n := range netsF {
		name, path, ok := strings.Cut(n, "=")
		if !ok {
			name, path = strings.TrimSuffix(filepath.Base(n), ".pb.gz"), n
		}
		if path == "default" {
			cfg.Contestants = append(cfg.Contestants, eval.NetContestantSpec(name, func() (nets.Net, error) {
				return load.Default(load.Options{})
			}))
			continue
		}
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			s, err := eval.MaiaAutoSpec(name, path)
			if err != nil {
				return err
			}
			cfg.Contestants = append(cfg.Contestants, s)
			continue
		}
		cfg.Contestants = append(cfg.Contestants, eval.NetSpec(name, path))
	}
	opts, err := parseOptions(*engineOpts)
	if err != nil {
		return err
	}
	for _, e := range engines {
		name, cmd, ok := strings.Cut(e, "=")
		if !ok {
			return fmt.Errorf("-engine %q: want NAME=COMMAND", e)
		}
		f := strings.Fields(cmd)
		if len(f) == 0 {
			return fmt.Errorf("-engine %q: empty command", e)
		}
		cfg.Contestants = append(cfg.Contestants, eval.UCISpec(name, eval.EngineSpec{Path: f[0], Args: f[1:], Options: opts,
			Go: *engineGo, SetElo: *engineElo, EloMin: *eloMin, EloMax: *eloMax}))
	}
	if len(cfg.Contestants) == 0 {
		return errors.New("no contestant: give -net or -engine")
	}
	for _, nm := range netMaps {
		name, spec, ok := strings.Cut(nm, "=")
		i := slices.IndexFunc(cfg.Contestants, func(s eval.Spec) bool { return s.Name == name })
		if !ok || i < 0 {
			return fmt.Errorf("-net-rating-map %q: want NAME=MAP, NAME a contestant", nm)
		}
		m, err := games.LoadRatingMap(spec)
		if err != nil {
			return fmt.Errorf("-net-rating-map %q: %w", nm, err)
		}
		cfg.Contestants[i].OwnScale, cfg.Contestants[i].RatingMap = true, m
	}
	for _, m := range means {
		s, err := meanSpec(m, cfg.Contestants)
		if err != nil {
			return err
		}
		cfg.Contestants = append(cfg.Contestants, s)
	}
	for _, compare := range compares {
		a, b, ok := strings.Cut(compare, ",")
		ia, ib := -1, -1
		for i, s := range cfg.Contestants {
			if s.Name == strings.TrimSpace(a) {
				ia = i
			}
			if s.Name == strings.TrimSpace(b) {
				ib = i
			}
		}
		if !ok || ia < 0 || ib < 0 {
			return fmt.Errorf("-compare %q: want two contestant names", compare)
		}
		cfg.Compare = append(cfg.Compare, [2]int{ia, ib})
	}
	if !*quiet {
		cfg.Progress = os.Stderr
	}
	checkRuntime(os.Stderr)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := eval.Run(ctx, cfg)
	if err != nil {
		return err
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(os.Stderr, "eval: warning: %s\n", w)
	}
	var dl []string
	for _, d := range strings.Split(*dims, ",") {
		if d = strings.TrimSpace(d); d != "" {
			dl = append(dl, d)
		}
	}
	if err := rep.WriteText(os.Stdout, dl); err != nil {
		return err
	}
	if *csvPath != "" {
		f, err := os.Create(*csvPath)
		if err != nil {
			return err
		}
		if err := rep.WriteCSV(f); err != nil {
			_ = f.Close() // the write error is the one to report
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		fmt.Fprintln(os.Stderr, "eval: wrote", *csvPath)
	}
	if *plots != "" {
		if err := os.MkdirAll(*plots, 0o755); err != nil {
			return err
		}
		files, err := rep.WritePlots(*plots)
		if err != nil {
			return err
		}
		fmt.Fprintln(os.Stderr, "eval: wrote", strings.Join(files, " "))
	}
	fmt.Fprintf(os.Stderr, "eval: %.0f positions/s\n", float64(rep.Positions(eval.ProtocolAll))/max(rep.Seconds, 1e-9))
	return nil
}
