package profile

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/train/data/pgn"
	"github.com/humchess/humchess/uci/client"
	"github.com/humchess/humchess/uci/client/clienttest"
)

func TestMain(m *testing.M) { clienttest.Main(m) }

func fakeJudge(t *testing.T, args ...string) client.Config {
	return client.Config{Path: clienttest.FakeEngine(t, "../../../../testdata/match/fakeengine"), Args: args}
}

func analyseGames(t *testing.T, cfg client.Config, games []*pgn.Game) ([]Result, *Analyser, error) {
	t.Helper()
	an := NewAnalyser(context.Background(), cfg, client.Limits{Nodes: 1}, 1)
	for i, g := range games {
		an.Submit(g, i)
	}
	res, err := an.Wait()
	return res, an, err
}

var retryGames = []*pgn.Game{
	{Moves: []string{"e4", "e5", "Nf3", "Nc6", "Bb5"}},
	{Moves: []string{"d4", "d5", "c4"}},
	{Moves: []string{"Nf3", "Nf6"}},
}

// TestAnalyserRetriesDeadEngine: a judge that dies in the middle of a game
// costs that game's analysis once; the game is analysed again on a new
// process from its start and every game gets all its evaluations.
func TestAnalyserRetriesDeadEngine(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	// The first game's engine exits at its third go; the state file counts
	// games across processes, so the retry (game 2 by the count) is ok.
	cfg := fakeJudge(t, "-plan", "crash:2", "-state", state)
	res, an, err := analyseGames(t, cfg, retryGames)
	require.NoError(t, err)
	require.Len(t, res, len(retryGames))
	require.EqualValues(t, 1, an.Retried())
	require.EqualValues(t, len(retryGames), an.Done())
	for _, r := range res {
		g := retryGames[r.Tag]
		require.Len(t, r.Evals, len(g.Moves)+1, "game %d", r.Tag)
		for ply, v := range r.Evals {
			require.False(t, math.IsNaN(v), "game %d ply %d not evaluated", r.Tag, ply)
		}
	}
}

// TestAnalyserGivesUp: an engine that dies on every game fails the run
// after Retries new starts, with the engine's error.
func TestAnalyserGivesUp(t *testing.T) {
	cfg := fakeJudge(t, "-crash-after", "0")
	res, an, err := analyseGames(t, cfg, retryGames[:1])
	require.Error(t, err)
	require.Contains(t, err.Error(), "profile: analysing engine")
	require.Empty(t, res)
	require.EqualValues(t, Retries, an.Retried())
}

// TestAnalyserNoRetryOnBadGame: a game that cannot be replayed is an error
// of the game, not of the engine: it is not analysed again.
func TestAnalyserNoRetryOnBadGame(t *testing.T) {
	bad := []*pgn.Game{{FEN: "not a fen", Moves: []string{"e4"}}}
	_, an, err := analyseGames(t, fakeJudge(t), bad)
	require.Error(t, err)
	require.EqualValues(t, 0, an.Retried())
}
