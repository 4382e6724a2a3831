package nets

import (
	"fmt"
	"math"

	"github.com/humchess/humchess/board"
)

// MeanOutputs mixes several nets' opinions of one position, an ensemble:
// the move distribution is the weighted mean of the members' softmax
// distributions (returned as logits, its natural logarithm), so a move only
// one member likes keeps that member's share. The value and think-time
// heads are the first member's that has them, not a mean: the members are
// listed primary first. Weights must be positive, one per output; they need
// not sum to 1. Every member must give the same legal moves; a member may
// list them in another order (the first member's order is kept).
func MeanOutputs(outs []Output, weights []float64) (Output, error) {
	if len(outs) == 0 || len(outs) != len(weights) {
		return Output{}, fmt.Errorf("nets: mean of %d outputs with %d weights", len(outs), len(weights))
	}
	var total float64
	for _, w := range weights {
		if !(w > 0) || math.IsInf(w, 1) {
			return Output{}, fmt.Errorf("nets: mean weight %v, want a positive number", w)
		}
		total += w
	}
	first := outs[0]
	n := len(first.Moves)
	mix := make([]float64, n)
	index := make(map[board.Move]int, n) // a move's place in the first member's list
	for i, m := range first.Moves {
		index[m] = i
	}
	if len(index) != n {
		return Output{}, fmt.Errorf("nets: mean: the first member lists a move twice")
	}
	probs := make([]float64, n)
	hit := make([]bool, n)
	for k, o := range outs {
		if len(o.Moves) != n || len(o.Logits) != n {
			return Output{}, fmt.Errorf("nets: mean: member %d gives %d moves and %d logits, the first %d moves",
				k, len(o.Moves), len(o.Logits), n)
		}
		if err := softmax(o.Logits, probs); err != nil {
			return Output{}, fmt.Errorf("nets: mean: member %d: %w", k, err)
		}
		w := weights[k] / total
		clear(hit)
		for i, m := range o.Moves {
			j, ok := index[m]
			if !ok || hit[j] {
				return Output{}, fmt.Errorf("nets: mean: member %d gives move %v, which the first does not, or twice", k, m)
			}
			hit[j] = true
			mix[j] += w * probs[i]
		}
	}
	res := Output{Moves: first.Moves, Logits: make([]float32, n)}
	for i, p := range mix {
		res.Logits[i] = float32(math.Log(max(p, math.SmallestNonzeroFloat64)))
	}
	for _, o := range outs {
		if res.WDL == nil && len(o.WDL) > 0 {
			res.WDL = o.WDL
		}
		if res.Time == nil && len(o.Time) > 0 {
			res.Time = o.Time
		}
	}
	return res, nil
}

// softmax writes softmax(logits) into p (len(p) >= len(logits)).
func softmax(logits []float32, p []float64) error {
	hi := math.Inf(-1)
	for _, l := range logits {
		if l != l || math.IsInf(float64(l), 1) {
			return fmt.Errorf("logit %v", l)
		}
		hi = max(hi, float64(l))
	}
	var sum float64
	for i, l := range logits {
		p[i] = math.Exp(float64(l) - hi)
		sum += p[i]
	}
	for i := range logits {
		p[i] /= sum
	}
	return nil
}
