package calibrate

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/humchess/humchess/train/data/games"
	"github.com/humchess/humchess/train/tools/internal/profile"
	"github.com/stretchr/testify/require"
)

// TestShippedHumans reads every shipped human profile as calibrate does,
// with the default human files of its file name's time class, and checks it
// holds the judged moves of each default label's band in that class and
// none of another, and that a profile for other human files is refused.
func TestShippedHumans(t *testing.T) {
	names, err := fs.Glob(shippedHumans, "humans/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, names)
	for _, name := range names {
		base := filepath.Base(name)
		// humans-CLASS-...: the profile holds that class's games only.
		class, ok := games.ParseTimeClass(strings.Split(base, "-")[1])
		require.True(t, ok, "%s: names a time class", base)
		p, n, err := readShippedHumans(base, DefaultHumans("../shared/data", class))
		require.NoError(t, err, base)
		require.Greater(t, n, 100, "%s: games", base)
		for l := 800; l <= 2400; l += 200 {
			c := p.Get(profile.Key{Band: profile.Band(l), Class: class})
			require.Greater(t, c.Moves, int64(200), "%s: band %d moves", base, l)
			require.Greater(t, c.Blunders, int64(0), "%s: band %d blunders", base, l)
			require.Less(t, c.Blunders, c.Moves/4, "%s: band %d blunders", base, l)
			require.Greater(t, c.Games, int64(1), "%s: band %d games", base, l)
			require.LessOrEqual(t, c.Games, int64(n), "%s: band %d games", base, l)
		}
		for _, other := range []games.TimeClass{games.Bullet, games.Blitz, games.Rapid} {
			if other != class {
				require.Zero(t, p.Get(profile.Key{Band: profile.Band(1600), Class: other}).Moves, "%s: %s moves", base, other)
			}
		}
		_, _, err = readShippedHumans(base, []string{"other.pgn.zst"})
		require.Error(t, err, "%s for other files", base)
	}
	_, _, err = readShippedHumans("humans-none.json", DefaultHumans("../shared/data", games.Blitz))
	require.Error(t, err)
}

// TestHumansWithoutGames: a profile written before games were counted is
// refused (calibrate judges the humans again), one with them is read.
func TestHumansWithoutGames(t *testing.T) {
	files := []string{"d/a.pgn.zst"}
	old := `{"files":["a.pgn.zst"],"games":3,"profile":[{"band":1600,"class":"blitz","moves":90,"blunders":9,"cpl_sum":4500,"cpl_sq_sum":400000}]}`
	_, _, err := parseHumans("old.json", []byte(old), files)
	require.ErrorContains(t, err, "before games were counted")
	now := strings.Replace(old, `"cpl_sq_sum":400000`, `"cpl_sq_sum":400000,"games":3,"game_moves_sq_sum":2700`, 1)
	p, n, err := parseHumans("new.json", []byte(now), files)
	require.NoError(t, err)
	require.Equal(t, 3, n)
	require.Equal(t, int64(3), p.Get(profile.Key{Band: 1600, Class: games.Blitz}).Games)
}

// TestDefaultHumans checks that only a rapid profile reads the rapid
// archive, after the two lichess files, so that it fills the bands they
// leave short rather than replacing their games.
func TestDefaultHumans(t *testing.T) {
	two := []string{filepath.Join("d", HumansLichessSample), filepath.Join("d", HumansLichessMisc)}
	for _, c := range []games.TimeClass{games.Bullet, games.Blitz, games.Classical} {
		require.Equal(t, two, DefaultHumans("d", c), c.String())
	}
	require.Equal(t, append(two, filepath.Join("d", HumansLichessRapid)), DefaultHumans("d", games.Rapid))
}
