package transformer

import (
	"fmt"
	"strconv"
	"strings"
)

// GrowPlan says where InsertLayers puts new encoder layers: New[i] is true
// for layer i of the grown net when it is a new layer, and Old[i] is the layer
// of the original net that layer i copies (itself for an old layer, the old
// layer just before it for a new one).
type GrowPlan struct {
	New []bool
	Old []int
}

// PlanGrowth spreads add new layers evenly through a net of layers layers:
// the k-th new layer (k from 1) follows old layer ceil(k*layers/add)-1, so
// two new layers in six go after layers 2 and 5.
func PlanGrowth(layers, add int) (GrowPlan, error) {
	if layers < 1 || add < 1 || layers+add > 256 {
		return GrowPlan{}, fmt.Errorf("%w: cannot grow %d layers by %d", ErrArch, layers, add)
	}
	var p GrowPlan
	k := 1
	for l := 0; l < layers; l++ {
		p.New = append(p.New, false)
		p.Old = append(p.Old, l)
		for k <= add && (k*layers+add-1)/add-1 == l {
			p.New = append(p.New, true)
			p.Old = append(p.Old, l)
			k++
		}
	}
	return p, nil
}

// InsertLayers returns a net with add more encoder layers that computes the
// same function as (a, w): each new layer is a copy of the old layer before
// it (PlanGrowth) whose two output projections, attn.o and ffn.w2, are zero,
// so it adds nothing to the residual stream until training moves them. The
// copied inner weights give the new layer the features of its neighbour to
// start from (block expansion), rather than noise. w is not modified.
func InsertLayers(a Arch, w Weights, add int) (Arch, Weights, GrowPlan, error) {
	if err := a.Validate(); err != nil {
		return Arch{}, nil, GrowPlan{}, err
	}
	plan, err := PlanGrowth(a.Layers, add)
	if err != nil {
		return Arch{}, nil, GrowPlan{}, err
	}
	g := a
	g.Layers += add
	if err := g.Validate(); err != nil {
		return Arch{}, nil, GrowPlan{}, err
	}
	out := Weights{}
	for _, t := range g.Tensors() {
		src, zero := t.Name, false
		if l, rest, ok := LayerName(t.Name); ok {
			src = fmt.Sprintf("layers.%d.%s", plan.Old[l], rest)
			zero = plan.New[l] && (rest == "attn.o" || rest == "ffn.w2")
		}
		v, ok := w[src]
		if !ok {
			return Arch{}, nil, GrowPlan{}, fmt.Errorf("%w: weight %s missing", ErrWeights, src)
		}
		if len(v) != t.Size() {
			return Arch{}, nil, GrowPlan{}, fmt.Errorf("%w: %s has %d values, want %d", ErrWeights, src, len(v), t.Size())
		}
		c := make([]float32, len(v))
		if !zero {
			copy(c, v)
		}
		out[t.Name] = c
	}
	return g, out, plan, nil
}

// LayerName splits a tensor name "layers.L.rest" into the layer L and the
// rest of the name; ok is false for a tensor outside the encoder layers.
func LayerName(name string) (l int, rest string, ok bool) {
	s, ok := strings.CutPrefix(name, "layers.")
	if !ok {
		return 0, "", false
	}
	i := strings.IndexByte(s, '.')
	if i <= 0 {
		return 0, "", false
	}
	l, err := strconv.Atoi(s[:i])
	if err != nil || l < 0 {
		return 0, "", false
	}
	return l, s[i+1:], true
}
