package policy

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/nets"
)

// DefaultCandidates is how many of the most likely moves the blunder filter
// evaluates when Params.Candidates is 0.
const DefaultCandidates = 6

// Params are the knobs of one choice.
type Params struct {
	Temperature    float64      // 1 = the learned distribution, 0 = always the most likely move
	TopP           float64      // sample among the most likely moves holding this much probability; 1 = all
	BlunderFilter  bool         // evaluate the top candidates with the value head and resample blunders
	BlunderScale   float64      // multiplies Threshold(rating); 1 = as designed, 0 = only the best candidate passes
	Candidates     int          // top-K candidates the filter evaluates; 0 = DefaultCandidates
	Focus          float64      // narrows the filter's tolerance where the position is easy (FocusThreshold); 0 = the same tolerance everywhere
	Guidance       float64      // pushes the logits away from those at GuidanceRating (Guide); 0 = the net's logits
	GuidanceRating float32      // the mover's rating of the contrast the guidance pushes away from (Elo)
	Lines          int          // candidates wanted in Choice.Lines (MultiPV); at least 1
	Reply          bool         // also predict the opponent's most likely reply (for ponder)
	SearchMoves    []board.Move // restrict the choice to these legal moves; nil = all
}

// DefaultParams are the engine's defaults: the learned distribution, the
// blunder filter on, one line.
func DefaultParams() Params {
	return Params{Temperature: 1, TopP: 1, BlunderFilter: true, BlunderScale: 1, Lines: 1}
}

// Candidate is one legal move with what is known about it.
type Candidate struct {
	Move   board.Move
	Prob   float64    // the net's probability at temperature 1 (the human distribution over the allowed moves)
	WDL    [3]float64 // win, draw, loss for the mover after the move; valid when HasWDL
	HasWDL bool       // the position after the move was evaluated with a value head (or is over)
}

// Expected returns the mover's expected score W + D/2 after the move.
func (c Candidate) Expected() float64 { return c.WDL[0] + c.WDL[1]/2 }

// Choice is the result of Choose.
type Choice struct {
	Move       board.Move   // the move to play; board.NullMove when there is none
	Prob       float64      // its probability at temperature 1
	FactorMean float64      // MoveFactorMean of the temperature-1 distribution over the allowed moves (Shape.FactorMean)
	Root       nets.Output  // the net's output for the position
	RootWDL    [3]float64   // Root.WDL as float64; valid when HasWDL
	HasWDL     bool         // the net has a value head
	Lines      []Candidate  // the Params.Lines most likely moves (children evaluated when the net has a value head)
	Played     Candidate    // the chosen move as a Candidate
	Rejected   []board.Move // sampled moves the blunder filter threw out
	Threshold  float64      // the expected-score loss the filter tolerated; 0 when it did not run
	Reply      board.Move   // the opponent's most likely reply after Move; NullMove when not predicted
	Evaluated  int          // positions the net evaluated
}

// ErrNoNet is returned by Choose without a net.
var ErrNoNet = errors.New("policy: no net")

// Threshold returns the loss of expected score (0..1) the blunder filter
// tolerates for a player of the given rating: 0.30 at 800 and below, 0.10
// at 2400 and above, linear in between (lower-rated humans blunder more).
func Threshold(rating float64) float64 {
	const lo, hi, tLo, tHi = 800.0, 2400.0, 0.30, 0.10
	switch {
	case !(rating > lo):
		return tLo
	case rating >= hi:
		return tHi
	}
	return tLo + (rating-lo)/(hi-lo)*(tHi-tLo)
}

