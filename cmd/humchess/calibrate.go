package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/humchess/humchess/nets/calib"
	"github.com/humchess/humchess/nets/load"
	"github.com/humchess/humchess/train/data/prep"
	"github.com/humchess/humchess/train/tools/calibrate"
	"github.com/humchess/humchess/train/tools/match"
)

// runCalibrate is "humchess calibrate NET": measure what UCI_Elo means for a
// net against human play and fit its calibration.
func runCalibrate(args []string) error {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	setUsage(fs, "calibrate [flags] NET\n       humchess calibrate -pool [-out DIR] SPREAD.pgn|PROFILE.pgn ...",
		"Plays NET against itself at each UCI_Elo label on a virtual human clock, judges every move\n"+
			"with Stockfish at a fixed node count, compares the blunder rate and centipawn loss with human\n"+
			"players of the same band and time class, fits the calibration (temperature and blunder-filter\n"+
			"scale per label) over -rounds, then plays the spread matches (X vs X-400) and the reference\n"+
			"matches (Maia-X, Stockfish UCI_Elo X) and times the blunder filter. Prints the tables, writes\n"+
			"PNGs, the games and NAME.calib.json to -out; -install copies the calibration beside NET.\n"+
			"With -pool it plays nothing: it sums the games of earlier runs (one seed or several):\n"+
			"the spread games (final/spread-X-Y.pgn) by match, and the profile games\n"+
			"(roundK/profile-L.pgn, judged, the judgement cached in -out) by label, each label's\n"+
			"files of one setting (read from the calibration beside them); prints the pooled\n"+
			"tables and writes spread.png, ladder.png, blunders.png and cpl.png to -out.")
	engine := fs.String("engine", "", "the humchess program playing (default: a copy of this one in -out, so a rebuild cannot change it mid-run)")
	out := fs.String("out", "build/calib/run", "output folder: games, PNGs, the calibration, the human profile cache")
	humans := fs.String("humans", "", "human games, comma-separated PGN files (default: ../shared/data's "+calibrate.HumansLichessSample+" and "+calibrate.HumansLichessMisc+", and for a rapid -tc also "+calibrate.HumansLichessRapid+")")
	site := fs.String("human-site", "lichess.org", "keep human games whose Site contains this (one rating pool)")
	perBand := fs.Int("humans-per-band", 60, "human games judged per 200-point band of the players' mean rating")
	tc := fs.String("tc", "180+2", "the games' time control (the net sees these clocks, run down like a human's); its time class's points are fitted: with a -start whose base points are of another class, they are written as that class's points beside the base ones")
	openings := fs.String("openings", "../shared/data/lichess-2022-06-2500.pgn.zst", "openings: a PGN whose games' first -opening-plies moves start the games")
	openPlies := fs.Int("opening-plies", 8, "plies taken from each opening game (and left out of the humans' profile)")
	seed := fs.Uint64("seed", 1, "shuffle of the openings")
	labels := fs.String("labels", "800:2400:200", "UCI_Elo labels of the error profile, FROM:TO:STEP or a list")
	rounds := fs.Int("rounds", 3, "profile rounds: the first measures the start settings, each next one a fitted step")
	profileGames := fs.Int("profile-games", 20, "self-play games per label per round")
	monotone := fs.Bool("monotone", true, "keep each fitted step's temperature and filter scale non-increasing with the label")
	tops := fs.String("spread", "1200:2400:400", "X of the spread matches X vs X-gap, FROM:TO:STEP or a list")
	gap := fs.Int("spread-gap", 400, "rating gap of the spread matches")
	spreadGames := fs.Int("spread-games", 60, "games per spread match")
	maia := fs.String("maia", "../shared/maia", "folder of maia-X.pb.gz for the Maia references (\"\" = none)")
	maiaLabels := fs.String("maia-labels", "1100,1500,1900", "X of UCI_Elo X vs Maia-X")
	stockfish := fs.String("stockfish", "/usr/games/stockfish", "Stockfish program, the judge and the reference")
	sfLabels := fs.String("stockfish-labels", "1500,2000,2400", "X of UCI_Elo X vs Stockfish UCI_LimitStrength UCI_Elo max(X,1320)")
	sfNodes := fs.Int64("stockfish-nodes", 50000, "the reference Stockfish's nodes per move")
	refGames := fs.Int("ref-games", 20, "games per reference match (0 = none)")
	judgeNodes := fs.Int64("judge-nodes", 10000, "Stockfish nodes per judged position (fixed: the profile is reproducible)")
	filterPos := fs.Int("filter-positions", 100, "positions timed for the blunder filter's cost")
	workers := fs.Int("workers", 2, "games at once and judging processes")
	start := fs.String("start", "", "start from this calibration file, this net's or another's: its points for -tc's time class, else its base points (default: none, UCI_Elo to the net as is)")
	install := fs.Bool("install", false, "copy the fitted calibration beside NET (calib.PathFor)")
	think := fs.Bool("think", true, "also fit the think-time scale by time control: replay -think-humans' training games with NET's think time and scale it to the humans'")
	thinkOnly := fs.Bool("think-only", false, "only fit the think-time scale (no games): the UCI_Elo points are -start's, else the calibration NET already has")
	thinkHumans := fs.String("think-humans", "../shared/data/lichess-2022-06-2500.pgn.zst", "human games with clocks for the think-time fit, comma-separated PGN files (their training split: train/data/prep's split by game id)")
	thinkMin := fs.Int("think-min-moves", 2000, "human moves a time control needs for a think-time point")
	thinkSelf := fs.String("think-selfplay", "", "correct the think-time points of -start (else of NET's calibration) from self-play games played with them (humchess match PGN with HumanTiming on, comma-separated): a control whose median or p90 there is more than 10% off the humans', by more than the games' own noise, gets the reshaping that moves them onto the humans', and one whose recapture ratio out of time trouble is off so gets the recapture factor that moves it onto theirs; no replay, no games")
	pool := fs.Bool("pool", false, "play nothing: pool the games of earlier runs (the arguments: their spread-X-Y.pgn and profile-L.pgn files), print the pooled spread and error profile and write their charts to -out")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *pool {
		pc := calibrate.PoolConfig{Files: fs.Args(), Judge: *stockfish, JudgeNodes: *judgeNodes, Workers: *workers, DataDir: "../shared/data",
			HumanSite: *site, HumansPerBand: *perBand, OpeningPlies: *openPlies, OutDir: *out, Progress: os.Stderr}
		if *humans != "" {
			pc.Humans = strings.Split(*humans, ",")
		}
		return poolRuns(pc)
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("calibrate needs one NET file")
	}
	netFile := fs.Arg(0)
	checkRuntime(os.Stderr)
	net, err := load.Open(netFile, load.Options{})
	if err != nil {
		return err
	}
	info := net.Info()
	if err := net.Close(); err != nil {
		return err
	}
	cfg := calibrate.Config{Net: netFile, NetName: info.Name, NetHash: info.Hash, HumanSite: *site, HumansPerBand: *perBand,
		Rounds: *rounds, ProfileGames: *profileGames, Monotone: *monotone, SpreadGap: *gap, SpreadGames: *spreadGames, MaiaDir: *maia,
		Stockfish: *stockfish, StockfishNodes: *sfNodes, RefGames: *refGames, Judge: *stockfish, JudgeNodes: *judgeNodes,
		FilterPositions: *filterPos, OpeningPlies: *openPlies, Workers: *workers, OutDir: *out, Progress: os.Stderr}
	t, err := match.ParseTimeControl(*tc)
	if err != nil {
		return err
	}
	cfg.TC = t
	cfg.Humans = calibrate.DefaultHumans("../shared/data", cfg.Class()) // where the other flags' default files are
	if *humans != "" {
		cfg.Humans = strings.Split(*humans, ",")
	}
	for _, l := range []struct {
		flag string
		s    string
		dst  *[]int
	}{{"labels", *labels, &cfg.Labels}, {"spread", *tops, &cfg.SpreadTops}, {"maia-labels", *maiaLabels, &cfg.MaiaLabels},
		{"stockfish-labels", *sfLabels, &cfg.StockfishLabel}} {
		if *l.dst, err = parseInts(l.s); err != nil {
			return fmt.Errorf("-%s: %w", l.flag, err)
		}
	}
	// -think-only and -think-selfplay play no games: they need no openings.
	if *openings != "" && !*thinkOnly && *thinkSelf == "" {
		o, err := match.LoadOpenings(*openings, *openPlies, 0)
		if err != nil {
			return err
		}
		cfg.Openings = match.Shuffle(o, *seed)
	}
	if *start != "" {
		if cfg.Start, err = calib.ReadFile(*start); err != nil {
			return err
		}
		if cfg.Start.NetHash != info.Hash {
			// Another net's fitted settings are a closer first guess than
			// the identity for a net of the same run; the result is this net's.
			fmt.Fprintf(os.Stderr, "calibrate: -start %s was fitted for %s; its settings are the first round's, the calibration written is %s's\n", *start, cfg.Start.Net, info.Name)
			cfg.Start.Net, cfg.Start.NetHash = info.Name, info.Hash
		}
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	tcfg := calibrate.ThinkConfig{Humans: strings.Split(*thinkHumans, ","), Site: *site, ValFraction: prep.DefaultConfig().ValFraction,
		MinMoves: *thinkMin, Seed: *seed, SkipPlies: *openPlies}
	if *thinkOnly || *thinkSelf != "" {
		c := cfg.Start
		if c == nil {
			if c, err = calib.For(netFile, info.Hash); err != nil {
				return err
			}
			if c == nil {
				return fmt.Errorf("-think-only, -think-selfplay: %s has no calibration beside it (%s): give -start", netFile, calib.PathFor(netFile))
			}
		}
		if *thinkSelf != "" {
			if err := correctThink(c, strings.Split(*thinkSelf, ","), tcfg); err != nil {
				return err
			}
		} else if err := fitThink(ctx, netFile, c, tcfg); err != nil {
			return err
		}
		return writeCalibration(c, filepath.Join(*out, info.Name+".calib.json"), netFile, *install)
	}
	cfg.Engine = *engine
	if cfg.Engine == "" {
		if cfg.Engine, err = copySelf(filepath.Join(*out, "humchess")); err != nil {
			return err
		}
	}
	rep, err := calibrate.Run(ctx, cfg)
	if rep != nil && rep.Written != nil && err == nil && *think {
		err = fitThink(ctx, netFile, rep.Written, tcfg)
		if err == nil {
			err = rep.Written.WriteFile(filepath.Join(*out, info.Name+".calib.json"))
		}
	}
	if rep != nil {
		if werr := rep.WriteText(os.Stdout); werr != nil && err == nil {
			err = werr
		}
		pngs, perr := rep.WritePlots(*out)
		if perr != nil && err == nil && !errors.Is(perr, context.Canceled) {
			fmt.Fprintf(os.Stderr, "calibrate: plots: %v\n", perr)
		}
		for _, p := range pngs {
			fmt.Printf("wrote %s\n", p)
		}
		if rep.Written != nil {
			fmt.Printf("wrote %s\n", filepath.Join(*out, info.Name+".calib.json"))
			if *install && err == nil {
				dst := calib.PathFor(netFile)
				if ierr := rep.Written.WriteFile(dst); ierr != nil {
					return ierr
				}
				fmt.Printf("installed %s\n", dst)
			}
		}
	}
	return err
}

// parseInts reads "FROM:TO:STEP" or "A,B,C" ("" = none).
func parseInts(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	if f := strings.Split(s, ":"); len(f) == 3 {
		var v [3]int
		for i, x := range f {
			n, err := strconv.Atoi(strings.TrimSpace(x))
			if err != nil {
				return nil, fmt.Errorf("%q: %w", s, err)
			}
			v[i] = n
		}
		if v[2] <= 0 || v[1] < v[0] {
			return nil, fmt.Errorf("%q: want FROM:TO:STEP with FROM <= TO and STEP > 0", s)
		}
		var out []int
		for x := v[0]; x <= v[1]; x += v[2] {
			out = append(out, x)
		}
		return out, nil
	}
	var out []int
	for _, x := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(x))
		if err != nil {
			return nil, fmt.Errorf("%q: %w", s, err)
		}
		out = append(out, n)
	}
	return out, nil
}

