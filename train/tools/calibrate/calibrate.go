package calibrate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/humchess/humchess/nets/calib"
	"github.com/humchess/humchess/train/data/games"
	"github.com/humchess/humchess/train/data/pgn"
	"github.com/humchess/humchess/train/tools/internal/profile"
	"github.com/humchess/humchess/train/tools/match"
	"github.com/humchess/humchess/uci/client"
)

// ErrConfig means a calibration configuration is invalid.
var ErrConfig = errors.New("calibrate: bad config")

// Config is one calibration run.
type Config struct {
	Engine  string // the humchess program; use a private copy, so that a rebuild does not change it mid-run
	Net     string // the net file to calibrate
	NetName string // its name (nets.Info.Name)
	NetHash string // its weight sha256 (nets.Info.Hash), written into the calibration

	Humans        []string // PGN files of human games
	HumanSite     string   // keep human games whose Site contains this ("" = all)
	HumansPerBand int      // human games analysed per band of their mean rating; 0 means 40

	TC       match.TimeControl // the clock of every game, e.g. 180+2, run down by match.HumanCharge
	Openings []match.Opening   // shuffled; played twice each, colours swapped
	// OpeningPlies is how many plies of a human game are left out of the
	// humans' profile, as the openings' plies are out of the engine's
	// (there: every move without a clock, which the referee writes only
	// for engine moves).
	OpeningPlies int

	Labels       []int // UCI_Elo labels of the error profile, e.g. 800..2400 step 200
	Rounds       int   // profile rounds: the first measures Start, each next one the step fitted on the last; 0 means 1
	ProfileGames int   // self-play games per label per round
	// Monotone makes each fitted step's temperature and blunder-filter
	// scale non-increasing with the label (Monotone), so the noise of one
	// label's few hundred judged moves cannot make it sample more loosely
	// than the label below it.
	Monotone bool

	SpreadTops  []int // X of the spread matches X against X-SpreadGap
	SpreadGap   int   // 0 means 400
	SpreadGames int   // games per spread match

	MaiaDir        string // folder of maia-X.pb.gz; "" = no Maia reference
	MaiaLabels     []int  // X of UCI_Elo X against Maia-X
	Stockfish      string // Stockfish program; "" = no Stockfish reference
	StockfishLabel []int  // X of UCI_Elo X against Stockfish UCI_Elo max(X, 1320)
	StockfishNodes int64  // Stockfish's nodes per move in those games
	RefGames       int    // games per reference match

	Judge      string // the judging engine (Stockfish) program
	JudgeNodes int64  // its nodes per position; 0 means 10000

	FilterPositions int // positions timed for the blunder filter's cost; 0 = none

	Workers int // games at once and judging processes; 0 means 2
	OutDir  string
	Start   *calib.Calibration // the first round's settings; nil = identity (UCI_Elo to the net as is)

	Progress io.Writer // progress lines; nil = none
}

func (c *Config) defaults() error {
	c.fill()
	bad := func(format string, a ...any) error { return fmt.Errorf("%w: %s", ErrConfig, fmt.Sprintf(format, a...)) }
	switch {
	case c.Engine == "" || c.Net == "" || c.NetHash == "":
		return bad("need the engine, the net and its hash")
	case c.Judge == "":
		return bad("need a judging engine (Stockfish)")
	case !c.TC.Clock():
		return bad("need a clock (base+inc)")
	case len(c.Labels) == 0 || c.ProfileGames <= 0:
		return bad("need labels and profile games")
	case c.OutDir == "":
		return bad("need an output folder")
	}
	sort.Ints(c.Labels)
	return nil
}

// fill sets the defaults of the zero fields.
func (c *Config) fill() {
	if c.Rounds <= 0 {
		c.Rounds = 1
	}
	if c.SpreadGap <= 0 {
		c.SpreadGap = 400
	}
	if c.HumansPerBand <= 0 {
		c.HumansPerBand = 40
	}
	if c.JudgeNodes <= 0 {
		c.JudgeNodes = 10000
	}
	if c.Workers <= 0 {
		c.Workers = 2
	}
	if c.Progress == nil {
		c.Progress = io.Discard
	}
}

// Class is the time class of the games played.
func (c *Config) Class() games.TimeClass {
	return games.ClassOf(pgn.TimeControl{Base: c.TC.Base.Seconds(), Increment: c.TC.Inc.Seconds()})
}

// Round is one profile round: the settings played and what they gave.
type Round struct {
	Settings *calib.Calibration
	Engine   profile.Profile
	Games    int
	Elapsed  time.Duration
}

