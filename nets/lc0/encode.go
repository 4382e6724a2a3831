package lc0

import (
	"fmt"

	"github.com/humchess/humchess/board"
)

// Input planes of the classical 112-plane format.
const (
	InputPlanes    = 112 // planes per position
	HistoryLen     = 8   // positions of history
	planesPerBoard = 13  // own P N B R Q K, opponent's, repetition
	auxBase        = HistoryLen * planesPerBoard
)

// Position is one position of a game, in absolute colours, as the encoder
// needs it.
type Position struct {
	Squares     [64]board.Piece
	BlackToMove bool
	Castling    uint8        // board.Castle* bits
	EnPassant   board.Square // target square after a double step, or board.NoSquare
	Rule50      int          // half-moves since the last capture or pawn move
}

// sameBoard reports whether p and q are the same position for repetition
// purposes (pieces, side to move, castling, en passant).
func (p *Position) sameBoard(q *Position) bool {
	return p.Squares == q.Squares && p.BlackToMove == q.BlackToMove &&
		p.Castling == q.Castling && p.EnPassant == q.EnPassant
}

// isStartpos reports whether p is the standard initial position with full
// castling rights and White to move (Lc0's kStartposBoard).
func (p *Position) isStartpos() bool {
	return p.sameBoard(&startPos)
}

var startPos = func() Position {
	g := board.MustNewGame(board.StartFEN)
	return positionOf(g)
}()

// positionOf reads the current position of g.
func positionOf(g *board.Game) Position {
	var p Position
	for s := board.Square(0); s < 64; s++ {
		p.Squares[s] = g.PieceAt(s)
	}
	p.BlackToMove = !g.WhiteToMove()
	p.Castling = g.Castling()
	p.EnPassant = g.EnPassant()
	p.Rule50 = g.HalfMoveClock()
	return p
}

// apply returns the position after move m, which must be legal in p.
func (p Position) apply(m board.Move) (Position, error) {
	if m.From >= 64 || m.To >= 64 {
		return p, fmt.Errorf("%w: move %v", ErrInput, m)
	}
	pc := p.Squares[m.From]
	if pc == board.NoPiece || (pc.Color() == board.Black) != p.BlackToMove {
		return p, fmt.Errorf("%w: move %v does not move a piece of the side to move", ErrInput, m)
	}
	q := p
	q.EnPassant = board.NoSquare
	q.Rule50++
	capture := p.Squares[m.To] != board.NoPiece
	switch pc.Type() {
	case board.King:
		if d := int(m.To) - int(m.From); d == 2 || d == -2 {
			rf, rt := m.From+3, m.From+1
			if d < 0 {
				rf, rt = m.From-4, m.From-1
			}
			q.Squares[rt], q.Squares[rf] = q.Squares[rf], board.NoPiece
		}
	case board.Pawn:
		q.Rule50 = 0
		if m.From.File() != m.To.File() && p.Squares[m.To] == board.NoPiece {
			q.Squares[board.Square(m.From.Rank()*8+m.To.File())] = board.NoPiece
		}
		if d := int(m.To) - int(m.From); d == 16 || d == -16 {
			q.EnPassant = board.Square((int(m.From) + int(m.To)) / 2)
		}
	}
	if capture {
		q.Rule50 = 0
	}
	q.Squares[m.To], q.Squares[m.From] = pc, board.NoPiece
	if m.Promo != board.NoPieceType {
		q.Squares[m.To] = board.NewPiece(m.Promo, pc.Color())
	}
	for _, s := range [2]board.Square{m.From, m.To} {
		switch s {
		case 4:
			q.Castling &^= board.CastleWK | board.CastleWQ
		case 0:
			q.Castling &^= board.CastleWQ
		case 7:
			q.Castling &^= board.CastleWK
		case 60:
			q.Castling &^= board.CastleBK | board.CastleBQ
		case 56:
			q.Castling &^= board.CastleBQ
		case 63:
			q.Castling &^= board.CastleBK
		}
	}
	q.BlackToMove = !p.BlackToMove
	return q, nil
}

// History returns the positions of g from its start FEN to its current
// position (oldest first), replaying g's moves.
func History(g *board.Game) ([]Position, error) {
	if g == nil {
		return nil, fmt.Errorf("%w: nil game", ErrInput)
	}
	start, err := board.NewGame(g.StartFEN())
	if err != nil {
		return nil, fmt.Errorf("%w: start FEN: %v", ErrInput, err)
	}
	moves := g.Moves()
	h := make([]Position, 1, len(moves)+1)
	h[0] = positionOf(start)
	for _, m := range moves {
		next, err := h[len(h)-1].apply(m)
		if err != nil {
			return nil, err
		}
		h = append(h, next)
	}
	return h, nil
}

