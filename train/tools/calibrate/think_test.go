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
	return clockGamesOf(t, name, n, base, knights, think)
}

// knights is a game of knights' moves back and forth, without a capture.
var knights = []string{"Nf3", "Nf6", "Ng1", "Ng8"}

// recaptured is a game whose fourth ply, 2... Qxd5, takes back on d5;
// then the knights go back and forth.
var recaptured = []string{"e4", "d5", "exd5", "Qxd5", "Nf3", "Nf6", "Ng1", "Ng8",
	"Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"}

// clockGamesOf is clockGames with the moves given, played in a loop up to
// 40 plies.
func clockGamesOf(t *testing.T, name string, n int, base float64, moves []string, think func(g, i int) float64) string {
	t.Helper()
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
			fmt.Fprintf(&b, "%s { [%%clk 0:%02d:%04.1f] } ", moves[i%len(moves)], int(s)/60, math.Mod(s, 60))
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
// within what four games vary by, and it stays too. The recapture factor
// is corrected where the recapture ratio out of time trouble is off.
func TestCorrectThinkSelfPlay(t *testing.T) {
	times := []float64{1, 1, 2, 2, 3, 3, 3, 4, 5, 6, 8, 12, 15, 20}
	human := func(_, i int) float64 { return times[i%len(times)] }
	humans := []string{
		clockGamesOf(t, "h300", 30, 300, recaptured, human),
		clockGamesOf(t, "h600", 30, 600, recaptured, human),
		clockGames(t, "h180", 30, 180, human),
	}
	engine := []string{
		// At 300+0 every move takes 1.5 times as long, the recapture too:
		// the recapture ratio is the humans'.
		clockGamesOf(t, "e300", 10, 300, recaptured, func(g, i int) float64 { return 1.5 * human(g, i) }),
		// At 600+0 the engine recaptures in twice the humans' time, a
		// little more or less from game to game.
		clockGamesOf(t, "e600", 10, 600, recaptured, func(g, i int) float64 {
			if i == 3 {
				return 2*human(g, i) + float64(g%3-1)
			}
			return human(g, i)
		}),
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
	assert.Equal(t, c.Think[3], points[3], "without games: unchanged")
	assert.Equal(t, c.Think[2].Scale, points[2].Scale, "on target: unchanged")
	assert.Equal(t, c.Think[2].Power, points[2].Power, "on target: unchanged")
	assert.Equal(t, 1.1, c.Think[1].Scale, "the calibration given is not changed")

	// Recaptures: at 300+0 the ratio is the humans' and the factor stays;
	// at 600+0 it is off and the factor moves by the ratio's error to the
	// power 1/power; at 180+0 there are none.
	assert.InDelta(t, r300.HumanRecapture, r300.EngineRecapture, 0.02)
	assert.False(t, r300.RecaptureCorrected)
	assert.Zero(t, points[1].Recapture, "the default factor stays unset")
	assert.Greater(t, r600.EngineRecapture, 1.5*r600.HumanRecapture)
	assert.Greater(t, r600.HumanRecapture, 0.0)
	assert.Less(t, r600.HumanRecapture, r600.RecaptureLo, "outside the games' noise")
	require.True(t, r600.RecaptureCorrected)
	assert.Equal(t, policy.RecaptureFactor, r600.Recapture, "played with the default factor")
	want := policy.RecaptureFactor * math.Pow(r600.HumanRecapture/r600.EngineRecapture, 1/0.88)
	assert.InDelta(t, want, points[2].Recapture, 1e-9)
	assert.Less(t, points[2].Recapture, 0.5)
	assert.False(t, r180.RecaptureCorrected)
	assert.True(t, math.IsNaN(r180.EngineRecapture), "no recapture at 180+0")
}

// troubleGame is a side's think times in a 40-ply game at base+0 that
// reaches time trouble: its first 13 moves take the clock to 8 s, the
// others take late seconds each.
func troubleGame(base, late float64) func(g, i int) float64 {
	return func(_, i int) float64 {
		if i/2 < 13 {
			return (base - 8) / 13
		}
		return late
	}
}

// TestCorrectThinkSelfPlayPace: at 60+0 the engine plays its moves begun
// with 5-10 s in 0.5 s (0.57 s at one-second resolution), the humans in 1 s:
// the pace cap, the default, grows by their ratio. At 120+0 the engine
// plays as the humans and its cap stays; with too few such moves nothing
// is corrected.
func TestCorrectThinkSelfPlayPace(t *testing.T) {
	humans := []string{
		clockGames(t, "h60", 30, 60, troubleGame(60, 1)),
		clockGames(t, "h120", 30, 120, troubleGame(120, 1)),
	}
	c := &calib.Calibration{Think: []calib.ThinkPoint{
		{Base: 60, Scale: 1},
		{Base: 120, Scale: 1, PaceTop: 1.6},
	}}
	engine := []string{clockGames(t, "e60", 10, 60, troubleGame(60, 0.5)), clockGames(t, "e120", 10, 120, troubleGame(120, 1))}
	points, rows, err := CorrectThinkSelfPlay(c, engine, ThinkConfig{Humans: humans, MinMoves: 100})
	require.NoError(t, err)
	require.Len(t, rows, 2)
	r60, r120 := rows[0], rows[1]
	require.Equal(t, "60+0", r60.Control)
	assert.InDelta(t, 1, r60.HumanPace, 1e-9)
	assert.InDelta(t, 4.0/7, r60.EnginePace, 1e-9, "0.5 s moves from 8 s read at one-second resolution: 1, 0, 1, 0, 1, 0, 1")
	assert.Equal(t, 140, r60.PaceMoves, "7 moves a side in 10 games")
	assert.InDelta(t, r60.EnginePace, r60.PaceHi, 1e-9, "games alike: no spread")
	assert.Equal(t, policy.PaceTop.Seconds(), r60.PaceTop, "played with the default cap")
	require.True(t, r60.PaceCorrected)
	assert.InDelta(t, policy.PaceTop.Seconds()*7/4, points[0].PaceTop, 1e-9)
	assert.Equal(t, r60.NewPaceTop, points[0].PaceTop)
	assert.False(t, r120.PaceCorrected)
	assert.Equal(t, 1.6, points[1].PaceTop)
	assert.Zero(t, c.Think[0].PaceTop, "the calibration given is not changed")

	few := []string{clockGames(t, "e60few", 2, 60, troubleGame(60, 0.5))}
	points, rows, err = CorrectThinkSelfPlay(c, few, ThinkConfig{Humans: humans, MinMoves: 100})
	require.NoError(t, err)
	require.Len(t, rows, 1)
	assert.Less(t, rows[0].PaceMoves, PaceMinMoves)
	assert.False(t, rows[0].PaceCorrected)
	assert.Zero(t, points[0].PaceTop)
}

// TestWriteSelfPlayText: a row per control; a corrected point and a
// corrected recapture factor show their new values, others a dash or the
// factor alone.
func TestWriteSelfPlayText(t *testing.T) {
	var b strings.Builder
	rows := []SelfPlayRow{
		{Control: "60+0", Moves: 4112, Scale: 1.2, Power: 0.96, NewScale: 1.2, NewPower: 0.96, HumanRecapture: 0.54, EngineRecapture: 0.64,
			RecaptureLo: 0.57, RecaptureHi: 0.70, Recapture: 0.8, NewRecapture: 0.67, RecaptureCorrected: true},
		{Control: "300+0", Moves: 2178, Scale: 1.18, Power: 0.86, NewScale: 0.76, NewPower: 1.03, Corrected: true, Recapture: 0.8, NewRecapture: 0.8,
			HumanPace: 1.41, EnginePace: 1.08, PaceLo: 0.98, PaceHi: 1.19, PaceMoves: 260, PaceTop: 1.3, NewPaceTop: 1.70, PaceCorrected: true},
	}
	require.NoError(t, WriteSelfPlayText(&b, rows))
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, 4, "a title, a header and a row per control")
	assert.Contains(t, lines[2], "0.80 -> 0.67")
	assert.Contains(t, lines[2], "0.64 [ 0.57,  0.70]")
	assert.Contains(t, lines[3], "| 0.80         |", "an uncorrected factor alone")
	assert.Contains(t, lines[3], "0.76 1.03")
	assert.True(t, strings.HasSuffix(lines[3], "1.08 [ 0.98,  1.19] ( 260) | 1.30 -> 1.70"), "a corrected pace cap: %q", lines[3])
	assert.True(t, strings.HasSuffix(lines[2], "| 0.00"), "an uncorrected pace cap alone: %q", lines[2])
}

// TestKeepSelfPlay: a new fit's points take the recapture factor and the
// pace cap of the previous point of the same control; controls the
// previous calibration has no factor or cap for, or no point for, keep the
// default (0).
func TestKeepSelfPlay(t *testing.T) {
	prev := []calib.ThinkPoint{
		{Base: 60, Inc: 0, Scale: 1.2, Power: 0.96, Recapture: 0.72},
		{Base: 180, Inc: 0, Scale: 1.1, Power: 0.9, PaceTop: 1.7},
		{Base: 180, Inc: 2, Scale: 1.2, Power: 0.9, Recapture: 0.9},
	}
	points := []calib.ThinkPoint{
		{Base: 60, Inc: 0, Scale: 1.08, Power: 0.94},
		{Base: 180, Inc: 0, Scale: 1.1, Power: 0.9},
		{Base: 180, Inc: 1, Scale: 1.3, Power: 0.9},
		{Base: 600, Inc: 0, Scale: 1.26, Power: 0.88},
	}
	recapture, pace := KeepSelfPlay(points, prev)
	assert.Equal(t, []string{"60+0"}, recapture)
	assert.Equal(t, []string{"180+0"}, pace)
	assert.Equal(t, []float64{0.72, 0, 0, 0}, []float64{points[0].Recapture, points[1].Recapture, points[2].Recapture, points[3].Recapture})
	assert.Equal(t, []float64{0, 1.7, 0, 0}, []float64{points[0].PaceTop, points[1].PaceTop, points[2].PaceTop, points[3].PaceTop})
	assert.Equal(t, 1.08, points[0].Scale, "the fitted scale stays")
	recapture, pace = KeepSelfPlay(points[2:], nil)
	assert.Empty(t, recapture)
	assert.Empty(t, pace)
}
