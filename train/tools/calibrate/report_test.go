package calibrate

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/nets/calib"
	"github.com/humchess/humchess/train/data/games"
	"github.com/humchess/humchess/train/tools/internal/profile"
	"github.com/humchess/humchess/train/tools/match"
)

// TestWriteTextGuidance: the settings table names the rating guidance of
// the points that carry it, and only those.
func TestWriteTextGuidance(t *testing.T) {
	pts := []calib.Point{
		{Elo: 800, Rating: 800, Temperature: 1.4, TopP: 1, BlunderScale: 2.4, Guidance: 0.25, GuidanceRating: 1600},
		{Elo: 1600, Rating: 1600, Temperature: 0.9, TopP: 1, BlunderScale: 1.75},
		{Elo: 2400, Rating: 2400, Temperature: 0.37, TopP: 1, BlunderScale: 0.19, Guidance: 2, GuidanceRating: 600},
	}
	set := &calib.Calibration{Version: calib.Version, Net: "n", NetHash: "h", TimeClass: "blitz 180+2", Points: pts}
	rep := &Report{Config: &Config{}, Class: games.Blitz, Humans: profile.Profile{},
		Rounds: []Round{{Settings: set, Engine: profile.Profile{}}}, Final: set}
	var b strings.Builder
	require.NoError(t, rep.WriteText(&b))
	assert.Contains(t, b.String(), "rating guidance (final): 800: 0.25 against 1600, 2400: 2.00 against 600\n")

	set.Points[0].Guidance, set.Points[2].Guidance = 0, 0
	b.Reset()
	require.NoError(t, rep.WriteText(&b))
	assert.NotContains(t, b.String(), "rating guidance")
}

// TestLadder: chained spread steps sum into each label's Elo above the
// lowest; the chain stops at a gap or at a clean sweep; WritePlots draws it.
func TestLadder(t *testing.T) {
	sc := func(w, d, l int) match.Score { return match.Score{Wins: w, Draws: d, Losses: l} }
	steps := []Spread{ // out of order: Ladder sorts by the bottom label
		{Top: 2000, Bottom: 1600, Score: sc(50, 0, 50)},
		{Top: 1200, Bottom: 800, Score: sc(80, 10, 10)},
		{Top: 1600, Bottom: 1200, Score: sc(70, 10, 20)},
	}
	xs, ys, lo, hi := Ladder(steps)
	require.Equal(t, []float64{800, 1200, 1600, 2000}, xs)
	e1, _, _ := steps[1].Score.Elo()
	e2, _, _ := steps[2].Score.Elo()
	assert.InDelta(t, 0, ys[0], 1e-9)
	assert.InDelta(t, e1, ys[1], 1e-9)
	assert.InDelta(t, e1+e2, ys[2], 1e-9)
	assert.InDelta(t, e1+e2, ys[3], 1e-9, "an even step adds nothing")
	for i := 1; i < len(xs); i++ {
		assert.Less(t, lo[i], ys[i])
		assert.Greater(t, hi[i], ys[i])
		assert.Greater(t, hi[i]-lo[i], hi[i-1]-lo[i-1], "the interval widens up the chain")
	}

	xs, _, _, _ = Ladder([]Spread{steps[1], {Top: 2000, Bottom: 1600, Score: sc(60, 0, 40)}})
	assert.Equal(t, []float64{800, 1200}, xs, "a gap in the chain stops it")
	xs, _, _, _ = Ladder([]Spread{steps[1], {Top: 1600, Bottom: 1200, Score: sc(100, 0, 0)}})
	assert.Equal(t, []float64{800, 1200}, xs, "a clean sweep stops it")
	xs, _, _, _ = Ladder(nil)
	assert.Empty(t, xs)

	dir := t.TempDir()
	humans := profile.Profile{}
	for _, l := range []int{800, 1200} {
		humans[profile.Key{Band: profile.Band(l), Class: games.Blitz}] = &profile.Cell{Moves: 100, Blunders: 8, CPL: 7000}
	}
	final := &calib.Calibration{Points: []calib.Point{calib.Identity(800), calib.Identity(1200)}}
	rep := &Report{Config: &Config{SpreadGap: 400}, Class: games.Blitz, Humans: humans, Final: final, Spreads: steps}
	files, err := rep.WritePlots(dir)
	require.NoError(t, err)
	assert.Contains(t, files, filepath.Join(dir, "ladder.png"))
}
