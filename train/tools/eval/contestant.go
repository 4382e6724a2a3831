package eval

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/nets"
	"github.com/humchess/humchess/nets/load"
	scores "github.com/humchess/humchess/score"
	"github.com/humchess/humchess/train/data/games"
	"github.com/humchess/humchess/uci/client"
)

// Errors of contestant specifications.
var (
	// ErrSpec means a contestant specification cannot be used.
	ErrSpec = errors.New("eval: bad contestant")
)

// OpenNet opens a net file by its content (a HumChess .onnx or
// .safetensors, or an Lc0/Maia .pb.gz) with threads ONNX Runtime threads. It
// is a variable so that tests can substitute nets.
var OpenNet = func(path string, threads int) (nets.Net, error) {
	return load.Open(path, load.Options{Threads: threads})
}

// Prediction is a contestant's verdict on one position.
type Prediction struct {
	Top1, Top3 bool    // the human move is the contestant's first choice / among its first three
	LogP       float64 // log-probability of the human move (nats); NaN when the contestant gives none
	// WDLLoss is the value head's cross-entropy against the game's result
	// and TimeLoss the think-time head's against the think-time class of
	// the move (board.ThinkBin), nats; NaN when the head or the fact is
	// missing.
	WDLLoss, TimeLoss float64
	// EvalLoss is how far the value head's expected score (win + draw/2)
	// is from the expected score of the game's own evaluation of the
	// position (Position.Eval, score.Expected): the absolute difference;
	// NaN when the head or the evaluation is missing.
	EvalLoss float64
}

// Contestant predicts human moves. One instance serves one goroutine.
type Contestant interface {
	// Predict fills out[i] for ps[i]; it blocks.
	Predict(ctx context.Context, ps []*Position, out []Prediction) error
	// Close releases the contestant.
	Close() error
}

// Spec describes a contestant; Open makes one instance (called once per worker).
type Spec struct {
	Name string
	Open func() (Contestant, error)
	// Probabilities reports whether LogP and Top3 are meaningful (false for
	// UCI engines: top-1 only).
	Probabilities bool
	// OwnScale gives this contestant ratings on another scale than the
	// report's (Config.RatingMap): RatingMap's (nil = the PGN's), for a net
	// trained on ratings mapped otherwise. The report's tables still read
	// Config.RatingMap's.
	OwnScale  bool
	RatingMap *games.RatingMap
}

// NetSpec is a contestant that opens a net file per worker.
func NetSpec(name, path string) Spec {
	return Spec{Name: name, Probabilities: true, Open: func() (Contestant, error) {
		n, err := OpenNet(path, 1)
		if err != nil {
			return nil, err
		}
		return &netContestant{net: n}, nil
	}}
}

// NetContestantSpec wraps an already-open net factory (tests, benchmarks).
func NetContestantSpec(name string, open func() (nets.Net, error)) Spec {
	return Spec{Name: name, Probabilities: true, Open: func() (Contestant, error) {
		n, err := open()
		if err != nil {
			return nil, err
		}
		return &netContestant{net: n}, nil
	}}
}

type netContestant struct {
	net nets.Net
	in  []nets.Input
}

// outputter is a contestant that gives a net's whole output per position,
// which a mean of contestants mixes.
type outputter interface {
	Contestant
	outputs(ctx context.Context, ps []*Position) ([]nets.Output, error)
}

// predictFrom scores the outputs an outputter gives for ps.
func predictFrom(ctx context.Context, c outputter, ps []*Position, out []Prediction) error {
	res, err := c.outputs(ctx, ps)
	if err != nil {
		return err
	}
	for i, p := range ps {
		out[i] = score(res[i], p.Move)
		out[i].WDLLoss, out[i].TimeLoss, out[i].EvalLoss = headLosses(res[i], p)
	}
	return nil
}

func (c *netContestant) Predict(ctx context.Context, ps []*Position, out []Prediction) error {
	return predictFrom(ctx, c, ps, out)
}

