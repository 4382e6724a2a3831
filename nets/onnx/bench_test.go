package onnx

import "testing"

// BenchmarkMarshal measures encoding a model with 10M float32 weights.
func BenchmarkMarshal(b *testing.B) {
	w := make([]float32, 10_000_000)
	g := NewGraph("big")
	x := g.Input("x", Float, Batch, 1000)
	g.Output("y", g.MatMul(x, g.Initializer("w", []int64{1000, 10000}, w)), Float, Batch, 10000)
	b.SetBytes(int64(4 * len(w)))
	for b.Loop() {
		if _, err := (Model{Graph: g}).Marshal(); err != nil {
			b.Fatal(err)
		}
	}
}
