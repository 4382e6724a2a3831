package policy

import "github.com/humchess/humchess/board"

// Recapture reports whether m, a legal move in g, takes back on the square
// where the opponent's last move captured (en passant included). It
// replays g's moves to the position before that last move (microseconds
// for a game's length); a game with no move played is never a recapture.
func Recapture(g *board.Game, m board.Move) bool {
	last, ok := g.LastMove()
	if !ok || last.To != m.To || g.PieceAt(m.To) == board.NoPiece {
		return false
	}
	prev, err := board.NewGame(g.StartFEN())
	if err != nil {
		return false // g was made from this FEN: it parses
	}
	moves := g.Moves()
	for _, mv := range moves[:len(moves)-1] {
		if err := prev.PlayMove(mv); err != nil {
			return false // g played these moves: they are legal
		}
	}
	if prev.PieceAt(last.To) != board.NoPiece {
		return true
	}
	// En passant: a pawn moving diagonally onto an empty square.
	return prev.PieceAt(last.From).Type() == board.Pawn && last.From.File() != last.To.File()
}
