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
			b.Run(fmt.Sprintf("batch%d/threads%d", batch, threads), func(b *testing.B) { benchNet(b, n, in) })
		}
		require.NoError(b, n.Close())
	}
}

// benchNet times n.Evaluate on in after a warm-up and reports ms/pos, the
// time per position.
func benchNet(b *testing.B, n *Net, in []nets.Input) {
	_, err := n.Evaluate(context.Background(), in)
	require.NoError(b, err)
	b.ResetTimer()
	for b.Loop() {
		if _, err := n.Evaluate(context.Background(), in); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(in))/1000, "ms/pos")
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

// BenchmarkRatingExperts times Net.Evaluate at batch 1, one thread, of the
// shipped net's shape (10 layers, d=64, 4 heads, f=192, smolgen 8/32; random
// weights) with rating experts in none, the last 2, the last 5 and all 10
// layers: what Arch.RatingExperts costs a move. A batch of one position has
// one mover rating, so it runs the net folded for that rating
// (FoldRatingExperts), as the engine does.
func BenchmarkRatingExperts(b *testing.B) {
	lib := ortLib(b)
	pos := testInputs(b)
	for _, experts := range []int{0, 2, 5, 10} {
		a := withContract(board.DefaultContract(), Arch{
			Layers: 10, Dim: 64, Heads: 4, FFNDim: 192, PolicyDim: 32,
			Smolgen: true, SmolgenCompress: 8, SmolgenHidden: 32,
			NormEps: DefaultNormEps, RatingExperts: experts,
		})
		w, err := RandomWeights(a, 1)
		require.NoError(b, err)
		model, err := BuildONNX(a, w)
		require.NoError(b, err)
		n, err := Open(model, Options{LibraryPath: lib, Threads: 1})
		require.NoError(b, err)
		b.Run(fmt.Sprintf("experts%d", experts), func(b *testing.B) { benchNet(b, n, pos[:1]) })
		require.NoError(b, n.Close())
	}
}