// copySelf copies this program to dst, so the games are played by a binary
// no rebuild replaces mid-run.
func copySelf(dst string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(self)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(dst+".tmp", b, 0o755); err != nil {
		return "", err
	}
	if err := os.Rename(dst+".tmp", dst); err != nil {
		return "", err
	}
	return filepath.Abs(dst)
}

// fitThink fits the think-time scale of netFile into c (calibrate.FitThink)
// and prints its table.
func fitThink(ctx context.Context, netFile string, c *calib.Calibration, cfg calibrate.ThinkConfig) error {
	net, err := load.Open(netFile, load.Options{Threads: 1})
	if err != nil {
		return err
	}
	defer net.Close()
	fmt.Fprintf(os.Stderr, "calibrate: think-time fit: replaying %s with %s\n", strings.Join(cfg.Humans, ","), net.Info().Name)
	points, rows, err := calibrate.FitThink(ctx, net, cfg)
	if err != nil {
		return fmt.Errorf("think-time fit: %w", err)
	}
	if len(points) == 0 {
		return fmt.Errorf("think-time fit: no time control has %d human moves in %s", cfg.MinMoves, strings.Join(cfg.Humans, ","))
	}
	if err := calibrate.WriteThinkText(os.Stdout, rows); err != nil {
		return err
	}
	keptRecapture, keptPace := calibrate.KeepSelfPlay(points, c.Think)
	c.Think = points
	c.ThinkMeasured = fmt.Sprintf("humchess calibrate: think-time scale fitted by replaying the training split of %s (Site %q, first %d plies left out, seed %d) with the net's think time, at one-second resolution; controls with at least %d human moves",
		strings.Join(cfg.Humans, ","), cfg.Site, cfg.SkipPlies, cfg.Seed, cfg.MinMoves)
	if len(keptRecapture) > 0 {
		c.ThinkMeasured += fmt.Sprintf("; recapture factor at %s kept from the starting calibration", strings.Join(keptRecapture, ", "))
	}
	if len(keptPace) > 0 {
		c.ThinkMeasured += fmt.Sprintf("; time-trouble pace cap at %s kept from the starting calibration", strings.Join(keptPace, ", "))
	}
	return nil
}

