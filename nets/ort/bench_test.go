//go:build cgo

package ort

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/humchess/humchess/nets/onnx"
)

// BenchmarkRun measures Session.Run overhead on a small 2-layer MLP
// (256 -> 256 -> 1858, the policy size) at several batch sizes.
func BenchmarkRun(b *testing.B) {
	requireORT(b)
	r := rand.New(rand.NewPCG(3, 4))
	g := onnx.NewGraph("mlp")
	x := g.Input("x", onnx.Float, onnx.Batch, 256)
	h := g.Relu(g.Add(g.MatMul(x, g.Initializer("w1", []int64{256, 256}, randFloats(r, 256*256))), g.Initializer("b1", []int64{256}, randFloats(r, 256))))
	g.Output("y", g.MatMul(h, g.Initializer("w2", []int64{256, 1858}, randFloats(r, 256*1858))), onnx.Float, onnx.Batch, 1858)
	data, err := onnx.Model{Graph: g}.Marshal()
	if err != nil {
		b.Fatal(err)
	}
	s, err := NewSession(data, SessionOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for _, batch := range []int{1, 16, 64} {
		in := Tensor{Name: "x", Shape: []int64{int64(batch), 256}, Float32: randFloats(r, batch*256)}
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			for b.Loop() {
				if _, err := s.Run(in); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/pos")
		})
	}
}
