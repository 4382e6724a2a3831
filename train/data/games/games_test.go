package games

import (
	"fmt"
	"strings"
	"testing"

	"github.com/humchess/humchess/train/data/pgn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readHeaders reads the headers of one lichess game whose tags are those
// given over a default Site link.
func readHeaders(t *testing.T, over map[string]string) *pgn.Game {
	t.Helper()
	tags := map[string]string{"Site": "https://lichess.org/abcdefgh", "White": "a", "Black": "b", "WhiteElo": "1500"}
	var b strings.Builder
	for k, v := range over {
		tags[k] = v
	}
	for k, v := range tags {
		fmt.Fprintf(&b, "[%s %q]\n", k, v)
	}
	b.WriteString("\n1. e4 e5 1-0\n\n")
	g, err := pgn.NewReader(strings.NewReader(b.String())).NextHeaders()
	require.NoError(t, err, b.String())
	return g
}

func TestTimeClass(t *testing.T) {
	tests := []struct {
		tc   string
		want TimeClass
	}{
		{"29+0", UltraBullet}, {"30+0", Bullet}, {"60+1", Bullet}, {"179+0", Bullet}, {"180+0", Blitz},
		{"120+2", Blitz}, {"479+0", Blitz}, {"480+0", Rapid}, {"600+5", Rapid}, {"900+10", Rapid},
		{"1499+0", Rapid}, {"1500+0", Classical}, {"1800+30", Classical}, {"-", Correspondence},
		{"1/259200", Correspondence}, {"?", UnknownClass}, {"", UnknownClass}, {"abc", UnknownClass},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, ClassOf(pgn.ParseTimeControl(tc.tc)), "TimeControl %q", tc.tc)
	}
}

// TestClassSeconds: each clocked class's range holds the controls ClassOf
// puts in it, and only those.
func TestClassSeconds(t *testing.T) {
	wantRanges := map[TimeClass][2]float64{UltraBullet: {0, 30}, Bullet: {30, 180}, Blitz: {180, 480}, Rapid: {480, 1500}, Classical: {1500, 0}}
	for c, want := range wantRanges {
		lo, hi, ok := c.Seconds()
		require.True(t, ok, "%s", c)
		assert.Equal(t, want, [2]float64{lo, hi}, "%s", c)
		assert.Equal(t, c, ClassOf(pgn.TimeControl{Base: lo + 1}), "%s: its lower end", c)
		if hi > 0 {
			assert.NotEqual(t, c, ClassOf(pgn.TimeControl{Base: hi}), "%s: its upper end", c)
			assert.Equal(t, c, ClassOf(pgn.TimeControl{Base: hi - 1}), "%s: under its upper end", c)
		}
	}
	for _, c := range []TimeClass{UnknownClass, Correspondence} {
		_, _, ok := c.Seconds()
		assert.False(t, ok, "%s has no range", c)
	}
}

func TestSplit(t *testing.T) {
	const n = 100000
	val := 0
	for i := range n {
		id := uint64(i) * 0x9e3779b97f4a7c15
		v := IsValidation(id, 0.05)
		require.Equal(t, v, IsValidation(id, 0.05), "stable")
		if v {
			val++
			require.True(t, IsValidation(id, 0.10), "a validation game stays in validation when the fraction grows")
		}
	}
	assert.InDelta(t, 0.05, float64(val)/n, 0.004)
}

func TestGameID(t *testing.T) {
	a := readHeaders(t, nil)
	b := readHeaders(t, map[string]string{"WhiteElo": "1600"})
	assert.Equal(t, ID(a), ID(b), "a lichess game is identified by its link")
	c := readHeaders(t, map[string]string{"Site": "https://lichess.org/other"})
	assert.NotEqual(t, ID(a), ID(c))
	d := readHeaders(t, map[string]string{"Site": "Chess.com", "Link": "https://www.chess.com/game/live/1"})
	e := readHeaders(t, map[string]string{"Site": "Chess.com", "Link": "https://www.chess.com/game/live/2"})
	assert.NotEqual(t, ID(d), ID(e))
	f := readHeaders(t, map[string]string{"Site": "?", "White": "x"})
	g := readHeaders(t, map[string]string{"Site": "?", "White": "y"})
	assert.NotEqual(t, ID(f), ID(g), "without a link, headers identify the game")
}
