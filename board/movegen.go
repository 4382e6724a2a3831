package board

import "math/bits"

// The legal-move generator. Pseudo-legal moves come from the mailbox; pins
// and checks are found by walking the rays from the king, so that most moves
// are accepted without playing them. King moves are tested with the king
// lifted off the board, en-passant captures by playing them on a copy.
//
// The order is notnil/chess's (tested move by move against it): pieces K, Q,
// R, B, N, P; from-squares ascending; to-squares ascending; promotions Q, R,
// B, N; then castling, king side before queen side.

// position is the state that decides the legal moves and the FEN.
type position struct {
	mb     [64]Piece // absolute colours, a1=0
	castle uint8     // Castle* bits
	stm    Color     // side to move
	ep     Square    // en-passant target after a double step (as in the FEN), or NoSquare
	half   int       // half-move clock, plies
	full   int       // full-move number
}

// pieceTypeOf and pieceColorOf are Piece.Type and Piece.Color as tables.
var (
	pieceTypeOf  = [16]PieceType{0, Pawn, Knight, Bishop, Rook, Queen, King, Pawn, Knight, Bishop, Rook, Queen, King}
	pieceColorOf = [16]Color{0, White, White, White, White, White, White, Black, Black, Black, Black, Black, Black}
)

// genOrder is the order of the non-king piece types in notnil's generation.
var genOrder = [5]PieceType{Queen, Rook, Bishop, Knight, Pawn}

