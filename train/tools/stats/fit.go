package stats

import (
	"math"

	"github.com/humchess/humchess/policy"
)

// ReshapeCapped is a replayed time raw reshaped by shape (policy.Shape.Reshape);
// a lengthened time stops at limit, or at raw when that is longer.
func ReshapeCapped(raw, limit float64, shape policy.Shape) float64 {
	t := shape.Reshape(raw)
	if t > raw {
		t = max(min(t, limit), raw)
	}
	return t
}

// Think-time fit grid: FitThink tries scales from ScaleMin to ScaleMax and
// powers from PowerMin to PowerMax, by gridStep.
const (
	ScaleMin, ScaleMax = 0.5, 1.5
	PowerMin, PowerMax = 0.7, 1.2
	gridStep           = 0.02
)

// ThinkDistance is how far two sets of one-second think times are apart:
// the area between their distribution functions on a log(1+seconds) axis
// (the Wasserstein-1 distance of log(1+t)), so a second more at 2 s counts
// as much as ten more at 30 s, and both the median and the long thinks
// weigh. 0 for equal distributions; NaN when either is empty.
func ThinkDistance(a, b []float64) float64 {
	if len(a) == 0 || len(b) == 0 {
		return math.NaN()
	}
	top := 0
	for _, v := range a {
		top = max(top, int(v))
	}
	for _, v := range b {
		top = max(top, int(v))
	}
	return cdfDistance(cdf(histogram(a, top), len(a)), cdf(histogram(b, top), len(b)))
}

// histogram counts whole-second values 0..top (negative ones as 0, longer
// ones as top).
func histogram(v []float64, top int) []float64 {
	h := make([]float64, top+1)
	for _, x := range v {
		h[min(max(int(x), 0), top)]++
	}
	return h
}

// cdf turns a histogram of n values into its distribution function.
func cdf(h []float64, n int) []float64 {
	f := make([]float64, len(h))
	var c float64
	for k, v := range h {
		c += v
		f[k] = c / float64(n)
	}
	return f
}

// cdfDistance is ThinkDistance of two distribution functions on 0..top.
func cdfDistance(fa, fb []float64) float64 {
	var d float64
	for k := 0; k+1 < len(fa); k++ {
		d += math.Abs(fa[k]-fb[k]) * (math.Log(float64(k)+2) - math.Log(float64(k)+1))
	}
	return d
}

// QuantileTolerance is how far, as a fraction of the humans' value, a
// think-time fit's median and p90 may be from the humans' to count as on
// target: FitThink first looks for grid points with both within it. Half the
// issue's 20%, so a fit on the replay leaves room for self-play's noise.
const QuantileTolerance = 0.1

// FitThink returns the reshaping of a replay's think times, t seconds to
// scale x t^power (policy.Shape.Reshape), that brings its Replayed moves,
// read at one-second resolution, closest to the human think times of human,
// searched on the grid from ScaleMin, PowerMin to ScaleMax, PowerMax: of
// the grid points whose median and p90 are both within QuantileTolerance of
// the humans' (else of those with one of the two within it, else of all),
// the one at the smallest ThinkDistance; with the distance at 1, 1 and at
// the fit. capAt, when not nil, gives the longest a move may take (the
// engine's safety limit): a lengthened move stops there, or at its replayed
// time when that is longer. ok is false without moves on either side.
func FitThink(human, replay *Timing, capAt func(ReplayedMove) float64) (scale, power, at1, fitted float64, ok bool) {
	if human == nil || replay == nil || human.Think.N() == 0 || len(replay.Replayed) == 0 {
		return 1, 1, math.NaN(), math.NaN(), false
	}
	caps := make([]float64, len(replay.Replayed))
	for i, m := range replay.Replayed {
		caps[i] = math.Inf(1)
		if capAt != nil {
			caps[i] = capAt(m)
		}
	}
	const top = 600 // seconds: the histograms' last bin
	hh := histogram(human.Think.v, top)
	fh := cdf(hh, human.Think.N())
	hMed, hP90 := histQuantile(hh, 0.5), histQuantile(hh, 0.9)
	h := make([]float64, top+1)
	// try reshapes the replay by s, p: its distance to the humans and how
	// many of its median and p90 miss the humans' by more than the tolerance.
	try := func(s, p float64) (float64, int) {
		clear(h)
		for i, m := range replay.Replayed {
			t := ReshapeCapped(m.Raw, caps[i], policy.Shape{Scale: s, Power: p})
			h[min(max(int(m.Second(t)), 0), top)]++
		}
		misses := 0
		if math.Abs(histQuantile(h, 0.5)-hMed) > QuantileTolerance*hMed {
			misses++
		}
		if math.Abs(histQuantile(h, 0.9)-hP90) > QuantileTolerance*hP90 {
			misses++
		}
		return cdfDistance(fh, cdf(h, len(replay.Replayed))), misses
	}
	at1, bestMisses := try(1, 1)
	scale, power, fitted = 1, 1, at1
	for i := 0; ScaleMin+float64(i)*gridStep <= ScaleMax+gridStep/2; i++ {
		for j := 0; PowerMin+float64(j)*gridStep <= PowerMax+gridStep/2; j++ {
			s, p := ScaleMin+float64(i)*gridStep, PowerMin+float64(j)*gridStep
			if d, m := try(s, p); m < bestMisses || m == bestMisses && d < fitted-1e-12 {
				scale, power, fitted, bestMisses = s, p, d, m
			}
		}
	}
	return math.Round(scale*100) / 100, math.Round(power*100) / 100, at1, fitted, true
}

// histQuantile is Quantiles.Quantile of the whole-second values a
// histogram counts (interpolated between neighbours the same way).
func histQuantile(h []float64, p float64) float64 {
	var n float64
	for _, c := range h {
		n += c
	}
	if n == 0 {
		return math.NaN()
	}
	pos := p * (n - 1)
	lo := math.Floor(pos)
	at := func(i float64) float64 { // the value at sorted index i
		var c float64
		for k, v := range h {
			c += v
			if c > i {
				return float64(k)
			}
		}
		return float64(len(h) - 1)
	}
	a := at(lo)
	return a + (pos-lo)*(at(min(lo+1, n-1))-a)
}

// CorrectThink corrects a reshaping (scale, power) from the engine's own
// games played with it: the engine's raw median and p90 there, engMedian and
// engP90, are read back through the reshaping to the head's draws that made
// them ((t/scale)^(1/power)), and the reshaping that sends those two draws
// to the humans' median and p90 (one-second resolution) is solved for. It
// stays on the fit's grid range (ScaleMin..ScaleMax, PowerMin..PowerMax;
// the power is clamped first, the scale then still puts the median on the
// humans'). ok is false when the quantiles cannot be inverted (a median of
// 0, a p90 not above the median).
func CorrectThink(scale, power, engMedian, engP90, humMedian, humP90 float64) (newScale, newPower float64, ok bool) {
	if !(scale > 0) || !(power > 0) || !(engMedian > 0) || !(engP90 > engMedian) || !(humMedian > 0) || !(humP90 > humMedian) {
		return scale, power, false
	}
	um := math.Pow(engMedian/scale, 1/power)
	uq := math.Pow(engP90/scale, 1/power)
	newPower = min(max(math.Log(humP90/humMedian)/math.Log(uq/um), PowerMin), PowerMax)
	newScale = min(max(humMedian/math.Pow(um, newPower), ScaleMin), ScaleMax)
	return newScale, newPower, true
}
