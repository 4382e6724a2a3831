package engine

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	mrand "math/rand/v2"
	"time"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/nets"
	"github.com/humchess/humchess/nets/calib"
	"github.com/humchess/humchess/nets/load"
	"github.com/humchess/humchess/policy"
	"github.com/humchess/humchess/uci"
)

// openDefaultNet opens the embedded default net (nets/load) with threads ONNX
// Runtime threads; nil means this build has none.
var openDefaultNet = func(threads int) (nets.Net, error) {
	return load.Default(load.Options{Threads: threads})
}

// ErrNoDefaultNet is returned when NetFile is empty and the build embeds no net.
var ErrNoDefaultNet = errors.New("this build embeds no default net: set NetFile to a HumChess .onnx or a Maia/Lc0 .pb.gz file")

// Opener opens the net for NetFile path ("" = the default net) with threads
// CPU threads.
type Opener func(path string, threads int) (nets.Net, error)

// OpenNet is the Opener of play: a net file by its content (nets/load: a
// HumChess .onnx or .safetensors, or an Lc0/Maia .pb.gz), and for "" the
// embedded default net (ErrNoDefaultNet when the build has none), with
// threads ONNX Runtime threads.
func OpenNet(path string, threads int) (nets.Net, error) {
	if path != "" {
		return load.Open(path, load.Options{Threads: threads})
	}
	if openDefaultNet == nil {
		return nil, ErrNoDefaultNet
	}
	return openDefaultNet(threads)
}

// Engine implements uci.Engine with board, policy and a nets.Net: a NetFile
// is opened when it is set (so that an unusable file is refused at once),
// the default net lazily (at isready or the first go). Like uci.Engine, it
// serves one caller at a time.
type Engine struct {
	opts   uci.Options
	game   *board.Game
	clock  policy.GameClock
	net    nets.Net
	netKey string             // NetFile and Threads the net was opened with
	cal    *calib.Calibration // the net's UCI_Elo calibration; nil = none
	calErr error              // why the net's calibration could not be read
	rng    *mrand.Rand
	open   Opener
}

var _ uci.Engine = (*Engine)(nil)

// New returns an Engine at the start position with uci.DefaultOptions,
// opening its nets with open (nil = OpenNet). Its random choices are seeded
// from crypto/rand until the Seed option fixes them.
func New(open Opener) *Engine {
	var seed [16]byte
	if _, err := rand.Read(seed[:]); err != nil {
		// crypto/rand does not fail on supported platforms; fall back to the clock.
		binary.LittleEndian.PutUint64(seed[:], uint64(time.Now().UnixNano()))
	}
	if open == nil {
		open = OpenNet
	}
	return &Engine{
		opts: uci.DefaultOptions(),
		game: board.MustNewGame(""),
		rng:  mrand.New(mrand.NewPCG(binary.LittleEndian.Uint64(seed[:8]), binary.LittleEndian.Uint64(seed[8:]))),
		open: open,
	}
}

// NewGame implements uci.Engine.
func (e *Engine) NewGame() {
	e.game = board.MustNewGame("")
	e.clock.Reset()
}

// SetPosition implements uci.Engine. A position that does not continue the
// previous one (another start, or not an extension of its moves) starts a
// new game for the clock, for GUIs that do not send ucinewgame.
func (e *Engine) SetPosition(fen string, moves []string) error {
	g, err := board.NewGame(fen)
	if err != nil {
		return err
	}
	for i, m := range moves {
		if err := g.Play(m); err != nil {
			return fmt.Errorf("move %d (%s): %w", i+1, m, err)
		}
	}
	if !continues(e.game, g) {
		e.clock.Reset()
	}
	e.game = g
	return nil
}

