package lc0

import (
	"fmt"

	"github.com/humchess/humchess/board"
)

// NumMoves is the size of Lc0's policy output (its move index).
const NumMoves = 1858

// PolicyPlanes is the number of 8x8 planes of a convolutional policy head
// that map to the move index (56 queen-line, 8 knight, 9 underpromotion
// planes; Lc0's policy convolution has 80 filters, the rest are unused).
const PolicyPlanes = 73

// Promo is a promotion piece in Lc0's move index.
type Promo uint8

// Promotions. A knight promotion shares the plain from-to entry (PromoNone);
// queen, rook and bishop promotions from the 7th rank have their own entries.
const (
	PromoNone Promo = iota
	PromoQueen
	PromoRook
	PromoBishop
)

// IndexedMove is one entry of Lc0's move index, in the mover's frame (ranks
// mirrored for Black). Castling is king-to-rook (e1h1, e1a1).
type IndexedMove struct {
	From, To board.Square
	Promo    Promo
}

// String returns the entry in UCI form, with the promotion letter for
// queen, rook and bishop entries ("a7a8q").
func (m IndexedMove) String() string {
	return m.From.String() + m.To.String() + [...]string{"", "q", "r", "b"}[m.Promo&3]
}

var (
	idxToMove  [NumMoves]IndexedMove
	moveToIdx  [4][64][64]int16 // [promo][from][to] -> index, -1 if none
	convPolMap [PolicyPlanes * 64]int16
)

// Directions in Lc0's convolutional policy order: N, NE, E, SE, S, SW, W, NW
// as (file, rank) steps; knight jumps in the same order.
var (
	queenDirs  = [8][2]int{{0, 1}, {1, 1}, {1, 0}, {1, -1}, {0, -1}, {-1, -1}, {-1, 0}, {-1, 1}}
	knightDirs = [8][2]int{{1, 2}, {2, 1}, {2, -1}, {1, -2}, {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}}
)

func init() {
	for p := range moveToIdx {
		for f := range moveToIdx[p] {
			for t := range moveToIdx[p][f] {
				moveToIdx[p][f][t] = -1
			}
		}
	}
	// Plain moves: every queen-line and knight destination of every square,
	// from-squares ascending, destinations ascending.
	n := 0
	for from := 0; from < 64; from++ {
		var dest [64]bool
		ff, fr := from&7, from>>3
		for _, d := range queenDirs {
			for k := 1; k < 8; k++ {
				f, r := ff+d[0]*k, fr+d[1]*k
				if f < 0 || f > 7 || r < 0 || r > 7 {
					break
				}
				dest[r*8+f] = true
			}
		}
		for _, d := range knightDirs {
			f, r := ff+d[0], fr+d[1]
			if f >= 0 && f <= 7 && r >= 0 && r <= 7 {
				dest[r*8+f] = true
			}
		}
		for to := 0; to < 64; to++ {
			if dest[to] {
				idxToMove[n] = IndexedMove{From: board.Square(from), To: board.Square(to)}
				moveToIdx[PromoNone][from][to] = int16(n)
				n++
			}
		}
	}
	// Promotions to queen, rook, bishop from the 7th rank.
	for from := 48; from < 56; from++ {
		for to := from + 7; to <= from+9; to++ {
			if to < 56 || to > 63 || abs(to&7-from&7) > 1 {
				continue
			}
			for _, p := range [3]Promo{PromoQueen, PromoRook, PromoBishop} {
				idxToMove[n] = IndexedMove{From: board.Square(from), To: board.Square(to), Promo: p}
				moveToIdx[p][from][to] = int16(n)
				n++
			}
		}
	}
	if n != NumMoves {
		panic(fmt.Sprintf("lc0: move index has %d entries, want %d", n, NumMoves))
	}

	// Convolutional policy map: plane*64 + from-square -> move index.
	for i := range convPolMap {
		convPolMap[i] = -1
	}
	at := func(from, df, dr int) (int, bool) {
		f, r := from&7+df, from>>3+dr
		return r*8 + f, f >= 0 && f <= 7 && r >= 0 && r <= 7
	}
	for di, d := range queenDirs {
		for k := 1; k < 8; k++ {
			for from := 0; from < 64; from++ {
				if to, ok := at(from, d[0]*k, d[1]*k); ok {
					convPolMap[(di*7+k-1)*64+from] = moveToIdx[PromoNone][from][to]
				}
			}
		}
	}
	for di, d := range knightDirs {
		for from := 0; from < 64; from++ {
			if to, ok := at(from, d[0], d[1]); ok {
				convPolMap[(56+di)*64+from] = moveToIdx[PromoNone][from][to]
			}
		}
	}
	// Underpromotion planes: directions NW, N, NE; pieces rook, bishop, queen.
	plane := 64
	for _, df := range [3]int{-1, 0, 1} {
		for _, p := range [3]Promo{PromoRook, PromoBishop, PromoQueen} {
			for from := 48; from < 56; from++ {
				if to, ok := at(from, df, 1); ok {
					convPolMap[plane*64+from] = moveToIdx[p][from][to]
				}
			}
			plane++
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// MoveIndex returns the index of a move given in the mover's frame, with
// castling written king-to-rook, or false if the index has no such entry.
// A knight promotion maps to the plain from-to entry.
func MoveIndex(m IndexedMove) (int, bool) {
	if m.From >= 64 || m.To >= 64 || m.Promo > PromoBishop {
		return 0, false
	}
	i := moveToIdx[m.Promo][m.From][m.To]
	return int(i), i >= 0
}

// IndexMove returns entry i of the move index; false when i is out of range.
func IndexMove(i int) (IndexedMove, bool) {
	if i < 0 || i >= NumMoves {
		return IndexedMove{}, false
	}
	return idxToMove[i], true
}

// ConvPolicyMap returns a copy of the map from a convolutional policy
// head's output (plane*64 + square, PolicyPlanes planes) to the move index;
// -1 marks cells that are not moves.
func ConvPolicyMap() []int16 {
	return append([]int16(nil), convPolMap[:]...)
}

// LegalIndex returns the move index of a legal move m (absolute squares, as
// board.Game gives them, castling king-to-destination) in a position where
// the piece on m.From is mover's king when kingMove is true. It mirrors the
// squares for Black and turns castling into king-to-rook as Lc0 does.
func LegalIndex(m board.Move, blackToMove, kingMove bool) (int, error) {
	if m.From >= 64 || m.To >= 64 {
		return 0, fmt.Errorf("%w: move %v", ErrInput, m)
	}
	from, to := m.From, m.To
	if blackToMove {
		from, to = from.Mirror(), to.Mirror()
	}
	if kingMove && from == 4 && (to == 6 || to == 2) {
		if to == 6 {
			to = 7
		} else {
			to = 0
		}
	}
	im := IndexedMove{From: from, To: to}
	switch m.Promo {
	case board.NoPieceType, board.Knight:
	case board.Queen:
		im.Promo = PromoQueen
	case board.Rook:
		im.Promo = PromoRook
	case board.Bishop:
		im.Promo = PromoBishop
	default:
		return 0, fmt.Errorf("%w: move %v promotes to %v", ErrInput, m, m.Promo)
	}
	i, ok := MoveIndex(im)
	if !ok {
		return 0, fmt.Errorf("%w: move %v has no entry in the policy index", ErrInput, m)
	}
	return i, nil
}
