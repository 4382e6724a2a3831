package stats

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/nets"
	"github.com/humchess/humchess/policy"
	"github.com/humchess/humchess/train/data/pgn"
)

func TestThinkDistance(t *testing.T) {
	a := []float64{1, 2, 2, 3, 5, 8, 20}
	assert.Equal(t, 0.0, ThinkDistance(a, a), "a set against itself")
	longer := make([]float64, len(a))
	for i, v := range a {
		longer[i] = v + 3
	}
	d := ThinkDistance(a, longer)
	assert.Greater(t, d, 0.0)
	assert.InDelta(t, d, ThinkDistance(longer, a), 1e-12, "symmetric")
	// Every value 3 s longer moves log(1+t) by log((t+4)/(t+1)) on average.
	var want float64
	for _, v := range a {
		want += math.Log((v+4)/(v+1)) / float64(len(a))
	}
	assert.InDelta(t, want, d, 1e-9, "the mean shift of log(1+t) when every value moves the same way")
	assert.True(t, math.IsNaN(ThinkDistance(nil, a)), "empty set")
}

// TestFitThink: a replay whose times are the humans' reshaped (humans' t =
// 0.7 x replay's t^0.85) fits that reshaping, and the fitted distance is
// below the one at 1, 1.
func TestFitThink(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	human, replay := &Timing{}, &Timing{}
	for range 3000 {
		raw := math.Exp(rng.NormFloat64()*1.1 + 1.2) // a log-normal think time, median 3.3 s
		m := ReplayedMove{Before: 400, Frac: rng.Float64(), Raw: math.Pow(raw/0.7, 1/0.85)}
		replay.Replayed = append(replay.Replayed, m)
		hm := ReplayedMove{Before: 400, Frac: rng.Float64(), Raw: raw}
		human.Think.Add(hm.Second(hm.Raw))
	}
	scale, power, at1, fitted, ok := FitThink(human, replay, nil)
	require.True(t, ok)
	assert.InDelta(t, 0.7, scale, 0.05)
	assert.InDelta(t, 0.85, power, 0.03)
	assert.Less(t, fitted, at1/5)
	_, _, _, _, ok = FitThink(human, &Timing{}, nil)
	assert.False(t, ok, "a replay without moves")
}

// TestRunTimingReplay: a replay's times replace the recorded ones, read at
// one-second resolution from the clock before the move, and lose no game
// on time.
func TestRunTimingReplay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.pgn")
	require.NoError(t, os.WriteFile(path, []byte(timingPGN), 0o644))
	calls := 0
	replay := func(g *pgn.Game) ([]float64, error) {
		calls++
		out := make([]float64, len(g.Moves))
		for i := range out {
			out[i] = 0.25 + float64(i) // ply i takes i+0.25 s
		}
		return out, nil
	}
	s, err := RunTimingReplay("r", []string{path}, "a", 0, nil, replay)
	require.NoError(t, err)
	require.Equal(t, 1, calls)
	c := s.Controls["60+0"]
	require.NotNil(t, c)
	// White's plies 0, 2, 4, 6: 0.25, 2.25, 4.25, 6.25 s replayed.
	require.Len(t, c.Replayed, 4)
	for k, m := range c.Replayed {
		assert.InDelta(t, 0.25+float64(2*k), m.Raw, 1e-12)
		sec := m.Second(m.Raw)
		assert.True(t, sec == math.Floor(m.Raw) || sec == math.Ceil(m.Raw), "ply %d: %v s at 1 s resolution from %v s", 2*k, sec, m.Raw)
	}
	assert.InDelta(t, 3.25, c.Raw.Mean(), 1e-12)
	assert.Equal(t, int64(0), c.TimeLosses, "a replay loses nothing on time")
	none, err := RunTimingReplay("r", []string{path}, "a", 0, func(*pgn.Game) bool { return false }, replay)
	require.NoError(t, err)
	assert.Empty(t, none.Controls, "keep refuses every game")
}

// TestNetReplay: a net's replay gives a time for every position with a
// clock, the same times for the same seed, other times for another, and
// the scale multiplies them.
func TestNetReplay(t *testing.T) {
	g, err := pgn.NewReader(strings.NewReader(timingPGN)).Next()
	require.NoError(t, err)
	net := nets.NewFake(3)
	times := func(seed uint64, scale func(float64, float64) (float64, float64)) []float64 {
		out, err := NetReplay(context.Background(), net, seed, scale)(g)
		require.NoError(t, err)
		return out
	}
	a := times(5, nil)
	require.Len(t, a, len(g.Moves))
	for i, v := range a {
		assert.GreaterOrEqual(t, v, 0.0, "ply %d has a clock", i)
	}
	assert.Equal(t, a, times(5, nil), "the same seed")
	assert.NotEqual(t, a, times(6, nil), "another seed")
	half := times(5, func(base, inc float64) (float64, float64) {
		assert.Equal(t, 60.0, base)
		assert.Equal(t, 0.0, inc)
		return 0.5, 1
	})
	halved := 0
	for i := range a {
		// The scale never lengthens a move; out of time trouble and below
		// the safety limit it halves the draw.
		assert.LessOrEqual(t, half[i], a[i]+1e-9, "ply %d", i)
		if math.Abs(half[i]-a[i]/2) < 1e-6 {
			halved++
		}
	}
	assert.GreaterOrEqual(t, halved, 2, "moves whose time the scale halved: %v against %v", half, a)
}

