package calibrate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/nets/calib"
	"github.com/humchess/humchess/train/data/games"
	"github.com/humchess/humchess/train/tools/internal/profile"
	"github.com/humchess/humchess/uci/client/clienttest"
)

func TestMain(m *testing.M) { clienttest.Main(m) }

// gameMoves is a legal game of 24 plies.
var gameMoves = strings.Fields("e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 d4 Nbd7 c4 c6 cxb5 axb5")

// movetext writes the moves, a clock after each one from ply skip on (the
// referee's mark of an engine move).
func movetext(skip int) string {
	var b strings.Builder
	for i, m := range gameMoves {
		if i%2 == 0 {
			fmt.Fprintf(&b, "%d. ", i/2+1)
		}
		b.WriteString(m + " ")
		if i >= skip {
			b.WriteString("{ [%clk 0:02:30] } ")
		}
	}
	return b.String()
}

// profileRun writes a run's round folder: the settings it played (one
// point per label, the given temperature) and, per label, a profile file
// of games self-play games at 180+2.
func profileRun(t *testing.T, dir string, temp float64, games map[int]int) map[int]string {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	c := &calib.Calibration{Version: calib.Version, Net: "hc-test", NetHash: strings.Repeat("ab", 32), TimeClass: "blitz 180+2"}
	for _, l := range []int{800, 1200} {
		p := calib.Identity(l)
		p.Temperature = temp
		c.Points = append(c.Points, p)
	}
	require.NoError(t, c.WriteFile(filepath.Join(dir, "hc-test.calib.json")))
	out := map[int]string{}
	for l, n := range games {
		var b strings.Builder
		for g := range n {
			fmt.Fprintf(&b, "[Event \"HumChess calibrate round 1/1, UCI_Elo %d self-play\"]\n[Round \"%d\"]\n[White \"HumChess %d (1)\"]\n[Black \"HumChess %d (2)\"]\n"+
				"[Result \"*\"]\n[WhiteElo \"%d\"]\n[BlackElo \"%d\"]\n[TimeControl \"180+2\"]\n\n%s*\n\n", l, g+1, l, l, l, l, movetext(8))
		}
		p := filepath.Join(dir, fmt.Sprintf("profile-%d.pgn", l))
		require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
		out[l] = p
	}
	return out
}

