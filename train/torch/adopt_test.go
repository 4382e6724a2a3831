package torch

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/humchess/humchess/nets/transformer"
	"github.com/humchess/humchess/train/data/shard"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAdopt continues a run from an exported net when the checkpoint that
// made it is lost: the step-6 checkpoint adopts the weights of step 12 and
// lands where the step-12 checkpoint stands (step, positions seen, data
// position), with the net's weights and fresh AdamW moments, and the run
// goes on from it. A net grown from the run is adopted through Grow; a net of
// another shape is refused.
func TestAdopt(t *testing.T) {
	c := tinyConfig(t)
	c.Steps, c.CkptEvery, c.LogEvery, c.ValEvery, c.Warmup, c.ValPositions = 6, 6, 1, 1000, 2, 0
	_, err := Run(context.Background(), c, Options{})
	require.NoError(t, err)
	last := filepath.Join(c.Out, LastName)
	ck6, err := LoadCheckpoint(last)
	require.NoError(t, err)
	_, err = Run(context.Background(), c, Options{Resume: true, EndAt: 12})
	require.NoError(t, err)
	ck12, err := LoadCheckpoint(last)
	require.NoError(t, err)
	require.Equal(t, 12, ck12.State.Step)

	set, err := shard.Open(c.Data)
	require.NoError(t, err)
	got, err := Adopt(ck6, ck12.Arch, ck12.Weights, 6, set)
	require.NoError(t, err)
	assert.Equal(t, ck12.State.Step, got.State.Step)
	assert.Equal(t, ck12.State.Samples, got.State.Samples)
	assert.Equal(t, ck12.State.Position, got.State.Position, "data position after the adopted steps")
	assert.Equal(t, ck12.Weights, got.Weights)
	assert.Equal(t, 0, got.State.AdamStep)
	for name, v := range got.V {
		for _, x := range append(v, got.M[name]...) {
			require.Zero(t, x, "moment of %s", name)
		}
	}
	assert.Equal(t, 12, got.State.Config.Steps, "the cycle ends at the adopted step")

	// The run goes on from the adopted checkpoint.
	require.NoError(t, SaveCheckpoint(last, got))
	more, err := Run(context.Background(), c, Options{Resume: true, EndAt: 16})
	require.NoError(t, err)
	require.Equal(t, 16, more.Step)

	// A net grown from the run: the checkpoint is grown to match.
	g, err := Grow(ck12, 2)
	require.NoError(t, err)
	grown, err := Adopt(ck6, g.Arch, g.Weights, 6, set)
	require.NoError(t, err)
	assert.Equal(t, ck6.Arch.Layers+2, grown.Arch.Layers)
	assert.Equal(t, g.Arch, grown.State.Config.Arch)

	// Another shard set than the run's is refused when steps move its data
	// position; with no steps the set is not read.
	otherDir := filepath.Join(t.TempDir(), "other")
	require.NoError(t, os.MkdirAll(otherDir, 0o755))
	require.NoError(t, prepShards(fixturePGN, otherDir, 150))
	otherSet, err := shard.Open(otherDir)
	require.NoError(t, err)
	_, err = Adopt(ck6, ck12.Arch, ck12.Weights, 6, otherSet)
	require.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), ck6.State.Data)
	_, err = Adopt(ck6, ck12.Arch, ck12.Weights, 0, otherSet)
	require.NoError(t, err)

	// Another shape is refused.
	other := ck12.Arch
	other.Dim *= 2
	other.FFNDim *= 2
	w, err := transformer.RandomWeights(other, 1)
	require.NoError(t, err)
	_, err = Adopt(ck6, other, w, 6, set)
	require.ErrorIs(t, err, ErrCheckpoint)
}
