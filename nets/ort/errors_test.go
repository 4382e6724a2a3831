//go:build cgo

package ort

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/nets/onnx"
)

// twoOut is y = x*2 and n = Shape(x), x float [batch,3].
func twoOut(t *testing.T) []byte {
	t.Helper()
	g := onnx.NewGraph("two")
	x := g.Input("x", onnx.Float, onnx.Batch, 3)
	g.Output("y", g.Mul(x, g.Scalar(2)), onnx.Float, onnx.Batch, 3)
	g.Output("n", g.Shape(x), onnx.Int64, 2)
	data, err := onnx.Model{Graph: g}.Marshal()
	require.NoError(t, err)
	return data
}

func TestNewSessionBadModels(t *testing.T) {
	requireORT(t)
	good := twoOut(t)
	g := onnx.NewGraph("custom")
	g.Output("y", g.Op("NoSuchOp", []string{g.Input("x", onnx.Float, 1)}), onnx.Float)
	unknownOp, err := onnx.Model{Graph: g}.Marshal()
	require.NoError(t, err)
	tests := []struct {
		name string
		data []byte
		opts SessionOptions
		has  string
	}{
		{"empty", nil, SessionOptions{}, "empty"},
		{"truncated", good[:len(good)-5], SessionOptions{}, "corrupt"},
		{"gzip", []byte{0x1f, 0x8b, 8, 0, 0, 0}, SessionOptions{}, "gzip"},
		{"random", []byte("\xff\xfe garbage \x00\x01"), SessionOptions{}, "not an ONNX model"},
		{"unknown op", unknownOp, SessionOptions{}, "NoSuchOp"},
		{"unknown output", good, SessionOptions{Outputs: []string{"zz"}}, `no output "zz"`},
		{"negative threads", good, SessionOptions{IntraOpThreads: -1}, "negative thread"},
	}
	for _, tc := range tests {
		s, err := NewSession(tc.data, tc.opts)
		require.Error(t, err, tc.name)
		assert.Nil(t, s, tc.name)
		assert.Contains(t, err.Error(), tc.has, "%s: %v", tc.name, err)
	}
}

func TestRunErrors(t *testing.T) {
	requireORT(t)
	s, err := NewSession(twoOut(t), SessionOptions{IntraOpThreads: 2})
	require.NoError(t, err)
	defer s.Close()
	assert.Equal(t, []string{"x"}, s.Inputs())
	assert.Equal(t, []string{"y", "n"}, s.Outputs())

	ok := Tensor{Name: "x", Shape: []int64{2, 3}, Float32: []float32{1, 2, 3, 4, 5, 6}}
	out, err := s.Run(ok)
	require.NoError(t, err)
	assert.Equal(t, []float32{2, 4, 6, 8, 10, 12}, out[0].Float32)
	assert.Equal(t, []int64{2, 3}, out[0].Shape)
	assert.Equal(t, []int64{2, 3}, out[1].Int64)
	n, found := Find(out, "n")
	assert.True(t, found)
	assert.Equal(t, "n", n.Name)

	tests := []struct {
		name string
		in   []Tensor
		want error
		has  string
	}{
		{"no inputs", nil, ErrInput, "got 0 inputs"},
		{"wrong name", []Tensor{{Name: "q", Shape: []int64{1, 3}, Float32: make([]float32, 3)}}, ErrInput, `missing input "x"`},
		{"twice", []Tensor{ok, ok}, ErrInput, "given twice"},
		{"size mismatch", []Tensor{{Name: "x", Shape: []int64{2, 3}, Float32: make([]float32, 5)}}, ErrInput, "6 elements) but 5"},
		{"no data", []Tensor{{Name: "x", Shape: []int64{1, 3}}}, ErrInput, "exactly one"},
		{"both data", []Tensor{{Name: "x", Shape: []int64{1, 1}, Float32: []float32{1}, Int64: []int64{1}}}, ErrInput, "exactly one"},
		{"rank 0", []Tensor{{Name: "x", Float32: []float32{1}}}, ErrInput, "no shape"},
		{"negative dim", []Tensor{{Name: "x", Shape: []int64{-1, 3}, Float32: []float32{1}}}, ErrInput, "negative"},
		{"wrong dtype", []Tensor{{Name: "x", Shape: []int64{1, 3}, Int64: make([]int64, 3)}}, ErrRun, "type"},
		{"wrong fixed dim", []Tensor{{Name: "x", Shape: []int64{1, 4}, Float32: make([]float32, 4)}}, ErrRun, "dim"},
	}
	for _, tc := range tests {
		_, err := s.Run(tc.in...)
		require.Error(t, err, tc.name)
		assert.ErrorIs(t, err, tc.want, "%s: %v", tc.name, err)
		assert.Contains(t, err.Error(), tc.has, "%s: %v", tc.name, err)
	}

	sub, err := NewSession(twoOut(t), SessionOptions{Outputs: []string{"n"}})
	require.NoError(t, err)
	out, err = sub.Run(ok)
	require.NoError(t, err)
	require.Len(t, out, 1)
	assert.Equal(t, "n", out[0].Name)
	require.NoError(t, sub.Close())
	require.NoError(t, sub.Close(), "Close twice")
	_, err = sub.Run(ok)
	assert.ErrorIs(t, err, ErrClosed)
	md := s.Info().Metadata
	assert.NotNil(t, md)
}
