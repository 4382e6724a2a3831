package board

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/notnil/chess"
)

// Status is the state of a game at its current position.
type Status uint8

// The game states. Threefold and FiftyMove are the claimable draws (third
// occurrence of a position; 100 half-moves without capture or pawn move).
const (
	Ongoing Status = iota
	Checkmate
	Stalemate
	Threefold
	FiftyMove
	InsufficientMaterial
)

// String names the status.
func (s Status) String() string {
	switch s {
	case Ongoing:
		return "ongoing"
	case Checkmate:
		return "checkmate"
	case Stalemate:
		return "stalemate"
	case Threefold:
		return "threefold repetition"
	case FiftyMove:
		return "fifty-move rule"
	case InsufficientMaterial:
		return "insufficient material"
	}
	return fmt.Sprintf("Status(%d)", uint8(s))
}

// Game is a position plus its history: the moves played since the start FEN
// and the position hashes used to count repetitions. Legal moves come from
// the package's own generator (movegen.go), verified move by move against
// notnil/chess in the tests; notnil also cross-checks every FEN NewGame
// accepts. A Game is cheap to Clone (the legal moves are shared, the history
// slices are copied on write). A Game is not safe for concurrent use (even
// Clone fills its legal-move cache): clone it in one goroutine, then the
// clones are independent and may be used from different goroutines.
type Game struct {
	position             // the current position
	castleField string   // the start FEN's castling field, whose letter order FEN keeps
	start       string   // normalized start FEN
	moves       []Move   // moves played since start
	hashes      []uint64 // hashes[i] = position after i moves; len = len(moves)+1
	// Legal moves of the position, filled lazily (legalOK) into storage the
	// Game reuses from ply to ply unless clones share it (legalShared).
	legal       []Move
	legalOK     bool
	legalShared bool
}

// NewGame returns a game at the given FEN; "" or "startpos" is the start
// position. The FEN is validated strictly; errors wrap ErrBadFEN.
func NewGame(fen string) (*Game, error) {
	fen = strings.TrimSpace(fen)
	if fen == "" || fen == "startpos" {
		fen = StartFEN
	}
	fi, err := parseFEN(fen)
	if err != nil {
		return nil, err
	}
	// Cross-check: notnil/chess must accept what the strict parser accepted.
	// The start position (most games: one per game in train/data/prep) is known
	// good, and notnil's FEN parser costs about 40 µs.
	if fi.norm != StartFEN {
		var pos chess.Position
		if err := pos.UnmarshalText([]byte(fi.norm)); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadFEN, err)
		}
	}
	g := &Game{
		position:    position{mb: fi.mb, castle: fi.castle, stm: fi.stm, ep: fi.ep, half: fi.half, full: fi.fullmove},
		castleField: fi.castleField,
		start:       fi.norm,
	}
	g.hashes = append(make([]uint64, 0, 64), g.hash())
	return g, nil
}

// MustNewGame is NewGame for FENs known to be good (tests, constants); it
// panics on error.
func MustNewGame(fen string) *Game {
	g, err := NewGame(fen)
	if err != nil {
		panic(err)
	}
	return g
}

// Clone returns an independent copy of the game. It fills g's legal-move
// cache, which the copy then shares read-only.
func (g *Game) Clone() *Game {
	g.ensureLegal()
	g.legalShared = true
	c := *g
	// Clip capacities so that appends on either side reallocate.
	c.moves = g.moves[:len(g.moves):len(g.moves)]
	c.hashes = g.hashes[:len(g.hashes):len(g.hashes)]
	return &c
}

// ensureLegal fills the legal-move cache, reusing its storage unless a
// clone shares it.
func (g *Game) ensureLegal() {
	if g.legalOK {
		return
	}
	if g.legal == nil || g.legalShared {
		g.legal, g.legalShared = make([]Move, 0, 64), false
	}
	g.legal = g.appendLegal(g.legal[:0])
	g.legalOK = true
}

// LegalMoves returns the legal moves of the position (a fresh slice, in a
// fixed order: notnil/chess's generation order, that is pieces K, Q, R, B,
// N, P, from-squares ascending, to-squares ascending, promotions Q, R, B, N,
// then castling king side before queen side).
func (g *Game) LegalMoves() []Move {
	g.ensureLegal()
	return append([]Move(nil), g.legal...)
}

// AppendLegalMoves appends the legal moves (in LegalMoves order) to dst.
func (g *Game) AppendLegalMoves(dst []Move) []Move {
	g.ensureLegal()
	return append(dst, g.legal...)
}

// NumLegalMoves returns the number of legal moves.
func (g *Game) NumLegalMoves() int {
	g.ensureLegal()
	return len(g.legal)
}

// IsLegal reports whether m is legal in the position.
func (g *Game) IsLegal(m Move) bool {
	return g.find(m) >= 0
}

func (g *Game) find(m Move) int {
	g.ensureLegal()
	for i, l := range g.legal {
		if l == m {
			return i
		}
	}
	return -1
}

// Play plays a move given in UCI form ("e2e4", "e1g1", "e7e8q"). A malformed
// string wraps ErrBadMove, a move that is not legal wraps ErrIllegalMove; the
// game is unchanged on error.
func (g *Game) Play(uci string) error {
	m, err := ParseMove(uci)
	if err != nil {
		return err
	}
	if g.find(m) < 0 {
		return fmt.Errorf("%w: %s in %s", ErrIllegalMove, uci, g.FEN())
	}
	g.apply(m)
	return nil
}