// continues reports whether next is prev's game with zero or more moves added.
func continues(prev, next *board.Game) bool {
	if prev.StartFEN() != next.StartFEN() {
		return false
	}
	a, b := prev.Moves(), next.Moves()
	if len(b) < len(a) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Configure implements uci.Engine. A NetFile, or a Threads value with a
// NetFile, that changes opens the net at once and tries it on the start
// position: a missing file, or one that is not a usable net, is refused
// here and the previous options and net stay. The embedded default is
// opened at the next isready or go.
func (e *Engine) Configure(o uci.Options) error {
	if key := netKey(o); o.NetFile != "" && (e.net == nil || e.netKey != key) {
		n, err := e.openUsable(o.NetFile, o.Threads)
		if err != nil {
			return fmt.Errorf("NetFile: %w", err)
		}
		e.setNet(n, key, o.NetFile)
	}
	e.opts = o
	return nil
}

// Ready implements uci.Engine: it opens the net if needed.
func (e *Engine) Ready() error {
	if _, err := e.ensureNet(); err != nil {
		return err
	}
	if e.opts.Calibration && e.calErr != nil {
		return e.calErr
	}
	return nil
}

// netKey identifies the net the options ask for.
func netKey(o uci.Options) string { return fmt.Sprintf("%s\x00%d", o.NetFile, o.Threads) }

func (e *Engine) ensureNet() (nets.Net, error) {
	key := netKey(e.opts)
	if e.net != nil && e.netKey == key {
		return e.net, nil
	}
	n, err := e.openUsable(e.opts.NetFile, e.opts.Threads)
	if err != nil {
		return nil, err
	}
	e.setNet(n, key, e.opts.NetFile)
	return n, nil
}

// setNet makes n, opened for key from netFile, the net in use, releasing
// the previous one, and finds its calibration.
func (e *Engine) setNet(n nets.Net, key, netFile string) {
	if e.net != nil {
		_ = e.net.Close() // a failure to release the old net does not stop the new one
	}
	e.net, e.netKey = n, key
	e.cal, e.calErr = findCalibration(netFile, n.Info().Hash)
}

// findCalibration returns the calibration of the net opened from netFile
// ("" = the embedded default) whose weight hash is hash; nil when it has none.
var findCalibration = calib.For

// strength returns the ratings to give the net for the options' UCI_Elo and
// opponent, and sets p's temperature, top-p and filter scale: through the
// net's calibration when the Calibration option is on and the net has one
// (cal: its points for the game's time class, calib.Calibration.ForControl;
// the options' Temperature, BlunderThreshold multiply the calibrated values,
// TopP caps them), else as the options say.
func (e *Engine) strength(o uci.Options, p *policy.Params, cal *calib.Calibration) (mover, opp int, err error) {
	mover, opp = o.Elo, o.OpponentRating()
	if !o.Calibration {
		return mover, opp, nil
	}
	if e.calErr != nil {
		return 0, 0, e.calErr
	}
	if cal == nil {
		return mover, opp, nil
	}
	pt := cal.At(mover)
	p.Temperature *= pt.Temperature
	p.TopP = min(p.TopP, pt.TopP)
	p.BlunderScale *= pt.BlunderScale
	p.Candidates = pt.Candidates
	p.Focus = pt.Focus
	p.Guidance, p.GuidanceRating = pt.Guidance, float32(math.Round(pt.GuidanceRating))
	return int(math.Round(pt.Rating)), int(math.Round(cal.At(opp).Rating)), nil
}

// thinkAt is the calibration's think-time scale, power, recapture factor
// and time-trouble pace cap at the game's time control
// (calib.Calibration.ThinkAt, RecaptureAt and PaceTopAt); 1, 1,
// policy.RecaptureFactor, policy.PaceTop with Calibration off or none.
func (e *Engine) thinkAt(o uci.Options, c board.Context) (scale, power, recapture float64, paceTop time.Duration) {
	if !o.Calibration || e.calErr != nil {
		return 1, 1, policy.RecaptureFactor, policy.PaceTop
	}
	base, inc := float64(c.Base), float64(c.Inc)
	scale, power = e.cal.ThinkAt(base, inc)
	top := e.cal.PaceTopAt(base, inc, policy.PaceTop.Seconds())
	return scale, power, e.cal.RecaptureAt(base, inc, policy.RecaptureFactor), time.Duration(top * float64(time.Second))
}

// openUsable opens the net for path and checks that it can play: its Info
// is valid for this build and it evaluates the start position into one
// finite logit per legal move. A net that fails is closed.
func (e *Engine) openUsable(path string, threads int) (nets.Net, error) {
	n, err := e.open(path, threads)
	if err != nil {
		return nil, err
	}
	if err := n.Info().Validate(); err != nil {
		_ = n.Close() // refused anyway
		return nil, err
	}
	if err := tryNet(n); err != nil {
		_ = n.Close() // refused anyway
		return nil, fmt.Errorf("%s: %w", n.Info().Name, err)
	}
	return n, nil
}

// ErrUnusableNet is returned for a net that opens but does not evaluate a
// position into a move distribution.
var ErrUnusableNet = errors.New("the net does not evaluate the start position")

// tryNet evaluates the start position with n and checks the output.
func tryNet(n nets.Net) error {
	g := board.MustNewGame("")
	ctx := board.Context{MoverRating: 1500, OppRating: 1500, Base: 300, Inc: 0, MoverClock: 300, OppClock: 300}
	out, err := n.Evaluate(context.Background(), []nets.Input{{Game: g, Ctx: ctx}})
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUnusableNet, err)
	}
	if len(out) != 1 {
		return fmt.Errorf("%w: %d outputs for 1 position", ErrUnusableNet, len(out))
	}
	legal := g.NumLegalMoves()
	if len(out[0].Moves) != legal || len(out[0].Logits) != legal {
		return fmt.Errorf("%w: %d moves and %d logits for %d legal moves", ErrUnusableNet, len(out[0].Moves), len(out[0].Logits), legal)
	}
	for i, l := range out[0].Logits {
		if math.IsNaN(float64(l)) || math.IsInf(float64(l), 0) {
			return fmt.Errorf("%w: logit %v for %s", ErrUnusableNet, l, out[0].Moves[i])
		}
	}
	return nil
}

