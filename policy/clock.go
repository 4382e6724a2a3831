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

// GameClock turns what a GUI reveals about a game into the board.GameInfo
// from which the net's Context is made (board.GameInfo.Context, the mapping
// training and evaluation use too). It remembers the first go of a game
// that had clocks: its larger clock stands for the time control's base, its
// increments for the increments. The zero value is ready; call Reset at
// each new game.
type GameClock struct {
	seen       bool          // a go with clocks was seen this game
	base       time.Duration // the larger clock of that go
	winc, binc time.Duration // its increments (0 when not given)
}

// Reset forgets the game's first clocks (ucinewgame).
func (g *GameClock) Reset() { *g = GameClock{} }

// Info returns the game as the engine knows it at a go:
//   - ratings: s.MoverElo for the side to move (the engine plays it),
//     s.OppElo for the other;
//   - clocks: wtime and btime;
//   - increments: winc and binc when the go has clocks (one not given is
//     0, as in UCI), else s.Inc when s.Base is set, else those of the
//     game's first go with clocks, else unknown;
//   - base: s.Base when set, else the larger clock of the game's first go
//     with clocks (recorded here), rounded to the second, else unknown.
func (g *GameClock) Info(c GUIClocks, whiteToMove bool, s Setting) board.GameInfo {
	info := board.UnknownGameInfo()
	info.WhiteRating, info.BlackRating = float64(s.MoverElo), float64(s.OppElo)
	if !whiteToMove {
		info.WhiteRating, info.BlackRating = info.BlackRating, info.WhiteRating
	}
	info.WhiteClock, info.BlackClock = seconds(c.WTime), seconds(c.BTime)
	switch {
	case c.Known():
		winc, binc := max(c.WInc, 0), max(c.BInc, 0)
		if !g.seen {
			g.seen, g.base, g.winc, g.binc = true, max(c.WTime, c.BTime), winc, binc
		}
		info.WhiteInc, info.BlackInc = winc.Seconds(), binc.Seconds()
	case s.Base > 0:
		info.WhiteInc, info.BlackInc = max(s.Inc, 0).Seconds(), max(s.Inc, 0).Seconds()
	case g.seen:
		info.WhiteInc, info.BlackInc = g.winc.Seconds(), g.binc.Seconds()
	}
	switch {
	case s.Base > 0:
		info.Base = s.Base.Seconds()
	case g.seen:
		info.Base = math.Round(g.base.Seconds())
	}
	return info
}

// Context returns the net's Context for the side to move at a go:
// Info seen from the side to move.
func (g *GameClock) Context(c GUIClocks, whiteToMove bool, s Setting) board.Context {
	return g.Info(c, whiteToMove, s).Context(whiteToMove)
}

// ContextClock returns the Clock of the side to move as the net sees it in
// ctx (its remaining time and increment; negative when unknown), with
// movesToGo and overhead.
func ContextClock(ctx board.Context, movesToGo int, overhead time.Duration) Clock {
	return Clock{Remaining: duration(ctx.MoverClock), Inc: duration(ctx.Inc), MovesToGo: movesToGo, Overhead: overhead, Base: duration(ctx.Base)}
}

func seconds(d time.Duration) float64 {
	if d < 0 {
		return -1
	}
	return d.Seconds()
}

// duration returns sec seconds, -1 when negative, at most the largest
// Duration.
func duration(sec float32) time.Duration {
	ns := float64(sec) * float64(time.Second)
	switch {
	case !(ns >= 0):
		return -1
	case ns >= math.MaxInt64: // 2^63 as a float64: beyond every Duration
		return math.MaxInt64
	}
	return time.Duration(ns)
}
