package calibrate

import (
	"math"
	"testing"

	"github.com/humchess/humchess/nets/calib"
	"github.com/humchess/humchess/train/data/games"
	"github.com/humchess/humchess/train/data/pgn"
	"github.com/humchess/humchess/train/tools/internal/profile"
	"github.com/humchess/humchess/train/tools/match"
)

// cell makes a profile cell of n moves, k blunders and average loss cpl
// (every move the same loss).
func cell(n, k int64, cpl float64) profile.Cell {
	return profile.Cell{Moves: n, Blunders: k, CPL: cpl * float64(n), CPL2: cpl * cpl * float64(n)}
}

func TestStep(t *testing.T) {
	start := calib.Point{Elo: 1600, Rating: 1600, Temperature: 1, TopP: 1, BlunderScale: 1}
	tests := []struct {
		name          string
		engine, human profile.Cell
		tempDir       int // -1 down, 0 same, +1 up
		scaleDir      int
	}{
		{"engine worse on both", cell(1000, 100, 80), cell(1000, 50, 40), -1, -1},
		{"engine better on both", cell(1000, 20, 20), cell(1000, 50, 40), +1, +1},
		{"equal", cell(1000, 50, 40), cell(1000, 50, 40), 0, 0},
		{"too few engine moves", cell(50, 40, 300), cell(1000, 50, 40), 0, 0},
		{"too few human moves", cell(1000, 100, 80), cell(50, 5, 40), 0, 0},
	}
	for _, tt := range tests {
		got := Step(start, tt.engine, tt.human)
		if dir(got.Temperature-start.Temperature) != tt.tempDir || dir(got.BlunderScale-start.BlunderScale) != tt.scaleDir {
			t.Errorf("%s: Step = temperature %.3f scale %.3f, want directions %d %d", tt.name, got.Temperature, got.BlunderScale, tt.tempDir, tt.scaleDir)
		}
		if got.Elo != start.Elo || got.Rating != start.Rating || got.TopP != start.TopP {
			t.Errorf("%s: Step changed the label, rating or top-p: %+v", tt.name, got)
		}
	}
	// The damped step: cpl twice the humans' halves the temperature to the power Damping.
	got := Step(start, cell(1000, 50, 80), cell(1000, 50, 40))
	if want := math.Pow(0.5, Damping); math.Abs(got.Temperature-want) > 1e-9 {
		t.Errorf("Step with twice the cpl: temperature %v, want %v", got.Temperature, want)
	}
	// Bounds.
	got = Step(calib.Point{Elo: 800, Rating: 800, Temperature: MinTemperature, TopP: 1, BlunderScale: 0}, cell(1000, 900, 900), cell(1000, 10, 10))
	if got.Temperature != MinTemperature || got.BlunderScale != 0 {
		t.Errorf("Step at the bounds = %+v, want temperature %v, scale 0", got, MinTemperature)
	}
}

func dir(x float64) int {
	switch {
	case x > 1e-12:
		return 1
	case x < -1e-12:
		return -1
	}
	return 0
}

func TestScoreInterval(t *testing.T) {
	tests := []struct {
		s         match.Score
		p, lo, hi float64
	}{
		// 50 wins, 50 losses: p 0.5, se 0.05, half-width 0.098
		{match.Score{Wins: 50, Losses: 50}, 0.5, 0.402, 0.598},
		// 91 wins, 9 losses: se sqrt(.91*.09/100) = 0.0286
		{match.Score{Wins: 91, Losses: 9}, 0.91, 0.854, 0.966},
		{match.Score{Wins: 10}, 1, 1, 1},
		// draws only: no variance
		{match.Score{Draws: 8}, 0.5, 0.5, 0.5},
	}
	for _, tt := range tests {
		p, lo, hi := ScoreInterval(tt.s)
		if math.Abs(p-tt.p) > 1e-9 || math.Abs(lo-tt.lo) > 1e-3 || math.Abs(hi-tt.hi) > 1e-3 {
			t.Errorf("ScoreInterval(%+v) = %.4f [%.4f, %.4f], want %.3f [%.3f, %.3f]", tt.s, p, lo, hi, tt.p, tt.lo, tt.hi)
		}
	}
	if p, _, _ := ScoreInterval(match.Score{}); !math.IsNaN(p) {
		t.Errorf("ScoreInterval of no game = %v, want NaN", p)
	}
}

func TestExpected(t *testing.T) {
	for gap, want := range map[float64]float64{0: 0.5, 400: 0.9091, -400: 0.0909, 200: 0.7597} {
		if got := Expected(gap); math.Abs(got-want) > 1e-4 {
			t.Errorf("Expected(%v) = %.4f, want %.4f", gap, got, want)
		}
	}
}

