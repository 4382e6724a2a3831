package match

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestElo(t *testing.T) {
	for _, tc := range []struct {
		s              Score
		diff, lo, hi   float64
		los            float64
		tolDiff, tolCI float64
	}{
		// Even score: 0 Elo; var 0.25, se 0.1118, p in [0.281, 0.719]; LOS one half.
		{s: Score{10, 0, 10}, diff: 0, lo: -163.3, hi: 163.3, los: 0.5, tolDiff: 1e-9, tolCI: 0.5},
		// 75%: 190.85 Elo; var 0.1875, se 0.0433, p in [0.665, 0.835].
		{s: Score{75, 0, 25}, diff: 190.85, lo: 119.2, hi: 281.5, los: 0.99999971, tolDiff: 0.01, tolCI: 1},
		// Draws narrow the interval (hand-computed: var 0.1, se 0.0316).
		{s: Score{20, 60, 20}, diff: 0, lo: -43.3, hi: 43.3, los: 0.5, tolDiff: 1e-9, tolCI: 0.5},
	} {
		d, lo, hi := tc.s.Elo()
		assert.InDelta(t, tc.diff, d, tc.tolDiff, "%+v diff", tc.s)
		assert.InDelta(t, tc.lo, lo, tc.tolCI, "%+v lo", tc.s)
		assert.InDelta(t, tc.hi, hi, tc.tolCI, "%+v hi", tc.s)
		assert.InDelta(t, tc.los, tc.s.LOS(), 1e-6, "%+v LOS", tc.s)
	}
	d, lo, hi := Score{}.Elo()
	assert.True(t, math.IsNaN(d) && math.IsNaN(lo) && math.IsNaN(hi), "no games")
	d, _, _ = Score{Wins: 3}.Elo()
	assert.True(t, math.IsInf(d, 1), "all wins: +Inf, got %v", d)
	assert.Equal(t, 0.5, Score{Draws: 4}.LOS())
}