// Spread is one spread match.
type Spread struct {
	Top, Bottom int
	Score       match.Score // the top label's
}

// Reference is one reference match.
type Reference struct {
	Label    int
	Opponent string
	Score    match.Score // HumChess's
}

// FilterCost is what one move costs with and without the blunder filter.
type FilterCost struct {
	Label               int
	Moves               int
	NodesOn, NodesOff   float64 // positions evaluated per move
	MillisOn, MillisOff float64 // median ms per move (go to bestmove, through the pipe)
}

// Report is everything a run measured.
type Report struct {
	Config     *Config
	Class      games.TimeClass
	Humans     profile.Profile
	HumanGames int
	Rounds     []Round
	Final      *calib.Calibration // the points fitted, of the games' time class
	// Written is the calibration written: Final's points, with the start's
	// points of other time classes (Merge).
	Written    *calib.Calibration
	Spreads    []Spread
	SpreadProf profile.Profile // the spread games' error profile (final settings)
	References []Reference
	Filter     []FilterCost
	Elapsed    map[string]time.Duration // by phase
	// Pooled is the number of profile files of earlier runs summed into
	// the one round (PoolRun); 0 for a run that played.
	Pooled int
}

// Run plays and measures everything, writing games and files to
// cfg.OutDir. It returns the report so far with ctx's error when ctx ends.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.OutDir, 0o755); err != nil {
		return nil, err
	}
	rep := &Report{Config: &cfg, Class: cfg.Class(), Elapsed: map[string]time.Duration{}}
	r := &runner{cfg: &cfg, ctx: ctx}
	phase := func(name string, f func() error) error {
		t := time.Now()
		err := f()
		rep.Elapsed[name] += time.Since(t)
		return err
	}

	if err := phase("humans", func() (err error) {
		rep.Humans, rep.HumanGames, err = r.humans()
		return err
	}); err != nil {
		return rep, err
	}

	settings := identity(&cfg)
	if cfg.Start != nil {
		// The start's points for this time class, or its base points.
		s := *cfg.Start.ForControl(cfg.TC.Base.Seconds(), cfg.TC.Inc.Seconds())
		s.TimeClass, s.Classes = settings.TimeClass, nil
		settings = &s
	}
	for k := range cfg.Rounds {
		if k > 0 {
			settings = step(settings, rep.Rounds[k-1].Engine, rep.Humans, rep.Class, cfg.Monotone)
		}
		var round Round
		err := phase("profile", func() error {
			t := time.Now()
			prof, n, err := r.profileRound(k, settings)
			round = Round{Settings: settings, Engine: prof, Games: n, Elapsed: time.Since(t)}
			return err
		})
		rep.Rounds = append(rep.Rounds, round)
		if err != nil {
			return rep, err
		}
	}
	rep.Final = settings
	rep.Final.Measured = fmt.Sprintf("humchess calibrate: %d rounds of %d self-play games per label at %s on a virtual human clock, moves judged by Stockfish at %d nodes against %d human %s games of %s",
		cfg.Rounds, cfg.ProfileGames, cfg.TC, cfg.JudgeNodes, rep.HumanGames, rep.Class, strings.Join(baseNames(cfg.Humans), ", "))
	var err error
	if rep.Written, err = Merge(cfg.Start, settings, rep.Class); err != nil {
		return rep, err
	}
	if err := rep.Written.WriteFile(filepath.Join(cfg.OutDir, cfg.NetName+".calib.json")); err != nil {
		return rep, err
	}

	if err := phase("spread", func() (err error) {
		rep.Spreads, rep.SpreadProf, err = r.spreads(settings)
		return err
	}); err != nil {
		return rep, err
	}
	if err := phase("references", func() (err error) {
		rep.References, err = r.references(settings)
		return err
	}); err != nil {
		return rep, err
	}
	if err := phase("filter", func() (err error) {
		rep.Filter, err = r.filterCost(settings)
		return err
	}); err != nil {
		return rep, err
	}
	return rep, nil
}

func baseNames(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Base(p)
	}
	return out
}

