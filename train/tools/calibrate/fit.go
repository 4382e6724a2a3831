package calibrate

import (
	"math"

	"github.com/humchess/humchess/nets/calib"
	"github.com/humchess/humchess/train/tools/internal/profile"
	"github.com/humchess/humchess/train/tools/match"
)

// Fit bounds and damping.
const (
	MinTemperature = 0.05 // lowest temperature a fit may set
	MaxTemperature = 3.0  // highest
	MaxBlunder     = 5.0  // highest blunder-filter scale
	Damping        = 0.7  // exponent on each correction ratio (1 = full step)
	MinMoves       = 100  // moves, engine and human, a label needs to be adjusted
)

// Step returns the next settings of one label from the engine's and the
// humans' error profile at that label: the temperature is multiplied by
// (human cpl / engine cpl)^Damping (an engine that loses more centipawns
// than the humans samples more sharply), the blunder-filter scale by
// (human blunder rate / engine blunder rate)^Damping (an engine that
// blunders too often filters harder), both bounded. With fewer than
// MinMoves moves on either side the settings are kept.
func Step(p calib.Point, engine, human profile.Cell) calib.Point {
	if engine.Moves < MinMoves || human.Moves < MinMoves {
		return p
	}
	ce, _, _ := engine.MeanCPL()
	ch, _, _ := human.MeanCPL()
	if ce > 0 && ch > 0 {
		p.Temperature = clamp(p.Temperature*math.Pow(ch/ce, Damping), MinTemperature, MaxTemperature)
	}
	// Rates with half a blunder added, so that none in a small sample is
	// not an infinite ratio.
	be := (float64(engine.Blunders) + 0.5) / (float64(engine.Moves) + 1)
	bh := (float64(human.Blunders) + 0.5) / (float64(human.Moves) + 1)
	p.BlunderScale = clamp(p.BlunderScale*math.Pow(bh/be, Damping), 0, MaxBlunder)
	return p
}

// Monotone makes the temperature and the blunder-filter scale of points
// (sorted by label) non-increasing with the label: the least-squares
// non-increasing fit of their logarithms (pool adjacent violators, equal
// weights), so a run of labels out of order takes their geometric mean.
// A scale of 0 (filter everything) pools as 1e-6 and stays 0 unless pooled
// with larger ones.
func Monotone(points []calib.Point) {
	temps := make([]float64, len(points))
	scales := make([]float64, len(points))
	for i, p := range points {
		temps[i] = math.Log(p.Temperature)
		scales[i] = math.Log(max(p.BlunderScale, 1e-6))
	}
	nonIncreasing(temps)
	nonIncreasing(scales)
	for i := range points {
		points[i].Temperature = math.Exp(temps[i])
		if points[i].BlunderScale = math.Exp(scales[i]); points[i].BlunderScale < 2e-6 {
			points[i].BlunderScale = 0
		}
	}
}

// nonIncreasing replaces x by its least-squares non-increasing fit.
func nonIncreasing(x []float64) {
	type block struct {
		sum float64
		n   int
	}
	var blocks []block
	for _, v := range x {
		blocks = append(blocks, block{v, 1})
		for len(blocks) > 1 {
			a, b := blocks[len(blocks)-2], blocks[len(blocks)-1]
			if a.sum/float64(a.n) >= b.sum/float64(b.n) {
				break
			}
			blocks = append(blocks[:len(blocks)-2], block{a.sum + b.sum, a.n + b.n})
		}
	}
	i := 0
	for _, b := range blocks {
		for range b.n {
			x[i] = b.sum / float64(b.n)
			i++
		}
	}
}

func clamp(x, lo, hi float64) float64 { return max(lo, min(hi, x)) }

// Within reports whether the engine's value is within tol (a fraction,
// 0.2 = 20%) of the humans'.
func Within(engine, human, tol float64) bool {
	return human > 0 && math.Abs(engine-human) <= tol*human
}

// ScoreInterval is the score fraction of s with its 95% normal interval
// (match.Score.Interval).
func ScoreInterval(s match.Score) (p, lo, hi float64) { return s.Interval() }

// Expected is the Elo formula's expected score for a rating advantage of
// gap points (match.ExpectedFraction).
func Expected(gap float64) float64 { return match.ExpectedFraction(gap) }
