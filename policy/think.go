package policy

import (
	"math"
	"math/rand/v2"
	"time"
)

// Clock is what bounds the mover's think time.
type Clock struct {
	Remaining time.Duration // mover's remaining time; negative = unknown
	Inc       time.Duration // mover's increment; negative = unknown (taken as 0)
	MovesToGo int           // moves to the next time control; 0 = unknown
	Overhead  time.Duration // kept back for lag (MoveOverhead)
}

// MaxThink caps every think time, whatever the clock says (a GUI may send
// 10^9 ms, or an int64's largest value, for a game without a real clock).
// It is above the think-time head's longest bin (59.5 s to 119 s) and above
// Remaining/20 for a 90-minute clock.
const MaxThink = 5 * time.Minute

// SafeLimit returns the longest a move may take: Remaining/20 (or
// Remaining/(MovesToGo+2) when that is smaller) plus 0.8*Inc, minus
// Overhead, never below 0 nor above MaxThink. It returns -1 when Remaining
// is unknown.
func (c Clock) SafeLimit() time.Duration {
	if c.Remaining < 0 {
		return -1
	}
	div := 20
	if c.MovesToGo > 0 {
		div = min(div, c.MovesToGo+2)
	}
	// Clocks beyond any game's cannot raise the result above MaxThink, and
	// bounding them keeps the sum from overflowing.
	const bound = 100 * MaxThink
	rem, inc := min(c.Remaining, bound), min(max(c.Inc, 0), bound)
	limit := rem/time.Duration(div) + time.Duration(0.8*float64(inc)) - max(c.Overhead, 0)
	return min(max(limit, 0), MaxThink)
}

// HurryBelow is the SafeLimit under which a move is hurried (Hurried).
// The blunder filter and the ponder reply each cost a batched net
// evaluation of candidate moves (20-40 ms for the default net on a busy
// CPU), which a clock of a few hundred milliseconds cannot pay: at 1+0 they
// lost games on time by 12-15 ms.
const HurryBelow = 100 * time.Millisecond

// Hurried reports whether the clock is known and so short (SafeLimit below
// HurryBelow, which is the case whenever Remaining/20 + 0.8*Inc is within
// HurryBelow of Overhead) that the move must cost the one net evaluation of
// the position and nothing more: no blunder filter, no ponder reply.
func (c Clock) Hurried() bool {
	l := c.SafeLimit()
	return l >= 0 && l < HurryBelow
}

// lastBinFactor sets the top of the last think-time bin: its lower edge
// times this.
const lastBinFactor = 2

// ThinkTime draws how long a human would think. With a think-time head
// (probs over the bins whose upper edges are edges; len(probs) ==
// len(edges)+1) it samples a bin, then a time uniformly inside it (the last
// bin reaches lastBinFactor times its lower edge). Without one it uses
// HeuristicTime. The result never exceeds c.SafeLimit() when the clock is
// known, nor MaxThink, and is never negative.
func ThinkTime(probs []float32, edges []float64, c Clock, topProb float64, rng *rand.Rand) time.Duration {
	var t time.Duration
	if len(probs) > 0 && len(probs) == len(edges)+1 {
		p := make([]float64, len(probs))
		for i, x := range probs {
			if v := float64(x); v > 0 && !math.IsInf(v, 0) {
				p[i] = v
			}
		}
		k := Sample(p, rng)
		if k < 0 {
			t = HeuristicTime(c, topProb, rng)
		} else {
			lo, hi := 0.0, 0.0
			if k > 0 {
				lo = edges[k-1]
			}
			if k < len(edges) {
				hi = edges[k]
			} else {
				hi = lo * lastBinFactor
			}
			t = time.Duration((lo + rng.Float64()*(hi-lo)) * float64(time.Second))
		}
	} else {
		t = HeuristicTime(c, topProb, rng)
	}
	if limit := c.SafeLimit(); limit >= 0 {
		t = min(t, limit)
	}
	return min(max(t, 0), MaxThink)
}

// HeuristicTime is the think time for nets without a think-time head: a
// share of the clock (Remaining/40 + 0.8*Inc, or 3 s with no clock) scaled
// by how unsure the human is (0.5 for a move the net finds certain, 1.5 for
// a flat distribution: 0.5 + (1 - topProb)) and by log-normal noise
// (sigma 0.5), at most MaxThink. The caller caps it with Clock.SafeLimit.
func HeuristicTime(c Clock, topProb float64, rng *rand.Rand) time.Duration {
	mean := float64(3 * time.Second)
	if c.Remaining >= 0 {
		mean = float64(c.Remaining)/40 + 0.8*float64(max(c.Inc, 0))
	}
	unsure := 0.5 + (1 - min(max(topProb, 0), 1))
	noise := math.Exp(0.5 * rng.NormFloat64())
	// In float64 until capped: a huge clock must not overflow time.Duration.
	return time.Duration(min(mean*unsure*noise, float64(MaxThink)))
}
