package eval

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/humchess/humchess/nets"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/internal/testenv"
)

// shared is the project's shared folder: $HUMCHESS_SHARED, else ../shared
// beside the checkout.
func shared() string {
	if d := os.Getenv("HUMCHESS_SHARED"); d != "" {
		return d
	}
	return "../../../../shared"
}

var (
	realPGN  = "../../../testdata/games/lichess-2022-06-2500.pgn.zst" // a copy of the shared sample
	maia1100 = "../../../testdata/lc0/maia-1100.pb.gz"                // a copy of the shared net
	maiaDir  = shared() + "/maia"                                     // all nine nets, for maia-auto
)

// TestRealFake runs the pipeline over the start of the shared lichess
// sample with the Fake net: every position of every kept game is counted,
// for both protocols, and the Maia protocol keeps fewer.
func TestRealFake(t *testing.T) {
	if _, err := os.Stat(realPGN); err != nil {
		testenv.Missing(t, "no lichess sample: %v", err)
	}
	rep, err := Run(context.Background(), Config{
		Inputs: []string{realPGN}, MaxGames: 40,
		Contestants: []Spec{NetContestantSpec("fake", func() (nets.Net, error) { return nets.NewFake(1), nil })},
	})
	require.NoError(t, err)
	assert.Equal(t, int64(40), rep.Games)
	all, maia := rep.Positions(ProtocolAll), rep.Positions(ProtocolMaia)
	assert.Greater(t, all, int64(40*20), "positions")
	assert.Less(t, maia, all)
	assert.Greater(t, maia, all/3)
	// A fake net is near chance: top-1 well under 20%.
	c := rep.Row(ProtocolAll, "all", "all").Cells[0]
	assert.Less(t, c.Top1Rate(), 0.2)
	assert.Equal(t, c.N, c.LogN, "every human move has a probability")
}

// TestRealMaia checks Maia on real games: the published top-1 of the Maia
// nets is about 50% on the Maia protocol; on 30 games expect 40-62%. It
// runs maia-1100 always and maia-auto when the shared folder has all nine.
func TestRealMaia(t *testing.T) {
	specs := []Spec{NetSpec("maia-1100", maia1100)}
	if auto, err := MaiaAutoSpec("maia-auto", maiaDir); err == nil {
		specs = append(specs, auto)
	} else {
		t.Logf("maia-auto not run: %v", err)
	}
	rep, err := Run(context.Background(), Config{
		Inputs: []string{realPGN}, MaxGames: 30, Split: "all",
		Contestants: specs,
	})
	if err != nil && strings.Contains(err.Error(), "onnxruntime") {
		testenv.Missing(t, "ONNX Runtime unavailable: %v", err)
	}
	require.NoError(t, err)
	for k := range specs {
		c := rep.Row(ProtocolMaia, "all", "all").Cells[k]
		assert.InDelta(t, 0.51, c.Top1Rate(), 0.11, "%s top-1 on %d positions", rep.Names[k], c.N)
		assert.Greater(t, c.Top3Rate(), c.Top1Rate())
		assert.InDelta(t, 1.6, c.CrossEntropy(), 0.5, "%s cross-entropy", rep.Names[k])
	}
}
