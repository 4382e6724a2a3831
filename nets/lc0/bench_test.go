package lc0

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/nets"
)

// benchInputs returns n real positions from the reference games.
func benchInputs(b *testing.B, n int) []nets.Input {
	ref := loadReference(b)
	in := make([]nets.Input, n)
	for i := range in {
		in[i] = nets.Input{Game: refGame(b, ref[i%len(ref)]), Ctx: board.UnknownContext()}
	}
	return in
}

// BenchmarkEvaluate times Net.Evaluate (encoding, ONNX Runtime, gathering
// the legal moves) on maia-1100 and reports ms per position.
func BenchmarkEvaluate(b *testing.B) {
	needORT(b)
	for _, threads := range []int{1, 2} {
		n := openTestNet(b, "maia-1100", Options{Backend: BackendORT, IntraOpThreads: threads})
		for _, batch := range []int{1, 32} {
			in := benchInputs(b, batch)
			b.Run(fmt.Sprintf("batch%d/threads%d", batch, threads), func(b *testing.B) {
				ctx := context.Background()
				_, err := n.Evaluate(ctx, in) // warm up
				require.NoError(b, err)
				cpu0 := cpuTime()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := n.Evaluate(ctx, in); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N*batch), "ms/pos")
				// CPU time says more than wall time on a shared machine.
				b.ReportMetric((cpuTime()-cpu0).Seconds()*1000/float64(b.N*batch), "cpu-ms/pos")
			})
		}
	}
}

// cpuTime is the process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkGoForward times the pure-Go reference forward pass.
func BenchmarkGoForward(b *testing.B) {
	w := testWeights(b, "maia-1100")
	in := benchInputs(b, 1)
	planes := make([]float32, InputPlanes*64)
	require.NoError(b, EncodeGame(in[0].Game, planes))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := w.Forward(planes); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/pos")
}

// BenchmarkEncode times the 112-plane encoding of a 120-ply game.
func BenchmarkEncode(b *testing.B) {
	in := benchInputs(b, 2)
	g := in[1].Game // the reference's second line: 123 plies
	planes := make([]float32, InputPlanes*64)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := EncodeGame(g, planes); err != nil {
			b.Fatal(err)
		}
	}
}
