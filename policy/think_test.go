package policy

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
				d := ThinkTime(probs, edges, c, Shape{Top: 0.2}, rng)
				if d <= 0 || d > MaxThink {
					t.Fatalf("ThinkTime(%v, clock %+v) = %v, want within 0..%v and above 0", probs, c, d, MaxThink)
				}
			}
		}
	}
	// Without any clock the heuristic is capped too.
	for range 1000 {
		if d := ThinkTime(nil, edges, Clock{Remaining: -1, Inc: math.MaxInt64}, Shape{}, rng); d > MaxThink {
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

// TestSafeLimit checks the budget rule on clocks from bullet to classical:
// MaxShare of the clock beyond Reserve plus 0.8*Inc, at most half the
// clock, minus Overhead.
func TestSafeLimit(t *testing.T) {
	ms, s := time.Millisecond, time.Second
	for _, tc := range []struct {
		c    Clock
		want time.Duration
	}{
		{Clock{Remaining: -1}, -1},
		{Clock{Remaining: 60 * s, Overhead: 100 * ms}, 11500 * ms},             // 0.2*58 s - 0.1 s: a long think at 1+0
		{Clock{Remaining: 600 * s, Overhead: 100 * ms}, 119500 * ms},           // 10+0: two minutes
		{Clock{Remaining: 12 * s, Overhead: 100 * ms}, 1900 * ms},              // time trouble
		{Clock{Remaining: 3 * s, Overhead: 100 * ms, Base: 180 * s}, 200 * ms}, // time trouble: TroubleShare*(3 s - TroubleReserve) - 0.1 s
		{Clock{Remaining: 2600 * ms, Overhead: 100 * ms, Base: 180 * s}, 0},    // thinking stops 0.2 s beyond TroubleReserve
		{Clock{Remaining: 8 * s, Overhead: 100 * ms, Base: 60 * s}, 2700 * ms}, // time trouble: 0.5*5.6 s - 0.1 s
		{Clock{Remaining: 8 * s, Overhead: 100 * ms, Base: 15 * s}, 1100 * ms}, // not in a 15 s game (above a sixth of it): 0.2*6 s - 0.1 s
		{Clock{Remaining: 2 * s, Overhead: 100 * ms}, 0},                       // within the reserve: no think
		{Clock{Remaining: 1 * s, Inc: 2 * s, Overhead: 100 * ms}, 400 * ms},    // the increment comes after the move: at most half the clock
		{Clock{Remaining: 62 * s, Inc: 2 * s}, 13600 * ms},                     // 0.2*60 s + 1.6 s
		{Clock{Remaining: 62 * s, MovesToGo: 8}, 12 * s},                       // 2/(8+2) of 60 s is above MaxShare
		{Clock{Remaining: 62 * s, MovesToGo: 38}, 3 * s},                       // 2/40 of 60 s
		{Clock{Remaining: 100 * time.Hour, Inc: 100 * time.Hour}, MaxThink},    // capped
	} {
		assert.Equal(t, tc.want, tc.c.SafeLimit(), "SafeLimit(%+v)", tc.c)
	}
}

// TestThinkTimeSeeded: the same seed draws the same think times, another
// seed other ones.
func TestThinkTimeSeeded(t *testing.T) {
	edges := board.ThinkBinEdges[:]
	head := []float32{0.1, 0.3, 0.2, 0.15, 0.15, 0.06, 0.03, 0.01}
	c := Clock{Remaining: 600 * time.Second, Overhead: 100 * time.Millisecond}
	draw := func(seed uint64) []time.Duration {
		rng := rand.New(rand.NewPCG(seed, 1))
		var out []time.Duration
		for range 50 {
			out = append(out, ThinkTime(head, edges, c, Shape{Prob: 0.3}, rng))
		}
		return out
	}
	a, b, other := draw(7), draw(7), draw(8)
	assert.Equal(t, a, b, "seed 7 twice")
	assert.NotEqual(t, a, other, "seeds 7 and 8")
	distinct := map[time.Duration]bool{}
	for _, d := range a {
		distinct[d] = true
	}
	if len(distinct) < 45 {
		t.Errorf("50 draws from one head gave %d distinct times, want at least 45: a draw, not a point estimate", len(distinct))
	}
}

// TestThinkTimeFollowsHead: the draws land in the head's bins in its
// proportions (a head with only bins 1 and 4), scaled by MoveFactor.
func TestThinkTimeFollowsHead(t *testing.T) {
	edges := board.ThinkBinEdges[:]
	head := []float32{0, 0.75, 0, 0, 0.25, 0, 0, 0}
	rng := rand.New(rand.NewPCG(1, 2))
	c := Clock{Remaining: 600 * time.Second}
	const n = 4000
	long := 0
	for range n {
		d := ThinkTime(head, edges, c, Shape{Prob: 0.1}, rng).Seconds() // MoveFactor(0.1) = 1
		switch {
		case d >= 0.5 && d < 1.5:
		case d >= 4.5 && d < 9.5:
			long++
		default:
			t.Fatalf("drew %.3fs, outside bins [0.5,1.5) and [4.5,9.5)", d)
		}
	}
	if got := float64(long) / n; math.Abs(got-0.25) > 0.03 {
		t.Errorf("bin 4 drawn %.3f of the time, want 0.25", got)
	}
}

func TestMoveFactor(t *testing.T) {
	for _, tc := range []struct{ prob, want float64 }{
		{0, 1}, {-1, 1}, {math.NaN(), 1}, // unknown
		{0.001, 1.3}, {0.01, 1.25}, {0.1, 1}, {0.5, 0.8255}, {0.9, 0.8}, {1, 0.8},
	} {
		assert.InDelta(t, tc.want, MoveFactor(tc.prob), 0.001, "MoveFactor(%v)", tc.prob)
	}
	for p := 0.01; p < 1; p += 0.01 {
		if MoveFactor(p+0.01) > MoveFactor(p) {
			t.Fatalf("MoveFactor(%.2f) = %.3f > MoveFactor(%.2f) = %.3f: a likelier move must not take longer", p+0.01, MoveFactor(p+0.01), p, MoveFactor(p))
		}
	}
}

// TestMoveFactorMean: MoveFactor's mean over a distribution (normalised
// first), and that dividing by it keeps the mean think time of a move drawn
// from that distribution at the head's draw.
func TestMoveFactorMean(t *testing.T) {
	for _, tc := range []struct {
		name  string
		probs []float64
		want  float64
	}{
		{"empty", nil, 1},
		{"no mass", []float64{0, -1, math.NaN()}, 1},
		{"only move", []float64{1}, 0.8},
		{"unnormalised only move", []float64{3}, 0.8},
		{"ten of 10%", []float64{0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1}, 1},
		{"90% and 10%", []float64{0.9, 0.1}, 0.9*0.8 + 0.1*1},
		{"unnormalised 90% and 10%", []float64{9, 1, 0, math.Inf(1)}, 0.9*0.8 + 0.1*1},
	} {
		assert.InDelta(t, tc.want, MoveFactorMean(tc.probs), 1e-9, "%s: MoveFactorMean(%v)", tc.name, tc.probs)
	}

	edges := board.ThinkBinEdges[:]
	head := []float32{0.1, 0.3, 0.2, 0.15, 0.15, 0.06, 0.03, 0.01}
	moves := []float64{0.6, 0.25, 0.1, 0.04, 0.01}
	fm := MoveFactorMean(moves)
	c := Clock{Remaining: time.Hour}
	rng := rand.New(rand.NewPCG(7, 7))
	const n = 40000
	var sum time.Duration
	for range n {
		sum += ThinkTime(head, edges, c, Shape{Prob: moves[Sample(moves, rng)], FactorMean: fm}, rng)
	}
	got, want := (sum / n).Seconds(), HeadMean(head, edges)
	if math.Abs(got/want-1) > 0.03 {
		t.Errorf("mean think of a move drawn from %v: %.3fs, want the head's mean %.3fs within 3%%", moves, got, want)
	}
}

// TestRecaptureFaster: with the same random draws, a recapture takes
// RecaptureFactor (or its calibrated factor) of the time of another move, an obvious move less than
// an unlikely one, and an only move the head's draw.
func TestRecaptureFaster(t *testing.T) {
	edges := board.ThinkBinEdges[:]
	head := []float32{0.1, 0.3, 0.2, 0.15, 0.15, 0.06, 0.03, 0.01}
	c := Clock{Remaining: time.Hour}
	for seed := range uint64(200) {
		plain := ThinkTime(head, edges, c, Shape{Prob: 0.3}, rand.New(rand.NewPCG(seed, 0)))
		recap := ThinkTime(head, edges, c, Shape{Prob: 0.3, Recapture: true}, rand.New(rand.NewPCG(seed, 0)))
		obvious := ThinkTime(head, edges, c, Shape{Prob: 0.95}, rand.New(rand.NewPCG(seed, 0)))
		unlikely := ThinkTime(head, edges, c, Shape{Prob: 0.01}, rand.New(rand.NewPCG(seed, 0)))
		if want := time.Duration(float64(plain) * RecaptureFactor); recap < want-time.Microsecond || recap > want+time.Microsecond {
			t.Fatalf("seed %d: recapture %v, want %v (%v x %v)", seed, recap, want, plain, RecaptureFactor)
		}
		// A calibrated recapture factor replaces the default; outside time
		// trouble the reshaping follows it (x^power).
		cal := ThinkTime(head, edges, c, Shape{Prob: 0.3, Recapture: true, RecaptureScale: 0.5, Scale: 1.2, Power: 0.9}, rand.New(rand.NewPCG(seed, 0)))
		calPlain := ThinkTime(head, edges, c, Shape{Prob: 0.3, Scale: 1.2, Power: 0.9}, rand.New(rand.NewPCG(seed, 0)))
		if want := time.Duration(float64(calPlain) * math.Pow(0.5, 0.9)); cal < want-time.Microsecond || cal > want+time.Microsecond {
			t.Fatalf("seed %d: recapture at factor 0.5 %v, want %v (%v x 0.5^0.9)", seed, cal, want, calPlain)
		}
		if plain > 0 && !(obvious < plain && plain < unlikely) {
			t.Fatalf("seed %d: prob 0.95 %v, 0.3 %v, 0.01 %v; want increasing", seed, obvious, plain, unlikely)
		}
		// An only move (probability 1, maybe a recapture) takes the head's
		// draw as it is: what MoveFactor gives a move of 10%.
		only := ThinkTime(head, edges, c, Shape{Prob: 1, Recapture: true, Only: true}, rand.New(rand.NewPCG(seed, 0)))
		head1 := ThinkTime(head, edges, c, Shape{Prob: 0.1}, rand.New(rand.NewPCG(seed, 0)))
		if only < head1-time.Microsecond || only > head1+time.Microsecond {
			t.Fatalf("seed %d: only move %v, want the head's draw %v", seed, only, head1)
		}
	}
}

// TestPace checks the pace of time trouble: PaceShare of the clock beyond
// TroubleReserve, at most PaceTop, plus 0.8*Inc, only in time trouble.
func TestPace(t *testing.T) {
	ms, s := time.Millisecond, time.Second
	for _, tc := range []struct {
		c    Clock
		want time.Duration
		ok   bool
	}{
		{Clock{Remaining: 9500 * ms, Base: 60 * s}, PaceTop, true}, // 0.5*7.5 s is above PaceTop
		{Clock{Remaining: 4 * s, Base: 60 * s}, 800 * ms, true},    // 0.5*(4 s - TroubleReserve)
		{Clock{Remaining: 2500 * ms, Base: 60 * s}, 50 * ms, true},
		{Clock{Remaining: 1500 * ms, Base: 60 * s}, 0, true},                                       // within the reserve
		{Clock{Remaining: 4 * s, Inc: s, Base: 60 * s}, 1600 * ms, true},                           // plus 0.8*Inc
		{Clock{Remaining: 4 * s}, 800 * ms, true},                                                  // base unknown
		{Clock{Remaining: 12 * s, Base: 60 * s}, 0, false},                                         // above TroubleClock
		{Clock{Remaining: 8 * s, Base: 15 * s}, 0, false},                                          // above a sixth of the base
		{Clock{Remaining: -1, Base: 60 * s}, 0, false},                                             // no clock
		{Clock{Remaining: 9 * s, Inc: math.MaxInt64, Base: 60 * s}, PaceTop + 4*time.Minute, true}, // 0.8*MaxThink
		{Clock{Remaining: 9500 * ms, Base: 60 * s, PaceTop: 2 * s}, 2 * s, true},                   // the control's cap
		{Clock{Remaining: 9500 * ms, Base: 60 * s, PaceTop: 900 * ms}, 900 * ms, true},             // a lower one
		{Clock{Remaining: 4 * s, Base: 60 * s, PaceTop: 2 * s}, 800 * ms, true},                    // the share binds below it
		{Clock{Remaining: 9500 * ms, Base: 60 * s, PaceTop: -s}, PaceTop, true},                    // below 0: the default
		{Clock{Remaining: 9500 * ms, Base: 60 * s, PaceTop: time.Hour}, 3550 * ms, true},           // the share binds
	} {
		got, ok := tc.c.Pace()
		assert.Equal(t, tc.ok, ok, "Pace(%+v) ok", tc.c)
		assert.Equal(t, tc.want, got, "Pace(%+v)", tc.c)
	}
}

// TestThinkTimeTroublePace: in time trouble the clock sets the mean think
// time (the pace) and the head only the spread: a head that expects 1 s
// and one that expects 7 s both average the pace there, and keep their
// 7:1 ratio out of it.
func TestThinkTimeTroublePace(t *testing.T) {
	edges := board.ThinkBinEdges[:]
	fast := []float32{0, 1, 0, 0, 0, 0, 0, 0} // 0.5-1.5 s
	slow := []float32{0, 0, 0, 0, 1, 0, 0, 0} // 4.5-9.5 s
	mean := func(probs []float32, c Clock) float64 {
		rng := rand.New(rand.NewPCG(9, 9))
		sum := 0.0
		const n = 4000
		for range n {
			sum += ThinkTime(probs, edges, c, Shape{}, rng).Seconds()
		}
		return sum / n
	}
	trouble := Clock{Remaining: 9500 * time.Millisecond, Base: 60 * time.Second}
	pace, ok := trouble.Pace()
	require.True(t, ok)
	for _, h := range [][]float32{fast, slow} {
		assert.InEpsilon(t, pace.Seconds(), mean(h, trouble), 0.03, "head %v at %v: the pace", h, trouble.Remaining)
	}
	calm := Clock{Remaining: 50 * time.Second, Base: 60 * time.Second}
	assert.InEpsilon(t, 7.0, mean(slow, calm)/mean(fast, calm), 0.05, "out of time trouble the head's means")
}

// TestThinkTimeNeverFlags plays the clock of long games with the worst head
// (always the longest bin) and 40 ms of lag a move on top of each think:
// from 15 s, 30 s and 1 minute, 75 moves (150 plies, longer than 95% of
// human games) never run the clock out; with an increment, 300 moves. The
// same holds when every move takes the whole safe limit.
func TestThinkTimeNeverFlags(t *testing.T) {
	edges := board.ThinkBinEdges[:]
	worst := []float32{0, 0, 0, 0, 0, 0, 0, 1}
	const lag = 40 * time.Millisecond
	for _, tc := range []struct {
		base, inc time.Duration
		moves     int
	}{
		{15 * time.Second, 0, 75},
		{30 * time.Second, 0, 75},
		{60 * time.Second, 0, 75},
		{180 * time.Second, 0, 75},
		{15 * time.Second, time.Second, 300},
		{180 * time.Second, 2 * time.Second, 300},
	} {
		// The largest pace cap a calibration may set changes nothing.
		for _, top := range []time.Duration{0, TroubleClock} {
			rng := rand.New(rand.NewPCG(5, 5))
			rem := tc.base
			for i := range tc.moves {
				c := Clock{Remaining: rem, Inc: tc.inc, Overhead: 100 * time.Millisecond, Base: tc.base, PaceTop: top}
				d := ThinkTime(worst, edges, c, Shape{Prob: 0.01}, rng)
				if limit := c.SafeLimit(); d > limit {
					t.Fatalf("%v+%v pace cap %v move %d: think %v over the safe limit %v", tc.base, tc.inc, top, i+1, d, limit)
				}
				rem -= d + lag
				if rem <= 0 {
					t.Fatalf("%v+%v pace cap %v: lost on time at move %d", tc.base, tc.inc, top, i+1)
				}
				rem += tc.inc
			}
		}
		// Whatever the head, no move takes more than the safe limit:
		// spending all of it every move must not flag either.
		rem := tc.base
		for i := range tc.moves {
			c := Clock{Remaining: rem, Inc: tc.inc, Overhead: 100 * time.Millisecond, Base: tc.base}
			rem -= c.SafeLimit() + lag
			if rem <= 0 {
				t.Fatalf("%v+%v, the safe limit every move: lost on time at move %d", tc.base, tc.inc, i+1)
			}
			rem += tc.inc
		}
	}
}

// TestThinkTimeScale: Scale and Power reshape the head's draw outside time
// trouble (the same rng state gives Scale x t^Power), and leave the
// trouble pace alone.
func TestThinkTimeScale(t *testing.T) {
	edges := board.ThinkBinEdges[:]
	head := []float32{0.1, 0.3, 0.2, 0.15, 0.15, 0.06, 0.03, 0.01}
	calm := Clock{Remaining: 600 * time.Second}
	for seed := range uint64(20) {
		one := ThinkTime(head, edges, calm, Shape{Prob: 0.2}, rand.New(rand.NewPCG(seed, 3)))
		scaled := ThinkTime(head, edges, calm, Shape{Prob: 0.2, Scale: 0.7}, rand.New(rand.NewPCG(seed, 3)))
		assert.InDelta(t, 0.7*one.Seconds(), scaled.Seconds(), 1e-6, "seed %d", seed)
		unset := ThinkTime(head, edges, calm, Shape{Prob: 0.2, Scale: 0, Power: 0}, rand.New(rand.NewPCG(seed, 3)))
		assert.Equal(t, one, unset, "Scale and Power 0 are 1")
		pow := ThinkTime(head, edges, calm, Shape{Prob: 0.2, Scale: 0.7, Power: 0.8}, rand.New(rand.NewPCG(seed, 3)))
		assert.InDelta(t, 0.7*math.Pow(one.Seconds(), 0.8), pow.Seconds(), 1e-6, "seed %d: 0.7 t^0.8", seed)
	}
	trouble := Clock{Remaining: 5 * time.Second, Base: 60 * time.Second}
	_, inTrouble := trouble.Pace()
	if !inTrouble {
		t.Fatalf("5 s left of 60+0 is not time trouble: the test needs a clock in trouble")
	}
	unclipped := 0
	for seed := range uint64(20) {
		one := ThinkTime(head, edges, trouble, Shape{Prob: 0.2}, rand.New(rand.NewPCG(seed, 4)))
		scaled := ThinkTime(head, edges, trouble, Shape{Prob: 0.2, Scale: 0.5, Power: 0.7}, rand.New(rand.NewPCG(seed, 4)))
		assert.Equal(t, one, scaled, "in time trouble the pace, not the scale, sets the time (seed %d)", seed)
		if one < trouble.SafeLimit() {
			unclipped++
		}
	}
	if unclipped < 5 {
		t.Errorf("only %d of 20 draws in time trouble below the safe limit %v: the comparison says nothing", unclipped, trouble.SafeLimit())
	}
}
