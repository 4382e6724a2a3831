package board

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGameInfoContext(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	full := GameInfo{WhiteRating: 1500, BlackRating: 1700, Base: 180, WhiteInc: 2, BlackInc: 3, WhiteClock: 150.5, BlackClock: 120}
	tests := []struct {
		name  string
		info  GameInfo
		white bool
		want  Context
	}{
		{"white to move", full, true, Context{MoverRating: 1500, OppRating: 1700, Base: 180, Inc: 2, MoverClock: 150.5, OppClock: 120}},
		{"black to move: colours swap, Black's increment", full, false, Context{MoverRating: 1700, OppRating: 1500, Base: 180, Inc: 3, MoverClock: 120, OppClock: 150.5}},
		{"all unknown", UnknownGameInfo(), true, UnknownContext()},
		{"zero value: rating 0, empty clocks, 0+0", GameInfo{}, false, Context{}},
		{"NaN, infinite and too large are unknown",
			GameInfo{WhiteRating: nan, BlackRating: inf, Base: 60, WhiteInc: 0, BlackInc: 0, WhiteClock: 1e300, BlackClock: -5}, true,
			Context{MoverRating: -1, OppRating: -1, Base: 60, Inc: 0, MoverClock: -1, OppClock: -1}},
		{"base without the mover's increment: no time control",
			GameInfo{WhiteRating: 1500, BlackRating: 1500, Base: 60, WhiteInc: -1, BlackInc: 1, WhiteClock: 60, BlackClock: 60}, true,
			Context{MoverRating: 1500, OppRating: 1500, Base: -1, Inc: -1, MoverClock: 60, OppClock: 60}},
		{"increment without a base: no time control",
			GameInfo{WhiteRating: 1500, BlackRating: 1500, Base: nan, WhiteInc: 1, BlackInc: 1, WhiteClock: -1, BlackClock: -1}, false,
			Context{MoverRating: 1500, OppRating: 1500, Base: -1, Inc: -1, MoverClock: -1, OppClock: -1}},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, tc.info.Context(tc.white), "%s: %+v white to move %v", tc.name, tc.info, tc.white)
	}
}

func TestRecordClocks(t *testing.T) {
	// 1. e4 (178) e5 (179) 2. Nf3 (no clock) Nc6 (170) 3. Bc4 (160)
	rec := Record{WhiteRating: 1500, BlackRating: 1700, Base: 180, Inc: 2, Clocks: []float64{178, 179, -1, 170, 160}}
	bare := Record{WhiteRating: 1500, BlackRating: 1700, Base: 180, Inc: 2, Clocks: []float64{-1, -1, -1}}
	tests := []struct {
		name           string
		rec            Record
		ply            int
		white          bool
		wantWhite      float64 // White's clock in Info
		wantBlack      float64
		wantMoverClock float32 // in the Context
		wantOppClock   float32
	}{
		{"ply 0: both clocks at the base", rec, 0, true, 180, 180, 180, 180},
		{"ply 1: Black's first move", rec, 1, false, 178, 180, 180, 178},
		{"ply 2", rec, 2, true, 178, 179, 178, 179},
		{"ply 3: White's clock not recorded", rec, 3, false, -1, 179, 179, -1},
		{"ply 5: after the last move", rec, 5, false, 160, 170, 170, 160},
		{"a game from a FEN, Black moves first: ply 0", rec, 0, false, 180, 180, 180, 180},
		{"a game from a FEN, Black moves first: ply 1", rec, 1, true, 180, 178, 180, 178},
		{"no clock at all: not even the base", bare, 0, true, -1, -1, -1, -1},
		{"no clock at all, later", bare, 2, true, -1, -1, -1, -1},
	}
	for _, tc := range tests {
		info := tc.rec.Info(tc.ply, tc.white)
		assert.Equal(t, [2]float64{tc.wantWhite, tc.wantBlack}, [2]float64{info.WhiteClock, info.BlackClock}, "%s: clocks by colour", tc.name)
		ctx := info.Context(tc.white)
		assert.Equal(t, [2]float32{tc.wantMoverClock, tc.wantOppClock}, [2]float32{ctx.MoverClock, ctx.OppClock}, "%s: mover and opponent clocks", tc.name)
		wantMover, wantOpp := float32(1500), float32(1700)
		if !tc.white {
			wantMover, wantOpp = wantOpp, wantMover
		}
		assert.Equal(t, Context{MoverRating: wantMover, OppRating: wantOpp, Base: 180, Inc: 2, MoverClock: ctx.MoverClock, OppClock: ctx.OppClock}, ctx, "%s", tc.name)
	}
	assert.True(t, rec.HasClocks())
	assert.False(t, bare.HasClocks())
	assert.False(t, (&Record{}).HasClocks())
	assert.Equal(t, float64(-1), rec.ClockAfter(5), "after a move the record does not have")
	assert.Equal(t, float64(-1), (&Record{Base: 60, Clocks: []float64{math.NaN(), 50}}).ClockAfter(0), "NaN clock")
}

// TestRecordContextFollowsGame checks Record.Context against a replayed
// game: the side to move comes from the position, not from the ply's parity.
func TestRecordContextFollowsGame(t *testing.T) {
	rec := Record{WhiteRating: 1500, BlackRating: 1700, Base: 300, Inc: 0, Clocks: []float64{295, 290, 280}}
	g, err := NewGame("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
	require.NoError(t, err)
	assert.Equal(t, Context{MoverRating: 1700, OppRating: 1500, Base: 300, Inc: 0, MoverClock: 300, OppClock: 300}, rec.Context(g), "Black to move first")
	require.NoError(t, g.Play("e7e5"))
	assert.Equal(t, Context{MoverRating: 1500, OppRating: 1700, Base: 300, Inc: 0, MoverClock: 300, OppClock: 295}, rec.Context(g), "then White")
	require.NoError(t, g.Play("g1f3"))
	assert.Equal(t, Context{MoverRating: 1700, OppRating: 1500, Base: 300, Inc: 0, MoverClock: 295, OppClock: 290}, rec.Context(g), "then Black")
}
