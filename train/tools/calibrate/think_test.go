package calibrate

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/nets/calib"
	"github.com/humchess/humchess/policy"
)

// clockGames writes n games at base+0 (seconds) whose every move takes
// think(game, move) seconds, as [%clk] comments, and returns the file.
func clockGames(t *testing.T, name string, n int, base float64, think func(g, i int) float64) string {
	t.Helper()
	moves := []string{"Nf3", "Nf6", "Ng1", "Ng8"}
	var b strings.Builder
	for g := range n {
		fmt.Fprintf(&b, "[Event \"%s\"]\n[Site \"t/%s%d\"]\n[White \"w%d\"]\n[Black \"b%d\"]\n[Result \"1/2-1/2\"]\n[TimeControl \"%g+0\"]\n\n", name, name, g, g, g, base)
		clocks := [2]float64{base, base}
		for i := range 40 {
			clocks[i%2] -= think(g, i)
			s := clocks[i%2]
			if i%2 == 0 {
				fmt.Fprintf(&b, "%d. ", i/2+1)
			}
			fmt.Fprintf(&b, "%s { [%%clk 0:%02d:%04.1f] } ", moves[i%4], int(s)/60, math.Mod(s, 60))
		}
		b.WriteString("1/2-1/2\n\n")
	}
	path := filepath.Join(t.TempDir(), name+".pgn")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	return path
}

// TestCorrectThinkSelfPlay: at 300+0 the engine's games run 1.5 times the
// humans' think times, so their median and p90 are off and the point is
// corrected: the reshaping of the engine's draws (its times read back
// through the old point) lands on the humans' median and p90. At 600+0 the
// engine's times are the humans' and the point stays; at 180+0 they are off,
// within what four games vary by, and it stays too.
func TestCorrectThinkSelfPlay(t *testing.T) {
	times := []float64{1, 1, 2, 2, 3, 3, 3, 4, 5, 6, 8, 12, 15, 20}
	human := func(_, i int) float64 { return times[i%len(times)] }
	humans := []string{
		clockGames(t, "h300", 30, 300, human),
		clockGames(t, "h600", 30, 600, human),
		clockGames(t, "h180", 30, 180, human),
	}
	engine := []string{
		clockGames(t, "e300", 10, 300, func(g, i int) float64 { return 1.5 * human(g, i) }),
		clockGames(t, "e600", 10, 600, human),
		// At 180+0 every other game is slow: the median is off, but the
		// games' own noise covers the humans' median and p90.
		clockGames(t, "e180", 4, 180, func(g, i int) float64 { return (1 + 0.3*float64(g%2)) * human(g, i) }),
	}
	c := &calib.Calibration{Think: []calib.ThinkPoint{
		{Base: 180, Scale: 1.05, Power: 0.9},
		{Base: 300, Scale: 1.1, Power: 0.9},
		{Base: 600, Scale: 1.2, Power: 0.88},
		{Base: 900, Inc: 10, Scale: 1.3, Power: 0.95},
	}}
	points, rows, err := CorrectThinkSelfPlay(c, engine, ThinkConfig{Humans: humans, MinMoves: 100})
	require.NoError(t, err)
	require.Len(t, rows, 3, "a row per control with games")
	r180, r300, r600 := rows[0], rows[1], rows[2]
	assert.Equal(t, "180+0", r180.Control)
	assert.Greater(t, r180.EngineMedian, r180.HumanMedian*(1+0.1))
	assert.LessOrEqual(t, r180.MedianLo, r180.HumanMedian)
	assert.False(t, r180.Corrected, "within the games' noise")
	assert.Equal(t, c.Think[0], points[0])
	assert.Equal(t, "300+0", r300.Control)
	assert.True(t, r300.Corrected)
	assert.Greater(t, r300.EngineMedian, r300.HumanMedian*(1+0.1))
	old := policy.Shape{Scale: 1.1, Power: 0.9}
	draw := func(raw float64) float64 { return math.Pow(raw/old.Scale, 1/old.Power) }
	got := policy.Shape{Scale: points[1].Scale, Power: points[1].Power}
	assert.InDelta(t, r300.HumanMedian, got.Reshape(draw(r300.RawMedian)), 1e-9)
	assert.InDelta(t, r300.HumanP90, got.Reshape(draw(r300.RawP90)), 1e-9)
	assert.Equal(t, "600+0", r600.Control)
	assert.False(t, r600.Corrected)
	assert.Equal(t, c.Think[2:], points[2:], "on target and without games: unchanged")
	assert.Equal(t, 1.1, c.Think[1].Scale, "the calibration given is not changed")
}