// appendLegal appends the legal moves of p to dst (notnil/chess order).
// It does not allocate beyond dst's growth.
func (p *position) appendLegal(dst []Move) []Move {
	mb := &p.mb
	us, them := p.stm, p.stm.Other()
	var own, opp, oppRQ, oppBQ uint64
	var byType [7]uint64 // own pieces by type
	for s := 0; s < 64; s++ {
		pc := mb[s]
		if pc == NoPiece {
			continue
		}
		bit := uint64(1) << s
		t := pieceTypeOf[pc]
		if pieceColorOf[pc] == us {
			own |= bit
			byType[t] |= bit
			continue
		}
		opp |= bit
		switch t {
		case Queen:
			oppRQ |= bit
			oppBQ |= bit
		case Rook:
			oppRQ |= bit
		case Bishop:
			oppBQ |= bit
		}
	}
	target := ^own
	ownKing := NewPiece(King, us)

	// Checks and pins, from the king outwards.
	ksq := NoSquare
	checks := 0
	evasion := ^uint64(0) // where a non-king move must land to answer a single check
	var pinned uint64
	var pinSq [8]Square
	var pinLine [8]uint64
	npins := 0
	if byType[King] != 0 {
		ksq = Square(bits.TrailingZeros64(byType[King]))
		for d := 0; d < 8; d++ {
			sliders := oppRQ
			if d >= 4 {
				sliders = oppBQ
			}
			if rayMask[d][ksq]&sliders == 0 {
				continue
			}
			var path uint64
			pin := NoSquare
			for _, s := range rays[d][ksq] {
				path |= 1 << s
				bit := uint64(1) << s
				if own&bit != 0 {
					if pin != NoSquare {
						break
					}
					pin = s
					continue
				}
				if opp&bit == 0 {
					continue
				}
				if sliders&bit != 0 {
					if pin == NoSquare {
						checks++
						evasion = path
					} else {
						pinned |= 1 << pin
						pinSq[npins], pinLine[npins] = pin, rayMask[d][ksq]
						npins++
					}
				}
				break
			}
		}
		knight := NewPiece(Knight, them)
		for m := knightMask[ksq] & opp; m != 0; m &= m - 1 {
			if s := bits.TrailingZeros64(m); mb[s] == knight {
				checks++
				evasion = 1 << s
			}
		}
		pawn := NewPiece(Pawn, them)
		f, r := ksq.File(), ksq.Rank()
		if us == White && r < 7 {
			if f > 0 && mb[ksq+7] == pawn {
				checks++
				evasion = 1 << (ksq + 7)
			}
			if f < 7 && mb[ksq+9] == pawn {
				checks++
				evasion = 1 << (ksq + 9)
			}
		}
		if us == Black && r > 0 {
			if f > 0 && mb[ksq-9] == pawn {
				checks++
				evasion = 1 << (ksq - 9)
			}
			if f < 7 && mb[ksq-7] == pawn {
				checks++
				evasion = 1 << (ksq - 7)
			}
		}

		// King moves, tested with the king lifted so that sliders see through it.
		mb[ksq] = NoPiece
		for m := kingMask[ksq] & target; m != 0; m &= m - 1 {
			to := Square(bits.TrailingZeros64(m))
			if !attacked(mb, to, them) {
				dst = append(dst, Move{From: ksq, To: to})
			}
		}
		mb[ksq] = ownKing
	}
	if checks < 2 {
		for _, t := range genOrder {
			for b := byType[t]; b != 0; b &= b - 1 {
				from := Square(bits.TrailingZeros64(b))
				var m uint64
				switch t {
				case Knight:
					m = knightMask[from] & target
				case Pawn:
					m = pawnPushes(mb, from, us) | pawnAttacks[us][from]&opp
				default:
					d0, d1 := 0, 8
					if t == Rook {
						d1 = 4
					} else if t == Bishop {
						d0 = 4
					}
					for d := d0; d < d1; d++ {
						for _, s := range rays[d][from] {
							bit := uint64(1) << s
							if own&bit != 0 {
								break
							}
							m |= bit
							if opp&bit != 0 {
								break
							}
						}
					}
				}
				m &= evasion
				if pinned&(1<<from) != 0 {
					for i := 0; i < npins; i++ {
						if pinSq[i] == from {
							m &= pinLine[i]
						}
					}
				}
				if t == Pawn && p.ep != NoSquare && pawnAttacks[us][from]&(1<<p.ep) != 0 && p.epLegal(from, ksq) {
					m |= 1 << p.ep
				}
				for ; m != 0; m &= m - 1 {
					to := Square(bits.TrailingZeros64(m))
					if t == Pawn && (to.Rank() == 7 || to.Rank() == 0) {
						dst = append(dst, Move{from, to, Queen}, Move{from, to, Rook}, Move{from, to, Bishop}, Move{from, to, Knight})
						continue
					}
					dst = append(dst, Move{From: from, To: to})
				}
			}
		}
	}
	// Castling: not out of, through or into check.
	if checks == 0 && p.castle != 0 {
		if us == White && ksq == 4 {
			if p.castle&CastleWK != 0 && mb[5] == NoPiece && mb[6] == NoPiece && !attacked(mb, 5, them) && !attacked(mb, 6, them) {
				dst = append(dst, Move{From: 4, To: 6})
			}
			if p.castle&CastleWQ != 0 && mb[1] == NoPiece && mb[2] == NoPiece && mb[3] == NoPiece && !attacked(mb, 2, them) && !attacked(mb, 3, them) {
				dst = append(dst, Move{From: 4, To: 2})
			}
		}
		if us == Black && ksq == 60 {
			if p.castle&CastleBK != 0 && mb[61] == NoPiece && mb[62] == NoPiece && !attacked(mb, 61, them) && !attacked(mb, 62, them) {
				dst = append(dst, Move{From: 60, To: 62})
			}
			if p.castle&CastleBQ != 0 && mb[57] == NoPiece && mb[58] == NoPiece && mb[59] == NoPiece && !attacked(mb, 58, them) && !attacked(mb, 59, them) {
				dst = append(dst, Move{From: 60, To: 58})
			}
		}
	}
	return dst
}

// pawnAttacks[c][s] is the set of squares a pawn of colour c on s attacks.
var pawnAttacks [2][64]uint64

func init() {
	for s := 0; s < 64; s++ {
		f, r := s&7, s>>3
		if r < 7 {
			if f > 0 {
				pawnAttacks[White][s] |= 1 << (s + 7)
			}
			if f < 7 {
				pawnAttacks[White][s] |= 1 << (s + 9)
			}
		}
		if r > 0 {
			if f > 0 {
				pawnAttacks[Black][s] |= 1 << (s - 9)
			}
			if f < 7 {
				pawnAttacks[Black][s] |= 1 << (s - 7)
			}
		}
	}
}

// pawnPushes returns the one- and two-square pushes of the pawn on from.
func pawnPushes(mb *[64]Piece, from Square, us Color) uint64 {
	var m uint64
	if us == White {
		if from < 56 && mb[from+8] == NoPiece {
			m = 1 << (from + 8)
			if from.Rank() == 1 && mb[from+16] == NoPiece {
				m |= 1 << (from + 16)
			}
		}
		return m
	}
	if from >= 8 && mb[from-8] == NoPiece {
		m = 1 << (from - 8)
		if from.Rank() == 6 && mb[from-16] == NoPiece {
			m |= 1 << (from - 16)
		}
	}
	return m
}

