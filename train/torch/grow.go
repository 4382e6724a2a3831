package torch

import (
	"fmt"

	"github.com/humchess/humchess/nets/transformer"
)

// Grow returns the checkpoint of a deeper net that starts as ck's net: add
// new encoder layers spread through the old ones, each a copy of the layer
// before it with its output projections at zero (transformer.InsertLayers),
// so the grown net's outputs equal the old net's. The old parameters keep
// their AdamW moments; the new layers' moments start at zero. The run's step,
// data position and configuration carry over, the configuration with the new
// architecture, so `train -resume -end-at N` continues the run on the deeper
// net with a new learning-rate cycle.
func Grow(ck *Checkpoint, add int) (*Checkpoint, error) {
	if len(ck.M) == 0 || len(ck.V) == 0 {
		return nil, fmt.Errorf("%w: no optimizer moments: grow a training checkpoint (last.ckpt), not an export", ErrCheckpoint)
	}
	a, w, plan, err := transformer.InsertLayers(ck.Arch, ck.Weights, add)
	if err != nil {
		return nil, err
	}
	moments := func(old transformer.Weights) transformer.Weights {
		out := transformer.Weights{}
		for _, t := range a.Tensors() {
			src, fresh := t.Name, false
			if l, rest, ok := transformer.LayerName(t.Name); ok {
				src = fmt.Sprintf("layers.%d.%s", plan.Old[l], rest)
				fresh = plan.New[l]
			}
			v := make([]float32, t.Size())
			if !fresh {
				copy(v, old[src])
			}
			out[t.Name] = v
		}
		return out
	}
	for _, t := range ck.Arch.Tensors() {
		if len(ck.M[t.Name]) != t.Size() || len(ck.V[t.Name]) != t.Size() {
			return nil, fmt.Errorf("%w: optimizer moments of %s missing or of the wrong size", ErrCheckpoint, t.Name)
		}
	}
	st := ck.State
	st.Config.Arch = a
	st.BestVal, st.ValLoss = nil, nil
	return &Checkpoint{Arch: a, Weights: w, M: moments(ck.M), V: moments(ck.V), State: st}, nil
}
