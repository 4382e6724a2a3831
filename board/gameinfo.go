package board

import "math"

// GameInfo is what is known about a game when a move is to be made, by
// colour: both players' ratings, the time control and both clocks. It is
// the one mapping from a game to the net's Context, shared by training
// (train/data/prep), evaluation (train/tools/eval) and play (the engine): each states
// what it knows as a GameInfo (a game record through Record; a GUI's
// options and clocks in the engine) and calls Context with the side to
// move. Ratings are Elo, times seconds; a negative, NaN or infinite value is
// unknown.
type GameInfo struct {
	WhiteRating, BlackRating float64 // Elo
	Base                     float64 // the time control's base time, seconds
	WhiteInc, BlackInc       float64 // each side's increment per move, seconds
	WhiteClock, BlackClock   float64 // each side's remaining time before the move, seconds
}

// UnknownGameInfo returns a GameInfo with every field unknown (-1).
func UnknownGameInfo() GameInfo {
	return GameInfo{WhiteRating: -1, BlackRating: -1, Base: -1, WhiteInc: -1, BlackInc: -1, WhiteClock: -1, BlackClock: -1}
}

// Context returns the net's Context for the side to move (White when
// whiteToMove): the mover's rating and clock are its colour's, the
// opponent's the other colour's; the time control is the base and the
// mover's increment, known only when both are (no game a net learns from
// has one without the other); every unknown value is -1.
func (i GameInfo) Context(whiteToMove bool) Context {
	mover, opp := i.WhiteRating, i.BlackRating
	moverClock, oppClock := i.WhiteClock, i.BlackClock
	inc := i.WhiteInc
	if !whiteToMove {
		mover, opp = opp, mover
		moverClock, oppClock = oppClock, moverClock
		inc = i.BlackInc
	}
	ctx := Context{
		MoverRating: contextValue(mover), OppRating: contextValue(opp),
		Base: -1, Inc: -1,
		MoverClock: contextValue(moverClock), OppClock: contextValue(oppClock),
	}
	if base, inc := contextValue(i.Base), contextValue(inc); base >= 0 && inc >= 0 {
		ctx.Base, ctx.Inc = base, inc
	}
	return ctx
}

// contextValue returns x as a Context field: -1 when x is negative, NaN or
// infinite, or too large for a float32.
func contextValue(x float64) float32 {
	f := float32(x)
	if !(x >= 0) || math.IsInf(float64(f), 0) {
		return -1
	}
	return f
}

// known returns x, or -1 when x is negative, NaN or infinite.
func known(x float64) float64 {
	if !(x >= 0) || math.IsInf(x, 0) {
		return -1
	}
	return x
}

// Record is what a game record tells about its players and its time: both
// ratings, the time control and, for each move, the clock of the side that
// made it, after the move (lichess's [%clk]: the remaining time, the
// increment already added). Ratings are Elo, times seconds; a negative, NaN
// or infinite value is unknown (untimed and correspondence games have an
// unknown Base and Inc).
type Record struct {
	WhiteRating, BlackRating float64
	Base, Inc                float64   // the time control: base time and increment per move
	Clocks                   []float64 // Clocks[k]: the clock of the side that made move k (0-based), after it
}

// HasClocks reports whether the record gives at least one clock.
func (r *Record) HasClocks() bool {
	for _, c := range r.Clocks {
		if known(c) >= 0 {
			return true
		}
	}
	return false
}

// ClockAfter returns the clock of the side that made move k (0-based) after
// that move, or for k < 0 the base time: a side's clock before its first
// move. A record without any clock leaves every clock unknown, the base
// included. It returns -1 when unknown.
func (r *Record) ClockAfter(k int) float64 {
	switch {
	case k >= len(r.Clocks):
		return -1
	case k >= 0:
		return known(r.Clocks[k])
	case r.HasClocks():
		return known(r.Base)
	}
	return -1
}

// Info returns what the record tells before the move at ply (0-based: the
// number of moves played from the record's start), whiteToMove saying whose
// move it is: the mover's clock is the one after its previous move (ply-2),
// the opponent's the one after the last move (ply-1), and both sides have
// the record's increment.
func (r *Record) Info(ply int, whiteToMove bool) GameInfo {
	i := GameInfo{
		WhiteRating: r.WhiteRating, BlackRating: r.BlackRating,
		Base: r.Base, WhiteInc: r.Inc, BlackInc: r.Inc,
		WhiteClock: r.ClockAfter(ply - 2), BlackClock: r.ClockAfter(ply - 1),
	}
	if !whiteToMove {
		i.WhiteClock, i.BlackClock = i.BlackClock, i.WhiteClock
	}
	return i
}

// Context returns the net's Context before the next move of g, the game
// replayed from the record's start: Info(g.Ply(), g.WhiteToMove()) seen
// from the side to move.
func (r *Record) Context(g *Game) Context {
	return r.Info(g.Ply(), g.WhiteToMove()).Context(g.WhiteToMove())
}
