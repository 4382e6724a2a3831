package torch

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/humchess/humchess/nets/transformer"
)

// Widen returns the checkpoint of a wider net that starts as ck's net: the
// model width grows to dim (the attention heads keep their width, so the new
// channels come as new heads) and the feed-forward width to ffn. The old
// weights keep their places; of the new entries, those that write into the
// residual stream or into an old output (embeddings, attention and
// feed-forward output projections, the pooled heads' last layers, every new
// bias) start at zero and the ones that read (projections of the new heads
// and hidden units, the heads' inputs) start random as a fresh net's, so
// the new channels hold zero and the wide net's outputs equal the old net's.
// The RMS norms over the model width are rescaled by sqrt(old/new), which
// keeps their outputs on the old channels (up to the norm's epsilon). The
// old parameters keep their AdamW moments; new entries start at zero. As
// with Grow, the step, data position and configuration carry over, so
// `train -resume -end-at N` continues the run on the wider net with a new
// learning-rate cycle, and State.WidenedFrom keeps the old architecture so
// that Config.NewLRMult can give the new entries a larger learning rate.
func Widen(ck *Checkpoint, dim, ffn int, seed uint64) (*Checkpoint, error) {
	if len(ck.M) == 0 || len(ck.V) == 0 {
		return nil, fmt.Errorf("%w: no optimizer moments: widen a training checkpoint (last.ckpt), not an export", ErrCheckpoint)
	}
	a := ck.Arch
	if err := a.Validate(); err != nil {
		return nil, err
	}
	hd := a.HeadDim()
	switch {
	case dim < a.Dim || ffn < a.FFNDim:
		return nil, fmt.Errorf("%w: widen to dim %d, ffn %d: the net is already dim %d, ffn %d (widen only grows)", transformer.ErrArch, dim, ffn, a.Dim, a.FFNDim)
	case dim == a.Dim && ffn == a.FFNDim:
		return nil, fmt.Errorf("%w: widen to dim %d, ffn %d: nothing to add", transformer.ErrArch, dim, ffn)
	case dim%hd != 0:
		return nil, fmt.Errorf("%w: dim %d is not a multiple of the head width %d (new channels come as whole heads)", transformer.ErrArch, dim, hd)
	}
	g := a
	g.Dim, g.Heads, g.FFNDim = dim, dim/hd, ffn
	if err := g.Validate(); err != nil {
		return nil, err
	}
	old := map[string]transformer.Tensor{}
	for _, t := range a.Tensors() {
		old[t.Name] = t
		for _, w := range []transformer.Weights{ck.Weights, ck.M, ck.V} {
			if len(w[t.Name]) != t.Size() {
				return nil, fmt.Errorf("%w: %s missing or of the wrong size", ErrCheckpoint, t.Name)
			}
		}
	}
	scale := math.Sqrt(float64(a.Dim) / float64(dim))
	rng := rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))
	w, m, v := transformer.Weights{}, transformer.Weights{}, transformer.Weights{}
	for _, t := range g.Tensors() {
		ot, ok := old[t.Name]
		if !ok || len(ot.Shape) != len(t.Shape) || len(t.Shape) > 2 {
			return nil, fmt.Errorf("%w: cannot widen tensor %s", transformer.ErrArch, t.Name)
		}
		gain := isWidthGain(t.Name)
		std := initStd(g, t)
		random := !startsZero(t.Name) && std > 0
		rows, cols, orows, ocols := t.Shape[0], 1, ot.Shape[0], 1
		if len(t.Shape) == 2 {
			cols, ocols = t.Shape[1], ot.Shape[1]
		}
		s := float32(1)
		if gain {
			s = float32(scale)
		}
		wv, mv, vv := make([]float32, t.Size()), make([]float32, t.Size()), make([]float32, t.Size())
		var fresh float32 // a new gain: the old gains' mean, rescaled
		if gain {
			for _, x := range ck.Weights[t.Name] {
				fresh += x
			}
			fresh = fresh / float32(len(ck.Weights[t.Name])) * s
		}
		for r := 0; r < rows; r++ {
			for c := 0; c < cols; c++ {
				i := r*cols + c
				if r < orows && c < ocols {
					j := r*ocols + c
					wv[i] = ck.Weights[t.Name][j] * s
					mv[i] = ck.M[t.Name][j] * s
					vv[i] = ck.V[t.Name][j] * s * s
					continue
				}
				switch {
				case gain:
					wv[i] = fresh
				case random:
					wv[i] = float32(std * rng.NormFloat64())
				}
			}
		}
		w[t.Name], m[t.Name], v[t.Name] = wv, mv, vv
	}
	st := ck.State
	st.Config.Arch = g
	st.BestVal, st.ValLoss = nil, nil
	st.WidenedFrom = &a
	return &Checkpoint{Arch: g, Weights: w, M: m, V: v, State: st}, nil
}

// startsZero reports whether the new entries of a widened tensor start at
// zero: they write into the residual stream or into an old output. The new
// entries of the others only read, and start random.
func startsZero(name string) bool {
	return strings.HasPrefix(name, "embed.") || strings.HasSuffix(name, ".bias") ||
		strings.HasSuffix(name, "attn.o") || strings.HasSuffix(name, "ffn.w2") ||
		name == "value.fc2.weight" || name == "time.fc2.weight"
}

// isWidthGain reports whether the tensor is the gain of an RMS norm over the
// model width: the layers' norm1 and norm2 and the final norm (not the
// per-head q/k norms or smolgen's).
func isWidthGain(name string) bool {
	if strings.Contains(name, "smolgen") {
		return false
	}
	return name == "norm" || strings.HasSuffix(name, ".norm1") || strings.HasSuffix(name, ".norm2")
}

// newEntryMults returns the per-entry learning-rate multipliers of tensor t
// of a net widened from old (State.WidenedFrom): 1 for the entries inside
// the tensor's old shape (where Widen kept the old weights), k for the new
// ones (all of them when old has no such tensor), and the count of new ones.
func newEntryMults(old map[string]transformer.Tensor, t transformer.Tensor, k float32) ([]float32, int) {
	mult := make([]float32, t.Size())
	ot, ok := old[t.Name]
	rows, cols := t.Shape[0], 1
	if len(t.Shape) == 2 {
		cols = t.Shape[1]
	}
	orows, ocols := 0, 0
	if ok && len(ot.Shape) == len(t.Shape) && len(t.Shape) <= 2 {
		orows, ocols = ot.Shape[0], 1
		if len(ot.Shape) == 2 {
			ocols = ot.Shape[1]
		}
	}
	n := 0
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			mult[r*cols+c] = 1
			if r >= orows || c >= ocols {
				mult[r*cols+c] = k
				n++
			}
		}
	}
	return mult, n
}
