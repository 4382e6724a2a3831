package board

// Zobrist keys, from a fixed splitmix64 stream (stable across runs).
var (
	zPiece  [13][64]uint64
	zBlack  uint64
	zCastle [16]uint64
	zEP     [8]uint64
)

func init() {
	x := uint64(0x9E3779B97F4A7C15)
	next := func() uint64 {
		x += 0x9E3779B97F4A7C15
		z := x
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
		z = (z ^ (z >> 27)) * 0x94D049BB133111EB
		return z ^ (z >> 31)
	}
	for p := 1; p < 13; p++ {
		for s := 0; s < 64; s++ {
			zPiece[p][s] = next()
		}
	}
	zBlack = next()
	for i := range zCastle {
		zCastle[i] = next()
	}
	for i := range zEP {
		zEP[i] = next()
	}
}

// hash computes the position hash from the mailbox and the notnil position.
func (g *Game) hash() uint64 {
	var h uint64
	for s, p := range g.mb {
		if p != NoPiece {
			h ^= zPiece[p][s]
		}
	}
	stm := g.SideToMove()
	if stm == Black {
		h ^= zBlack
	}
	h ^= zCastle[g.castle&15]
	if ep := g.EnPassant(); ep != NoSquare && epCapturable(&g.mb, ep, stm) {
		h ^= zEP[ep.File()]
	}
	return h
}

// epCapturable reports whether a pawn of colour stm stands next to the pawn
// that just double-stepped past ep (pseudo-legal; pins are ignored).
func epCapturable(mb *[64]Piece, ep Square, stm Color) bool {
	pawnRank := 4 // white captures from rank 5
	if stm == Black {
		pawnRank = 3
	}
	own := NewPiece(Pawn, stm)
	f := ep.File()
	return (f > 0 && mb[pawnRank*8+f-1] == own) || (f < 7 && mb[pawnRank*8+f+1] == own)
}