// Merge returns the calibration to write after fitting points of class
// (fitted: their TimeClass and Measured say where and how) from start:
// fitted as the base points, with start's classes, when there is no start
// or start's base points are of the same class (its TimeClass names it);
// else start with fitted as its points for class, replacing any it had.
func Merge(start, fitted *calib.Calibration, class games.TimeClass) (*calib.Calibration, error) {
	if start == nil || baseClass(start) == class {
		out := *fitted
		if start != nil {
			out.Classes = start.Classes
		}
		return &out, out.Validate()
	}
	lo, hi, ok := class.Seconds()
	if !ok {
		return nil, fmt.Errorf("%w: points for time class %s", ErrConfig, class)
	}
	out, err := start.WithClass(calib.ClassPoints{TimeClass: fitted.TimeClass, MinSeconds: lo, MaxSeconds: hi,
		Measured: fitted.Measured, Points: fitted.Points})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// baseClass is the time class a calibration's base points were fitted in,
// the first word of its TimeClass ("blitz 180+2"); unknown when it names
// none.
func baseClass(c *calib.Calibration) games.TimeClass {
	f := strings.Fields(c.TimeClass)
	if len(f) == 0 {
		return games.UnknownClass
	}
	tc, _ := games.ParseTimeClass(f[0])
	return tc
}

// identity is the calibration that changes nothing, at cfg's labels.
func identity(cfg *Config) *calib.Calibration {
	c := &calib.Calibration{Version: calib.Version, Net: cfg.NetName, NetHash: cfg.NetHash,
		TimeClass: fmt.Sprintf("%s %s", cfg.Class(), cfg.TC)}
	for _, l := range cfg.Labels {
		c.Points = append(c.Points, calib.Identity(l))
	}
	return c
}

// step returns the next round's settings: Step at every label, then, if
// monotone, Monotone across labels.
func step(c *calib.Calibration, engine, humans profile.Profile, class games.TimeClass, monotone bool) *calib.Calibration {
	next := *c
	next.Points = make([]calib.Point, len(c.Points))
	for i, p := range c.Points {
		k := profile.Key{Band: profile.Band(p.Elo), Class: class}
		next.Points[i] = Step(p, engine.Get(k), humans.Get(k))
	}
	if monotone {
		Monotone(next.Points)
	}
	return &next
}

// startTimeout is how long an engine may take to start or answer isready:
// long, because the run shares the machine at the lowest priority.
const startTimeout = 2 * time.Minute

// runner plays and judges.
type runner struct {
	cfg *Config
	ctx context.Context
}

func (r *runner) logf(format string, a ...any) {
	fmt.Fprintf(r.cfg.Progress, "calibrate %s: "+format+"\n", append([]any{time.Now().Format("15:04:05")}, a...)...)
}

// judgeConfig is the judging engine: one thread, a small hash.
func (r *runner) judgeConfig() client.Config {
	f := strings.Fields(r.cfg.Judge)
	return client.Config{Path: f[0], Args: f[1:], Options: []client.Option{{Name: "Threads", Value: "1"}, {Name: "Hash", Value: "16"}},
		InitTimeout: startTimeout, ReadyTimeout: startTimeout}
}

// humans analyses the human games: the first HumansPerBand standard games
// of the class, between rated humans (no BOT), per band of the players'
// mean rating, for the bands of the labels.
func (r *runner) humans() (profile.Profile, int, error) {
	cfg := r.cfg
	cache := filepath.Join(cfg.OutDir, fmt.Sprintf("humans-%s-%dn-%dpb-%dskip.json", r.cfgClass(), cfg.JudgeNodes, cfg.HumansPerBand, cfg.OpeningPlies))
	if c, n, err := readHumans(cache, cfg.Humans); err == nil {
		r.logf("human profile from %s (%d games)", cache, n)
		return c, n, nil
	}
	if c, n, err := readShippedHumans(filepath.Base(cache), cfg.Humans); err == nil {
		r.logf("human profile shipped with calibrate (train/tools/calibrate/humans/%s, %d games)", filepath.Base(cache), n)
		return c, n, nil
	}
	want := map[int]int{}
	for _, l := range cfg.Labels {
		want[profile.Band(l)] = cfg.HumansPerBand
	}
	an := profile.NewAnalyser(r.ctx, r.judgeConfig(), client.Limits{Nodes: cfg.JudgeNodes}, cfg.Workers)
	class := cfg.Class()
	n := 0
	t := time.Now()
	err := eachGame(cfg.Humans, func(g *pgn.Game) {
		if !g.Standard() || g.FEN != "" || g.WhiteTitle == "BOT" || g.BlackTitle == "BOT" || g.WhiteElo <= 0 || g.BlackElo <= 0 ||
			len(g.Moves) < 10 || games.ClassOf(g.TimeControl) != class || !strings.Contains(g.Site, cfg.HumanSite) {
			return
		}
		b := profile.Band((g.WhiteElo + g.BlackElo) / 2)
		if want[b] <= 0 {
			return
		}
		want[b]--
		an.Submit(g.Clone(), 0)
		n++
		if n%20 == 0 {
			r.logf("humans: %d games submitted, %d judged, %.0f s", n, an.Done(), time.Since(t).Seconds())
		}
	})
	if err != nil {
		_, _ = an.Wait() // the read error is the one to report
		return nil, 0, err
	}
	res, err := an.Wait()
	if err != nil {
		return nil, 0, err
	}
	prof := profile.Profile{}
	for _, x := range res {
		var ms []profile.Move
		for _, m := range profile.Judge(x.Game, x.Evals) {
			if m.Ply >= cfg.OpeningPlies {
				ms = append(ms, m)
			}
		}
		prof.AddGame(class, ms)
	}
	r.logf("humans: %d games judged in %.0f s%s", len(res), time.Since(t).Seconds(), retried(an))
	if err := writeHumans(cache, cfg.Humans, prof, len(res)); err != nil {
		return nil, 0, err
	}
	return prof, len(res), nil
}

func (r *runner) cfgClass() string { return r.cfg.Class().String() }

// spec is a HumChess engine at a label: Calibration on, through the
// settings file beside the net link in dir.
func (r *runner) spec(dir string, label, opp int) match.EngineSpec {
	return match.EngineSpec{
		Name: fmt.Sprintf("HumChess %d", label), Path: r.cfg.Engine, Elo: label,
		Options: []client.Option{
			{Name: "NetFile", Value: netLink(dir, r.cfg)},
			{Name: "UCI_Elo", Value: strconv.Itoa(label)},
			{Name: "OpponentElo", Value: strconv.Itoa(opp)},
			{Name: "HumanTiming", Value: "false"},
			{Name: "Calibration", Value: "true"},
		},
	}
}

// netLink is the net as seen from dir: a symbolic link to it, with the
// settings under test beside it (calib.PathFor).
func netLink(dir string, cfg *Config) string {
	return filepath.Join(dir, cfg.NetName+netExt(cfg.Net))
}

func netExt(path string) string {
	for _, ext := range []string{".onnx", ".safetensors", ".pb.gz"} {
		if strings.HasSuffix(path, ext) {
			return ext
		}
	}
	return filepath.Ext(path)
}

// install makes dir hold the net link and the settings beside it.
func (r *runner) install(dir string, c *calib.Calibration) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	link := netLink(dir, r.cfg)
	abs, err := filepath.Abs(r.cfg.Net)
	if err != nil {
		return err
	}
	_ = os.Remove(link) // replaced below
	if err := os.Symlink(abs, link); err != nil {
		return err
	}
	return c.WriteFile(calib.PathFor(link))
}