// repeated reports, for each position of h, whether it occurred before
// (Lc0's repetitions >= 1: an earlier identical position within the
// rule-50 window, an even number of plies back).
func repeated(h []Position, from int) []bool {
	out := make([]bool, len(h))
	for j := from; j < len(h); j++ {
		if j < 0 || h[j].Rule50 < 4 {
			continue
		}
		for i := j - 2; i >= 0; i -= 2 {
			if h[i].sameBoard(&h[j]) {
				out[j] = true
				break
			}
			if h[i].Rule50 < 2 {
				break
			}
		}
	}
	return out
}

// EncodeHistory writes the 112 input planes (InputPlanes x 64 floats,
// square a1=0 .. h8=63 within a plane) of the last position of h into dst,
// as Lc0 encodes INPUT_CLASSICAL_112_PLANE with history fill "fen_only":
// for each of the last 8 positions (newest first) 13 planes (mover's
// P N B R Q K, opponent's, repetition), all in the current mover's frame
// (ranks mirrored when Black is to move); then castling (mover O-O-O, mover
// O-O, opponent O-O-O, opponent O-O), Black to move, the rule-50 count,
// zeros and ones. Before the first position of h, the first position is
// repeated unless it is the standard start position (then the planes stay
// zero), with the last double pawn step undone as Lc0 does.
func EncodeHistory(h []Position, dst []float32) error {
	if len(h) == 0 {
		return fmt.Errorf("%w: empty history", ErrInput)
	}
	if len(dst) != InputPlanes*64 {
		return fmt.Errorf("%w: %d floats for the planes, want %d", ErrInput, len(dst), InputPlanes*64)
	}
	clear(dst)
	last := &h[len(h)-1]
	black := last.BlackToMove
	them := board.Black
	if black {
		them = board.White
	}
	fill := func(plane int, v float32) {
		p := dst[plane*64 : plane*64+64]
		for i := range p {
			p[i] = v
		}
	}
	ck, cq, ok, oq := board.CastleWK, board.CastleWQ, board.CastleBK, board.CastleBQ
	if black {
		ck, cq, ok, oq = board.CastleBK, board.CastleBQ, board.CastleWK, board.CastleWQ
	}
	if last.Castling&cq != 0 {
		fill(auxBase+0, 1)
	}
	if last.Castling&ck != 0 {
		fill(auxBase+1, 1)
	}
	if last.Castling&oq != 0 {
		fill(auxBase+2, 1)
	}
	if last.Castling&ok != 0 {
		fill(auxBase+3, 1)
	}
	if black {
		fill(auxBase+4, 1)
	}
	fill(auxBase+5, float32(last.Rule50))
	fill(auxBase+7, 1)

	first := len(h) - HistoryLen
	rep := repeated(h, max(first, 0))
	for i := 0; i < HistoryLen; i++ {
		idx := len(h) - 1 - i
		pos := &h[max(idx, 0)]
		if idx < 0 && pos.isStartpos() {
			break
		}
		base := i * planesPerBoard
		for s := 0; s < 64; s++ {
			pc := pos.Squares[s]
			if pc == board.NoPiece {
				continue
			}
			plane := int(pc.Type()) - 1
			if pc.Color() == them {
				plane += 6
			}
			sq := s
			if black {
				sq ^= 56
			}
			dst[(base+plane)*64+sq] = 1
		}
		if idx >= 0 && rep[idx] {
			fill(base+12, 1)
		}
		if idx < 0 && pos.EnPassant != board.NoSquare {
			// Undo the double step that made the en-passant square, so the
			// repeated start position looks like the one before it.
			ep := int(pos.EnPassant)
			pawnTo, pawnFrom := ep+8, ep-8 // white pawn went from ep-8 to ep+8
			if ep>>3 == 5 {
				pawnTo, pawnFrom = ep-8, ep+8 // black pawn went from ep+8 to ep-8
			}
			mover := board.White
			if ep>>3 == 5 {
				mover = board.Black
			}
			plane := 0
			if mover == them {
				plane = 6
			}
			if black {
				pawnTo, pawnFrom = pawnTo^56, pawnFrom^56
			}
			dst[(base+plane)*64+pawnTo] = 0
			dst[(base+plane)*64+pawnFrom] = 1
		}
	}
	return nil
}

// EncodeGame writes the input planes of g's current position into dst
// (InputPlanes x 64 floats).
func EncodeGame(g *board.Game, dst []float32) error {
	h, err := History(g)
	if err != nil {
		return err
	}
	return EncodeHistory(h, dst)
}