func (c *netContestant) outputs(ctx context.Context, ps []*Position) ([]nets.Output, error) {
	c.in = c.in[:0]
	for _, p := range ps {
		c.in = append(c.in, nets.Input{Game: p.Game, Ctx: p.Ctx})
	}
	res, err := c.net.Evaluate(ctx, c.in)
	if err != nil {
		return nil, err
	}
	if len(res) != len(ps) {
		return nil, fmt.Errorf("eval: net %s returned %d outputs for %d positions", c.net.Info().Name, len(res), len(ps))
	}
	return res, nil
}

func (c *netContestant) Close() error { return c.net.Close() }

// headLosses scores the value and think-time heads of o against what
// happened after position p: the cross-entropy of the game's result and of
// the move's think-time class, nats, and the value head's distance from the
// game's evaluation of p in expected score (NaN when a head or the fact is
// missing).
func headLosses(o nets.Output, p *Position) (wdl, think, ev float64) {
	wdl, think, ev = math.NaN(), math.NaN(), math.NaN()
	if len(o.WDL) == 3 && p.HasResult {
		wdl = -math.Log(max(float64(o.WDL[1-p.Result]), probFloor))
	}
	if len(o.WDL) == 3 && !math.IsNaN(p.Eval) {
		ev = math.Abs(float64(o.WDL[0]) + float64(o.WDL[1])/2 - scores.Expected(p.Eval))
	}
	if k := board.ThinkBin(p.Seconds); k >= 0 && len(o.Time) == board.NumThinkBins {
		think = -math.Log(max(float64(o.Time[k]), probFloor))
	}
	return wdl, think, ev
}

// probFloor bounds a head's cross-entropy when it gives an outcome
// probability 0.
const probFloor = 1e-7

// score compares a net's output with the human move.
func score(o nets.Output, human board.Move) Prediction {
	pr := Prediction{LogP: math.NaN(), WDLLoss: math.NaN(), TimeLoss: math.NaN(), EvalLoss: math.NaN()}
	h := -1
	for i, m := range o.Moves {
		if m == human {
			h = i
			break
		}
	}
	if h < 0 || len(o.Logits) != len(o.Moves) {
		return pr
	}
	mx := math.Inf(-1)
	for _, l := range o.Logits {
		mx = math.Max(mx, float64(l))
	}
	sum := 0.0
	for _, l := range o.Logits {
		sum += math.Exp(float64(l) - mx)
	}
	pr.LogP = float64(o.Logits[h]) - mx - math.Log(sum)
	// Rank: moves with a strictly higher logit, plus equal ones listed earlier
	// (ties go to the first listed, as an argmax would).
	rank := 0
	for i, l := range o.Logits {
		if l > o.Logits[h] || (l == o.Logits[h] && i < h) {
			rank++
		}
	}
	pr.Top1, pr.Top3 = rank == 0, rank < 3
	return pr
}

// MaiaBand returns the Maia net's rating for a mover rating: its band
// (board.RatingBand), clamped to 1100..1900.
func MaiaBand(rating int) int {
	return min(max(board.RatingBand(rating), 1100), 1900)
}

// MaiaAutoSpec is "maia-auto": each position goes to the Maia net of the
// mover's band (maia-1100 .. maia-1900 in dir, clamped at both ends).
// Positions with an unknown rating use maia-1500.
func MaiaAutoSpec(name, dir string) (Spec, error) {
	paths := map[int]string{}
	for b := 1100; b <= 1900; b += board.RatingBandWidth {
		p := filepath.Join(dir, fmt.Sprintf("maia-%d.pb.gz", b))
		if _, err := os.Stat(p); err != nil {
			return Spec{}, fmt.Errorf("%w: maia-auto needs %s: %v", ErrSpec, p, err)
		}
		paths[b] = p
	}
	return Spec{Name: name, Probabilities: true, Open: func() (Contestant, error) {
		m := &maiaAuto{paths: paths, nets: map[int]nets.Net{}}
		for b, p := range paths { // open every band now: a missing file fails the run at once
			n, err := OpenNet(p, 1)
			if err != nil {
				_ = m.Close() // the open error is the one to report
				return nil, err
			}
			m.nets[b] = n
		}
		return m, nil
	}}, nil
}

