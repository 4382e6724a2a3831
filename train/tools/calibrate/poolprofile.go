package calibrate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/humchess/humchess/nets/calib"
	"github.com/humchess/humchess/train/data/games"
	"github.com/humchess/humchess/train/data/pgn"
	"github.com/humchess/humchess/train/tools/internal/profile"
	"github.com/humchess/humchess/train/tools/match"
)

// PoolConfig is calibrate -pool: the games of earlier runs summed, nothing
// played.
type PoolConfig struct {
	// Files are the runs' spread-X-Y.pgn (final/) and profile-L.pgn
	// (roundK/) files, told apart by their games' Event. A profile file's
	// settings are read from the calibration beside it (the run wrote the
	// settings it played there); all must be of one net and time class,
	// and every file of a label must have played the same settings.
	Files []string

	Judge      string // the judging engine (Stockfish) program; needed for profile files
	JudgeNodes int64  // its nodes per position; 0 means 10000
	Workers    int    // judging processes; 0 means 2

	// Humans are the human game files; nil means DefaultHumans(DataDir,
	// the files' class).
	Humans        []string
	DataDir       string
	HumanSite     string
	HumansPerBand int // 0 means 40
	OpeningPlies  int

	// OutDir receives the human profile cache and judged/, each profile
	// file's judgement by content and judge nodes, so pooling again with a
	// new run's files judges only those.
	OutDir   string
	Progress io.Writer
}

// profileFile is one run's self-play games at one label.
type profileFile struct {
	path  string
	sum   string // sha256 of the file, hex
	label int
	tc    pgn.TimeControl
	point calib.Point
	net   *calib.Calibration // the calibration beside it (its net's name and hash)
}

// PoolRun sums the games of earlier runs: the spread games by match (Pool)
// and the profile games by label, judged (or read from OutDir's cache) and
// set beside the humans of their time class. The report has the pooled
// profile as its one round (Pooled is the number of profile files) and
// the labels' settings as Final.
func PoolRun(ctx context.Context, pc PoolConfig) (*Report, error) {
	if pc.Progress == nil {
		pc.Progress = io.Discard
	}
	var spreads, profiles []string
	seen := map[string]bool{}
	for _, p := range pc.Files {
		if abs, err := filepath.Abs(p); err == nil {
			if seen[abs] {
				continue
			}
			seen[abs] = true
		}
		event, err := firstEvent(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		switch {
		case strings.HasPrefix(event, "HumChess calibrate spread "):
			spreads = append(spreads, p)
		case strings.HasPrefix(event, "HumChess calibrate round "):
			profiles = append(profiles, p)
		default:
			return nil, fmt.Errorf("%w: %s: event %q is neither a spread match nor a profile round", ErrPool, p, event)
		}
	}
	rep := &Report{Config: &Config{SpreadGap: 400}, Elapsed: map[string]time.Duration{}}
	if len(spreads) > 0 {
		var err error
		if rep.Spreads, err = Pool(spreads); err != nil {
			return nil, err
		}
		gap := rep.Spreads[0].Top - rep.Spreads[0].Bottom
		for _, s := range rep.Spreads {
			if s.Top-s.Bottom != gap {
				return nil, fmt.Errorf("%w: matches of different gaps (%d vs %d and %d vs %d)", ErrPool, rep.Spreads[0].Top, rep.Spreads[0].Bottom, s.Top, s.Bottom)
			}
		}
		rep.Config.SpreadGap = gap
	}
	var played []profileFile // every label of every file, for samePool
	for _, p := range spreads {
		e, err := readSpreadFile(p)
		if err != nil {
			return nil, err
		}
		played = append(played, e...)
	}
	if len(profiles) == 0 {
		if len(played) > 0 {
			if err := samePool(played); err != nil {
				return nil, err
			}
		}
		return rep, nil
	}
	var files []profileFile
	bySum := map[string]string{}
	for _, p := range profiles {
		f, err := readProfileFile(p)
		if err != nil {
			return nil, err
		}
		if o, ok := bySum[f.sum]; ok {
			fmt.Fprintf(pc.Progress, "calibrate: %s is %s again: counted once\n", p, o)
			continue
		}
		bySum[f.sum] = p
		files = append(files, f)
	}
	if err := samePool(append(played, files...)); err != nil {
		return nil, err
	}
	first := files[0]
	tc, err := match.ParseTimeControl(fmt.Sprintf("%g+%g", first.tc.Base, first.tc.Increment))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", first.path, err)
	}
	cfg := &Config{Judge: pc.Judge, JudgeNodes: pc.JudgeNodes, Workers: pc.Workers, Humans: pc.Humans, HumanSite: pc.HumanSite,
		HumansPerBand: pc.HumansPerBand, OpeningPlies: pc.OpeningPlies, OutDir: pc.OutDir, Progress: pc.Progress, TC: tc,
		NetName: first.net.Net, NetHash: first.net.NetHash, SpreadGap: rep.Config.SpreadGap}
	if cfg.Judge == "" {
		return nil, fmt.Errorf("%w: pooling profile games needs a judging engine (Stockfish)", ErrConfig)
	}
	cfg.fill() // the defaults, without the checks of a run that plays
	if cfg.Humans == nil {
		cfg.Humans = DefaultHumans(pc.DataDir, cfg.Class())
	}
	settings := &calib.Calibration{Version: calib.Version, Net: first.net.Net, NetHash: first.net.NetHash,
		TimeClass: fmt.Sprintf("%s %s", cfg.Class(), tc)}
	for _, f := range files {
		if !slices.ContainsFunc(settings.Points, func(p calib.Point) bool { return p.Elo == f.label }) {
			settings.Points = append(settings.Points, f.point)
			cfg.Labels = append(cfg.Labels, f.label)
		}
	}
	sort.Slice(settings.Points, func(i, j int) bool { return settings.Points[i].Elo < settings.Points[j].Elo })
	sort.Ints(cfg.Labels)
	rep.Config, rep.Class = cfg, cfg.Class()
	if err := os.MkdirAll(cfg.OutDir, 0o755); err != nil {
		return nil, err
	}
	r := &runner{cfg: cfg, ctx: ctx}
	if rep.Humans, rep.HumanGames, err = r.humans(); err != nil {
		return nil, err
	}
	pooled := profile.Profile{}
	n := 0
	for _, f := range files {
		prof, games, err := r.judgeCached(f)
		if err != nil {
			return nil, err
		}
		for k, c := range prof {
			if pooled[k] == nil {
				pooled[k] = &profile.Cell{}
			}
			pooled[k].Merge(*c)
		}
		n += games
	}
	rep.Rounds = []Round{{Settings: settings, Engine: pooled, Games: n}}
	rep.Final, rep.Pooled = settings, len(files)
	return rep, nil
}

