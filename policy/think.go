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
	Base      time.Duration // the time control's base time; 0 or negative = unknown
	// PaceTop replaces the package's PaceTop at this time control (the
	// net's calibration, calib.Calibration.PaceTopAt); 0 or below =
	// PaceTop, above TroubleClock = TroubleClock.
	PaceTop time.Duration
}

// MaxThink caps every think time, whatever the clock says (a GUI may send
// 10^9 ms, or an int64's largest value, for a game without a real clock).
// It is above the think-time head's longest bin (59.5 s to 119 s).
const MaxThink = 5 * time.Minute

// MaxShare is the largest share of the remaining clock (beyond Reserve)
// one move may take, on top of 0.8 times the increment. Humans spend more
// than this on under 1% of their moves below 10 minutes (their 99th
// percentile of think time over remaining clock is 0.3-0.5 in bullet,
// 0.3 at 10+0); spending at most this share, the clock shrinks at most
// geometrically and never reaches Reserve through thinking alone.
const MaxShare = 0.2

// Reserve is the part of the remaining clock no think time touches: below
// it a move costs only its computing and the GUI's lag, 20-40 ms a move on a
// busy machine, so it pays for 50-100 more moves. With 1 s, engine
// self-play at 15+0 lost 9 games of 40 on time (games of 155-190 plies,
// simulated at 15 ms of lag a move); with 2 s, 1 (258 plies).
const Reserve = 2 * time.Second

// SafeLimit returns the longest a move may take: MaxShare of the clock
// beyond Reserve (in time trouble TroubleShare of the clock beyond
// TroubleReserve; when MovesToGo is given, at most 2/(MovesToGo+2) of it)
// plus 0.8*Inc, never more than half the remaining clock (the increment
// comes after the move), minus Overhead, never below 0 nor above MaxThink.
// A long human think passes when the clock affords it: at the start of a
// 1+0 game about 12 s, of a 10+0 game 2 minutes. It returns -1 when
// Remaining is unknown.
func (c Clock) SafeLimit() time.Duration {
	if c.Remaining < 0 {
		return -1
	}
	share := MaxShare
	if c.InTrouble() {
		share = TroubleShare
	}
	if c.MovesToGo > 0 {
		share = min(share, 2/float64(c.MovesToGo+2))
	}
	// Clocks beyond any game's cannot raise the result above MaxThink, and
	// bounding them keeps the arithmetic from overflowing.
	const bound = 100 * MaxThink
	rem, inc := min(c.Remaining, bound), min(max(c.Inc, 0), bound)
	free := max(rem-Reserve, 0)
	if c.InTrouble() {
		free = max(rem-TroubleReserve, 0)
	}
	limit := min(time.Duration(share*float64(free)+0.8*float64(inc)), rem/2) - max(c.Overhead, 0)
	return min(max(limit, 0), MaxThink)
}

// TroubleClock is the clock below which a move is played in time trouble
// (Clock.InTrouble). Humans then play at a pace their clock sets rather
// than the position: at 1+0 and 3+0 on lichess about 1 s a move at 7-10 s
// left, 0.8 s at 4-6 s, 0.55 s at 2-3 s.
const TroubleClock = 10 * time.Second

// In time trouble (Clock.InTrouble) a move's mean think time is the pace
// (Clock.Pace): PaceShare of the clock beyond TroubleReserve, at most
// PaceTop, plus 0.8 times the increment. The free clock goes in about
// eight moves, the first ones at about humans' pace, the later ones ever
// shorter; one move may take TroubleShare of it instead of MaxShare, so
// that draws around the pace pass. Thinking stops when that share is
// below Overhead (0.2 s beyond TroubleReserve at the default
// MoveOverhead): the 2.6 s left pay the lag of 65 more moves at 40 ms.
const (
	PaceTop        = 1300 * time.Millisecond
	PaceShare      = 0.5
	TroubleShare   = 0.5
	TroubleReserve = Reserve + 400*time.Millisecond
)

// InTrouble reports whether the mover is in time trouble: its clock is
// known and below TroubleClock and, when the base time is known, below a
// sixth of it (a 15-second game is not in time trouble from its first
// move; a 1-minute game is from 10 s).
func (c Clock) InTrouble() bool {
	return c.Remaining >= 0 && c.Remaining < TroubleClock && (c.Base <= 0 || c.Remaining < c.Base/6)
}

// Pace returns the mean think time of a move in time trouble: PaceShare
// of the clock beyond TroubleReserve, at most c.PaceTop (PaceTop when
// unset), plus 0.8*Inc (1.3 s at 9.5 s, 0.8 s at 4 s, 0.3 s at 3 s, 0 from
// 2.4 s); ok is false out of time trouble. A larger cap only lengthens the
// moves begun with more than TroubleReserve + 2*cap on the clock: the last
// seconds go at the share's pace whatever the control.
func (c Clock) Pace() (pace time.Duration, ok bool) {
	if !c.InTrouble() {
		return 0, false
	}
	free := max(c.Remaining-TroubleReserve, 0)
	inc := min(max(c.Inc, 0), MaxThink)
	return min(time.Duration(PaceShare*float64(free)), c.paceTop()) + time.Duration(0.8*float64(inc)), true
}