type maiaAuto struct {
	paths map[int]string
	nets  map[int]nets.Net // one per band
}

func (m *maiaAuto) Predict(ctx context.Context, ps []*Position, out []Prediction) error {
	return predictFrom(ctx, m, ps, out)
}

func (m *maiaAuto) outputs(ctx context.Context, ps []*Position) ([]nets.Output, error) {
	res := make([]nets.Output, len(ps))
	groups := map[int][]int{}
	for i, p := range ps {
		b := 1500
		if p.MoverRating >= 0 {
			b = MaiaBand(p.MoverRating)
		}
		groups[b] = append(groups[b], i)
	}
	bands := make([]int, 0, len(groups))
	for b := range groups {
		bands = append(bands, b)
	}
	sort.Ints(bands)
	for _, b := range bands {
		n := m.nets[b]
		idx := groups[b]
		in := make([]nets.Input, len(idx))
		for k, i := range idx {
			in[k] = nets.Input{Game: ps[i].Game, Ctx: ps[i].Ctx}
		}
		o, err := n.Evaluate(ctx, in)
		if err != nil {
			return nil, err
		}
		if len(o) != len(idx) {
			return nil, fmt.Errorf("eval: maia-%d returned %d outputs for %d positions", b, len(o), len(idx))
		}
		for k, i := range idx {
			res[i] = o[k]
		}
	}
	return res, nil
}

func (m *maiaAuto) Close() error { return closeAll(slices.Collect(maps.Values(m.nets))) }

