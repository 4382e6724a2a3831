package torch

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/humchess/humchess/nets/transformer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randomCheckpoint is a checkpoint of run configuration c with random
// weights and moments, at step.
func randomCheckpoint(t *testing.T, c Config, seed uint64, step int) *Checkpoint {
	t.Helper()
	a := c.Arch
	w, err := transformer.RandomWeights(a, seed)
	require.NoError(t, err)
	m, err := transformer.RandomWeights(a, seed+100)
	require.NoError(t, err)
	loss := 2.5
	return &Checkpoint{Arch: a, Weights: w, M: m, V: m, State: State{Config: c, Step: step, Samples: int64(step) * 256, ValLoss: &loss, BestVal: &loss}}
}

// TestAverage averages checkpoints weight by weight, equally and with given
// weights, keeps the state of the one with the most steps without its
// moments, and the result survives a save and an ONNX export with the same
// weights.
func TestAverage(t *testing.T) {
	c := tinyConfig(t)
	a := c.Arch
	x, y := randomCheckpoint(t, c, 1, 9), randomCheckpoint(t, c, 2, 5)

	eq, err := Average([]*Checkpoint{x, y}, nil)
	require.NoError(t, err)
	w13, err := Average([]*Checkpoint{x, y}, []float64{1, 3})
	require.NoError(t, err)
	n := 0
	for _, tn := range a.Tensors() {
		xs, ys := x.Weights[tn.Name], y.Weights[tn.Name]
		require.Len(t, eq.Weights[tn.Name], len(xs))
		for j := range xs {
			require.InDelta(t, (float64(xs[j])+float64(ys[j]))/2, float64(eq.Weights[tn.Name][j]), 1e-6, "%s[%d]", tn.Name, j)
			require.InDelta(t, (float64(xs[j])+3*float64(ys[j]))/4, float64(w13.Weights[tn.Name][j]), 1e-6, "%s[%d]", tn.Name, j)
			n++
		}
	}
	assert.EqualValues(t, a.ParamCount(), n)
	assert.Equal(t, 9, eq.State.Step, "the state of the latest checkpoint")
	assert.Nil(t, eq.State.ValLoss, "its validation loss is not the average's")
	assert.Empty(t, eq.M)
	assert.Empty(t, eq.V)

	one, err := Average([]*Checkpoint{y}, nil)
	require.NoError(t, err)
	assert.Equal(t, y.Weights, one.Weights)

	dir := t.TempDir()
	ckPath, onnxPath := filepath.Join(dir, "avg.ckpt"), filepath.Join(dir, "avg.onnx")
	require.NoError(t, SaveCheckpoint(ckPath, eq))
	back, err := LoadCheckpoint(ckPath)
	require.NoError(t, err)
	assert.Equal(t, eq.Weights, back.Weights)
	require.NoError(t, ExportCheckpoint(back, "", onnxPath))
	model, err := transformer.LoadONNX(onnxPath)
	require.NoError(t, err)
	ea, sum, err := transformer.ReadArch(model)
	require.NoError(t, err)
	ew, err := transformer.WeightsFromONNX(ea, sum, model)
	require.NoError(t, err)
	for _, tn := range a.Tensors() {
		for j, v := range eq.Weights[tn.Name] {
			require.InDelta(t, v, ew[tn.Name][j], 1e-6, "exported %s[%d]", tn.Name, j)
		}
	}

	// A resumed run needs AdamW's moments: it refuses the average.
	require.NoError(t, os.MkdirAll(c.Out, 0o755))
	require.NoError(t, SaveCheckpoint(filepath.Join(c.Out, LastName), eq))
	_, err = Run(context.Background(), c, Options{Resume: true, EndAt: 12})
	assert.ErrorIs(t, err, ErrCheckpoint)
}

// TestAverageRefuses: no checkpoints, a weight per checkpoint missing,
// negative, NaN or all-zero weights, and checkpoints of different shapes.
func TestAverageRefuses(t *testing.T) {
	c, err := Preset("tiny")
	require.NoError(t, err)
	x, y := randomCheckpoint(t, c, 1, 1), randomCheckpoint(t, c, 2, 2)
	for name, by := range map[string][]float64{"count": {1}, "negative": {1, -1}, "nan": {math.NaN(), 1}, "zero": {0, 0}} {
		_, err := Average([]*Checkpoint{x, y}, by)
		assert.ErrorIs(t, err, ErrConfig, name)
	}
	_, err = Average(nil, nil)
	assert.ErrorIs(t, err, ErrConfig)
	g, err := Grow(x, 1)
	require.NoError(t, err)
	_, err = Average([]*Checkpoint{x, g}, nil)
	assert.ErrorIs(t, err, ErrCheckpoint)
}