// Choose runs the pipeline on g for the mover described by c. It evaluates
// the position (one batch), samples a move with rng from the distribution
// shaped by p, and, with p.BlunderFilter and a value head, evaluates the
// positions after the top candidates and the sampled move (one more batch)
// and resamples a blunder. With no legal move it returns a Choice whose Move
// is board.NullMove and no error. It blocks for the net.
func Choose(ctx context.Context, net nets.Net, g *board.Game, c board.Context, p Params, rng *rand.Rand) (Choice, error) {
	ch := Choice{Move: board.NullMove, Reply: board.NullMove}
	if net == nil {
		return ch, ErrNoNet
	}
	if g.NumLegalMoves() == 0 {
		return ch, nil
	}
	in := []nets.Input{{Game: g, Ctx: c}}
	guided := p.Guidance > 0 && !math.IsInf(p.Guidance, 1) && p.GuidanceRating > 0 && p.GuidanceRating != c.MoverRating
	if guided {
		contrast := c
		contrast.MoverRating = p.GuidanceRating
		in = append(in, nets.Input{Game: g, Ctx: contrast})
	}
	outs, err := net.Evaluate(ctx, in)
	if err != nil {
		return ch, fmt.Errorf("policy: evaluate: %w", err)
	}
	if len(outs) != len(in) || len(outs[0].Logits) != len(outs[0].Moves) || len(outs[0].Moves) == 0 ||
		guided && len(outs[1].Logits) != len(outs[0].Logits) {
		return ch, fmt.Errorf("policy: evaluate: malformed output (%d outputs)", len(outs))
	}
	root := outs[0]
	if guided {
		root.Logits = Guide(root.Logits, outs[1].Logits, p.Guidance)
	}
	ch.Root, ch.Evaluated = root, len(in)
	if len(root.WDL) == 3 {
		ch.HasWDL = true
		ch.RootWDL = [3]float64{float64(root.WDL[0]), float64(root.WDL[1]), float64(root.WDL[2])}
	}

	keep := allowed(root.Moves, p.SearchMoves)
	human := Distribution(root.Logits, keep, 1)
	ch.FactorMean = MoveFactorMean(human)
	sampling := TopP(Distribution(root.Logits, keep, p.Temperature), p.TopP)
	pick := Sample(sampling, rng)
	if pick < 0 {
		return ch, fmt.Errorf("policy: no move has a finite logit")
	}

	// The children to evaluate: the top-K (blunder filter), the top Lines,
	// the sampled move, and for Reply the sampled move.
	order := argsort(human)
	lines := min(max(p.Lines, 1), countPositive(human))
	filter := p.BlunderFilter && ch.HasWDL
	var want []int
	if filter || (ch.HasWDL && lines > 1) {
		k := lines
		if filter {
			k = max(k, p.Candidates, 0)
			if p.Candidates == 0 {
				k = max(k, DefaultCandidates)
			}
		}
		for _, i := range order[:min(k, countPositive(human))] {
			want = append(want, i)
		}
	}
	if (filter || p.Reply) && !containsInt(want, pick) {
		want = append(want, pick)
	}
	cands := make(map[int]*Candidate, len(want))
	children, err := evaluateChildren(ctx, net, g, c, root.Moves, want)
	if err != nil {
		return ch, err
	}
	for k, i := range want {
		cand := &Candidate{Move: root.Moves[i], Prob: human[i]}
		if r := children[k]; r.wdl != nil {
			cand.WDL, cand.HasWDL = *r.wdl, true
		}
		cands[i] = cand
		ch.Evaluated += children[k].evaluated
	}

	if filter {
		ch.Threshold = Threshold(float64(c.MoverRating)) * max(p.BlunderScale, 0)
		ch.Threshold = FocusThreshold(ch.Threshold, p.Focus, want, cands)
		pick, ch.Rejected = filterBlunder(pick, want, cands, sampling, human, ch.Threshold, rng)
	}

	ch.Move, ch.Prob = root.Moves[pick], human[pick]
	ch.Played = Candidate{Move: ch.Move, Prob: ch.Prob}
	if cand, ok := cands[pick]; ok {
		ch.Played = *cand
	}
	for _, i := range order[:lines] {
		if cand, ok := cands[i]; ok {
			ch.Lines = append(ch.Lines, *cand)
		} else {
			ch.Lines = append(ch.Lines, Candidate{Move: root.Moves[i], Prob: human[i]})
		}
	}
	for k, i := range want {
		if i == pick && children[k].reply != nil {
			ch.Reply = *children[k].reply
		}
	}
	return ch, nil
}

// FocusFloor is the largest expected-score loss that FocusThreshold never
// vetoes: a small inaccuracy, a third of the 0.15 that the error profiles
// count as a blunder. Under a strict threshold the floor is half of it, so
// that focus narrows every threshold (at UCI_Elo 2400 the calibrated
// tolerance is about 0.03).
const FocusFloor = 0.05

// FocusThreshold returns the blunder filter's tolerance in this position.
// With floor = min(FocusFloor, threshold/2), good is the human probability
// of the evaluated candidates within floor of the best of them: where it is
// high the position is easy (most players of this rating find a good
// move), and a stronger player does not blunder there. The tolerance is
// threshold*(1-good)^focus, never below floor. Humans of 1600 and 2000
// blunder about as often per move and still score 91% apart: the 2000's
// blunders come in harder positions. With focus 0 (or below, or not
// finite), a threshold of 0, or without evaluated candidates, it returns
// threshold.
func FocusThreshold(threshold, focus float64, evaluated []int, cands map[int]*Candidate) float64 {
	if !(focus > 0) || math.IsInf(focus, 1) || !(threshold > 0) {
		return threshold
	}
	floor := min(FocusFloor, threshold/2)
	best, bestIdx := bestEvaluated(evaluated, cands)
	if bestIdx < 0 {
		return threshold
	}
	good := 0.0
	for _, i := range evaluated {
		if c := cands[i]; c != nil && c.HasWDL && c.Expected() >= best-floor {
			good += c.Prob
		}
	}
	return max(threshold*math.Pow(min(max(1-good, 0), 1), focus), floor)
}

