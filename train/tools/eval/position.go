package eval

import (
	"strings"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/train/data/games"
	"github.com/humchess/humchess/train/data/pgn"
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
	Class       games.TimeClass
	MoverClock  float64 // seconds before the move, -1 if unknown
	Material    int     // both sides' material, P=1 N=B=3 R=5 Q=9 (78 at the start)
	Maia        bool    // kept by the Maia protocol
	// Result is the game's result from the mover's side (+1/0/-1) and
	// HasResult whether it is known; Seconds is the time the mover spent
	// on the move (board.ThinkSpent), negative when unknown. They score the
	// value and think-time heads against what happened.
	Result    int
	HasResult bool
	Seconds   float64
	// Eval is the game's own evaluation of the position for the mover,
	// centipawns (the [%eval] after the move that reached it, as lichess's
	// analysed games carry); NaN when the game gives none. It scores the
	// value head against an engine's judgement, where the result is noisy.
	Eval float64
	// Source is the index of the input file the game came from and
	// SourceName its name (pgn.SourceName of the path), for the "source"
	// breakdown: files of one player's games are not a population sample.
	Source     int
	SourceName string
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

// Positions replays a parsed game and returns one Position per move (fewer
// if a move is unreadable: the game is cut there, and ok is false). The
// Games are independent clones.
func Positions(g *pgn.Game) (ps []Position, ok bool) {
	b, err := board.NewGame(g.FEN)
	if err != nil {
		return nil, false
	}
	rec := games.RecordOf(g)
	class := games.ClassOf(g.TimeControl)
	ps = make([]Position, 0, len(g.Moves))
	for i, san := range g.Moves {
		m, err := b.ParseSAN(san)
		if err != nil {
			return ps, false
		}
		ctx := rec.Context(b)
		mc := rec.ClockAfter(i - 2)
		p := Position{
			Game: b.Clone(), Move: m, Ply: i, Ctx: ctx, Class: class, MoverClock: mc, Material: material(b),
			// Ratings are whole numbers, exact in the Context; unknown is -1 there too.
			MoverRating: int(ctx.MoverRating), OppRating: int(ctx.OppRating),
		}
		p.Maia = i >= MaiaSkipPlies && (mc < 0 || mc >= MaiaMinClock)
		p.Result, p.HasResult = board.MoverResult(g.Result, b.WhiteToMove())
		p.Seconds = board.ThinkSpent(mc, rec.ClockAfter(i), max(rec.Inc, 0))
		p.Eval = pgn.MoverEval(g.Evals, i, b.WhiteToMove())
		ps = append(ps, p)
		if err := b.PlayMove(m); err != nil {
			return ps, false
		}
	}
	return ps, true
}

// isBot reports whether either player is a BOT account.
func isBot(g *pgn.Game) bool {
	return strings.EqualFold(g.WhiteTitle, "BOT") || strings.EqualFold(g.BlackTitle, "BOT")
}

// InSplit reports whether a game belongs to split: "" or "all" every game,
// "validation" the games train/data/prep puts in validation at fraction,
// "train" the others.
func InSplit(g *pgn.Game, split string, fraction float64) bool {
	switch split {
	case "", "all":
		return true
	case "validation":
		return games.IsValidation(games.ID(g), fraction)
	case "train":
		return !games.IsValidation(games.ID(g), fraction)
	}
	return false
}