// TestStepCalibration: step moves each label on its own cells and keeps
// the calibration valid.
func TestStepCalibration(t *testing.T) {
	cfg := &Config{NetName: "n", NetHash: "h", Labels: []int{1200, 1600}}
	c := identity(cfg)
	eng, hum := profile.Profile{}, profile.Profile{}
	add := func(p profile.Profile, rating int, n int, cpl float64) {
		for range n {
			p.Add(games.Blitz, profile.Move{Rating: rating, CPL: cpl})
		}
	}
	add(eng, 1200, 200, 100)
	add(hum, 1200, 200, 50)
	add(eng, 1600, 200, 20)
	add(hum, 1600, 200, 40)
	next := step(c, eng, hum, games.Blitz, false)
	if err := next.Validate(); err != nil {
		t.Fatalf("step: %v", err)
	}
	if next.Points[0].Temperature >= 1 || next.Points[1].Temperature <= 1 {
		t.Errorf("step: temperatures %v %v, want below 1 at 1200 (engine loses more) and above 1 at 1600", next.Points[0].Temperature, next.Points[1].Temperature)
	}
	if c.Points[0].Temperature != 1 {
		t.Errorf("step changed its input: %+v", c.Points[0])
	}
	// Monotone: the 1600 step above the 1200 one pools them.
	mono := step(c, eng, hum, games.Blitz, true)
	if g := math.Sqrt(next.Points[0].Temperature * next.Points[1].Temperature); math.Abs(mono.Points[0].Temperature-g) > 1e-9 || math.Abs(mono.Points[1].Temperature-g) > 1e-9 {
		t.Errorf("monotone step: temperatures %v %v, want both %v", mono.Points[0].Temperature, mono.Points[1].Temperature, g)
	}
}

func TestEngineMove(t *testing.T) {
	// Two opening plies without clocks, then engine moves with clocks.
	g := &pgn.Game{Moves: []string{"e4", "e5", "Nf3", "Nc6"}, Clocks: []float64{-1, -1, 172, 172}}
	for ply, want := range []bool{false, false, true, true, false} {
		if got := engineMove(g, ply); got != want {
			t.Errorf("engineMove(ply %d) = %v, want %v", ply, got, want)
		}
	}
}

func TestMedian(t *testing.T) {
	for _, tt := range []struct {
		x    []float64
		want float64
	}{{[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}, {[]float64{7}, 7}} {
		if got := median(tt.x); got != tt.want {
			t.Errorf("median(%v) = %v, want %v", tt.x, got, tt.want)
		}
	}
	if !math.IsNaN(median(nil)) {
		t.Errorf("median(nil) is not NaN")
	}
}

func TestMonotone(t *testing.T) {
	pt := func(elo int, temp, scale float64) calib.Point {
		return calib.Point{Elo: elo, Rating: float64(elo), Temperature: temp, TopP: 1, BlunderScale: scale}
	}
	// 1800 samples more loosely than 1600 and filters less: the two pool to
	// their geometric means; the labels in order stay as they are.
	ps := []calib.Point{pt(1400, 1.2, 1.4), pt(1600, 0.9, 0.8), pt(1800, 1.0, 1.25), pt(2000, 0.7, 0.5)}
	Monotone(ps)
	want := []struct{ temp, scale float64 }{{1.2, 1.4}, {math.Sqrt(0.9), 1}, {math.Sqrt(0.9), 1}, {0.7, 0.5}}
	for i, w := range want {
		if math.Abs(ps[i].Temperature-w.temp) > 1e-9 || math.Abs(ps[i].BlunderScale-w.scale) > 1e-9 {
			t.Errorf("Monotone: label %d temperature %.4f scale %.4f, want %.4f %.4f", ps[i].Elo, ps[i].Temperature, ps[i].BlunderScale, w.temp, w.scale)
		}
		if ps[i].Elo != 1400+200*i || ps[i].Rating != float64(ps[i].Elo) {
			t.Errorf("Monotone changed label or rating: %+v", ps[i])
		}
	}
	for i := 1; i < len(ps); i++ {
		if ps[i].Temperature > ps[i-1].Temperature+1e-12 || ps[i].BlunderScale > ps[i-1].BlunderScale+1e-12 {
			t.Errorf("Monotone: label %d above label %d: %+v %+v", ps[i].Elo, ps[i-1].Elo, ps[i], ps[i-1])
		}
	}
	// A run that violates over three labels pools all three; a 0 scale
	// stays 0 at the top.
	ps = []calib.Point{pt(800, 1, 1), pt(1000, 1.1, 2), pt(1200, 1.3, 1.5), pt(1400, 0.5, 0)}
	Monotone(ps)
	g := math.Cbrt(1 * 1.1 * 1.3)
	for i := range 3 {
		if math.Abs(ps[i].Temperature-g) > 1e-9 {
			t.Errorf("Monotone: label %d temperature %.4f, want the pooled %.4f", ps[i].Elo, ps[i].Temperature, g)
		}
	}
	if ps[3].BlunderScale != 0 || ps[3].Temperature != 0.5 {
		t.Errorf("Monotone: top label %+v, want temperature 0.5 scale 0", ps[3])
	}
}