// bestEvaluated returns the highest expected score among the evaluated
// candidates that have one, and its index; index -1 when none has.
func bestEvaluated(evaluated []int, cands map[int]*Candidate) (best float64, idx int) {
	best, idx = -1, -1
	for _, i := range evaluated {
		if c := cands[i]; c != nil && c.HasWDL && c.Expected() > best {
			best, idx = c.Expected(), i
		}
	}
	return best, idx
}

// filterBlunder returns pick, or when it loses more than threshold expected
// score against the best evaluated candidate, a resample among the evaluated
// candidates within the threshold (by their sampling weight, else their
// human probability, else the best one).
func filterBlunder(pick int, evaluated []int, cands map[int]*Candidate, sampling, human []float64, threshold float64, rng *rand.Rand) (int, []board.Move) {
	best, bestIdx := bestEvaluated(evaluated, cands)
	c := cands[pick]
	if bestIdx < 0 || c == nil || !c.HasWDL || c.Expected() >= best-threshold {
		return pick, nil
	}
	rejected := []board.Move{c.Move}
	weights := make([]float64, len(sampling))
	for _, from := range [][]float64{sampling, human} {
		sum := 0.0
		for _, i := range evaluated {
			if d := cands[i]; d.HasWDL && d.Expected() >= best-threshold {
				weights[i] = from[i]
				sum += from[i]
			}
		}
		if sum > 0 {
			return Sample(weights, rng), rejected
		}
	}
	return bestIdx, rejected
}

type childResult struct {
	wdl       *[3]float64 // mover's view after the move
	reply     *board.Move // opponent's most likely reply
	evaluated int
}

// evaluateChildren evaluates, in one batch, the positions after
// moves[want[k]]; a finished game is scored without the net (mate won,
// anything else drawn).
func evaluateChildren(ctx context.Context, net nets.Net, g *board.Game, c board.Context, moves []board.Move, want []int) ([]childResult, error) {
	res := make([]childResult, len(want))
	var in []nets.Input
	var slot []int
	cc := board.Context{MoverRating: c.OppRating, OppRating: c.MoverRating, Base: c.Base, Inc: c.Inc, MoverClock: c.OppClock, OppClock: c.MoverClock}
	for k, i := range want {
		child := g.Clone()
		if err := child.PlayMove(moves[i]); err != nil {
			return nil, fmt.Errorf("policy: net returned a move that is not legal: %w", err)
		}
		switch child.Status() {
		case board.Checkmate:
			res[k].wdl = &[3]float64{1, 0, 0}
			continue
		case board.Stalemate, board.InsufficientMaterial, board.Threefold, board.FiftyMove:
			res[k].wdl = &[3]float64{0, 1, 0}
			continue
		}
		in = append(in, nets.Input{Game: child, Ctx: cc})
		slot = append(slot, k)
	}
	if len(in) == 0 {
		return res, nil
	}
	outs, err := net.Evaluate(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("policy: evaluate candidates: %w", err)
	}
	if len(outs) != len(in) {
		return nil, fmt.Errorf("policy: evaluate candidates: %d outputs for %d inputs", len(outs), len(in))
	}
	for j, o := range outs {
		r := &res[slot[j]]
		r.evaluated = 1
		if len(o.WDL) == 3 {
			// The child's WDL is the opponent's; the mover's expected score is
			// 1 - (W' + D'/2): the mover wins what the opponent loses.
			r.wdl = &[3]float64{float64(o.WDL[2]), float64(o.WDL[1]), float64(o.WDL[0])}
		}
		if len(o.Logits) == len(o.Moves) && len(o.Moves) > 0 {
			best := 0
			for i, l := range o.Logits {
				if l > o.Logits[best] {
					best = i
				}
			}
			m := o.Moves[best]
			r.reply = &m
		}
	}
	return res, nil
}

// allowed marks the moves in search (nil = all; moves not in the list are
// dropped). When none of search is among moves it allows all.
func allowed(moves, search []board.Move) []bool {
	if len(search) == 0 {
		return nil
	}
	keep := make([]bool, len(moves))
	any := false
	for i, m := range moves {
		for _, s := range search {
			if m == s {
				keep[i], any = true, true
			}
		}
	}
	if !any {
		return nil
	}
	return keep
}

func countPositive(p []float64) int {
	n := 0
	for _, x := range p {
		if x > 0 {
			n++
		}
	}
	return n
}

func containsInt(s []int, x int) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// Guide returns logits + guidance*(logits - contrast), entry by entry: the
// distribution pushed away from the contrast's (the same position and net
// at another mover's rating) in the direction the rating moves it. Guidance
// 0 returns logits unchanged. An entry that is not finite in either keeps
// logits' value.
func Guide(logits, contrast []float32, guidance float64) []float32 {
	out := make([]float32, len(logits))
	for i, v := range logits {
		d := float64(v) - float64(contrast[i])
		if math.IsNaN(d) || math.IsInf(d, 0) {
			out[i] = v
			continue
		}
		out[i] = float32(float64(v) + guidance*d)
	}
	return out
}