// TestHistQuantile: a histogram's quantiles are those of the values it counts.
func TestHistQuantile(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var q Quantiles
	var v []float64
	for range 501 {
		x := float64(rng.IntN(40))
		q.Add(x)
		v = append(v, x)
	}
	h := histogram(v, 60)
	for _, p := range []float64{0, 0.1, 0.5, 0.9, 0.97, 1} {
		assert.InDelta(t, q.Quantile(p), histQuantile(h, p), 1e-9, "p %v", p)
	}
	assert.True(t, math.IsNaN(histQuantile(make([]float64, 5), 0.5)), "empty histogram")
}

// TestFitThinkQuantiles: when no reshaping matches the humans' whole
// distribution (a third of their moves are instant, the replay has none),
// the fit keeps the median and p90 on target, where the plain nearest
// reshaping misses one.
func TestFitThinkQuantiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	human, replay := &Timing{}, &Timing{}
	for range 4000 {
		raw := math.Exp(rng.NormFloat64()*0.8 + 1.6)
		replay.Replayed = append(replay.Replayed, ReplayedMove{Before: 400, Frac: rng.Float64(), Raw: raw})
		hraw := math.Exp(rng.NormFloat64()*0.5 + 2.5)
		if rng.Float64() < 0.45 {
			hraw = 0.9 * rng.Float64()
		}
		hm := ReplayedMove{Before: 400, Frac: rng.Float64(), Raw: hraw}
		human.Think.Add(hm.Second(hm.Raw))
	}
	reshaped := func(s, p float64) *Quantiles {
		var q Quantiles
		for _, m := range replay.Replayed {
			q.Add(m.Second(policy.Shape{Scale: s, Power: p}.Reshape(m.Raw)))
		}
		return &q
	}
	within := func(q *Quantiles) (bool, bool) {
		med, p90 := human.Think.Quantile(0.5), human.Think.Quantile(0.9)
		return math.Abs(q.Quantile(0.5)-med) <= QuantileTolerance*med, math.Abs(q.Quantile(0.9)-p90) <= QuantileTolerance*p90
	}
	// The plain nearest reshaping, by brute force.
	best, bs, bp := math.Inf(1), 1.0, 1.0
	for s := ScaleMin; s <= ScaleMax+1e-9; s += gridStep {
		for p := PowerMin; p <= PowerMax+1e-9; p += gridStep {
			q := reshaped(s, p)
			if d := ThinkDistance(q.v, human.Think.v); d < best {
				best, bs, bp = d, s, p
			}
		}
	}
	medOK, p90OK := within(reshaped(bs, bp))
	require.False(t, medOK && p90OK, "the nearest reshaping %.2f, %.2f already on target: the case tests nothing (%v %v)", bs, bp, human.Think.Quantile(0.5), human.Think.Quantile(0.9))
	scale, power, _, fitted, ok := FitThink(human, replay, nil)
	require.True(t, ok)
	medOK, p90OK = within(reshaped(scale, power))
	assert.True(t, medOK, "median")
	assert.True(t, p90OK, "p90")
	assert.GreaterOrEqual(t, fitted, best-1e-9, "on target costs distance")
}

// TestCorrectThink: draws that a reshaping sends to a known median and p90
// are read back, and the corrected reshaping sends them to the target; a
// correction out of the grid range is clamped, and quantiles that cannot be
// inverted leave the reshaping as it was.
func TestCorrectThink(t *testing.T) {
	const um, uq = 3.0, 11.0 // the head's median and p90 draws
	for _, tc := range []struct{ scale, power, hm, hq float64 }{
		{1.18, 0.86, 3, 13},
		{1.0, 1.0, 2, 8},
		{0.8, 1.1, 5, 22},
	} {
		sh := policy.Shape{Scale: tc.scale, Power: tc.power}
		em, eq := sh.Reshape(um), sh.Reshape(uq)
		s, p, ok := CorrectThink(tc.scale, tc.power, em, eq, tc.hm, tc.hq)
		require.True(t, ok)
		got := policy.Shape{Scale: s, Power: p}
		assert.InDelta(t, tc.hm, got.Reshape(um), 1e-9, "median of %+v", tc)
		assert.InDelta(t, tc.hq, got.Reshape(uq), 1e-9, "p90 of %+v", tc)
	}
	// A p90 the grid's powers cannot stretch to: the power stops at
	// PowerMax and the median still lands on the humans'.
	s, p, ok := CorrectThink(1, 1, 3, 4, 3, 30)
	require.True(t, ok)
	assert.Equal(t, PowerMax, p)
	assert.InDelta(t, 3, policy.Shape{Scale: s, Power: p}.Reshape(3), 1e-9)
	for _, bad := range [][4]float64{{0, 10, 3, 13}, {5, 5, 3, 13}, {3, 13, 0, 13}, {3, 13, 3, 3}} {
		s, p, ok := CorrectThink(1.2, 0.9, bad[0], bad[1], bad[2], bad[3])
		assert.False(t, ok, "%v", bad)
		assert.Equal(t, [2]float64{1.2, 0.9}, [2]float64{s, p})
	}
}
