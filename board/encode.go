package board

import (
	"encoding/binary"
	"fmt"
	"math"
)

// HistoryLen is the number of past moves an Encoded carries.
const HistoryLen = 8

// Context is what the net knows besides the position: both players' ratings
// and the clocks. Every field is negative when unknown; use UnknownContext
// rather than the zero value (which means rating 0 and empty clocks).
type Context struct {
	MoverRating float32 // Elo of the side to move
	OppRating   float32 // Elo of the opponent
	Base        float32 // time-control base, seconds
	Inc         float32 // time-control increment per move, seconds
	MoverClock  float32 // side to move's remaining time, seconds
	OppClock    float32 // opponent's remaining time, seconds
}

// UnknownContext returns a Context with every field unknown (-1).
func UnknownContext() Context {
	return Context{MoverRating: -1, OppRating: -1, Base: -1, Inc: -1, MoverClock: -1, OppClock: -1}
}

// Castling bits of an Encoded, in the mover's frame.
const (
	EncMoverKingSide  uint8 = 1 << iota // mover may castle king side
	EncMoverQueenSide                   // mover may castle queen side
	EncOppKingSide                      // opponent may castle king side
	EncOppQueenSide                     // opponent may castle queen side
)

// Square tokens of an Encoded: 0 empty, TokMover+t for the mover's piece of
// type t (1-6 PNBRQK), TokOpp+t for the opponent's (7-12).
const (
	TokEmpty  = 0
	TokMover  = 0 // token = TokMover + PieceType
	TokOpp    = 6 // token = TokOpp + PieceType
	NumTokens = 13
)

// Encoded holds the raw, compact facts of one position from the side to
// move's point of view (ranks mirrored, s -> s^56, and colours swapped when
// Black is to move; files kept). It is what shards store; Contract.Fill turns
// it into the net's tensors.
type Encoded struct {
	Squares      [64]uint8            // token per square in the mover's frame (see TokMover)
	Castling     uint8                // Enc* castling bits
	EPFile       int8                 // file (0-7) of a legal en-passant capture, -1 none
	HalfMove     uint16               // half-move clock, plies (saturates at 65535)
	Repetition   uint8                // earlier occurrences of this position (saturates at 255)
	History      [HistoryLen][2]uint8 // last moves as (from,to) in the mover's frame, most recent first; 64 = none
	MoverIsWhite bool                 // side to move is White
	Ctx          Context              // ratings and clocks
	Legal        []uint16             // vocabulary indices of the legal moves, ascending
}

// Encode encodes the game's current position with ctx.
func Encode(g *Game, ctx Context) Encoded {
	var e Encoded
	EncodeTo(&e, g, ctx)
	return e
}

// EncodeTo encodes into e, reusing e.Legal's storage.
func EncodeTo(e *Encoded, g *Game, ctx Context) {
	g.ensureLegal()
	stm := g.SideToMove()
	white := stm == White
	var flip Square
	if !white {
		flip = 56
	}
	for s := Square(0); s < 64; s++ {
		p := g.mb[s^flip]
		switch {
		case p == NoPiece:
			e.Squares[s] = TokEmpty
		case p.Color() == stm:
			e.Squares[s] = TokMover + uint8(p.Type())
		default:
			e.Squares[s] = TokOpp + uint8(p.Type())
		}
	}
	cr := g.castle
	if !white {
		cr = cr>>2 | (cr&3)<<2
	}
	e.Castling = cr
	e.EPFile = -1
	if ep := g.EnPassant(); ep != NoSquare {
		for _, m := range g.legal {
			if m.To == ep && g.mb[m.From].Type() == Pawn {
				e.EPFile = int8(ep.File())
				break
			}
		}
	}
	e.HalfMove = uint16(min(g.HalfMoveClock(), math.MaxUint16))
	e.Repetition = uint8(min(g.Repetitions(), math.MaxUint8))
	for k := 0; k < HistoryLen; k++ {
		i := len(g.moves) - 1 - k
		if i < 0 {
			e.History[k] = [2]uint8{64, 64}
			continue
		}
		m := g.moves[i]
		e.History[k] = [2]uint8{uint8(m.From ^ flip), uint8(m.To ^ flip)}
	}
	e.MoverIsWhite = white
	e.Ctx = ctx
	e.Legal = g.LegalIndices(e.Legal[:0])
	sortU16(e.Legal)
}

func sortU16(a []uint16) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// EncodedFixedSize is the size in bytes of an Encoded's binary form without
// its legal-move list; the whole form is EncodedFixedSize + 2*len(Legal).
//
// Layout (little-endian):
//
//	0       contract version (ContractVersion)
//	1..32   square tokens, two per byte (even square in the low nibble)
//	33      flags: bits 0-3 castling (Enc*), bit 4 mover-is-white, bits 5-7 zero
//	34      en-passant file 0-7, or 0xFF for none
//	35..36  half-move clock uint16
//	37      repetition count
//	38..53  history: 8 x (from, to), 64 = none
//	54..77  Context: 6 x float32 (MoverRating, OppRating, Base, Inc, MoverClock, OppClock)
//	78..79  number of legal moves n (<= NumMoves)
//	80..    n x uint16 vocabulary indices
const EncodedFixedSize = 80