// epLegal reports whether the en-passant capture from `from` leaves the
// mover's king (on ksq, or NoSquare) safe; it plays it on a copy.
func (p *position) epLegal(from, ksq Square) bool {
	if ksq == NoSquare {
		return true
	}
	mb := p.mb
	capSq := Square(from.Rank()*8 + p.ep.File())
	mb[p.ep], mb[from], mb[capSq] = mb[from], NoPiece, NoPiece
	return !attacked(&mb, ksq, p.stm.Other())
}

// attacked reports whether a piece of colour by attacks sq (attackers != 0,
// stopping at the first attacker).
func attacked(mb *[64]Piece, sq Square, by Color) bool {
	if pawnAttacks[by.Other()][sq] != 0 {
		pawn := NewPiece(Pawn, by)
		for m := pawnAttacks[by.Other()][sq]; m != 0; m &= m - 1 {
			if mb[bits.TrailingZeros64(m)] == pawn {
				return true
			}
		}
	}
	knight := NewPiece(Knight, by)
	for m := knightMask[sq]; m != 0; m &= m - 1 {
		if mb[bits.TrailingZeros64(m)] == knight {
			return true
		}
	}
	king := NewPiece(King, by)
	for m := kingMask[sq]; m != 0; m &= m - 1 {
		if mb[bits.TrailingZeros64(m)] == king {
			return true
		}
	}
	queen, rook, bishop := NewPiece(Queen, by), NewPiece(Rook, by), NewPiece(Bishop, by)
	for d := 0; d < 8; d++ {
		slider := rook
		if d >= 4 {
			slider = bishop
		}
		for _, s := range rays[d][sq] {
			pc := mb[s]
			if pc == NoPiece {
				continue
			}
			if pc == slider || pc == queen {
				return true
			}
			break
		}
	}
	return false
}

// play plays m, which must be legal, on p.
func (p *position) play(m Move) {
	pc := p.mb[m.From]
	capture := p.mb[m.To] != NoPiece
	switch pieceTypeOf[pc] {
	case King:
		if int(m.To)-int(m.From) == 2 || int(m.From)-int(m.To) == 2 {
			rookFrom, rookTo := m.From+3, m.From+1
			if m.To < m.From {
				rookFrom, rookTo = m.From-4, m.From-1
			}
			p.mb[rookTo], p.mb[rookFrom] = p.mb[rookFrom], NoPiece
		}
	case Pawn:
		if m.From.File() != m.To.File() && !capture {
			p.mb[Square(m.From.Rank()*8+m.To.File())] = NoPiece // en passant
		}
	}
	p.mb[m.To], p.mb[m.From] = pc, NoPiece
	if m.Promo != NoPieceType {
		p.mb[m.To] = NewPiece(m.Promo, p.stm)
	}
	if p.castle != 0 {
		p.castle &^= castleLost[m.From] | castleLost[m.To]
	}
	if pieceTypeOf[pc] == Pawn || capture {
		p.half = 0
	} else {
		p.half++
	}
	if p.stm == Black {
		p.full++
	}
	p.ep = NoSquare
	if pieceTypeOf[pc] == Pawn && (int(m.To)-int(m.From) == 16 || int(m.From)-int(m.To) == 16) {
		p.ep = (m.From + m.To) / 2
	}
	p.stm = p.stm.Other()
}

// castleLost[s] is the castling rights lost when a move leaves or lands on s.
var castleLost = [64]uint8{
	0: CastleWQ, 4: CastleWK | CastleWQ, 7: CastleWK,
	56: CastleBQ, 60: CastleBK | CastleBQ, 63: CastleBK,
}

// perft counts the leaves of the legal-move tree under p to depth plies.
// p is passed by value: a pointer would escape through the recursion.
func perft(p position, depth int) uint64 {
	if depth <= 0 {
		return 1
	}
	var buf [256]Move
	moves := p.appendLegal(buf[:0])
	if depth == 1 {
		return uint64(len(moves))
	}
	var n uint64
	for _, m := range moves {
		c := p
		c.play(m)
		n += perft(c, depth-1)
	}
	return n
}
