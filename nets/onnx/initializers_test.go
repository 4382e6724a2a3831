package onnx

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadInitializers reads back every initializer the builder wrote:
// float32 and int64, matrices, vectors and scalars.
func TestReadInitializers(t *testing.T) {
	g := NewGraph("inits")
	x := g.Input("x", Float, Batch, 2)
	w := g.Initializer("w", []int64{2, 3}, []float32{1, -2, 3.5, 0, 1e-7, -1e30})
	ids := g.InitializerInt64("ids", []int64{3}, []int64{0, -1, 1 << 40})
	y := g.Gather(g.MatMul(x, w), ids, 1)
	g.Output("y", g.Add(y, g.Scalar(0.25)), Float, Batch, 3)
	data, err := Model{Graph: g}.Marshal()
	require.NoError(t, err)

	got, err := ReadInitializers(data)
	require.NoError(t, err)
	assert.Equal(t, Tensor{Name: "w", Dims: []int64{2, 3}, Float32: []float32{1, -2, 3.5, 0, 1e-7, -1e30}}, got["w"])
	assert.Equal(t, Tensor{Name: "ids", Dims: []int64{3}, Int64: []int64{0, -1, 1 << 40}}, got["ids"])
	var scalar *Tensor
	for name, tt := range got {
		if name != "w" && name != "ids" {
			scalar = &tt
		}
	}
	require.NotNil(t, scalar, "the scalar constant is an initializer: %v", got)
	assert.Equal(t, []float32{0.25}, scalar.Float32)
	assert.Empty(t, scalar.Dims)

	// Every truncation is an error or a complete read, never a panic.
	for n := 0; n < len(data); n++ {
		if inits, err := ReadInitializers(data[:n]); err == nil {
			assert.Len(t, inits, len(got), "cut at %d of %d decoded without every initializer", n, len(data))
		}
	}
}