// play runs a match into pgnPath and returns its summary.
func (r *runner) play(name, pgnPath string, a, b match.EngineSpec, games int, nodes int64) (*match.Summary, error) {
	f, err := os.Create(pgnPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tc := r.cfg.TC
	tc.Nodes = nodes
	mc := match.Config{Engines: [2]match.EngineSpec{a, b}, TC: tc, Games: games, Concurrency: r.cfg.Workers,
		Openings: r.cfg.Openings, MaxPlies: 300, StallTimeout: 60 * time.Second, Event: "HumChess calibrate " + name,
		PGN: f, Charge: match.HumanCharge, ReadyTimeout: startTimeout, Progress: &lineCounter{r: r, name: name, total: games}}
	sum, err := match.Run(r.ctx, mc)
	if err != nil {
		return sum, fmt.Errorf("calibrate: %s: %w", name, err)
	}
	return sum, f.Close()
}

// lineCounter turns match's progress lines into one short line per game.
type lineCounter struct {
	r     *runner
	name  string
	total int
	n     int
}

func (l *lineCounter) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimSpace(string(p)), "\n") {
		if line != "" {
			l.n++
			l.r.logf("%s: %s", l.name, line)
		}
	}
	return len(p), nil
}

// engineMove reports whether move ply of a match game was the engines':
// the referee writes a clock after every engine move and none after the
// opening's moves.
func engineMove(g *pgn.Game, ply int) bool {
	return ply < len(g.Clocks) && g.Clocks[ply] >= 0
}