// correctThink corrects c's think-time points from self-play games played
// with them (calibrate.CorrectThinkSelfPlay) and prints its table.
func correctThink(c *calib.Calibration, selfPlay []string, cfg calibrate.ThinkConfig) error {
	if len(c.Think) == 0 {
		return fmt.Errorf("-think-selfplay: the calibration has no think-time points to correct (fit them first: -think-only)")
	}
	points, rows, err := calibrate.CorrectThinkSelfPlay(c, selfPlay, cfg)
	if err != nil {
		return fmt.Errorf("think-time correction: %w", err)
	}
	if len(rows) == 0 {
		return fmt.Errorf("-think-selfplay: no time control of the calibration has %d engine moves in %s", max(cfg.MinMoves/10, 1), strings.Join(selfPlay, ","))
	}
	if err := calibrate.WriteSelfPlayText(os.Stdout, rows); err != nil {
		return err
	}
	var names, recaps, paces, files []string
	for _, f := range selfPlay {
		files = append(files, filepath.Base(f))
	}
	for _, r := range rows {
		if r.Corrected {
			names = append(names, r.Control)
		}
		if r.RecaptureCorrected {
			recaps = append(recaps, r.Control)
		}
		if r.PaceCorrected {
			paces = append(paces, r.Control)
		}
	}
	c.Think = points
	if len(names) > 0 {
		c.ThinkMeasured += fmt.Sprintf("; %s corrected from self-play games (%s) onto the humans' median and p90 (calibrate -think-selfplay)",
			strings.Join(names, ", "), strings.Join(files, ", "))
	}
	if len(recaps) > 0 {
		c.ThinkMeasured += fmt.Sprintf("; recapture factor at %s corrected from self-play games (%s) onto the humans' recapture ratio out of time trouble (calibrate -think-selfplay)",
			strings.Join(recaps, ", "), strings.Join(files, ", "))
	}
	if len(paces) > 0 {
		c.ThinkMeasured += fmt.Sprintf("; time-trouble pace cap at %s corrected from self-play games (%s) onto the humans' mean think time with 5-10 s left (calibrate -think-selfplay)",
			strings.Join(paces, ", "), strings.Join(files, ", "))
	}
	return nil
}