// BinarySize returns the size of e's binary form.
func (e *Encoded) BinarySize() int { return EncodedFixedSize + 2*len(e.Legal) }

// AppendBinary appends e's binary form to dst.
func (e *Encoded) AppendBinary(dst []byte) []byte {
	dst = append(dst, ContractVersion)
	for s := 0; s < 64; s += 2 {
		dst = append(dst, e.Squares[s]&15|e.Squares[s+1]<<4)
	}
	flags := e.Castling & 15
	if e.MoverIsWhite {
		flags |= 16
	}
	ep := byte(0xFF)
	if e.EPFile >= 0 && e.EPFile < 8 {
		ep = byte(e.EPFile)
	}
	dst = append(dst, flags, ep)
	dst = binary.LittleEndian.AppendUint16(dst, e.HalfMove)
	dst = append(dst, e.Repetition)
	for _, h := range e.History {
		dst = append(dst, h[0], h[1])
	}
	for _, f := range [6]float32{e.Ctx.MoverRating, e.Ctx.OppRating, e.Ctx.Base, e.Ctx.Inc, e.Ctx.MoverClock, e.Ctx.OppClock} {
		dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(f))
	}
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(e.Legal)))
	for _, i := range e.Legal {
		dst = binary.LittleEndian.AppendUint16(dst, i)
	}
	return dst
}

// DecodeBinary reads one Encoded from the front of b (as written by
// AppendBinary) into e and returns the number of bytes used. Errors wrap
// ErrTruncated or ErrCorrupt; e is unspecified on error.
func (e *Encoded) DecodeBinary(b []byte) (int, error) {
	if len(b) < EncodedFixedSize {
		return 0, fmt.Errorf("%w: encoded position needs %d bytes, have %d", ErrTruncated, EncodedFixedSize, len(b))
	}
	if b[0] != ContractVersion {
		return 0, fmt.Errorf("%w: contract version %d, want %d", ErrCorrupt, b[0], ContractVersion)
	}
	for s := 0; s < 64; s += 2 {
		lo, hi := b[1+s/2]&15, b[1+s/2]>>4
		if lo >= NumTokens || hi >= NumTokens {
			return 0, fmt.Errorf("%w: square token %d/%d out of range", ErrCorrupt, lo, hi)
		}
		e.Squares[s], e.Squares[s+1] = lo, hi
	}
	flags := b[33]
	if flags>>5 != 0 {
		return 0, fmt.Errorf("%w: flags %#x", ErrCorrupt, flags)
	}
	e.Castling = flags & 15
	e.MoverIsWhite = flags&16 != 0
	switch ep := b[34]; {
	case ep == 0xFF:
		e.EPFile = -1
	case ep < 8:
		e.EPFile = int8(ep)
	default:
		return 0, fmt.Errorf("%w: en-passant file %d", ErrCorrupt, ep)
	}
	e.HalfMove = binary.LittleEndian.Uint16(b[35:])
	e.Repetition = b[37]
	for k := range e.History {
		f, t := b[38+2*k], b[39+2*k]
		if f > 64 || t > 64 || (f == 64) != (t == 64) {
			return 0, fmt.Errorf("%w: history move %d (%d,%d)", ErrCorrupt, k, f, t)
		}
		e.History[k] = [2]uint8{f, t}
	}
	var ctx [6]float32
	for i := range ctx {
		ctx[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[54+4*i:]))
		if ctx[i] != ctx[i] || math.IsInf(float64(ctx[i]), 0) {
			return 0, fmt.Errorf("%w: context field %d is %v", ErrCorrupt, i, ctx[i])
		}
	}
	e.Ctx = Context{ctx[0], ctx[1], ctx[2], ctx[3], ctx[4], ctx[5]}
	n := int(binary.LittleEndian.Uint16(b[78:]))
	if n > NumMoves {
		return 0, fmt.Errorf("%w: %d legal moves", ErrCorrupt, n)
	}
	size := EncodedFixedSize + 2*n
	if len(b) < size {
		return 0, fmt.Errorf("%w: encoded position with %d legal moves needs %d bytes, have %d", ErrTruncated, n, size, len(b))
	}
	e.Legal = e.Legal[:0]
	for i := 0; i < n; i++ {
		v := binary.LittleEndian.Uint16(b[EncodedFixedSize+2*i:])
		if int(v) >= NumMoves {
			return 0, fmt.Errorf("%w: legal move index %d", ErrCorrupt, v)
		}
		e.Legal = append(e.Legal, v)
	}
	return size, nil
}
