package board

import (
	"fmt"
)

// Square is a board square numbered a1=0, b1=1, ..., h8=63 (notnil/chess order).
type Square uint8

// NoSquare marks "no square" (history padding, no en-passant square).
const NoSquare Square = 64

// File returns the square's file, 0 (a) to 7 (h).
func (s Square) File() int { return int(s) & 7 }

// Rank returns the square's rank, 0 (rank 1) to 7 (rank 8).
func (s Square) Rank() int { return int(s) >> 3 }

// Mirror returns the square with its rank mirrored (s^56), files kept: the
// change of frame used when Black is to move.
func (s Square) Mirror() Square {
	if s >= 64 {
		return s
	}
	return s ^ 56
}

// String returns the square in algebraic form ("e4"), or "-" for NoSquare.
func (s Square) String() string {
	if s >= 64 {
		return "-"
	}
	return string([]byte{'a' + byte(s&7), '1' + byte(s>>3)})
}

// ParseSquare parses an algebraic square such as "e4".
func ParseSquare(s string) (Square, error) {
	if len(s) != 2 || s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8' {
		return NoSquare, fmt.Errorf("%w: %q", ErrBadSquare, s)
	}
	return Square((s[1]-'1')*8 + (s[0] - 'a')), nil
}

// Color is a side: White or Black.
type Color uint8

// The two sides.
const (
	White Color = iota
	Black
)

// Other returns the opposite colour.
func (c Color) Other() Color { return c ^ 1 }

// String returns "w" or "b" (FEN letters).
func (c Color) String() string {
	if c == White {
		return "w"
	}
	return "b"
}

// Name returns "white" or "black".
func (c Color) Name() string {
	if c == White {
		return "white"
	}
	return "black"
}

// PieceType is a kind of piece, numbered as in the square tokens of the
// encoding contract: Pawn=1 .. King=6.
type PieceType uint8

// The piece types. NoPieceType is also "no promotion" in a Move.
const (
	NoPieceType PieceType = iota
	Pawn
	Knight
	Bishop
	Rook
	Queen
	King
)

// String returns the lower-case letter of the piece type ("p", "n", ...), or "" for NoPieceType.
func (p PieceType) String() string {
	if p == NoPieceType || p > King {
		return ""
	}
	return string("?pnbrqk"[p])
}

// Piece is a coloured piece in absolute colours: 0 empty, 1-6 white PNBRQK,
// 7-12 black PNBRQK.
type Piece uint8

// NoPiece is an empty square.
const NoPiece Piece = 0

// NewPiece returns the piece of type t and colour c.
func NewPiece(t PieceType, c Color) Piece {
	if t == NoPieceType {
		return NoPiece
	}
	return Piece(uint8(t) + 6*uint8(c))
}

// Type returns the piece's type.
func (p Piece) Type() PieceType {
	if p == NoPiece || p > 12 {
		return NoPieceType
	}
	return PieceType((p-1)%6 + 1)
}

// Color returns the piece's colour (White for NoPiece).
func (p Piece) Color() Color {
	if p > 6 {
		return Black
	}
	return White
}

// String returns the FEN letter of the piece ("P", "n", ...), or "." for NoPiece.
func (p Piece) String() string {
	if p == NoPiece || p > 12 {
		return "."
	}
	return string(".PNBRQKpnbrqk"[p])
}

// Move is a move as a small value: from square, to square and promotion
// piece (NoPieceType when none). Castling is the king's move (e1g1).
type Move struct {
	From  Square
	To    Square
	Promo PieceType
}

// NullMove is the zero-information move "0000".
var NullMove = Move{From: NoSquare, To: NoSquare}

// String returns the move in UCI form: "e2e4", "e7e8q", "e1g1"; "0000" for an invalid move.
func (m Move) String() string {
	if m.From >= 64 || m.To >= 64 {
		return "0000"
	}
	return m.From.String() + m.To.String() + m.Promo.String()
}

// Mirror returns the move with both squares mirrored (s^56).
func (m Move) Mirror() Move {
	return Move{From: m.From.Mirror(), To: m.To.Mirror(), Promo: m.Promo}
}

// ParseMove parses a UCI move string ("e2e4", "e7e8q") without checking legality.
func ParseMove(s string) (Move, error) {
	if len(s) != 4 && len(s) != 5 {
		return NullMove, fmt.Errorf("%w: %q", ErrBadMove, s)
	}
	from, err := ParseSquare(s[0:2])
	if err != nil {
		return NullMove, fmt.Errorf("%w: %q", ErrBadMove, s)
	}
	to, err := ParseSquare(s[2:4])
	if err != nil {
		return NullMove, fmt.Errorf("%w: %q", ErrBadMove, s)
	}
	m := Move{From: from, To: to}
	if len(s) == 5 {
		switch s[4] {
		case 'q', 'Q':
			m.Promo = Queen
		case 'r', 'R':
			m.Promo = Rook
		case 'b', 'B':
			m.Promo = Bishop
		case 'n', 'N':
			m.Promo = Knight
		default:
			return NullMove, fmt.Errorf("%w: %q", ErrBadMove, s)
		}
	}
	return m, nil
}