// paceTop is c.PaceTop within TroubleClock, PaceTop when unset.
func (c Clock) paceTop() time.Duration {
	if c.PaceTop <= 0 {
		return PaceTop
	}
	return min(c.PaceTop, TroubleClock)
}

// HurryBelow is the cautious limit (remaining/20, or
// remaining/(MovesToGo+2) when smaller, plus 0.8*Inc, minus Overhead)
// under which a move is hurried (Hurried). The blunder filter and the
// ponder reply each cost a batched net evaluation of candidate moves
// (20-40 ms for the default net on a busy CPU), which a clock of a few
// hundred milliseconds cannot pay: at 1+0 they lost games on time by
// 12-15 ms.
const HurryBelow = 100 * time.Millisecond

// Hurried reports whether the clock is known and so short that the move
// must cost the one net evaluation of the position and nothing more: no
// blunder filter, no ponder reply. That is when remaining/20 (or
// remaining/(MovesToGo+2)) + 0.8*Inc - Overhead is below HurryBelow: the
// last 4 s of a game without increment at the default MoveOverhead.
func (c Clock) Hurried() bool {
	if c.Remaining < 0 {
		return false
	}
	div := 20
	if c.MovesToGo > 0 {
		div = min(div, c.MovesToGo+2)
	}
	const bound = 100 * MaxThink
	rem, inc := min(c.Remaining, bound), min(max(c.Inc, 0), bound)
	return rem/time.Duration(div)+time.Duration(0.8*float64(inc))-max(c.Overhead, 0) < HurryBelow
}

// lastBinFactor sets the top of the last think-time bin: its lower edge
// times this.
const lastBinFactor = 2

// Shape is what the policy says about the move a think time is for.
type Shape struct {
	Top        float64 // the most likely move's probability (HeuristicTime's certainty)
	Prob       float64 // the chosen move's probability in the human distribution; 0 = unknown
	FactorMean float64 // MoveFactorMean over the human distribution of the position's moves; 0 = unknown (1)
	Recapture  bool    // the move takes back on the square where the opponent just captured
	// RecaptureScale replaces RecaptureFactor at this time control (the
	// net's calibration, calib.Calibration.RecaptureAt); 0 or below =
	// RecaptureFactor.
	RecaptureScale float64
	Only           bool // the move is the only legal one
	// Scale and Power reshape the head's draw outside time trouble: t
	// seconds (after the factors above) become Scale x t^Power, the net's
	// think-time scale at this time control (calib.Calibration.ThinkAt);
	// 0 or below = 1.
	Scale, Power float64
}

// Reshape is t seconds as Scale x t^Power (either 0 or below = 1).
func (s Shape) Reshape(t float64) float64 {
	if s.Power > 0 && s.Power != 1 && t > 0 {
		t = math.Pow(t, s.Power)
	}
	if s.Scale > 0 {
		t *= s.Scale
	}
	return t
}

// MoveFactor scales the position's think time (the head's draw) by how
// likely the chosen move is: 0.75 - 0.25*log10(prob), within 0.8..1.3
// (1.3 for a move of 1.6% or less, 1 at 10%, 0.8 from 63%); 1 when prob
// is unknown (0 or below). The head predicts the time of the human's
// move whatever it is; on lichess games at 1+0, 3+0 and 10+0 humans took
// 1.2-1.3 times the head's expectation for a move the net gave under 5%,
// 0.8-0.9 for one above 50% (about 0.95 on average).
func MoveFactor(prob float64) float64 {
	if !(prob > 0) {
		return 1
	}
	return min(max(0.75-0.25*math.Log10(min(prob, 1)), 0.8), 1.3)
}

// MoveFactorMean is the mean of MoveFactor(p) over a distribution of moves
// (probs, weighted by themselves, normalised here): what MoveFactor
// averages to when the move is drawn as a human would draw it. The head
// predicts the time of the human's move whatever it is, so ThinkTime
// divides MoveFactor by this mean: the chosen move's likelihood shapes the
// time without moving its mean off the head's. Over the moves humans
// played in 80 lichess games each at 1+0, 3+0, 3+2 and 10+0 MoveFactor
// averaged 0.915-0.935, and the draws fell short of the head by as much.
// 1 when probs has no positive finite mass.
func MoveFactorMean(probs []float64) float64 {
	var sum, mean float64
	for _, p := range probs {
		if p > 0 && !math.IsInf(p, 0) {
			sum += p
		}
	}
	if !(sum > 0) {
		return 1
	}
	for _, p := range probs {
		if p > 0 && !math.IsInf(p, 0) {
			mean += p / sum * MoveFactor(p/sum)
		}
	}
	return mean
}

