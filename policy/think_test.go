package policy

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/humchess/humchess/board"
)

// TestHugeClocksCapThink gives clocks no game has (10^9 ms, the largest
// value go parses, int64's largest): the safe limit and every think time
// stay within 0..MaxThink, and are not cut to 0 by an overflow.
func TestHugeClocksCapThink(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	edges := board.ThinkBinEdges[:]
	heavyTail := []float32{0, 0, 0, 0, 0, 0, 0.2, 0.8}
	huge := []time.Duration{1e9 * time.Millisecond, 1 << 62, math.MaxInt64}
	var clocks []Clock
	for _, rem := range huge {
		for _, inc := range append([]time.Duration{-1, 0, 2 * time.Second}, huge...) {
			for _, togo := range []int{0, 1, 40} {
				clocks = append(clocks, Clock{Remaining: rem, Inc: inc, MovesToGo: togo, Overhead: 100 * time.Millisecond})
			}
		}
	}
	for _, c := range clocks {
		assert.Equal(t, MaxThink, c.SafeLimit(), "SafeLimit(%+v)", c)
		for range 200 {
			for _, probs := range [][]float32{heavyTail, nil} {
				d := ThinkTime(probs, edges, c, 0.2, rng)
				if d <= 0 || d > MaxThink {
					t.Fatalf("ThinkTime(%v, clock %+v) = %v, want within 0..%v and above 0", probs, c, d, MaxThink)
				}
			}
		}
	}
	// Without any clock the heuristic is capped too.
	for range 1000 {
		if d := ThinkTime(nil, edges, Clock{Remaining: -1, Inc: math.MaxInt64}, 0, rng); d > MaxThink {
			t.Fatalf("no clock, huge increment: %v, want at most %v", d, MaxThink)
		}
	}
}

func TestHurried(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		c    Clock
		want bool
	}{
		{Clock{Remaining: -1}, false},                             // no clock
		{Clock{Remaining: 50 * ms, Overhead: 10 * ms}, true},      // 2.5 - 10 ms: nothing to spend
		{Clock{Remaining: time.Second, Overhead: 100 * ms}, true}, // 1+0 with the default overhead
		{Clock{Remaining: 1999 * ms}, true},                       // 99.95 ms
		{Clock{Remaining: 2 * time.Second}, false},                // 100 ms
		{Clock{Remaining: time.Second, Inc: time.Second}, false},
		{Clock{Remaining: 3 * time.Minute, Overhead: 100 * ms}, false},
	} {
		assert.Equal(t, tc.want, tc.c.Hurried(), "%+v (safe limit %v)", tc.c, tc.c.SafeLimit())
	}
}
