package torch

import (
	"context"
	"math"
	"testing"

	"github.com/humchess/humchess/nets/transformer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWiden trains a tiny run, widens its checkpoint (model width by one
// head, feed-forward width by half), checks that the wide net computes what
// the old one did (through gotch), and continues the run on it: the entries
// that started at zero move, and the run ends where -end-at says.
func TestWiden(t *testing.T) {
	c, last, ck := tinyRun(t)
	hd := ck.Arch.HeadDim()
	dim, ffn := ck.Arch.Dim+hd, ck.Arch.FFNDim*3/2
	g, err := Widen(ck, dim, ffn, 7)
	require.NoError(t, err)
	require.Equal(t, dim, g.Arch.Dim)
	require.Equal(t, ck.Arch.Heads+1, g.Arch.Heads)
	require.Equal(t, hd, g.Arch.HeadDim())
	require.Equal(t, ffn, g.Arch.FFNDim)
	require.Equal(t, g.Arch, g.State.Config.Arch)
	require.Equal(t, ck.State.Step, g.State.Step)
	require.Equal(t, ck.State.Position, g.State.Position)
	require.Greater(t, g.Arch.ParamCount(), ck.Arch.ParamCount())

	sameOutputs(t, c, ck, g, 1e-4, "wide vs old")

	// The new entries of a residual writer start at zero, those of a reader
	// random; old entries keep their moments, new ones start at zero.
	o := ck.Weights["layers.0.attn.o"]
	wo := g.Weights["layers.0.attn.o"]
	assert.Equal(t, o[0], wo[0])
	for r := 0; r < dim; r++ {
		for col := 0; col < dim; col++ {
			if r >= ck.Arch.Dim || col >= ck.Arch.Dim {
				require.Zero(t, wo[r*dim+col], "attn.o new entry (%d,%d)", r, col)
			}
		}
	}
	q := g.Weights["layers.0.attn.q"]
	nonzero := 0
	for _, x := range q[ck.Arch.Dim*dim:] { // the new head's rows
		if x != 0 {
			nonzero++
		}
	}
	assert.Equal(t, hd*dim, nonzero, "the new head's query rows start random")
	assert.Zero(t, g.V["layers.0.ffn.w1"][ffn*dim-1], "a new entry's moment")
	assert.Equal(t, ck.V["layers.0.ffn.w1"][0], g.V["layers.0.ffn.w1"][0], "an old entry's moment")

	require.NoError(t, SaveCheckpoint(last, g))
	more, err := Run(context.Background(), c, Options{Resume: true, EndAt: 20})
	require.NoError(t, err)
	require.Equal(t, 20, more.Step)
	after, err := LoadCheckpoint(last)
	require.NoError(t, err)
	require.Equal(t, g.Arch, after.Arch)
	for _, name := range []string{"layers.0.attn.o", "layers.1.ffn.w2", "embed.piece"} {
		moved := false
		shape, was := tensorShape(g.Arch, name), tensorShape(ck.Arch, name)
		for r := 0; r < shape[0]; r++ {
			for col := 0; col < shape[1]; col++ {
				if (r >= was[0] || col >= was[1]) && after.Weights[name][r*shape[1]+col] != 0 {
					moved = true
				}
			}
		}
		assert.True(t, moved, "%s: the new entries left zero after training", name)
	}
}

func tensorShape(a transformer.Arch, name string) []int {
	for _, t := range a.Tensors() {
		if t.Name == name {
			return t.Shape
		}
	}
	return nil
}

func TestWidenRefuses(t *testing.T) {
	c := tinyConfig(t)
	w, err := transformer.RandomWeights(c.Arch, 1)
	require.NoError(t, err)
	_, err = Widen(&Checkpoint{Arch: c.Arch, Weights: w}, c.Arch.Dim*2, c.Arch.FFNDim*2, 1)
	require.ErrorIs(t, err, ErrCheckpoint, "an export has no moments")

	ck := &Checkpoint{Arch: c.Arch, Weights: w, M: w, V: w}
	hd := c.Arch.HeadDim()
	for _, bad := range [][2]int{
		{c.Arch.Dim - hd, c.Arch.FFNDim},     // narrower
		{c.Arch.Dim, c.Arch.FFNDim},          // the same
		{c.Arch.Dim + 1, c.Arch.FFNDim},      // not whole heads
		{c.Arch.Dim + hd, c.Arch.FFNDim - 1}, // a narrower feed-forward
	} {
		_, err := Widen(ck, bad[0], bad[1], 1)
		require.ErrorIs(t, err, transformer.ErrArch, "dim %d ffn %d", bad[0], bad[1])
	}
}

// TestWidenNewLRMult continues a widened run twice from the same checkpoint,
// at new_lr_mult 1 and 10: the entries the widening added move about ten
// times as far in the second, the old ones about as far in both; the
// checkpoint keeps the old architecture, and a net that was not widened
// (or was grown since) refuses the multiplier.
func TestWidenNewLRMult(t *testing.T) {
	c, last, ck := tinyRun(t)
	g, err := Widen(ck, ck.Arch.Dim, ck.Arch.FFNDim*3/2, 7)
	require.NoError(t, err)
	require.NotNil(t, g.State.WidenedFrom)
	require.Equal(t, ck.Arch, *g.State.WidenedFrom)

	const name = "layers.1.ffn.w2" // new columns start at zero
	shape, was := tensorShape(g.Arch, name), tensorShape(ck.Arch, name)
	moves := func(k float64) (newRMS, oldRMS float64) {
		require.NoError(t, SaveCheckpoint(last, g))
		_, err := Run(context.Background(), c, Options{Resume: true, EndAt: ck.State.Step + 6, NewLRMult: &k})
		require.NoError(t, err)
		after, err := LoadCheckpoint(last)
		require.NoError(t, err)
		require.NotNil(t, after.State.WidenedFrom, "the checkpoint keeps the old architecture")
		assert.Equal(t, ck.Arch, *after.State.WidenedFrom)
		assert.Equal(t, k, after.State.Config.NewLRMult)
		var sn, so float64
		var nn, no int
		for r := 0; r < shape[0]; r++ {
			for col := 0; col < shape[1]; col++ {
				i := r*shape[1] + col
				d := float64(after.Weights[name][i] - g.Weights[name][i])
				if r >= was[0] || col >= was[1] {
					sn, nn = sn+d*d, nn+1
				} else {
					so, no = so+d*d, no+1
				}
			}
		}
		return math.Sqrt(sn / float64(nn)), math.Sqrt(so / float64(no))
	}
	n1, o1 := moves(1)
	n10, o10 := moves(10)
	t.Logf("new entries moved %.3g at 1, %.3g at 10; old %.3g, %.3g", n1, n10, o1, o10)
	require.Greater(t, n1, 0.0)
	assert.Greater(t, n10/n1, 5.0, "new entries: %g at 1, %g at 10", n1, n10)
	assert.InDelta(t, 1, o10/o1, 0.5, "old entries: %g at 1, %g at 10", o1, o10)

	// Not widened, or grown since: no entries are new.
	ten := 10.0
	require.NoError(t, SaveCheckpoint(last, ck))
	_, err = Run(context.Background(), c, Options{Resume: true, EndAt: ck.State.Step + 2, NewLRMult: &ten})
	require.ErrorIs(t, err, ErrConfig)
	grown, err := Grow(g, 1)
	require.NoError(t, err)
	assert.Nil(t, grown.State.WidenedFrom)
}

// TestNewEntryMults checks the multipliers against the old shape: a matrix
// grown in both directions, a vector, and a tensor the old net lacks.
func TestNewEntryMults(t *testing.T) {
	old := map[string]transformer.Tensor{
		"m": {Name: "m", Shape: []int{2, 3}},
		"v": {Name: "v", Shape: []int{2}},
	}
	m, n := newEntryMults(old, transformer.Tensor{Name: "m", Shape: []int{3, 4}}, 5)
	assert.Equal(t, []float32{1, 1, 1, 5, 1, 1, 1, 5, 5, 5, 5, 5}, m)
	assert.Equal(t, 6, n)
	v, n := newEntryMults(old, transformer.Tensor{Name: "v", Shape: []int{3}}, 5)
	assert.Equal(t, []float32{1, 1, 5}, v)
	assert.Equal(t, 1, n)
	x, n := newEntryMults(old, transformer.Tensor{Name: "x", Shape: []int{2}}, 5)
	assert.Equal(t, []float32{5, 5}, x)
	assert.Equal(t, 2, n)
}
