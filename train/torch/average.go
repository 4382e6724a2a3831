package torch

import (
	"fmt"

	"github.com/humchess/humchess/nets/transformer"
)

// Average returns a checkpoint whose weights are the mean of the weights of
// cks, each weighted by its entry of by (nil: equal weights): weight
// averaging of checkpoints of one run (the ends of its learning-rate cycles,
// say), which often predicts better than any one of them. Every checkpoint
// must have the same architecture. The result carries the state of the
// checkpoint with the most steps and no AdamW moments: it is for export
// (Export), not for resuming a run.
func Average(cks []*Checkpoint, by []float64) (*Checkpoint, error) {
	if len(cks) == 0 {
		return nil, fmt.Errorf("%w: average: no checkpoints", ErrConfig)
	}
	if by == nil {
		by = make([]float64, len(cks))
		for i := range by {
			by[i] = 1
		}
	}
	if len(by) != len(cks) {
		return nil, fmt.Errorf("%w: average: %d weights for %d checkpoints", ErrConfig, len(by), len(cks))
	}
	sum := 0.0
	for i, b := range by {
		if !(b >= 0) {
			return nil, fmt.Errorf("%w: average: weight %d is %v, want >= 0", ErrConfig, i+1, b)
		}
		sum += b
	}
	if !(sum > 0) {
		return nil, fmt.Errorf("%w: average: the weights sum to %v", ErrConfig, sum)
	}
	a := cks[0].Arch
	latest := cks[0]
	for i, ck := range cks {
		if ck.Arch.JSON() != a.JSON() {
			return nil, fmt.Errorf("%w: average: checkpoint %d has architecture %s, checkpoint 1 %s", ErrCheckpoint, i+1, ck.Arch.JSON(), a.JSON())
		}
		if err := ck.Weights.Check(a); err != nil {
			return nil, fmt.Errorf("average: checkpoint %d: %w", i+1, err)
		}
		if ck.State.Step > latest.State.Step {
			latest = ck
		}
	}
	out := transformer.Weights{}
	for _, t := range a.Tensors() {
		acc := make([]float64, t.Size())
		for i, ck := range cks {
			f := by[i] / sum
			for j, x := range ck.Weights[t.Name] {
				acc[j] += f * float64(x)
			}
		}
		v := make([]float32, len(acc))
		for j, x := range acc {
			v[j] = float32(x)
		}
		out[t.Name] = v
	}
	st := latest.State
	st.BestVal, st.ValLoss = nil, nil
	return &Checkpoint{Arch: a, Weights: out, M: transformer.Weights{}, V: transformer.Weights{}, State: st}, nil
}
