package match

import "math"

// Score is a W-D-L record from one side's point of view.
type Score struct {
	Wins, Draws, Losses int
}

// Games is the number of games counted.
func (s Score) Games() int { return s.Wins + s.Draws + s.Losses }

// Fraction is the points scored per game, (W + D/2) / N; NaN with no games.
func (s Score) Fraction() float64 {
	n := s.Games()
	if n == 0 {
		return math.NaN()
	}
	return (float64(s.Wins) + 0.5*float64(s.Draws)) / float64(n)
}

// EloFromFraction is the logistic Elo difference giving an expected score
// p: -400 log10(1/p - 1). It is ±Inf at 1 and 0.
func EloFromFraction(p float64) float64 {
	switch {
	case math.IsNaN(p):
		return math.NaN()
	case p <= 0:
		return math.Inf(-1)
	case p >= 1:
		return math.Inf(1)
	}
	return -400 * math.Log10(1/p-1)
}

// Interval returns the score fraction and its 95% confidence interval
// [lo, hi], from the normal approximation of the mean score per game (the
// per-game variance of W, D, L around the mean), clipped to [0, 1]. With
// no games all three are NaN.
func (s Score) Interval() (p, lo, hi float64) {
	n := float64(s.Games())
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	p = s.Fraction()
	w, d, l := float64(s.Wins)/n, float64(s.Draws)/n, float64(s.Losses)/n
	variance := w*(1-p)*(1-p) + d*(0.5-p)*(0.5-p) + l*p*p
	se := math.Sqrt(variance / n)
	const z = 1.959963984540054 // two-sided 95% normal quantile
	return p, max(0, p-z*se), min(1, p+z*se)
}

// Elo returns the Elo difference implied by the score and its 95%
// confidence interval [lo, hi]: Interval mapped through EloFromFraction.
// With no games all three are NaN.
func (s Score) Elo() (diff, lo, hi float64) {
	p, l, h := s.Interval()
	return EloFromFraction(p), EloFromFraction(l), EloFromFraction(h)
}

// ExpectedFraction is the Elo formula's expected score for a rating
// advantage of gap points: 1 / (1 + 10^(-gap/400)).
func ExpectedFraction(gap float64) float64 { return 1 / (1 + math.Pow(10, -gap/400)) }

// LOS is the likelihood of superiority: the probability that the side is
// stronger given its wins and losses (draws carry no information),
// 0.5 (1 + erf((W - L) / sqrt(2 (W + L)))). It is 0.5 with no decisive game.
func (s Score) LOS() float64 {
	wl := float64(s.Wins + s.Losses)
	if wl == 0 {
		return 0.5
	}
	return 0.5 * (1 + math.Erf(float64(s.Wins-s.Losses)/math.Sqrt(2*wl)))
}
