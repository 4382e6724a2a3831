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
	st.WidenedFrom = nil // the old shapes no longer tell old entries from new
	return &Checkpoint{Arch: a, Weights: w, M: moments(ck.M), V: moments(ck.V), State: st}, nil
}

// AddRatingExperts returns the checkpoint of the same net with rating experts
// (transformer.Arch.RatingExperts) in the feed-forward layers of its last
// layers encoder layers: the experts start at zero, so the new net's outputs
// equal the old net's, and their AdamW moments start at zero; every old
// parameter keeps its weights and moments. As with Grow, the step, data
// position and configuration carry over, so `train -resume -end-at N`
// continues the run with the experts and a new learning-rate cycle.
func AddRatingExperts(ck *Checkpoint, layers int) (*Checkpoint, error) {
	if len(ck.M) == 0 || len(ck.V) == 0 {
		return nil, fmt.Errorf("%w: no optimizer moments: add experts to a training checkpoint (last.ckpt), not an export", ErrCheckpoint)
	}
	a := ck.Arch
	if layers <= a.RatingExperts {
		return nil, fmt.Errorf("%w: rating experts in %d layers: the net has them in %d already (only more can be added)", transformer.ErrArch, layers, a.RatingExperts)
	}
	a.RatingExperts = layers
	if err := a.Validate(); err != nil {
		return nil, err
	}
	w, m, v := transformer.Weights{}, transformer.Weights{}, transformer.Weights{}
	for _, t := range a.Tensors() {
		old, ok := ck.Weights[t.Name]
		if !ok { // a new expert stack: zeros
			w[t.Name], m[t.Name], v[t.Name] = make([]float32, t.Size()), make([]float32, t.Size()), make([]float32, t.Size())
			continue
		}
		if len(old) != t.Size() || len(ck.M[t.Name]) != t.Size() || len(ck.V[t.Name]) != t.Size() {
			return nil, fmt.Errorf("%w: %s or its optimizer moments missing or of the wrong size", ErrCheckpoint, t.Name)
		}
		w[t.Name], m[t.Name], v[t.Name] = old, ck.M[t.Name], ck.V[t.Name]
	}
	st := ck.State
	st.Config.Arch = a
	st.BestVal, st.ValLoss = nil, nil
	st.WidenedFrom = nil // the old shapes no longer tell old entries from new
	return &Checkpoint{Arch: a, Weights: w, M: m, V: v, State: st}, nil
}
