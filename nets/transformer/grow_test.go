package transformer

import (
	"fmt"
	"testing"

	"github.com/humchess/humchess/board"
	"github.com/stretchr/testify/require"
)

func TestPlanGrowth(t *testing.T) {
	for _, c := range []struct {
		layers, add int
		newAt       []int // indices of new layers in the grown net
	}{
		{6, 2, []int{3, 7}},
		{6, 1, []int{6}},
		{6, 3, []int{2, 5, 8}},
		{2, 2, []int{1, 3}},
		{1, 3, []int{1, 2, 3}},
		{6, 6, []int{1, 3, 5, 7, 9, 11}},
	} {
		p, err := PlanGrowth(c.layers, c.add)
		require.NoError(t, err)
		require.Len(t, p.New, c.layers+c.add)
		var got []int
		old := 0
		for i, n := range p.New {
			if n {
				got = append(got, i)
				require.Equal(t, old-1, p.Old[i], "a new layer copies the old layer before it")
			} else {
				require.Equal(t, old, p.Old[i], "old layers keep their order")
				old++
			}
		}
		require.Equal(t, c.newAt, got, "%d+%d", c.layers, c.add)
		require.Equal(t, c.layers, old)
	}
	for _, c := range [][2]int{{0, 1}, {6, 0}, {6, -1}, {200, 57}} {
		_, err := PlanGrowth(c[0], c[1])
		require.ErrorIs(t, err, ErrArch, "%v", c)
	}
}

func TestInsertLayersKeepsTheFunction(t *testing.T) {
	a := Tiny(board.DefaultContract())
	a.Layers, a.LegalHead = 3, true
	w, err := RandomWeights(a, 5)
	require.NoError(t, err)
	b := randomBatch(a, 3, 9)
	m, err := NewModel(a, w)
	require.NoError(t, err)
	want, err := m.Forward(b)
	require.NoError(t, err)

	g, gw, plan, err := InsertLayers(a, w, 2)
	require.NoError(t, err)
	require.Equal(t, 5, g.Layers)
	require.Equal(t, a.ParamCount()+2*(a.ParamCount()-withLayers(a, 0).ParamCount())/3, g.ParamCount())
	gm, err := NewModel(g, gw)
	require.NoError(t, err)
	got, err := gm.Forward(b)
	require.NoError(t, err)
	requireClose(t, want, got, 1e-5, "grown net")

	// The new layers are copies with zero output projections; moving those
	// projections changes the outputs (the new layers are live).
	for i, n := range plan.New {
		pre := fmt.Sprintf("layers.%d.", i)
		src := fmt.Sprintf("layers.%d.", plan.Old[i])
		require.Equal(t, w[src+"attn.q"], gw[pre+"attn.q"])
		if !n {
			require.Equal(t, w[src+"attn.o"], gw[pre+"attn.o"])
			continue
		}
		for _, z := range []string{"attn.o", "ffn.w2"} {
			for _, v := range gw[pre+z] {
				require.Zero(t, v, pre+z)
			}
			gw2 := make(Weights, len(gw))
			for k, v := range gw {
				gw2[k] = v
			}
			gw2[pre+z] = append([]float32(nil), w[src+z]...)
			m2, err := NewModel(g, gw2)
			require.NoError(t, err)
			r2, err := m2.Forward(b)
			require.NoError(t, err)
			d, _ := maxDiff(want.Move, r2.Move)
			require.Greater(t, d, 1e-3, "%s%s moved", pre, z)
		}
	}
	// The input is not modified.
	require.Len(t, w, len(a.Tensors()))
}

func TestInsertLayersBadInput(t *testing.T) {
	a := Tiny(board.DefaultContract())
	w, err := RandomWeights(a, 1)
	require.NoError(t, err)
	_, _, _, err = InsertLayers(a, w, 0)
	require.ErrorIs(t, err, ErrArch)
	delete(w, "layers.1.ffn.w1")
	_, _, _, err = InsertLayers(a, w, 1)
	require.ErrorIs(t, err, ErrWeights)
	w, _ = RandomWeights(a, 1)
	w["layers.0.norm1"] = w["layers.0.norm1"][:3]
	_, _, _, err = InsertLayers(a, w, 1)
	require.ErrorIs(t, err, ErrWeights)
}

func withLayers(a Arch, n int) Arch { a.Layers = n; return a }