// PlayMove plays m; it wraps ErrIllegalMove if m is not legal.
func (g *Game) PlayMove(m Move) error {
	if g.find(m) < 0 {
		return fmt.Errorf("%w: %s in %s", ErrIllegalMove, m, g.FEN())
	}
	g.apply(m)
	return nil
}

// apply plays the legal move m.
func (g *Game) apply(m Move) {
	g.play(m)
	g.legalOK = false
	g.moves = append(g.moves, m)
	g.hashes = append(g.hashes, g.hash())
}

// FEN returns the FEN of the current position (as notnil/chess writes it:
// the en-passant square after every double step, the castling letters in
// the start FEN's order).
func (g *Game) FEN() string {
	b := make([]byte, 0, 96)
	for r := 7; r >= 0; r-- {
		empty := byte(0)
		for f := 0; f < 8; f++ {
			p := g.mb[r*8+f]
			if p == NoPiece {
				empty++
				continue
			}
			if empty > 0 {
				b = append(b, '0'+empty)
				empty = 0
			}
			b = append(b, ".PNBRQKpnbrqk"[p])
		}
		if empty > 0 {
			b = append(b, '0'+empty)
		}
		if r > 0 {
			b = append(b, '/')
		}
	}
	b = append(b, ' ', "wb"[g.stm], ' ')
	n := len(b)
	for i := 0; i < len(g.castleField); i++ {
		if g.castle&castleBit(g.castleField[i]) != 0 {
			b = append(b, g.castleField[i])
		}
	}
	if len(b) == n {
		b = append(b, '-')
	}
	b = append(b, ' ')
	if g.ep == NoSquare {
		b = append(b, '-')
	} else {
		b = append(b, 'a'+byte(g.ep.File()), '1'+byte(g.ep.Rank()))
	}
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(g.half), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(g.full), 10)
	return string(b)
}

// StartFEN returns the (normalized) FEN the game started from.
func (g *Game) StartFEN() string { return g.start }

// SideToMove returns the colour to move.
func (g *Game) SideToMove() Color { return g.stm }

// WhiteToMove reports whether White is to move.
func (g *Game) WhiteToMove() bool { return g.stm == White }

// Ply returns the number of moves played since the start FEN.
func (g *Game) Ply() int { return len(g.moves) }

// HalfMoveClock returns the half-move clock (half-moves since the last capture or pawn move).
func (g *Game) HalfMoveClock() int { return g.half }

// FullMoveNumber returns the FEN full-move number.
func (g *Game) FullMoveNumber() int { return g.full }

// Moves returns the moves played since the start FEN (a fresh slice).
func (g *Game) Moves() []Move { return append([]Move(nil), g.moves...) }

// LastMove returns the last move played and true, or NullMove and false.
func (g *Game) LastMove() (Move, bool) {
	if len(g.moves) == 0 {
		return NullMove, false
	}
	return g.moves[len(g.moves)-1], true
}

// PieceAt returns the piece on square s (absolute colours).
func (g *Game) PieceAt(s Square) Piece {
	if s >= 64 {
		return NoPiece
	}
	return g.mb[s]
}

// Castling returns the castling rights as Castle* bits.
func (g *Game) Castling() uint8 { return g.castle }

// EnPassant returns the en-passant target square after a double pawn step
// (as in the FEN), or NoSquare.
func (g *Game) EnPassant() Square { return g.ep }

// InCheck reports whether the side to move is in check.
func (g *Game) InCheck() bool { return inCheck(&g.mb, g.stm) }

// Hash returns the position's hash (pieces, side to move, castling rights and
// the en-passant file when a pawn stands ready to capture), the key of the
// repetition count.
func (g *Game) Hash() uint64 { return g.hashes[len(g.hashes)-1] }

// Repetitions returns how many times the current position occurred before in
// the game (0 the first time; 2 means this is the third occurrence).
func (g *Game) Repetitions() int {
	n := len(g.hashes) - 1
	h := g.hashes[n]
	lo := n - g.half
	if lo < 0 {
		lo = 0
	}
	count := 0
	for i := n - 2; i >= lo; i -= 2 {
		if g.hashes[i] == h {
			count++
		}
	}
	return count
}

// Status returns checkmate or stalemate when the side to move has no legal
// move, else insufficient material, threefold repetition or the fifty-move
// rule if they apply (in that order), else Ongoing.
func (g *Game) Status() Status {
	g.ensureLegal()
	if len(g.legal) == 0 {
		if g.InCheck() {
			return Checkmate
		}
		return Stalemate
	}
	if insufficient(&g.mb) {
		return InsufficientMaterial
	}
	if g.Repetitions() >= 2 {
		return Threefold
	}
	if g.half >= 100 {
		return FiftyMove
	}
	return Ongoing
}

// insufficient reports a dead position by material: bare kings, a single
// minor piece, or only bishops all on squares of one colour.
func insufficient(mb *[64]Piece) bool {
	minors, knights := 0, 0
	var bishopColours [2]bool
	for s, p := range mb {
		switch p.Type() {
		case Pawn, Rook, Queen:
			return false
		case Knight:
			knights++
			minors++
		case Bishop:
			minors++
			bishopColours[((s>>3)+(s&7))&1] = true
		}
	}
	if minors <= 1 {
		return true
	}
	return knights == 0 && !(bishopColours[0] && bishopColours[1])
}
