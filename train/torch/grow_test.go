package torch

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/humchess/humchess/nets/transformer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/sugarme/gotch"
)

// TestGrow trains a tiny run, grows its checkpoint by two layers, checks that
// the grown net computes what the old one did (through gotch), and continues
// the run on it: the new layers' output projections leave zero and the run
// ends where -end-at says.
func TestGrow(t *testing.T) {
	c, last, ck := tinyRun(t)
	g, err := Grow(ck, 2)
	require.NoError(t, err)
	require.Equal(t, ck.Arch.Layers+2, g.Arch.Layers)
	require.Equal(t, g.Arch, g.State.Config.Arch)
	require.Equal(t, ck.State.Step, g.State.Step)
	require.Equal(t, ck.State.Position, g.State.Position)

	sameOutputs(t, c, ck, g, 1e-5, "grown vs old")

	// Old layers keep their moments; new ones start at zero.
	newLayers := 0
	for l := 0; l < g.Arch.Layers; l++ {
		name := fmt.Sprintf("layers.%d.ffn.w1", l)
		zero := true
		for _, v := range g.V[name] {
			zero = zero && v == 0
		}
		if zero {
			newLayers++
		}
	}
	assert.Equal(t, 2, newLayers, "layers with zero moments")

	require.NoError(t, SaveCheckpoint(last, g))
	more, err := Run(context.Background(), c, Options{Resume: true, EndAt: 20})
	require.NoError(t, err)
	require.Equal(t, 20, more.Step)
	require.Len(t, more.Losses, 8)
	after, err := LoadCheckpoint(last)
	require.NoError(t, err)
	require.Equal(t, g.Arch, after.Arch)
	for l := 0; l < g.Arch.Layers; l++ {
		if g.V[fmt.Sprintf("layers.%d.ffn.w1", l)][0] != 0 {
			continue
		}
		for _, z := range []string{"attn.o", "ffn.w2"} {
			name := fmt.Sprintf("layers.%d.%s", l, z)
			moved := false
			for _, v := range after.Weights[name] {
				moved = moved || v != 0
			}
			assert.True(t, moved, "%s left zero after training", name)
		}
	}
}

// tinyRun trains a tiny run for 12 steps and returns its configuration, the
// path of its last checkpoint and the checkpoint.
func tinyRun(t *testing.T) (Config, string, *Checkpoint) {
	c := tinyConfig(t)
	c.Steps, c.CkptEvery, c.LogEvery, c.ValEvery, c.Warmup, c.ValPositions = 12, 6, 1, 1000, 2, 0
	c.Out = filepath.Join(t.TempDir(), "run")
	_, err := Run(context.Background(), c, Options{})
	require.NoError(t, err)
	last := filepath.Join(c.Out, LastName)
	ck, err := LoadCheckpoint(last)
	require.NoError(t, err)
	return c, last, ck
}

// sameOutputs checks through gotch that checkpoint g's net computes what
// ck's does on validation examples of run c.
func sameOutputs(t *testing.T, c Config, ck, g *Checkpoint, tol float64, what string) {
	t.Helper()
	exs := validationExamples(t, c, 8)
	om, err := NewModelFromWeights(ck.Arch, ck.Weights, gotch.CPU)
	require.NoError(t, err)
	gm, err := NewModelFromWeights(g.Arch, g.Weights, gotch.CPU)
	require.NoError(t, err)
	gc := c
	gc.Arch = g.Arch
	compareResults(t, gotchForward(t, om, c, exs), gotchForward(t, gm, gc, exs), tol, what)
}

func TestGrowRefusesAnExport(t *testing.T) {
	c := tinyConfig(t)
	w, err := transformer.RandomWeights(c.Arch, 1)
	require.NoError(t, err)
	_, err = Grow(&Checkpoint{Arch: c.Arch, Weights: w}, 1)
	require.ErrorIs(t, err, ErrCheckpoint)
}

// TestRatingExperts checks the rating experts end to end: gotch's forward
// pass of a net with random experts matches the pure-Go reference; adding
// experts to a trained checkpoint keeps its outputs; training the run on
// moves the experts off zero; and the export runs the same in ONNX Runtime.
func TestRatingExperts(t *testing.T) {
	c := tinyConfig(t)
	c.Arch.RatingExperts = c.Arch.Layers
	forwardMatchesReference(t, c, 5, 16)

	c, last, ck := tinyRun(t)
	g, err := AddRatingExperts(ck, 1)
	require.NoError(t, err)
	require.Equal(t, 1, g.Arch.RatingExperts)
	require.Equal(t, g.Arch, g.State.Config.Arch)
	require.Equal(t, ck.State.Step, g.State.Step)
	sameOutputs(t, c, ck, g, 1e-5, "with experts vs old")
	_, err = AddRatingExperts(g, 1)
	require.ErrorIs(t, err, transformer.ErrArch, "experts in as many layers as already")
	_, err = AddRatingExperts(ck, ck.Arch.Layers+1)
	require.ErrorIs(t, err, transformer.ErrArch, "more expert layers than layers")

	require.NoError(t, SaveCheckpoint(last, g))
	_, err = Run(context.Background(), c, Options{Resume: true, EndAt: 20})
	require.NoError(t, err)
	after, err := LoadCheckpoint(last)
	require.NoError(t, err)
	require.Equal(t, g.Arch, after.Arch)
	l := g.Arch.Layers - 1
	for _, name := range []string{fmt.Sprintf("layers.%d.ffn.w1.experts", l), fmt.Sprintf("layers.%d.ffn.w2.experts", l)} {
		moved := false
		for _, v := range after.Weights[name] {
			moved = moved || v != 0
		}
		assert.True(t, moved, "%s left zero after training", name)
	}
	c.Arch = after.Arch
	exportAndCompare(t, c, last, 16)
}
