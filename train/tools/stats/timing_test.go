package stats

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// timingPGN is one 60+0 game White lost on time: Black recaptures on d5 in
// 0.3 s, White plays move 4 with 9 s on the clock.
const timingPGN = `[Event "t"]
[White "a"]
[Black "b"]
[Result "0-1"]
[TimeControl "60+0"]
[Termination "Time forfeit"]

1. e4 { [%clk 0:00:57.6] } d5 { [%clk 0:00:59.5] } 2. exd5 { [%clk 0:00:55.0] } Qxd5 { [%clk 0:00:59.2] } 3. Nc3 { [%clk 0:00:09.0] } Qa5 { [%clk 0:00:58.0] } 4. d4 { [%clk 0:00:07.5] } 0-1
`

func TestRunTiming(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.pgn")
	if err := os.WriteFile(path, []byte(timingPGN), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := RunTiming("t", []string{path}, "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	c := s.Controls["60+0"]
	if c == nil {
		t.Fatalf("controls %v, want 60+0", s.Controls)
	}
	// White's moves: 1. e4 60 -> 57.6 (1 s res: 60 - 57 = 3), 2. exd5
	// 57.6 -> 55.0 (57 - 55 = 2), 3. Nc3 55 -> 9 (46), 4. d4 9 -> 7.5
	// (9 - 7 = 2, in time trouble).
	want := []float64{2, 2, 3, 46}
	if c.Think.N() != len(want) {
		t.Fatalf("%d moves judged, want %d", c.Think.N(), len(want))
	}
	for i, q := range []float64{0, 1.0 / 3, 2.0 / 3, 1} {
		if got := c.Think.Quantile(q); got != want[i] {
			t.Errorf("1 s resolution quantile %.2f = %v, want %v", q, got, want[i])
		}
	}
	if got := c.Raw.Quantile(0); got < 1.49 || got > 1.51 {
		t.Errorf("fastest raw think %v, want 1.5 (4. d4)", got)
	}
	if len(c.GameRaw) != 1 || len(c.GameRaw[0]) != len(want) {
		t.Errorf("per-game raw times %v, want one game of %d moves", c.GameRaw, len(want))
	}
	if c.TimeLosses != 1 || c.Games != 1 {
		t.Errorf("games %d, time losses %d; want 1, 1", c.Games, c.TimeLosses)
	}
	if c.Recapture.N() != 0 {
		t.Errorf("White has no recapture; got %d", c.Recapture.N())
	}
	if c.Trouble.N() != 1 || c.Trouble.Mean() != 2 {
		t.Errorf("time trouble: %d moves, mean %v; want 1 move of 2 s", c.Trouble.N(), c.Trouble.Mean())
	}
	if c.TroubleEarly.N() != 1 || c.TroubleEarly.Mean() != 2 {
		t.Errorf("moves begun with 5-10 s: %d, mean %v; want 1 move of 2 s (4. d4 at 9 s)", c.TroubleEarly.N(), c.TroubleEarly.Mean())
	}
	if len(c.GameCalm) != 1 || c.GameCalm[0].Early != 1 || c.GameCalm[0].EarlySum != 2 {
		t.Errorf("game sums %+v; want the one 5-10 s move of 2 s", c.GameCalm)
	}
	if c.Calm.N() != 3 {
		t.Errorf("%d moves begun out of time trouble, want 3 (all but 4. d4)", c.Calm.N())
	}
	// White flagged: its time-trouble move is not among the kept sides'.
	if c.TroubleFirst.N() != 1 || c.TroubleFirstKept.N() != 0 {
		t.Errorf("first time-trouble moves %d, of sides kept %d; want 1, 0 (White lost on time)", c.TroubleFirst.N(), c.TroubleFirstKept.N())
	}
	// The same moves in a game White resigned count as kept.
	resigned := filepath.Join(t.TempDir(), "r.pgn")
	if err := os.WriteFile(resigned, []byte(strings.Replace(timingPGN, `"Time forfeit"`, `"Normal"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := RunTiming("r", []string{resigned}, "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	if rc := r.Controls["60+0"]; rc.TroubleFirstKept.N() != 1 || rc.TroubleFirstKept.Mean() != 2 || rc.TimeLosses != 0 {
		t.Errorf("resigned: %d kept time-trouble moves (mean %v), %d time losses; want 1 of 2 s, 0", rc.TroubleFirstKept.N(), rc.TroubleFirstKept.Mean(), rc.TimeLosses)
	}
	// Black's side: Qxd5 is a recapture (59.5 -> 59.2: 0 s at 1 s resolution), no time loss.
	b, err := RunTiming("t", []string{path}, "b", 0)
	if err != nil {
		t.Fatal(err)
	}
	bc := b.Controls["60+0"]
	if bc.RecaptureCalm.N() != 1 || bc.Calm.N() != bc.Think.N() {
		t.Errorf("Black, never in time trouble: %d calm recaptures of %d calm moves (of %d); want 1 of all", bc.RecaptureCalm.N(), bc.Calm.N(), bc.Think.N())
	}
	if len(bc.GameCalm) != 1 || bc.GameCalm[0].Moves != bc.Calm.N() || bc.GameCalm[0].Recaptures != 1 || bc.GameCalm[0].Sum != bc.Calm.Mean()*float64(bc.Calm.N()) {
		t.Errorf("Black's game sums %+v; want its %d calm moves (%v s) and 1 recapture", bc.GameCalm, bc.Calm.N(), bc.Calm.Mean()*float64(bc.Calm.N()))
	}
	if bc.Recapture.N() != 1 || bc.Recapture.Mean() != 0 || bc.TimeLosses != 0 {
		t.Errorf("Black: %d recaptures (mean %v), %d time losses; want 1 (0 s), 0", bc.Recapture.N(), bc.Recapture.Mean(), bc.TimeLosses)
	}
	// Skipping the first 3 plies leaves White's moves from ply 4 on: Nc3
	// (46 s) and d4 (2 s), timed from the clocks before them as ever.
	sk, err := RunTiming("t", []string{path}, "a", 3)
	if err != nil {
		t.Fatal(err)
	}
	if c := sk.Controls["60+0"]; c.Think.N() != 2 || c.Think.Quantile(0) != 2 || c.Think.Quantile(1) != 46 || c.Games != 1 {
		t.Errorf("skip 3: %d moves from %v to %v in %d games; want 2 moves, 2 to 46 s, 1 game", c.Think.N(), c.Think.Quantile(0), c.Think.Quantile(1), c.Games)
	}
	var out bytes.Buffer
	if err := WriteTimingText(&out, []*TimingSet{s, b}, 1); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "60+0") || strings.Count(out.String(), "\n") != 3 {
		t.Errorf("table:\n%s\nwant a header and a 60+0 row per set", out.String())
	}
	if _, err := TimingPNG([]*TimingSet{s, b}, 1); err != nil {
		t.Errorf("TimingPNG: %v", err)
	}
}

// TestGameInterval: games alike within and different between them give an
// interval as wide as the games' spread; one game repeated gives none; the
// interval holds the whole set's quantile and is reproducible.
func TestGameInterval(t *testing.T) {
	var tm Timing
	assert.True(t, math.IsNaN(func() float64 { lo, _ := tm.GameInterval(0.5, 100, 1); return lo }()))
	for g := range 40 {
		x := float64(1 + g%4) // games of 1, 2, 3 and 4 s moves
		tm.GameRaw = append(tm.GameRaw, []float64{x, x, x, x, x})
		for range 5 {
			tm.Raw.Add(x)
		}
	}
	lo, hi := tm.GameInterval(0.5, 400, 7)
	med := tm.Raw.Quantile(0.5)
	assert.LessOrEqual(t, lo, med)
	assert.GreaterOrEqual(t, hi, med)
	assert.Greater(t, hi-lo, 0.4, "40 games of four kinds: the median moves")
	lo2, hi2 := tm.GameInterval(0.5, 400, 7)
	assert.Equal(t, [2]float64{lo, hi}, [2]float64{lo2, hi2})
	one := Timing{GameRaw: [][]float64{{2, 3, 4}, {2, 3, 4}, {2, 3, 4}}}
	lo, hi = one.GameInterval(0.5, 100, 1)
	assert.Equal(t, [2]float64{3, 3}, [2]float64{lo, hi})
}

func TestRecaptureCalmInterval(t *testing.T) {
	var tm Timing
	lo, hi := tm.RecaptureCalmInterval(100, 1)
	assert.True(t, math.IsNaN(lo) && math.IsNaN(hi))
	// Games alike: every draw gives the same ratio, 1 s recaptures over a
	// 2 s mean.
	tm.GameCalm = []CalmSums{{Moves: 10, Recaptures: 2, Sum: 20, RecaptureSum: 2}, {Moves: 10, Recaptures: 2, Sum: 20, RecaptureSum: 2}}
	lo, hi = tm.RecaptureCalmInterval(100, 1)
	assert.InDelta(t, 0.5, lo, 1e-12)
	assert.InDelta(t, 0.5, hi, 1e-12)
	// Games of fast and slow recaptures: the interval spans the ratio of
	// all of them and widens as the games get fewer.
	tm.GameCalm = nil
	for g := range 40 {
		tm.GameCalm = append(tm.GameCalm, CalmSums{Moves: 20, Recaptures: 2, Sum: 40, RecaptureSum: float64(1 + 2*(g%2))})
	}
	lo, hi = tm.RecaptureCalmInterval(1000, 3)
	assert.Less(t, lo, 0.5) // all 40: 80 recaptures of 80 s, 800 moves of 1,600 s: 0.5
	assert.Greater(t, hi, 0.5)
	few := Timing{GameCalm: tm.GameCalm[:6]}
	flo, fhi := few.RecaptureCalmInterval(1000, 3)
	assert.Greater(t, fhi-flo, hi-lo)
	lo2, hi2 := tm.RecaptureCalmInterval(1000, 3)
	assert.Equal(t, [2]float64{lo, hi}, [2]float64{lo2, hi2})
}

func TestTroubleEarlyInterval(t *testing.T) {
	var tm Timing
	lo, hi := tm.TroubleEarlyInterval(100, 1)
	assert.True(t, math.IsNaN(lo) && math.IsNaN(hi))
	// Games alike: every draw gives the same mean; a game without such
	// moves counts for nothing.
	tm.GameCalm = []CalmSums{{Early: 4, EarlySum: 6}, {Early: 2, EarlySum: 3}, {Moves: 30, Sum: 90}}
	lo, hi = tm.TroubleEarlyInterval(200, 1)
	assert.InDelta(t, 1.5, lo, 1e-12)
	assert.InDelta(t, 1.5, hi, 1e-12)
	// Fast and slow games: the interval spans the mean of all and widens
	// as the games get fewer.
	tm.GameCalm = nil
	for g := range 40 {
		tm.GameCalm = append(tm.GameCalm, CalmSums{Early: 5, EarlySum: float64(5 * (1 + g%2))})
	}
	lo, hi = tm.TroubleEarlyInterval(1000, 3)
	assert.Less(t, lo, 1.5)
	assert.Greater(t, hi, 1.5)
	few := Timing{GameCalm: tm.GameCalm[:6]}
	flo, fhi := few.TroubleEarlyInterval(1000, 3)
	assert.Greater(t, fhi-flo, hi-lo)
}
