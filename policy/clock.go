package policy

import (
	"math"
	"time"

	"github.com/humchess/humchess/board"
)

// GUIClocks are the clocks one "go" revealed, by colour; negative = not given.
type GUIClocks struct {
	WTime, BTime time.Duration // remaining time
	WInc, BInc   time.Duration // increment per move
}

// Known reports whether at least one side's clock was given.
func (c GUIClocks) Known() bool { return c.WTime >= 0 || c.BTime >= 0 }

// Setting is what the user configured about the game.
type Setting struct {
	MoverElo, OppElo int           // ratings (Elo) of the engine and its opponent
	Base             time.Duration // TimeControl: base time; 0 = infer from the clocks
	Inc              time.Duration // Increment: used with Base when the GUI sends no clocks
}

// GameClock turns the clocks a GUI sends into the board.Context a net
// expects. It remembers the first clock seen in a game to stand for the
// time control's base. The zero value is ready; call Reset at each new game.
type GameClock struct {
	base time.Duration // first clock seen this game; 0 = none yet
}

// Reset forgets the game's first clock (ucinewgame).
func (g *GameClock) Reset() { g.base = 0 }

// Base returns the base time inferred so far; 0 = none.
func (g *GameClock) Base() time.Duration { return g.base }

// Context returns the net's context for the side to move:
//   - ratings from s (the engine is always the mover);
//   - clocks: the mover's and the opponent's from wtime/btime;
//   - increment: the mover's winc/binc when the GUI sent clocks (absent
//     means 0), else s.Inc when s.Base is set, else unknown;
//   - base: s.Base when set, else the larger clock of the first go of the
//     game that had clocks (recorded here), else unknown.
func (g *GameClock) Context(c GUIClocks, whiteToMove bool, s Setting) board.Context {
	ctx := board.UnknownContext()
	ctx.MoverRating, ctx.OppRating = float32(s.MoverElo), float32(s.OppElo)
	mover, opp, inc := c.WTime, c.BTime, c.WInc
	if !whiteToMove {
		mover, opp, inc = c.BTime, c.WTime, c.BInc
	}
	ctx.MoverClock, ctx.OppClock = seconds(mover), seconds(opp)
	if c.Known() && g.base == 0 {
		g.base = max(c.WTime, c.BTime)
	}
	switch {
	case c.Known():
		ctx.Inc = float32(max(inc, 0).Seconds())
	case s.Base > 0:
		ctx.Inc = float32(max(s.Inc, 0).Seconds())
	}
	switch {
	case s.Base > 0:
		ctx.Base = float32(s.Base.Seconds())
	case g.base > 0:
		ctx.Base = float32(math.Round(g.base.Seconds()))
	}
	return ctx
}

func seconds(d time.Duration) float32 {
	if d < 0 {
		return -1
	}
	return float32(d.Seconds())
}