// firstEvent is the Event tag of a PGN file's first game.
func firstEvent(path string) (string, error) {
	rc, err := pgn.Open(path)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	g, err := pgn.NewReader(rc).NextHeaders()
	if errors.Is(err, io.EOF) {
		return "", fmt.Errorf("%w: no game", ErrPool)
	}
	if err != nil {
		return "", err
	}
	return g.Event, nil
}

// readProfileFile reads a profile round's file: its label and time
// control from the games' tags, which must agree, and its settings from
// the one calibration file beside it.
func readProfileFile(path string) (profileFile, error) {
	f := profileFile{path: path}
	b, err := os.ReadFile(path)
	if err != nil {
		return f, err
	}
	sum := sha256.Sum256(b)
	f.sum = hex.EncodeToString(sum[:])
	rc, err := pgn.Open(path)
	if err != nil {
		return f, err
	}
	defer rc.Close()
	rd := pgn.NewReader(rc)
	for i := 1; ; i++ {
		g, err := rd.NextHeaders()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return f, fmt.Errorf("%s: %w", path, err)
		}
		var k, rounds, label int
		if _, err := fmt.Sscanf(g.Event, "HumChess calibrate round %d/%d, UCI_Elo %d self-play", &k, &rounds, &label); err != nil {
			return f, fmt.Errorf("%w: %s: game %d: event %q", ErrPool, path, i, g.Event)
		}
		if g.WhiteElo != label || g.BlackElo != label {
			return f, fmt.Errorf("%w: %s: game %d: players %d and %d in self-play at %d", ErrPool, path, i, g.WhiteElo, g.BlackElo, label)
		}
		if i == 1 {
			f.label, f.tc = label, g.TimeControl
		} else if label != f.label || g.TimeControl != f.tc {
			return f, fmt.Errorf("%w: %s: game %d: UCI_Elo %d at %+v after UCI_Elo %d at %+v", ErrPool, path, i, label, g.TimeControl, f.label, f.tc)
		}
	}
	if f.label == 0 {
		return f, fmt.Errorf("%w: %s has no game", ErrPool, path)
	}
	if !f.tc.Known() {
		return f, fmt.Errorf("%w: %s: no time control", ErrPool, path)
	}
	if f.net, err = settingsBeside(path); err != nil {
		return f, err
	}
	f.point = f.net.ForControl(f.tc.Base, f.tc.Increment).At(f.label)
	return f, nil
}

