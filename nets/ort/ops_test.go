//go:build cgo

package ort

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/nets/onnx"
)

// TestEveryHelper runs each nets/onnx helper in ORT on x [batch,4] and checks
// it row by row against Go.
func TestEveryHelper(t *testing.T) {
	requireORT(t)
	r := rand.New(rand.NewPCG(1, 2))
	W := randFloats(r, 3*4) // Gemm weights [3,4], torch Linear order
	c := randFloats(r, 3)
	bias := randFloats(r, 4)
	f64 := func(v float32) float64 { return float64(v) }
	each := func(row []float32, fn func(float64) float64) []float32 {
		out := make([]float32, len(row))
		for i, v := range row {
			out[i] = float32(fn(f64(v)))
		}
		return out
	}

	g := onnx.NewGraph("ops")
	x := g.Input("x", onnx.Float, onnx.Batch, 4)
	type check struct {
		name  string
		value string
		ref   func(row []float32) []float32
	}
	checks := []check{
		{"gemm", g.Gemm(x, g.Initializer("W", []int64{3, 4}, W), g.Initializer("c", []int64{3}, c), true), func(row []float32) []float32 {
			out := make([]float32, 3)
			for o := range 3 {
				s := f64(c[o])
				for i := range 4 {
					s += f64(row[i]) * f64(W[o*4+i])
				}
				out[o] = float32(s)
			}
			return out
		}},
		{"unary", g.Exp(g.Neg(g.Tanh(g.Sigmoid(x)))), func(row []float32) []float32 {
			return each(row, func(v float64) float64 { return math.Exp(-math.Tanh(1 / (1 + math.Exp(-v)))) })
		}},
		{"pow_sqrt_recip", g.Reciprocal(g.Sqrt(g.Add(g.Pow(x, g.Scalar(2)), g.Scalar(1)))), func(row []float32) []float32 {
			return each(row, func(v float64) float64 { return 1 / math.Sqrt(v*v+1) })
		}},
		{"sub_div", g.Div(g.Sub(x, g.Scalar(1)), g.Scalar(2)), func(row []float32) []float32 {
			return each(row, func(v float64) float64 { return (v - 1) / 2 })
		}},
		{"silu_relu", g.Relu(g.SiLU(x)), func(row []float32) []float32 {
			return each(row, func(v float64) float64 { return max(0, v/(1+math.Exp(-v))) })
		}},
		{"cast_identity", g.Identity(g.Cast(g.Cast(x, onnx.Double), onnx.Float)), func(row []float32) []float32 { return row }},
		{"split_concat", func() string {
			p := g.Split(x, 1, 1, 3)
			return g.Concat(1, p[1], p[0])
		}(), func(row []float32) []float32 { return []float32{row[1], row[2], row[3], row[0]} }},
		{"reshape_transpose_flatten", g.Flatten(g.Transpose(g.Reshape(x, 0, 2, 2), 0, 2, 1), 1), func(row []float32) []float32 {
			return []float32{row[0], row[2], row[1], row[3]}
		}},
		{"pad", g.Pad(x, 0.5, 0, 1, 0, 2), func(row []float32) []float32 {
			return append(append([]float32{0.5}, row...), 0.5, 0.5)
		}},
		{"slice", g.Slice(x, []int64{1}, []int64{3}, []int64{1}, nil), func(row []float32) []float32 { return row[1:3] }},
		{"slice_step", g.Slice(x, []int64{0}, []int64{4}, []int64{1}, []int64{2}), func(row []float32) []float32 { return []float32{row[0], row[2]} }},
		{"unsqueeze_squeeze", g.Squeeze(g.Unsqueeze(x, 1), 1), func(row []float32) []float32 { return row }},
		{"global_avg_pool", g.Flatten(g.GlobalAveragePool(g.Reshape(x, 0, 2, 2, 1)), 1), func(row []float32) []float32 {
			return []float32{(row[0] + row[1]) / 2, (row[2] + row[3]) / 2}
		}},
		{"expand_shape", g.Add(x, g.Expand(g.Unsqueeze(g.Initializer("bias", []int64{4}, bias), 0), g.Shape(x))), func(row []float32) []float32 {
			out := make([]float32, 4)
			for i := range out {
				out[i] = row[i] + bias[i]
			}
			return out
		}},
		{"reshape_to_shape_range", g.ReshapeTo(g.Reshape(x, -1), g.Concat(0, g.ShapeRange(x, 0, 1), g.Ints(4))), func(row []float32) []float32 { return row }},
		{"softmax_mean", g.ReduceMean(g.Softmax(x, 1), false, 1), func(row []float32) []float32 { return []float32{0.25} }},
	}
	for _, c := range checks {
		g.Output(c.name, c.value, onnx.Float)
	}
	data, err := onnx.Model{Graph: g}.Marshal()
	require.NoError(t, err)
	s, err := NewSession(data, SessionOptions{})
	require.NoError(t, err)
	defer s.Close()
	for _, batch := range []int{1, 7} {
		xs := randFloats(r, batch*4)
		out, err := s.Run(Tensor{Name: "x", Shape: []int64{int64(batch), 4}, Float32: xs})
		require.NoError(t, err, "batch %d", batch)
		for k, c := range checks {
			o := out[k]
			require.Equal(t, c.name, o.Name)
			var want []float32
			for n := range batch {
				want = append(want, c.ref(xs[n*4:(n+1)*4])...)
			}
			assert.Less(t, maxAbsDiff(o.Float32, want), 1e-4, "%s batch %d: got %v want %v", c.name, batch, o.Float32, want)
			assert.Equal(t, int64(batch), o.Shape[0], "%s batch dim", c.name)
		}
	}
}
