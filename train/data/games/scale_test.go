package games

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPlatformOf(t *testing.T) {
	assert.Equal(t, Lichess, PlatformOf(readHeaders(t, nil)))
	assert.Equal(t, ChessCom, PlatformOf(readHeaders(t, map[string]string{"Site": "Chess.com"})))
	assert.Equal(t, ChessCom, PlatformOf(readHeaders(t, map[string]string{"Site": "?", "Link": "https://www.chess.com/game/live/123"})))
	assert.Equal(t, UnknownPlatform, PlatformOf(readHeaders(t, map[string]string{"Site": "Internet"})))
}

func testMap() *RatingMap {
	return &RatingMap{Name: "t", Maps: []MapEntries{
		{Platform: "chess.com", Points: [][2]float64{{1000, 1300}, {2000, 2200}}},
		{Platform: "chess.com", Class: "bullet", Points: [][2]float64{{1000, 1100}, {2000, 2100}}},
	}}
}

func TestRatingMapRating(t *testing.T) {
	m := testMap()
	require.NoError(t, m.Validate())
	assert.InDelta(t, 1300, m.Rating(ChessCom, Blitz, 1000), 1e-9)
	assert.InDelta(t, 1750, m.Rating(ChessCom, Blitz, 1500), 1e-9, "between two points: linear")
	assert.InDelta(t, 1100, m.Rating(ChessCom, Blitz, 800), 1e-9, "below the first point: its offset")
	assert.InDelta(t, 2700, m.Rating(ChessCom, Rapid, 2500), 1e-9, "above the last point: its offset")
	assert.InDelta(t, 1600, m.Rating(ChessCom, Bullet, 1500), 1e-9, "a class's own map wins")
	assert.InDelta(t, 1500, m.Rating(Lichess, Blitz, 1500), 1e-9, "no map for lichess: unchanged")
	assert.InDelta(t, -1, m.Rating(ChessCom, Blitz, -1), 1e-9, "unknown stays unknown")
	var none *RatingMap
	assert.InDelta(t, 1234, none.Rating(ChessCom, Blitz, 1234), 1e-9)
}

func TestRatingMapApplyGame(t *testing.T) {
	m := testMap()
	g := readHeaders(t, map[string]string{"Site": "Chess.com", "TimeControl": "180", "WhiteElo": "1500", "BlackElo": "1201"})
	m.ApplyGame(g)
	assert.Equal(t, 1750, g.WhiteElo)
	assert.Equal(t, 1481, g.BlackElo) // 1300 + 201*0.9 = 1480.9, rounded
	assert.Equal(t, 1750.0, RecordOf(g).WhiteRating, "RecordOf reads the mapped rating")

	l := readHeaders(t, map[string]string{"TimeControl": "180+0", "WhiteElo": "1500", "BlackElo": "1200"})
	m.ApplyGame(l)
	assert.Equal(t, 1500, l.WhiteElo, "a lichess game keeps its ratings")

	u := readHeaders(t, map[string]string{"Site": "Chess.com", "TimeControl": "180", "BlackElo": "?"})
	m.ApplyGame(u)
	assert.Equal(t, -1, u.BlackElo, "an unknown rating stays unknown")
}

func TestRatingMapValidate(t *testing.T) {
	bad := map[string]RatingMap{
		"no maps":          {Name: "x"},
		"unknown platform": {Maps: []MapEntries{{Platform: "fics", Points: [][2]float64{{1, 2}, {3, 4}}}}},
		"unknown class":    {Maps: []MapEntries{{Platform: "chess.com", Class: "daily", Points: [][2]float64{{1, 2}, {3, 4}}}}},
		"one point":        {Maps: []MapEntries{{Platform: "chess.com", Points: [][2]float64{{1000, 1200}}}}},
		"not increasing":   {Maps: []MapEntries{{Platform: "chess.com", Points: [][2]float64{{1000, 1200}, {900, 1300}}}}},
		"mapped decreases": {Maps: []MapEntries{{Platform: "chess.com", Points: [][2]float64{{1000, 1200}, {1100, 1100}}}}},
		"negative":         {Maps: []MapEntries{{Platform: "chess.com", Points: [][2]float64{{-5, 1200}, {1100, 1300}}}}},
		"twice":            {Maps: []MapEntries{{Platform: "chess.com", Points: [][2]float64{{1, 2}, {3, 4}}}, {Platform: "chess.com", Points: [][2]float64{{1, 2}, {3, 4}}}}},
	}
	for name, m := range bad {
		assert.Error(t, m.Validate(), name)
	}
}

func TestLoadRatingMap(t *testing.T) {
	m, err := LoadRatingMap("")
	require.NoError(t, err)
	assert.Nil(t, m)
	m, err = LoadRatingMap(ShippedRatingMap)
	require.NoError(t, err)
	require.NotNil(t, m)
	// The shipped map raises chess.com ratings (a chess.com player is
	// stronger than a lichess player of the same number) and leaves
	// lichess's alone.
	assert.Greater(t, m.Rating(ChessCom, Blitz, 1500), 1500.0)
	assert.InDelta(t, 1500, m.Rating(Lichess, Blitz, 1500), 1e-9)

	dir := t.TempDir()
	p := filepath.Join(dir, "m.json")
	require.NoError(t, os.WriteFile(p, []byte(`{"maps":[{"platform":"chess.com","points":[[1000,1300],[2000,2200]]}]}`), 0o644))
	m, err = LoadRatingMap(p)
	require.NoError(t, err)
	assert.InDelta(t, 1750, m.Rating(ChessCom, Blitz, 1500), 1e-9)
	require.NoError(t, os.WriteFile(p, []byte(`{"maps":[{"platform":"chess.com","points":[[1000,1300]]}]}`), 0o644))
	_, err = LoadRatingMap(p)
	assert.ErrorContains(t, err, "points")
	_, err = LoadRatingMap(filepath.Join(dir, "missing.json"))
	assert.Error(t, err)
	require.NoError(t, os.WriteFile(p, []byte(`{"maps":`), 0o644))
	_, err = LoadRatingMap(p)
	assert.Error(t, err)
}
