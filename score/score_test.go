package score

import (
	"math"
	"testing"
)

func TestExpected(t *testing.T) {
	for _, tc := range []struct{ cp, want, tol float64 }{
		{0, 0.5, 0},
		{298.4, 0.75, 0.001}, // ln 3 / Logistic
		{-298.4, 0.25, 0.001},
		{100000, 1, 1e-9},
	} {
		if got := Expected(tc.cp); math.Abs(got-tc.want) > tc.tol {
			t.Errorf("Expected(%v) = %v, want %v +- %v", tc.cp, got, tc.want, tc.tol)
		}
	}
	if a, b := Expected(300), Expected(-300); math.Abs(a+b-1) > 1e-12 {
		t.Errorf("Expected(300) + Expected(-300) = %v, want 1", a+b)
	}
}

// TestCentipawnsInvertsExpected checks that Centipawns undoes Expected.
func TestCentipawnsInvertsExpected(t *testing.T) {
	for _, cp := range []float64{-2500, -300, -1, 0, 1, 150, 2500} {
		if got := Centipawns(Expected(cp)); math.Abs(got-cp) > 1e-6 {
			t.Errorf("Centipawns(Expected(%v)) = %v", cp, got)
		}
	}
}