// eachGame calls f with every game of the PGN files in turn (the game is
// reused: f clones what it keeps).
func eachGame(paths []string, f func(g *pgn.Game)) error {
	for _, path := range paths {
		rc, err := pgn.Open(path)
		if err != nil {
			return err
		}
		rd := pgn.NewReader(rc)
		for {
			g, err := rd.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				_ = rc.Close() // the read error is the one to report
				return fmt.Errorf("calibrate: %s: %w", path, err)
			}
			f(g)
		}
		if err := rc.Close(); err != nil {
			return err
		}
	}
	return nil
}

// judge analyses the games of the PGN files and returns their profile and
// how many games it read.
func (r *runner) judge(paths []string) (profile.Profile, int, error) {
	an := profile.NewAnalyser(r.ctx, r.judgeConfig(), client.Limits{Nodes: r.cfg.JudgeNodes}, r.cfg.Workers)
	t := time.Now()
	n := 0
	err := eachGame(paths, func(g *pgn.Game) {
		an.Submit(g.Clone(), 0)
		n++
	})
	if err != nil {
		_, _ = an.Wait() // the read error is the one to report
		return nil, n, err
	}
	res, err := an.Wait()
	if err != nil {
		return nil, n, err
	}
	prof := profile.Profile{}
	for _, x := range res {
		class := games.ClassOf(x.Game.TimeControl)
		var ms []profile.Move
		for _, m := range profile.Judge(x.Game, x.Evals) {
			if engineMove(x.Game, m.Ply) {
				ms = append(ms, m)
			}
		}
		prof.AddGame(class, ms)
	}
	r.logf("judged %d games in %.0f s%s", n, time.Since(t).Seconds(), retried(an))
	return prof, n, nil
}

// retried says how many games an analysed again after its judge died or
// stalled ("" when none).
func retried(an *profile.Analyser) string {
	if k := an.Retried(); k > 0 {
		return fmt.Sprintf(" (%d analysed again on a new Stockfish after it stopped answering)", k)
	}
	return ""
}

// profileRound plays ProfileGames self-play games at every label with
// settings and judges them.
func (r *runner) profileRound(k int, settings *calib.Calibration) (profile.Profile, int, error) {
	dir := filepath.Join(r.cfg.OutDir, fmt.Sprintf("round%d", k+1))
	if err := r.install(dir, settings); err != nil {
		return nil, 0, err
	}
	var paths []string
	n := 0
	for _, l := range r.cfg.Labels {
		name := fmt.Sprintf("round %d/%d, UCI_Elo %d self-play", k+1, r.cfg.Rounds, l)
		p := filepath.Join(dir, fmt.Sprintf("profile-%d.pgn", l))
		sum, err := r.play(name, p, r.spec(dir, l, l), r.spec(dir, l, l), r.cfg.ProfileGames, 0)
		if err != nil {
			return nil, n, err
		}
		n += sum.Games
		paths = append(paths, p)
	}
	prof, _, err := r.judge(paths)
	return prof, n, err
}

// spreads plays X against X-gap with the final settings.
func (r *runner) spreads(settings *calib.Calibration) ([]Spread, profile.Profile, error) {
	if r.cfg.SpreadGames <= 0 || len(r.cfg.SpreadTops) == 0 {
		return nil, profile.Profile{}, nil
	}
	dir := filepath.Join(r.cfg.OutDir, "final")
	if err := r.install(dir, settings); err != nil {
		return nil, nil, err
	}
	var out []Spread
	var paths []string
	for _, x := range r.cfg.SpreadTops {
		y := x - r.cfg.SpreadGap
		p := filepath.Join(dir, fmt.Sprintf("spread-%d-%d.pgn", x, y))
		sum, err := r.play(fmt.Sprintf("spread %d vs %d", x, y), p, r.spec(dir, x, y), r.spec(dir, y, x), r.cfg.SpreadGames, 0)
		if err != nil {
			return out, nil, err
		}
		out = append(out, Spread{Top: x, Bottom: y, Score: sum.Score})
		paths = append(paths, p)
	}
	prof, _, err := r.judge(paths)
	return out, prof, err
}

