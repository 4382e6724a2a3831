package board

import (
	"fmt"
	"strconv"
	"strings"
)

// StartFEN is the FEN of the standard start position.
const StartFEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

// Castling-right bits, as in a FEN's castling field.
const (
	CastleWK uint8 = 1 << iota // White king side (K)
	CastleWQ                   // White queen side (Q)
	CastleBK                   // Black king side (k)
	CastleBQ                   // Black queen side (q)
)

// fenInfo is a FEN parsed and checked.
type fenInfo struct {
	mb          [64]Piece
	stm         Color
	castle      uint8
	castleField string // the castling field as written ("KQkq", "-")
	ep          Square
	half        int
	fullmove    int
	norm        string // the FEN with single spaces and all six fields
}

func fenErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrBadFEN}, args...)...)
}

// parseFEN parses and validates a FEN strictly (notnil/chess's parser is
// lenient). Four fields are accepted (clocks default to "0 1").
func parseFEN(fen string) (fenInfo, error) {
	var fi fenInfo
	fields := strings.Fields(fen)
	if len(fields) == 4 {
		fields = append(fields, "0", "1")
	}
	if len(fields) != 6 {
		return fi, fenErr("%q has %d fields, want 6", fen, len(fields))
	}
	// Board.
	ranks := strings.Split(fields[0], "/")
	if len(ranks) != 8 {
		return fi, fenErr("board %q has %d ranks, want 8", fields[0], len(ranks))
	}
	var kings, counts [2]int
	var pawns [2]int
	for i, r := range ranks {
		rank := 7 - i
		file := 0
		lastDigit := false
		for j := 0; j < len(r); j++ {
			c := r[j]
			if c >= '1' && c <= '8' {
				if lastDigit {
					return fi, fenErr("rank %q has two digits in a row", r)
				}
				lastDigit = true
				file += int(c - '0')
				continue
			}
			lastDigit = false
			idx := strings.IndexByte(".PNBRQKpnbrqk", c)
			if idx <= 0 {
				return fi, fenErr("bad piece letter %q in rank %q", c, r)
			}
			if file >= 8 {
				return fi, fenErr("rank %q is longer than 8 squares", r)
			}
			p := Piece(idx)
			if p.Type() == Pawn && (rank == 0 || rank == 7) {
				return fi, fenErr("pawn on rank %d", rank+1)
			}
			col := p.Color()
			counts[col]++
			if p.Type() == King {
				kings[col]++
			}
			if p.Type() == Pawn {
				pawns[col]++
			}
			fi.mb[rank*8+file] = p
			file++
		}
		if file != 8 {
			return fi, fenErr("rank %q covers %d squares, want 8", r, file)
		}
	}
	for c, name := range []string{"white", "black"} {
		if kings[c] != 1 {
			return fi, fenErr("%d %s kings, want 1", kings[c], name)
		}
		if pawns[c] > 8 || counts[c] > 16 {
			return fi, fenErr("too many %s pieces (%d, %d pawns)", name, counts[c], pawns[c])
		}
	}
	// Side to move.
	switch fields[1] {
	case "w":
		fi.stm = White
	case "b":
		fi.stm = Black
	default:
		return fi, fenErr("side to move %q, want w or b", fields[1])
	}
	// Castling.
	if fields[2] != "-" {
		for j := 0; j < len(fields[2]); j++ {
			bit := castleBit(fields[2][j])
			if bit == 0 {
				return fi, fenErr("castling field %q has bad letter %q", fields[2], fields[2][j])
			}
			if fi.castle&bit != 0 {
				return fi, fenErr("castling field %q repeats %q", fields[2], fields[2][j])
			}
			fi.castle |= bit
		}
	}
	type need struct {
		bit        uint8
		king, rook Square
		k, r       Piece
	}
	for _, n := range []need{
		{CastleWK, 4, 7, NewPiece(King, White), NewPiece(Rook, White)},
		{CastleWQ, 4, 0, NewPiece(King, White), NewPiece(Rook, White)},
		{CastleBK, 60, 63, NewPiece(King, Black), NewPiece(Rook, Black)},
		{CastleBQ, 60, 56, NewPiece(King, Black), NewPiece(Rook, Black)},
	} {
		if fi.castle&n.bit != 0 && (fi.mb[n.king] != n.k || fi.mb[n.rook] != n.r) {
			return fi, fenErr("castling right %q without king on %s and rook on %s", fields[2], n.king, n.rook)
		}
	}
	// En passant.
	fi.ep = NoSquare
	if fields[3] != "-" {
		sq, err := ParseSquare(fields[3])
		if err != nil {
			return fi, fenErr("en-passant field %q", fields[3])
		}
		// The pawn that just made a double step sits in front of sq.
		wantRank, pawnSq, origin := 5, sq-8, sq+8
		if fi.stm == Black {
			wantRank, pawnSq, origin = 2, sq+8, sq-8
		}
		if sq.Rank() != wantRank || fi.mb[pawnSq] != NewPiece(Pawn, fi.stm.Other()) ||
			fi.mb[sq] != NoPiece || fi.mb[origin] != NoPiece {
			return fi, fenErr("en-passant square %s impossible with %s to move", sq, fi.stm.Name())
		}
		fi.ep = sq
	}
	// Clocks.
	h, err := strconv.Atoi(fields[4])
	if err != nil || h < 0 {
		return fi, fenErr("half-move clock %q", fields[4])
	}
	f, err := strconv.Atoi(fields[5])
	if err != nil || f < 1 {
		return fi, fenErr("move number %q", fields[5])
	}
	fi.half, fi.fullmove = h, f
	fi.castleField = fields[2]
	// The side not to move must not be in check.
	if inCheck(&fi.mb, fi.stm.Other()) {
		return fi, fenErr("%s is in check but %s is to move", fi.stm.Other().Name(), fi.stm.Name())
	}
	fi.norm = strings.Join(fields, " ")
	return fi, nil
}

// castleBit is the castling right a FEN letter (KQkq) stands for, or 0.
func castleBit(c byte) uint8 {
	switch c {
	case 'K':
		return CastleWK
	case 'Q':
		return CastleWQ
	case 'k':
		return CastleBK
	case 'q':
		return CastleBQ
	}
	return 0
}