// Close releases the net.
func (e *Engine) Close() error {
	if e.net == nil {
		return nil
	}
	err := e.net.Close()
	e.net = nil
	return err
}

// Think implements uci.Engine: the policy pipeline on the current position,
// then a human think time.
func (e *Engine) Think(ctx context.Context, lim uci.Limits) (uci.Result, error) {
	var res uci.Result
	net, err := e.ensureNet()
	if err != nil {
		return res, err
	}
	g := e.game
	o := e.opts
	p := policy.Params{
		Temperature:   float64(o.Temperature) / 100,
		TopP:          float64(o.TopP) / 100,
		BlunderFilter: o.BlunderFilter,
		BlunderScale:  float64(o.BlunderThreshold) / 100,
		Lines:         o.MultiPV,
		Reply:         o.Ponder,
	}
	for _, s := range lim.SearchMoves {
		m, err := board.ParseMove(s)
		if err == nil && !g.IsLegal(m) {
			err = fmt.Errorf("%w: %s", board.ErrIllegalMove, s)
		}
		if err != nil {
			res.Errors = append(res.Errors, fmt.Errorf("searchmoves: %w (ignored)", err))
			continue
		}
		p.SearchMoves = append(p.SearchMoves, m)
	}
	if len(lim.SearchMoves) > 0 && len(p.SearchMoves) == 0 {
		res.Errors = append(res.Errors, errors.New("searchmoves: no legal move given; choosing among all moves"))
	}

	clocks := policy.GUIClocks{WTime: lim.WTime, BTime: lim.BTime, WInc: lim.WInc, BInc: lim.BInc}
	setting := policy.Setting{
		MoverElo: o.Elo, OppElo: o.OpponentRating(),
		Base: time.Duration(o.TimeControl) * time.Second, Inc: time.Duration(o.Increment) * time.Second,
	}
	// The game's time control (as the net will see it) picks the
	// calibration's time class; the calibrated ratings then go to the net.
	bctx := e.clock.Context(clocks, g.WhiteToMove(), setting)
	cal := e.cal.ForControl(float64(bctx.Base), float64(bctx.Inc))
	moverElo, oppElo, err := e.strength(o, &p, cal)
	if err != nil {
		return res, err
	}
	setting.MoverElo, setting.OppElo = moverElo, oppElo
	bctx = e.clock.Context(clocks, g.WhiteToMove(), setting)

	rng := e.rng
	if o.Seed != 0 {
		// The same seed, start and moves give the same choice, whatever
		// happened before: a fixed seed replays the same game.
		rng = mrand.New(mrand.NewPCG(uint64(o.Seed), g.Hash()^uint64(g.Ply())))
	}
	clock := policy.ContextClock(bctx, lim.MovesToGo, time.Duration(o.MoveOverhead)*time.Millisecond)
	humanClock := clock.Remaining >= 0 && !lim.Infinite && lim.MoveTime == 0 && lim.Depth == 0 && lim.Nodes == 0 && lim.Mate == 0
	hurried := humanClock && !lim.Ponder && clock.Hurried() // a ponder search is done before ponderhit
	if hurried {
		// One net evaluation only: the filter's and the reply's would cost
		// more than the clock allows.
		p.BlunderFilter, p.Reply = false, false
	}
	ch, err := policy.Choose(ctx, net, g, bctx, p, rng)
	if err != nil {
		return res, err
	}
	res.Nodes = int64(ch.Evaluated)
	if ch.Move == board.NullMove {
		res.Notes = append(res.Notes, "no legal move")
		return res, nil
	}
	res.BestMove = ch.Move.String()
	if o.Ponder && ch.Reply != board.NullMove {
		res.Ponder = ch.Reply.String()
	}
	if o.MultiPV > 1 {
		for _, c := range ch.Lines {
			res.Lines = append(res.Lines, line(c, ch))
		}
	} else {
		res.Lines = []uci.Line{line(ch.Played, ch)}
	}

	thinkScale, thinkPower, recapture, paceTop := e.thinkAt(o, bctx)
	clock.PaceTop = paceTop
	if o.HumanTiming && humanClock {
		shape := policy.Shape{Prob: ch.Prob, FactorMean: ch.FactorMean, Recapture: policy.Recapture(g, ch.Move), Only: g.NumLegalMoves() == 1,
			Scale: thinkScale, Power: thinkPower, RecaptureScale: recapture}
		if len(ch.Lines) > 0 {
			shape.Top = ch.Lines[0].Prob
		}
		res.Think = policy.ThinkTime(ch.Root.Time, net.Info().ThinkBinEdges, clock, shape, rng)
	}

	res.Notes = append(res.Notes,
		"net "+net.Info().String(),
		fmt.Sprintf("strength UCI_Elo %d: temperature %.2f top-p %.2f filter scale %.2f focus %.2f candidates %d guidance %.2f at %.0f (calibration %s)", o.Elo, p.Temperature, p.TopP, p.BlunderScale, p.Focus, p.Candidates, p.Guidance, p.GuidanceRating, calNote(o, cal)),
		fmt.Sprintf("context mover %.0f opponent %.0f base %.0fs inc %.0fs clocks %.1fs %.1fs think scale %.2f power %.2f recapture %.2f pace top %.2fs", bctx.MoverRating, bctx.OppRating, bctx.Base, bctx.Inc, bctx.MoverClock, bctx.OppClock,
			thinkScale, thinkPower, recapture, paceTop.Seconds()),
		fmt.Sprintf("played %s prob %.1f%% threshold %.3f rejected %v think %v", ch.Move, 100*ch.Prob, ch.Threshold, ch.Rejected, res.Think.Round(time.Millisecond)),
	)
	if hurried {
		res.Notes = append(res.Notes, fmt.Sprintf("hurried: safe limit %v below %v, no blunder filter or ponder reply", clock.SafeLimit(), policy.HurryBelow))
	}
	return res, nil
}

// line turns a candidate into a uci.Line; without its own evaluation it
// carries the position's WDL.
func line(c policy.Candidate, ch policy.Choice) uci.Line {
	l := uci.Line{Move: c.Move.String(), Prob: c.Prob, WDL: c.WDL, HasWDL: c.HasWDL}
	if !c.HasWDL && ch.HasWDL {
		l.WDL, l.HasWDL = ch.RootWDL, true
	}
	return l
}

// calNote says which calibration strength used (c: the points of the game's
// time class).
func calNote(o uci.Options, c *calib.Calibration) string {
	switch {
	case !o.Calibration:
		return "off"
	case c == nil:
		return "none for this net"
	}
	return c.Net + ", " + c.TimeClass
}