// references plays UCI_Elo X against Maia-X (the engine's own Maia path:
// one evaluation, the most likely move) and against Stockfish at UCI_Elo X.
func (r *runner) references(settings *calib.Calibration) ([]Reference, error) {
	if r.cfg.RefGames <= 0 {
		return nil, nil
	}
	dir := filepath.Join(r.cfg.OutDir, "final")
	if err := r.install(dir, settings); err != nil {
		return nil, err
	}
	var out []Reference
	for _, x := range r.cfg.MaiaLabels {
		if r.cfg.MaiaDir == "" {
			break
		}
		maia := filepath.Join(r.cfg.MaiaDir, fmt.Sprintf("maia-%d.pb.gz", x))
		if _, err := os.Stat(maia); err != nil {
			r.logf("no %s: skipped", maia)
			continue
		}
		opp := match.EngineSpec{Name: fmt.Sprintf("Maia-%d", x), Path: r.cfg.Engine, Elo: x, Options: []client.Option{
			{Name: "NetFile", Value: maia}, {Name: "Temperature", Value: "0"}, {Name: "BlunderFilter", Value: "false"},
			{Name: "HumanTiming", Value: "false"}, {Name: "Calibration", Value: "false"}}}
		p := filepath.Join(dir, fmt.Sprintf("ref-maia-%d.pgn", x))
		sum, err := r.play(fmt.Sprintf("UCI_Elo %d vs Maia-%d", x, x), p, r.spec(dir, x, x), opp, r.cfg.RefGames, 0)
		if err != nil {
			return out, err
		}
		out = append(out, Reference{Label: x, Opponent: opp.Name, Score: sum.Score})
	}
	for _, x := range r.cfg.StockfishLabel {
		if r.cfg.Stockfish == "" {
			break
		}
		sfElo := max(x, 1320)
		f := strings.Fields(r.cfg.Stockfish)
		opp := match.EngineSpec{Name: fmt.Sprintf("Stockfish UCI_Elo %d", sfElo), Path: f[0], Args: f[1:], Elo: sfElo, Options: []client.Option{
			{Name: "Threads", Value: "1"}, {Name: "Hash", Value: "16"}, {Name: "UCI_LimitStrength", Value: "true"}, {Name: "UCI_Elo", Value: strconv.Itoa(sfElo)}}}
		p := filepath.Join(dir, fmt.Sprintf("ref-stockfish-%d.pgn", x))
		sum, err := r.play(fmt.Sprintf("UCI_Elo %d vs %s", x, opp.Name), p, r.spec(dir, x, sfElo), opp, r.cfg.RefGames, r.cfg.StockfishNodes)
		if err != nil {
			return out, err
		}
		out = append(out, Reference{Label: x, Opponent: opp.Name, Score: sum.Score})
	}
	return out, nil
}

// filterCost times FilterPositions positions (after the openings) at a
// low, middle and high label, with the blunder filter on and off.
func (r *runner) filterCost(settings *calib.Calibration) ([]FilterCost, error) {
	n := min(r.cfg.FilterPositions, len(r.cfg.Openings))
	if n <= 0 {
		return nil, nil
	}
	dir := filepath.Join(r.cfg.OutDir, "final")
	if err := r.install(dir, settings); err != nil {
		return nil, err
	}
	labels := slices.Compact([]int{r.cfg.Labels[0], r.cfg.Labels[len(r.cfg.Labels)/2], r.cfg.Labels[len(r.cfg.Labels)-1]})
	var out []FilterCost
	for _, l := range labels {
		fc := FilterCost{Label: l, Moves: n}
		for _, on := range []bool{true, false} {
			s := r.spec(dir, l, l)
			s.Options = append(s.Options, client.Option{Name: "BlunderFilter", Value: strconv.FormatBool(on)})
			e, err := client.Start(r.ctx, client.Config{Path: s.Path, Options: s.Options, InitTimeout: startTimeout, ReadyTimeout: startTimeout})
			if err != nil {
				return out, err
			}
			var nodes float64
			var ms []float64
			for _, o := range r.cfg.Openings[:n] {
				if err := e.Position(o.FEN, o.Moves); err != nil {
					_ = e.Close() // failed anyway
					return out, err
				}
				lim := client.Limits{WTime: r.cfg.TC.Base, BTime: r.cfg.TC.Base, WInc: r.cfg.TC.Inc, BInc: r.cfg.TC.Inc}
				res, err := e.Go(r.ctx, lim, 60*time.Second)
				if err != nil {
					_ = e.Close() // failed anyway
					return out, err
				}
				nodes += float64(res.Nodes)
				ms = append(ms, float64(res.Elapsed)/float64(time.Millisecond))
			}
			_ = e.Close() // Close always succeeds
			if on {
				fc.NodesOn, fc.MillisOn = nodes/float64(n), median(ms)
			} else {
				fc.NodesOff, fc.MillisOff = nodes/float64(n), median(ms)
			}
		}
		out = append(out, fc)
	}
	return out, nil
}

// median is the middle value of x (the mean of the two middle ones); NaN
// when empty.
func median(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := slices.Clone(x)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
