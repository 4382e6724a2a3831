package calibrate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/train/tools/match"
)

// spreadPGN writes games of the match top vs bottom, each "WHITE-BLACK:RESULT".
func spreadPGN(t *testing.T, dir, name string, top, bottom int, games ...string) string {
	var b strings.Builder
	for _, g := range games {
		var w, bl int
		var res string
		_, err := fmt.Sscanf(strings.Replace(g, ":", " ", 1), "%d-%d %s", &w, &bl, &res)
		require.NoError(t, err)
		fmt.Fprintf(&b, "[Event \"HumChess calibrate spread %d vs %d\"]\n[White \"HumChess %d\"]\n[Black \"HumChess %d\"]\n"+
			"[Result \"%s\"]\n[WhiteElo \"%d\"]\n[BlackElo \"%d\"]\n[TimeControl \"180+2\"]\n\n1. e4 e5 %s\n\n", top, bottom, w, bl, res, w, bl, res)
	}
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
	return p
}

// TestPool: games of several files sum by match, each counted for the top
// label whichever colour it had; unfinished games and a file named twice
// are left out; a file that is not a spread match is an error.
func TestPool(t *testing.T) {
	dir := t.TempDir()
	a := spreadPGN(t, dir, "a.pgn", 1200, 800, "1200-800:1-0", "800-1200:1-0", "800-1200:0-1", "1200-800:1/2-1/2")
	b := spreadPGN(t, dir, "b.pgn", 1200, 800, "800-1200:0-1", "1200-800:*")
	c := spreadPGN(t, dir, "c.pgn", 1600, 1200, "1600-1200:0-1", "1200-1600:1/2-1/2")
	got, err := Pool([]string{c, a, b, a})
	require.NoError(t, err)
	assert.Equal(t, []Spread{
		{Top: 1200, Bottom: 800, Score: match.Score{Wins: 3, Draws: 1, Losses: 1}},
		{Top: 1600, Bottom: 1200, Score: match.Score{Wins: 0, Draws: 1, Losses: 1}},
	}, got)

	other := filepath.Join(dir, "other.pgn")
	require.NoError(t, os.WriteFile(other, []byte("[Event \"Rated blitz game\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n\n"), 0o644))
	_, err = Pool([]string{a, other})
	assert.ErrorIs(t, err, ErrPool)
	unfinished := spreadPGN(t, dir, "d.pgn", 1200, 800, "1200-800:*")
	_, err = Pool([]string{unfinished})
	assert.ErrorIs(t, err, ErrPool)
	wrong := spreadPGN(t, dir, "e.pgn", 1200, 800, "1600-800:1-0")
	_, err = Pool([]string{wrong})
	assert.ErrorIs(t, err, ErrPool)
	_, err = Pool([]string{filepath.Join(dir, "missing.pgn")})
	assert.ErrorIs(t, err, os.ErrNotExist)
}