// settingsBeside reads the one calibration beside a run's games: the
// settings the run played.
func settingsBeside(path string) (*calib.Calibration, error) {
	beside, err := filepath.Glob(filepath.Join(filepath.Dir(path), "*.calib.json"))
	if err != nil {
		return nil, err
	}
	if len(beside) != 1 {
		return nil, fmt.Errorf("%w: %s: need the one calibration its run played beside it, found %d", ErrPool, path, len(beside))
	}
	return calib.ReadFile(beside[0])
}

// readSpreadFile reads what a spread match played: its two labels and
// time control from its first game, their settings from the calibration
// beside it (one entry per label).
func readSpreadFile(path string) ([]profileFile, error) {
	rc, err := pgn.Open(path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	g, err := pgn.NewReader(rc).NextHeaders()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var top, bottom int
	if _, err := fmt.Sscanf(g.Event, "HumChess calibrate spread %d vs %d", &top, &bottom); err != nil {
		return nil, fmt.Errorf("%w: %s: event %q", ErrPool, path, g.Event)
	}
	if !g.TimeControl.Known() {
		return nil, fmt.Errorf("%w: %s: no time control", ErrPool, path)
	}
	c, err := settingsBeside(path)
	if err != nil {
		return nil, err
	}
	pts := c.ForControl(g.TimeControl.Base, g.TimeControl.Increment)
	return []profileFile{{path: path, label: top, tc: g.TimeControl, point: pts.At(top), net: c},
		{path: path, label: bottom, tc: g.TimeControl, point: pts.At(bottom), net: c}}, nil
}

// samePool checks that the games are of one net and time class and that
// every label played one setting in all of them.
func samePool(files []profileFile) error {
	first := files[0]
	class := games.ClassOf(first.tc)
	byLabel := map[int]profileFile{}
	for _, f := range files {
		if f.net.NetHash != first.net.NetHash {
			return fmt.Errorf("%w: %s is of net %s, %s of %s", ErrPool, f.path, f.net.Net, first.path, first.net.Net)
		}
		if c := games.ClassOf(f.tc); c != class {
			return fmt.Errorf("%w: %s is %s, %s is %s", ErrPool, f.path, c, first.path, class)
		}
		if o, ok := byLabel[f.label]; ok && o.point != f.point {
			return fmt.Errorf("%w: UCI_Elo %d played other settings in %s (%+v) than in %s (%+v)", ErrPool, f.label, f.path, f.point, o.path, o.point)
		}
		byLabel[f.label] = f
	}
	return nil
}

// judgedFile is the cache of one profile file's judgement.
type judgedFile struct {
	File       string          `json:"file"` // informative: the name it was judged under
	JudgeNodes int64           `json:"judge_nodes"`
	Games      int             `json:"games"`
	Profile    profile.Profile `json:"profile"`
}

// judgeCached is the profile of one file's engine moves and its games,
// from OutDir/judged/ when judged before at the same nodes, else judged
// and cached there.
func (r *runner) judgeCached(f profileFile) (profile.Profile, int, error) {
	path := f.path
	cache := filepath.Join(r.cfg.OutDir, "judged", fmt.Sprintf("%.16s-%dn.json", f.sum, r.cfg.JudgeNodes))
	if c, err := os.ReadFile(cache); err == nil {
		var j judgedFile
		if err := json.Unmarshal(c, &j); err != nil {
			return nil, 0, fmt.Errorf("%s: %w", cache, err)
		}
		r.logf("%s: judged before (%s, %d games)", path, cache, j.Games)
		return j.Profile, j.Games, nil
	}
	r.logf("judging %s", path)
	prof, games, err := r.judge([]string{path})
	if err != nil {
		return nil, 0, err
	}
	if games == 0 {
		return nil, 0, fmt.Errorf("%w: %s has no complete game (truncated?)", ErrPool, path)
	}
	out, err := json.MarshalIndent(judgedFile{File: filepath.Base(path), JudgeNodes: r.cfg.JudgeNodes, Games: games, Profile: prof}, "", " ")
	if err != nil {
		return nil, 0, err
	}
	if err := os.MkdirAll(filepath.Dir(cache), 0o755); err != nil {
		return nil, 0, err
	}
	// Written whole or not at all: a killed pool leaves no half cache.
	tmp := cache + ".tmp"
	if err := os.WriteFile(tmp, out, 0o644); err != nil {
		return nil, 0, err
	}
	return prof, games, os.Rename(tmp, cache)
}
