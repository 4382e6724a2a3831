package board

// ContractVersion is the version of the encoding contract: what a net sees
// (Encoded, Contract.Fill) and the move vocabulary. Bump it on any change;
// it is written into every shard manifest and every net's metadata.
const ContractVersion = 1

// Vocabulary sizes.
const (
	NumMoves      = 1858 // entries of the move vocabulary
	NumPlainMoves = 1792 // queen-line and knight moves from every square
	NumUnderPromo = 66   // underpromotions: 22 (from,to) pairs x knight, bishop, rook
)

// VocabName names the vocabulary in net metadata (humchess.vocab).
const VocabName = "humchess-1858"

// The vocabulary, in the mover's frame (White's view when White moves,
// ranks mirrored when Black moves):
//
//   - indices 0..1791: every (from,to) pair where to is a queen-line or knight
//     move away from from, ordered by from (a1..h8), then by to (a1..h8).
//     Queen promotions and castling (king from-to, e1g1) use these entries.
//   - indices 1792..1857: underpromotions from the 7th rank to the 8th, ordered
//     by from file (a..h), then by to file (left, straight, right), then by
//     piece (knight, bishop, rook).
var (
	vocab    [NumMoves]Move
	plainIdx [64][64]int16 // -1 when (from,to) is not in the vocabulary
	underIdx [8][3][3]int16
)

func init() {
	n := 0
	for from := 0; from < 64; from++ {
		for to := 0; to < 64; to++ {
			plainIdx[from][to] = -1
			df, dr := to&7-from&7, to>>3-from>>3
			adf, adr := abs(df), abs(dr)
			queen := (adf == 0) != (adr == 0) || (adf == adr && adf != 0)
			knight := (adf == 1 && adr == 2) || (adf == 2 && adr == 1)
			if queen || knight {
				plainIdx[from][to] = int16(n)
				vocab[n] = Move{From: Square(from), To: Square(to)}
				n++
			}
		}
	}
	for f := 0; f < 8; f++ {
		for d := 0; d < 3; d++ {
			tf := f + d - 1
			for p := 0; p < 3; p++ {
				underIdx[f][d][p] = -1
			}
			if tf < 0 || tf > 7 {
				continue
			}
			for p, pt := range [3]PieceType{Knight, Bishop, Rook} {
				underIdx[f][d][p] = int16(n)
				vocab[n] = Move{From: Square(48 + f), To: Square(56 + tf), Promo: pt}
				n++
			}
		}
	}
	if n != NumMoves {
		panic("board: vocabulary size mismatch")
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// MoveToIndex returns the vocabulary index of move m (in absolute squares)
// played by the side given by whiteToMove, and whether m has one. A queen
// promotion maps to its plain from-to entry.
func MoveToIndex(m Move, whiteToMove bool) (int, bool) {
	if m.From >= 64 || m.To >= 64 {
		return -1, false
	}
	if !whiteToMove {
		m.From, m.To = m.From^56, m.To^56
	}
	switch m.Promo {
	case NoPieceType, Queen:
		i := plainIdx[m.From][m.To]
		return int(i), i >= 0
	case Knight, Bishop, Rook:
		if m.From.Rank() != 6 || m.To.Rank() != 7 {
			return -1, false
		}
		d := m.To.File() - m.From.File() + 1
		if d < 0 || d > 2 {
			return -1, false
		}
		i := underIdx[m.From.File()][d][m.Promo-Knight]
		return int(i), i >= 0
	}
	return -1, false
}

// IndexToMove returns the move (in absolute squares) of vocabulary index i for
// the side given by whiteToMove; NullMove when i is out of range. A plain
// entry carries no promotion piece, so for a pawn reaching the last rank it
// returns the move without the queen promotion: use Game.MoveForIndex to get
// the legal move itself.
func IndexToMove(i int, whiteToMove bool) Move {
	if i < 0 || i >= NumMoves {
		return NullMove
	}
	m := vocab[i]
	if !whiteToMove {
		m.From, m.To = m.From^56, m.To^56
	}
	return m
}

// MoveForIndex returns the legal move of the position whose vocabulary index
// is i, and whether there is one.
func (g *Game) MoveForIndex(i int) (Move, bool) {
	g.ensureLegal()
	w := g.WhiteToMove()
	for _, m := range g.legal {
		if j, ok := MoveToIndex(m, w); ok && j == i {
			return m, true
		}
	}
	return NullMove, false
}

// LegalIndices appends the vocabulary indices of the legal moves, in
// LegalMoves order, to dst. Every legal move has an index (tested on real games).
func (g *Game) LegalIndices(dst []uint16) []uint16 {
	g.ensureLegal()
	w := g.WhiteToMove()
	for _, m := range g.legal {
		if j, ok := MoveToIndex(m, w); ok {
			dst = append(dst, uint16(j))
		}
	}
	return dst
}

// LegalMask sets mask[i] = true for the vocabulary index of every legal move
// and false elsewhere; mask must have NumMoves entries (shorter masks are
// filled as far as they go).
func (g *Game) LegalMask(mask []bool) {
	for i := range mask {
		mask[i] = false
	}
	g.ensureLegal()
	w := g.WhiteToMove()
	for _, m := range g.legal {
		if j, ok := MoveToIndex(m, w); ok && j < len(mask) {
			mask[j] = true
		}
	}
}
