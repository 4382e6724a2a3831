package eval

import (
	"math"
	"strings"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/train/pgn"
	"github.com/humchess/humchess/train/prep"
)

// Maia protocol constants.
const (
	MaiaSkipPlies = 10 // the first plies of each game are not evaluated
	MaiaMinClock  = 30 // positions where the mover had less than this are skipped, seconds
)

// Position is one decision of a human: the game before the move, the move,
// and what is known around it.
type Position struct {
	Game        *board.Game   // the position before the move, with its history
	Move        board.Move    // what the human played
	Ctx         board.Context // ratings, time control and clocks before the move (unknown fields -1)
	Ply         int           // 0-based half-move number
	MoverRating int           // pgn.Unknown if unknown
	OppRating   int           // pgn.Unknown if unknown
	Class       prep.TimeClass
	MoverClock  float64 // seconds before the move, -1 if unknown
	Material    int     // both sides' material, P=1 N=B=3 R=5 Q=9 (78 at the start)
	Maia        bool    // kept by the Maia protocol
}

// clockAfter returns the clock of the side that made move k (0-based), or for
// k < 0 the base time; -1 when unknown.
func clockAfter(g *pgn.Game, k int) float64 {
	if k < 0 {
		if g.TimeControl.Base >= 0 && !g.TimeControl.Correspondence {
			return float64(g.TimeControl.Base)
		}
		return -1
	}
	if k < len(g.Clocks) && g.Clocks[k] >= 0 && !math.IsNaN(g.Clocks[k]) {
		return g.Clocks[k]
	}
	return -1
}

// hasClocks reports whether the game carries any clock comment.
func hasClocks(g *pgn.Game) bool {
	for _, c := range g.Clocks {
		if c >= 0 {
			return true
		}
	}
	return false
}

// material counts both sides' material.
func material(g *board.Game) int {
	n := 0
	for s := range board.Square(64) {
		switch g.PieceAt(s).Type() {
		case board.Pawn:
			n++
		case board.Knight, board.Bishop:
			n += 3
		case board.Rook:
			n += 5
		case board.Queen:
			n += 9
		}
	}
	return n
}

func f32(x float64) float32 {
	if !(x >= 0) || math.IsInf(x, 0) {
		return -1
	}
	return float32(x)
}

// Positions replays a parsed game and returns one Position per move (fewer
// if a move is unreadable: the game is cut there, and ok is false). The
// Games are independent clones.
func Positions(g *pgn.Game) (ps []Position, ok bool) {
	b, err := board.NewGame(g.FEN)
	if err != nil {
		return nil, false
	}
	clocks := hasClocks(g)
	base, inc := float32(-1), float32(-1)
	if g.TimeControl.Known() {
		base, inc = float32(g.TimeControl.Base), float32(g.TimeControl.Increment)
	}
	class := prep.ClassOf(g.TimeControl)
	ps = make([]Position, 0, len(g.Moves))
	for i, san := range g.Moves {
		m, err := b.ParseSAN(san)
		if err != nil {
			return ps, false
		}
		white := b.WhiteToMove()
		mover, opp := g.WhiteElo, g.BlackElo
		if !white {
			mover, opp = opp, mover
		}
		mc, oc := -1.0, -1.0
		if clocks {
			mc, oc = clockAfter(g, i-2), clockAfter(g, i-1)
		}
		p := Position{
			Game: b.Clone(), Move: m, Ply: i, MoverRating: mover, OppRating: opp, Class: class, MoverClock: mc,
			Material: material(b),
			Ctx: board.Context{MoverRating: rating(mover), OppRating: rating(opp), Base: base, Inc: inc,
				MoverClock: f32(mc), OppClock: f32(oc)},
		}
		p.Maia = i >= MaiaSkipPlies && (mc < 0 || mc >= MaiaMinClock)
		ps = append(ps, p)
		if err := b.PlayMove(m); err != nil {
			return ps, false
		}
	}
	return ps, true
}

func rating(r int) float32 {
	if r < 0 {
		return -1
	}
	return float32(r)
}

// isBot reports whether either player is a BOT account.
func isBot(g *pgn.Game) bool {
	return strings.EqualFold(g.WhiteTitle, "BOT") || strings.EqualFold(g.BlackTitle, "BOT")
}

// InSplit reports whether a game belongs to split: "" or "all" every game,
// "validation" the games train/prep puts in validation at fraction,
// "train" the others.
func InSplit(g *pgn.Game, split string, fraction float64) bool {
	switch split {
	case "", "all":
		return true
	case "validation":
		return prep.IsValidation(prep.GameID(g), fraction)
	case "train":
		return !prep.IsValidation(prep.GameID(g), fraction)
	}
	return false
}
