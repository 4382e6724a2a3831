package games

import (
	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/train/data/pgn"
)

// RecordOf returns what g tells about its players and its time, from which
// train/data/prep and train/tools take each position's board.Context. Its clocks are
// a copy: g may be reused.
func RecordOf(g *pgn.Game) board.Record {
	r := board.Record{
		WhiteRating: float64(g.WhiteElo), BlackRating: float64(g.BlackElo),
		Base: g.TimeControl.Base, Inc: g.TimeControl.Increment, Clocks: g.Clocks,
	}
	if r.HasClocks() {
		r.Clocks = append([]float64(nil), g.Clocks...)
	} else {
		r.Clocks = nil // a game recorded without clocks keeps none
	}
	return r
}