// writeCalibration writes c to path and, with install, beside netFile.
func writeCalibration(c *calib.Calibration, path, netFile string, install bool) error {
	if err := c.WriteFile(path); err != nil {
		return err
	}
	fmt.Printf("wrote %s\n", path)
	if !install {
		return nil
	}
	dst := calib.PathFor(netFile)
	if err := c.WriteFile(dst); err != nil {
		return err
	}
	fmt.Printf("installed %s\n", dst)
	return nil
}

// poolRuns is calibrate -pool: the spread and profile games of earlier
// runs summed, their tables printed and charts written.
func poolRuns(pc calibrate.PoolConfig) error {
	if len(pc.Files) == 0 {
		return fmt.Errorf("-pool needs the spread-X-Y.pgn or profile-L.pgn files of earlier runs")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := calibrate.PoolRun(ctx, pc)
	if err != nil {
		return err
	}
	fmt.Printf("pooled %d files\n", len(pc.Files))
	if err := rep.WritePoolText(os.Stdout); err != nil {
		return err
	}
	if err := os.MkdirAll(pc.OutDir, 0o755); err != nil {
		return err
	}
	written, err := rep.WritePlots(pc.OutDir)
	for _, p := range written {
		fmt.Printf("wrote %s\n", p)
	}
	return err
}