// RecaptureFactor scales the think time of a recapture. Through the
// head and MoveFactor alone, engine self-play recaptured in 0.6-0.8 of its
// average think time at 1+0 to 10+0, humans in 0.46-0.61.
const RecaptureFactor = 0.8

// recaptureFactor is s.RecaptureScale, RecaptureFactor when unset.
func (s Shape) recaptureFactor() float64 {
	if s.RecaptureScale > 0 && !math.IsInf(s.RecaptureScale, 0) {
		return s.RecaptureScale
	}
	return RecaptureFactor
}

// ThinkTime draws how long a human would think. With a think-time head
// (probs over the bins whose upper edges are edges; len(probs) ==
// len(edges)+1) it samples a bin, then a time uniformly inside it (the last
// bin reaches lastBinFactor times its lower edge), and scales it by
// MoveFactor(s.Prob) / s.FactorMean (and s.RecaptureScale, else
// RecaptureFactor, for a recapture;
// neither for an only move) and, outside time trouble, reshapes it by
// s.Scale and s.Power. Without a head it uses HeuristicTime with s.Top. The result never exceeds c.SafeLimit()
// when the clock is known, nor MaxThink, and is never negative; the same
// rng state gives the same time.
func ThinkTime(probs []float32, edges []float64, c Clock, s Shape, rng *rand.Rand) time.Duration {
	var t time.Duration
	if sec, ok := DrawHead(probs, edges, rng); ok {
		f := 1.0
		// A forced move's probability of 1 says nothing about how obvious
		// it is, and the head, which sees the position, knows it is
		// forced: with MoveFactor and RecaptureFactor the engine answered
		// only moves in 0.31-0.51 of its average time at 1+0 to 10+0,
		// humans in 0.44-0.84.
		if !s.Only {
			f = MoveFactor(s.Prob)
			if s.FactorMean > 0 {
				f /= s.FactorMean
			}
			if s.Recapture {
				f *= s.recaptureFactor()
			}
		}
		sec *= f
		if pace, trouble := c.Pace(); trouble {
			// In time trouble the clock sets the pace, the head the spread.
			sec *= pace.Seconds() / HeadMean(probs, edges)
		} else {
			sec = s.Reshape(sec)
		}
		t = time.Duration(min(sec, MaxThink.Seconds()) * float64(time.Second))
	} else {
		t = HeuristicTime(c, s.Top, rng)
	}
	if limit := c.SafeLimit(); limit >= 0 {
		t = min(t, limit)
	}
	return min(max(t, 0), MaxThink)
}

// DrawHead samples a think time in seconds from a think-time head's bin
// probabilities (len(probs) == len(edges)+1; edges are the bins' upper
// edges): a bin, then a time uniformly inside it, the last bin reaching
// lastBinFactor times its lower edge. ok is false when probs does not fit
// edges or has no positive finite probability.
func DrawHead(probs []float32, edges []float64, rng *rand.Rand) (sec float64, ok bool) {
	p := headProbs(probs, edges)
	if p == nil {
		return 0, false
	}
	k := Sample(p, rng)
	if k < 0 {
		return 0, false
	}
	lo, hi := headBin(edges, k)
	return lo + rng.Float64()*(hi-lo), true
}

// HeadMean is the mean of DrawHead's draws, in seconds: each bin's
// probability (normalised) times its midpoint; NaN when probs does not fit
// edges or has no positive finite probability.
func HeadMean(probs []float32, edges []float64) float64 {
	var sum, mean float64
	for k, v := range headProbs(probs, edges) {
		lo, hi := headBin(edges, k)
		sum += v
		mean += v * (lo + hi) / 2
	}
	if !(sum > 0) {
		return math.NaN()
	}
	return mean / sum
}

// headProbs returns a think-time head's bin probabilities as float64s,
// those not positive and finite as 0; nil when probs does not fit edges.
func headProbs(probs []float32, edges []float64) []float64 {
	if len(probs) == 0 || len(probs) != len(edges)+1 {
		return nil
	}
	p := make([]float64, len(probs))
	for i, x := range probs {
		if v := float64(x); v > 0 && !math.IsInf(v, 0) {
			p[i] = v
		}
	}
	return p
}

// headBin returns the seconds bin k spans: from the edge below it (0 for
// the first) to its upper edge, or for the last bin to lastBinFactor times
// its lower edge.
func headBin(edges []float64, k int) (lo, hi float64) {
	if k > 0 {
		lo = edges[k-1]
	}
	if k < len(edges) {
		return lo, edges[k]
	}
	return lo, lo * lastBinFactor
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
