package prep

import (
	"strings"
	"testing"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/train/data/games"
	"github.com/humchess/humchess/train/data/pgn"
	"github.com/humchess/humchess/train/data/shard"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProcessClocks checks the Context and Targets of every position of a
// short game: clocks as they stood before the move, ratings from the mover's
// side, seconds spent with the increment.
func TestProcessClocks(t *testing.T) {
	text := `[Event "Rated Blitz game"]
[Site "https://lichess.org/clocks01"]
[Result "0-1"]
[WhiteElo "1500"]
[BlackElo "1700"]
[TimeControl "180+2"]

1. e4 { [%clk 0:03:00] } 1... e5 { [%clk 0:03:01] } 2. Nf3 { [%clk 0:02:55] } 2... Nc6 3. Bc4 { [%clk 0:02:40.5] } 0-1
`
	r := pgn.NewReader(strings.NewReader(text))
	g, err := r.Next()
	require.NoError(t, err)
	cfg := DefaultConfig()
	cfg.EarlyFullPly = 0 // keep every ply
	cfg.MinClock = 0
	w := newWorker(&cfg)
	j := newJob(g, games.ID(g), false)
	var out gameOut
	w.process(&j, &out)
	require.False(t, out.badMove)
	require.Len(t, out.ends, 5)

	want := []struct {
		mover, opp float32 // ratings
		mc, oc     float32 // clocks before the move
		spent      float32
		result     int8
	}{
		{1500, 1700, 180, 180, 2, -1},   // 1. e4: 180 -> 180 with +2
		{1700, 1500, 180, 180, 1, 1},    // 1... e5: 180 -> 181
		{1500, 1700, 180, 181, 7, -1},   // 2. Nf3: 180 -> 175
		{1700, 1500, 181, 175, -1, 1},   // 2... Nc6: no clock after it
		{1500, 1700, 175, -1, 16.5, -1}, // 3. Bc4: 175 -> 160.5; the opponent's last clock is unknown
	}
	var start int32
	var e board.Encoded
	var tg board.Targets
	for i, end := range out.ends {
		require.NoError(t, shard.DecodeSample(out.data[start:end], &e, &tg))
		start = end
		wt := want[i]
		c := e.Ctx
		assert.Equal(t, [2]float32{wt.mover, wt.opp}, [2]float32{c.MoverRating, c.OppRating}, "ply %d ratings", i)
		assert.Equal(t, [2]float32{wt.mc, wt.oc}, [2]float32{c.MoverClock, c.OppClock}, "ply %d clocks", i)
		assert.Equal(t, [2]float32{180, 2}, [2]float32{c.Base, c.Inc}, "ply %d time control", i)
		assert.InDelta(t, wt.spent, tg.Seconds, 1e-4, "ply %d seconds", i)
		assert.Equal(t, wt.result, tg.Result, "ply %d result", i)
		assert.Equal(t, i%2 == 0, e.MoverIsWhite, "ply %d", i)
	}

	// a game with no clocks at all has unknown clocks everywhere
	text2 := strings.ReplaceAll(text, "{ [%clk 0:03:00] }", "")
	for _, c := range []string{"{ [%clk 0:03:01] }", "{ [%clk 0:02:55] }", "{ [%clk 0:02:40.5] }"} {
		text2 = strings.ReplaceAll(text2, c, "")
	}
	g2, err := pgn.NewReader(strings.NewReader(text2)).Next()
	require.NoError(t, err)
	j2 := newJob(g2, 1, false)
	w.process(&j2, &out)
	require.Len(t, out.ends, 5)
	require.NoError(t, shard.DecodeSample(out.data[:out.ends[0]], &e, &tg))
	assert.Equal(t, [2]float32{-1, -1}, [2]float32{e.Ctx.MoverClock, e.Ctx.OppClock})
	assert.Equal(t, float32(-1), tg.Seconds)

	// an illegal move drops the whole game
	g3, err := pgn.NewReader(strings.NewReader(strings.Replace(text, "3. Bc4", "3. Bc5", 1))).Next()
	require.NoError(t, err)
	j3 := newJob(g3, 2, false)
	w.process(&j3, &out)
	assert.True(t, out.badMove)
	assert.Empty(t, out.ends)
}

// TestMinClock checks that low clocks are skipped and unknown ones are not.
func TestMinClock(t *testing.T) {
	text := `[Event "Rated Blitz game"]
[Site "https://lichess.org/clocks02"]
[Result "1-0"]
[WhiteElo "1500"]
[BlackElo "1700"]
[TimeControl "180+0"]

1. e4 { [%clk 0:00:40] } 1... e5 { [%clk 0:00:20] } 2. Nf3 { [%clk 0:00:25] } 2... Nc6 3. Bc4 1-0
`
	g, err := pgn.NewReader(strings.NewReader(text)).Next()
	require.NoError(t, err)
	cfg := DefaultConfig()
	cfg.EarlyFullPly = 0
	w := newWorker(&cfg)
	j := newJob(g, 3, false)
	var out gameOut
	w.process(&j, &out)
	// mover clocks before each ply: 180, 180, 40, 20 (skipped), 25 (skipped)
	assert.Len(t, out.ends, 3)
	assert.Equal(t, int64(2), out.skipped[skipLowClock])
}
