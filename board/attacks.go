package board

import "math/bits"

// Attack tables on a mailbox with absolute colours (white pawns move up).
// They serve FEN validation, hashing and the derived inputs of Contract.Fill,
// which works on an Encoded's tokens (where the mover plays "up" as White).

var (
	knightMask [64]uint64
	kingMask   [64]uint64
	// rays[d][s] lists the squares from s in direction d, nearest first;
	// rayMask[d][s] is the same set as a bitmask.
	rays    [8][64][]Square
	rayMask [8][64]uint64
)

var dirs = [8][2]int{{0, 1}, {0, -1}, {1, 0}, {-1, 0}, {1, 1}, {1, -1}, {-1, 1}, {-1, -1}} // (file, rank) steps; 0-3 rook, 4-7 bishop

func init() {
	for s := 0; s < 64; s++ {
		f, r := s&7, s>>3
		for _, d := range [][2]int{{1, 2}, {2, 1}, {-1, 2}, {-2, 1}, {1, -2}, {2, -1}, {-1, -2}, {-2, -1}} {
			if ff, rr := f+d[0], r+d[1]; ff >= 0 && ff < 8 && rr >= 0 && rr < 8 {
				knightMask[s] |= 1 << uint(rr*8+ff)
			}
		}
		for df := -1; df <= 1; df++ {
			for dr := -1; dr <= 1; dr++ {
				if ff, rr := f+df, r+dr; (df != 0 || dr != 0) && ff >= 0 && ff < 8 && rr >= 0 && rr < 8 {
					kingMask[s] |= 1 << uint(rr*8+ff)
				}
			}
		}
		for d, st := range dirs {
			for ff, rr := f+st[0], r+st[1]; ff >= 0 && ff < 8 && rr >= 0 && rr < 8; ff, rr = ff+st[0], rr+st[1] {
				rays[d][s] = append(rays[d][s], Square(rr*8+ff))
				rayMask[d][s] |= 1 << uint(rr*8+ff)
			}
		}
	}
}

// attackers returns the set (bit s = square s) of pieces of colour by that
// attack square sq.
func attackers(mb *[64]Piece, sq Square, by Color) uint64 {
	var set uint64
	f, r := sq.File(), sq.Rank()
	pawn := NewPiece(Pawn, by)
	if by == White && r > 0 {
		if f > 0 && mb[sq-9] == pawn {
			set |= 1 << (sq - 9)
		}
		if f < 7 && mb[sq-7] == pawn {
			set |= 1 << (sq - 7)
		}
	}
	if by == Black && r < 7 {
		if f > 0 && mb[sq+7] == pawn {
			set |= 1 << (sq + 7)
		}
		if f < 7 && mb[sq+9] == pawn {
			set |= 1 << (sq + 9)
		}
	}
	knight, king := NewPiece(Knight, by), NewPiece(King, by)
	for m := knightMask[sq]; m != 0; m &= m - 1 {
		if s := bits.TrailingZeros64(m); mb[s] == knight {
			set |= 1 << uint(s)
		}
	}
	for m := kingMask[sq]; m != 0; m &= m - 1 {
		if s := bits.TrailingZeros64(m); mb[s] == king {
			set |= 1 << uint(s)
		}
	}
	queen := NewPiece(Queen, by)
	for d := 0; d < 8; d++ {
		slider := NewPiece(Rook, by)
		if d >= 4 {
			slider = NewPiece(Bishop, by)
		}
		for _, s := range rays[d][sq] {
			p := mb[s]
			if p == NoPiece {
				continue
			}
			if p == slider || p == queen {
				set |= 1 << s
			}
			break
		}
	}
	return set
}

// attackMap returns the set of squares attacked by the pieces of colour c.
func attackMap(mb *[64]Piece, c Color) uint64 {
	var set uint64
	for s := 0; s < 64; s++ {
		p := mb[s]
		if p == NoPiece || p.Color() != c {
			continue
		}
		f, r := s&7, s>>3
		switch p.Type() {
		case Pawn:
			dr := 1
			if c == Black {
				dr = -1
			}
			if rr := r + dr; rr >= 0 && rr < 8 {
				if f > 0 {
					set |= 1 << uint(rr*8+f-1)
				}
				if f < 7 {
					set |= 1 << uint(rr*8+f+1)
				}
			}
		case Knight:
			set |= knightMask[s]
		case King:
			set |= kingMask[s]
		default:
			d0, d1 := 0, 8
			switch p.Type() {
			case Rook:
				d1 = 4
			case Bishop:
				d0 = 4
			}
			for d := d0; d < d1; d++ {
				for _, t := range rays[d][s] {
					set |= 1 << t
					if mb[t] != NoPiece {
						break
					}
				}
			}
		}
	}
	return set
}

// kingSquare returns the square of c's king, or NoSquare.
func kingSquare(mb *[64]Piece, c Color) Square {
	k := NewPiece(King, c)
	for s := 0; s < 64; s++ {
		if mb[s] == k {
			return Square(s)
		}
	}
	return NoSquare
}

// inCheck reports whether c's king is attacked.
func inCheck(mb *[64]Piece, c Color) bool {
	k := kingSquare(mb, c)
	return k != NoSquare && attackers(mb, k, c.Other()) != 0
}