// TestPoolRun: the profile games of two runs of one setting sum by label
// (every clocked move judged, each game one cluster), beside the humans of
// their class and the pooled spread; pooling again reads the judgements
// from the cache (the judge is not started); a label whose files played
// different settings, a file without its settings, a file cut inside its
// game, and a profile pool
// without a judge are errors (spread games are checked against their
// settings too); the same games under two paths count once.
func TestPoolRun(t *testing.T) {
	dir := t.TempDir()
	a := profileRun(t, filepath.Join(dir, "a", "round1"), 1.2, map[int]int{800: 2, 1200: 1})
	b := profileRun(t, filepath.Join(dir, "b", "round1"), 1.2, map[int]int{800: 1})
	spread := spreadPGN(t, filepath.Dir(a[800]), "spread-1200-800.pgn", 1200, 800, "1200-800:1-0", "800-1200:1/2-1/2")
	humans := filepath.Join(dir, "humans.pgn")
	var hb strings.Builder
	for _, r := range []int{800, 1200} {
		fmt.Fprintf(&hb, "[Event \"Rated blitz game\"]\n[Site \"https://lichess.org/x%d\"]\n[White \"w\"]\n[Black \"b\"]\n[Result \"*\"]\n"+
			"[WhiteElo \"%d\"]\n[BlackElo \"%d\"]\n[TimeControl \"180+2\"]\n\n%s*\n\n", r, r, r, movetext(len(gameMoves)))
	}
	require.NoError(t, os.WriteFile(humans, []byte(hb.String()), 0o644))
	judge := clienttest.FakeEngine(t, "../../../testdata/match/fakeengine") + " -options Threads,Hash" // as Stockfish is set up
	out := filepath.Join(dir, "pool")
	pc := PoolConfig{Files: []string{a[800], a[1200], b[800], spread, a[800]}, Judge: judge, JudgeNodes: 1, Workers: 1,
		Humans: []string{humans}, HumanSite: "lichess.org", HumansPerBand: 5, OpeningPlies: 8, OutDir: out}

	rep, err := PoolRun(context.Background(), pc)
	require.NoError(t, err)
	assert.Equal(t, 3, rep.Pooled, "a file named twice counts once")
	assert.Equal(t, games.Blitz, rep.Class)
	require.Len(t, rep.Final.Points, 2)
	assert.Equal(t, []int{800, 1200}, []int{rep.Final.Points[0].Elo, rep.Final.Points[1].Elo})
	assert.InDelta(t, 1.2, rep.Final.Points[0].Temperature, 1e-12)
	engineMoves := int64(len(gameMoves) - 8)
	c800 := rep.Rounds[0].Engine.Get(profile.Key{Band: 800, Class: games.Blitz})
	assert.Equal(t, 3*engineMoves, c800.Moves)
	assert.EqualValues(t, 3, c800.Games)
	c1200 := rep.Rounds[0].Engine.Get(profile.Key{Band: 1200, Class: games.Blitz})
	assert.Equal(t, engineMoves, c1200.Moves)
	assert.Equal(t, 4, rep.Rounds[0].Games)
	assert.Equal(t, 2, rep.HumanGames)
	require.Len(t, rep.Spreads, 1)
	assert.Equal(t, 2, rep.Spreads[0].Score.Games())

	var text strings.Builder
	require.NoError(t, rep.WritePoolText(&text))
	assert.Contains(t, text.String(), "3 profile files, 4 games")
	assert.Contains(t, text.String(), fmt.Sprintf("%d moves, 3 games", 3*engineMoves))
	assert.Contains(t, text.String(), "UCI_Elo 1200 vs 800: 2 games")
	written, err := rep.WritePlots(out)
	require.NoError(t, err)
	assert.Len(t, written, 4, "spread, ladder, blunders, cpl")

	// Again with a judge that cannot start: everything comes from the caches.
	pc.Judge = filepath.Join(dir, "no-such-judge")
	again, err := PoolRun(context.Background(), pc)
	require.NoError(t, err)
	assert.Equal(t, rep.Rounds[0].Engine, again.Rounds[0].Engine)

	// The same games under another run's folder count once.
	copied := profileRun(t, filepath.Join(dir, "d", "round1"), 1.2, map[int]int{800: 1})
	raw, err := os.ReadFile(a[800])
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(copied[800], raw, 0o644))
	pc.Files = []string{a[800], copied[800]}
	rep, err = PoolRun(context.Background(), pc)
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Pooled)

	other := profileRun(t, filepath.Join(dir, "c", "round1"), 1.0, map[int]int{800: 1})
	pc.Judge, pc.Files = judge, []string{a[800], other[800]}
	_, err = PoolRun(context.Background(), pc)
	assert.ErrorIs(t, err, ErrPool)
	assert.ErrorContains(t, err, "UCI_Elo 800 played other settings")
	otherSpread := spreadPGN(t, filepath.Dir(other[800]), "spread-1200-800.pgn", 1200, 800, "1200-800:1-0")
	pc.Files = []string{spread, otherSpread}
	_, err = PoolRun(context.Background(), pc)
	assert.ErrorContains(t, err, "played other settings", "spread games are checked too")

	bare := filepath.Join(dir, "bare.pgn")
	raw, err = os.ReadFile(b[800])
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bare, raw, 0o644))
	pc.Files = []string{bare}
	_, err = PoolRun(context.Background(), pc)
	assert.ErrorIs(t, err, ErrPool)
	assert.ErrorContains(t, err, "found 0")

	// A file cut inside its only game's moves has no game to judge.
	cut := profileRun(t, filepath.Join(dir, "e", "round1"), 1.2, map[int]int{800: 1})
	raw, err = os.ReadFile(cut[800])
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(cut[800], raw[:strings.Index(string(raw), "5. ")], 0o644))
	pc.Files = []string{cut[800]}
	_, err = PoolRun(context.Background(), pc)
	assert.ErrorIs(t, err, ErrPool)
	assert.ErrorContains(t, err, "no complete game")

	pc.Files, pc.Judge = []string{b[800]}, ""
	_, err = PoolRun(context.Background(), pc)
	assert.ErrorIs(t, err, ErrConfig)

	// Spread files alone need no judge and no humans.
	pc.Files = []string{spread}
	rep, err = PoolRun(context.Background(), pc)
	require.NoError(t, err)
	assert.Zero(t, rep.Pooled)
	assert.Len(t, rep.Spreads, 1)
}
