package calibrate

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/nets/calib"
	"github.com/humchess/humchess/train/data/games"
	"github.com/humchess/humchess/train/tools/internal/profile"
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
