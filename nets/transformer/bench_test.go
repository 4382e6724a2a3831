package transformer

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/nets"
)

// BenchmarkEvaluate times Net.Evaluate (encoding, ONNX Runtime, gathering)
// of the Default architecture (about 5.5M parameters, random weights) at
// batch 1 and 32 with 1 and 2 intra-op threads; ms/pos is the time per
// position.
func BenchmarkEvaluate(b *testing.B) {
	lib := ortLib(b)
	a := Default(board.DefaultContract())
	w, err := RandomWeights(a, 1)
	require.NoError(b, err)
	model, err := BuildONNX(a, w)
	require.NoError(b, err)
	pos := testInputs(b)
	for _, threads := range []int{1, 2} {
		n, err := Open(model, Options{LibraryPath: lib, Threads: threads})
		require.NoError(b, err)
		for _, batch := range []int{1, 32} {
			in := make([]nets.Input, batch)
			for i := range in {
				in[i] = pos[i%len(pos)]
			}
			b.Run(fmt.Sprintf("batch%d/threads%d", batch, threads), func(b *testing.B) {
				_, err := n.Evaluate(context.Background(), in) // warm up
				require.NoError(b, err)
				b.ResetTimer()
				for b.Loop() {
					if _, err := n.Evaluate(context.Background(), in); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N*batch), "ms/pos")
			})
		}
		require.NoError(b, n.Close())
	}
}

// BenchmarkBuildONNX times building the Default architecture's ONNX model.
func BenchmarkBuildONNX(b *testing.B) {
	a := Default(board.DefaultContract())
	w, err := RandomWeights(a, 1)
	require.NoError(b, err)
	for b.Loop() {
		if _, err := BuildONNX(a, w); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkForwardGo times the pure-Go reference forward pass of the Tiny
// architecture on one position.
func BenchmarkForwardGo(b *testing.B) {
	a := Tiny(board.DefaultContract())
	w, err := RandomWeights(a, 1)
	require.NoError(b, err)
	m, err := NewModel(a, w)
	require.NoError(b, err)
	batch, err := EncodeInputs(a.Contract(), testInputs(b)[:1])
	require.NoError(b, err)
	for b.Loop() {
		if _, err := m.Forward(batch); err != nil {
			b.Fatal(err)
		}
	}
}