// closeAll closes every c and returns the first error.
func closeAll[C interface{ Close() error }](cs []C) error {
	var first error
	for _, c := range cs {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// EngineSpec configures an external UCI engine as a contestant (top-1 only).
type EngineSpec struct {
	Path    string
	Args    []string
	Options []client.Option
	Go      string        // what follows "go", e.g. "nodes 1"
	SetElo  bool          // send "setoption name UCI_Elo value <mover rating>" before each position
	EloMin  int           // clamp the rating sent (0 = no clamp)
	EloMax  int           // clamp the rating sent (0 = no clamp)
	Timeout time.Duration // per position; 0 means 10 s
}

// UCISpec is a contestant driving an external engine, one process per worker.
func UCISpec(name string, e EngineSpec) Spec {
	return Spec{Name: name, Open: func() (Contestant, error) {
		u := &uciContestant{spec: e}
		if err := u.start(); err != nil {
			return nil, err
		}
		return u, nil
	}}
}

type uciContestant struct {
	spec    EngineSpec
	eng     *client.Engine
	lastElo int
}

func (u *uciContestant) start() error {
	e, err := client.Start(context.Background(), client.Config{Path: u.spec.Path, Args: u.spec.Args, Options: u.spec.Options})
	if err != nil {
		return fmt.Errorf("eval: engine %s: %w", u.spec.Path, err)
	}
	u.eng, u.lastElo = e, -1
	return nil
}

func (u *uciContestant) Predict(ctx context.Context, ps []*Position, out []Prediction) error {
	timeout := u.spec.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	goCmd := strings.TrimSpace(u.spec.Go)
	if goCmd == "" {
		goCmd = "nodes 1"
	}
	moves := make([]string, 0, 256)
	for i, p := range ps {
		if !u.eng.Alive() { // restart after a crash in an earlier position
			if err := u.start(); err != nil {
				return err
			}
		}
		if u.spec.SetElo && p.MoverRating >= 0 {
			r := p.MoverRating
			if u.spec.EloMin > 0 {
				r = max(r, u.spec.EloMin)
			}
			if u.spec.EloMax > 0 {
				r = min(r, u.spec.EloMax)
			}
			if r != u.lastElo {
				if err := u.eng.SetOption("UCI_Elo", strconv.Itoa(r)); err != nil {
					return err
				}
				u.lastElo = r
			}
		}
		moves = moves[:0]
		for _, m := range p.Game.Moves() {
			moves = append(moves, m.String())
		}
		fen := p.Game.StartFEN()
		if fen == board.StartFEN {
			fen = ""
		}
		if err := u.eng.Position(fen, moves); err != nil {
			return err
		}
		res, err := u.eng.Go(ctx, client.Limits{Raw: goCmd}, timeout)
		if err != nil {
			return fmt.Errorf("eval: engine %s: %w", u.spec.Path, err)
		}
		out[i] = Prediction{Top1: res.BestMove == p.Move.String(), LogP: math.NaN(), WDLLoss: math.NaN(), TimeLoss: math.NaN(), EvalLoss: math.NaN()}
	}
	return nil
}

func (u *uciContestant) Close() error { return u.eng.Close() }

// MeanSpec is an ensemble of contestants that give a net's whole output
// (nets and maia-auto, not UCI engines): each position's move distribution
// is the weighted mean of theirs (nets.MeanOutputs), its value and
// think-time heads the first member's. The members must read ratings on one
// scale; the mean reads it too.
func MeanSpec(name string, members []Spec, weights []float64) (Spec, error) {
	if len(members) < 2 || len(members) != len(weights) {
		return Spec{}, fmt.Errorf("%w: mean %s: want two or more members, one weight each", ErrSpec, name)
	}
	for _, m := range members {
		if !m.Probabilities {
			return Spec{}, fmt.Errorf("%w: mean %s: member %s gives no move probabilities", ErrSpec, name, m.Name)
		}
		if m.OwnScale != members[0].OwnScale || m.RatingMap != members[0].RatingMap {
			return Spec{}, fmt.Errorf("%w: mean %s: members %s and %s read ratings on different scales", ErrSpec, name, members[0].Name, m.Name)
		}
	}
	for _, w := range weights {
		if !(w > 0) || math.IsInf(w, 1) {
			return Spec{}, fmt.Errorf("%w: mean %s: weight %v, want a positive number", ErrSpec, name, w)
		}
	}
	return Spec{Name: name, Probabilities: true, OwnScale: members[0].OwnScale, RatingMap: members[0].RatingMap,
		Open: func() (Contestant, error) {
			m := &mean{weights: weights}
			for _, s := range members {
				c, err := s.Open()
				if err != nil {
					_ = m.Close() // the open error is the one to report
					return nil, err
				}
				o, ok := c.(outputter)
				if !ok {
					_ = c.Close()
					_ = m.Close()
					return nil, fmt.Errorf("%w: mean %s: member %s gives no whole outputs", ErrSpec, name, s.Name)
				}
				m.members = append(m.members, o)
			}
			return m, nil
		}}, nil
}

type mean struct {
	members []outputter
	weights []float64
	outs    []nets.Output
}

func (m *mean) Predict(ctx context.Context, ps []*Position, out []Prediction) error {
	return predictFrom(ctx, m, ps, out)
}

func (m *mean) outputs(ctx context.Context, ps []*Position) ([]nets.Output, error) {
	all := make([][]nets.Output, len(m.members))
	for k, c := range m.members {
		o, err := c.outputs(ctx, ps)
		if err != nil {
			return nil, err
		}
		all[k] = o
	}
	res := make([]nets.Output, len(ps))
	for i := range ps {
		m.outs = m.outs[:0]
		for k := range m.members {
			m.outs = append(m.outs, all[k][i])
		}
		o, err := nets.MeanOutputs(m.outs, m.weights)
		if err != nil {
			return nil, fmt.Errorf("eval: %w", err)
		}
		res[i] = o
	}
	return res, nil
}

func (m *mean) Close() error { return closeAll(m.members) }
