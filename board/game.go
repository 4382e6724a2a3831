package board

import (
	"fmt"
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
// notnil/chess. A Game is cheap to Clone (the notnil position is shared, the
// history slices are copied on write). A Game is not safe for concurrent use
// (even Clone fills its legal-move cache): clone it in one goroutine, then the
// clones are independent and may be used from different goroutines.
type Game struct {
	pos    *chess.Position // immutable once its legal moves are computed
	mb     [64]Piece       // mailbox kept in step with pos
	castle uint8           // Castle* bits, in step with pos
	start  string          // normalized start FEN
	moves  []Move          // moves played since start
	hashes []uint64        // hashes[i] = position after i moves; len = len(moves)+1
	// Legal moves of pos, filled lazily; shared read-only between clones.
	legal  []Move
	cmoves []*chess.Move
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
	pos := &chess.Position{}
	if err := pos.UnmarshalText([]byte(fi.norm)); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadFEN, err)
	}
	g := &Game{pos: pos, mb: fi.mb, castle: fi.castle, start: fi.norm}
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

// Clone returns an independent copy of the game.
func (g *Game) Clone() *Game {
	g.ensureLegal() // after this the shared notnil position is never written
	c := *g
	// Clip capacities so that appends on either side reallocate.
	c.moves = g.moves[:len(g.moves):len(g.moves)]
	c.hashes = g.hashes[:len(g.hashes):len(g.hashes)]
	return &c
}

// ensureLegal fills the legal-move cache.
func (g *Game) ensureLegal() {
	if g.cmoves != nil {
		return
	}
	cm := g.pos.ValidMoves()
	if cm == nil {
		cm = []*chess.Move{}
	}
	legal := make([]Move, len(cm))
	for i, m := range cm {
		legal[i] = Move{From: Square(m.S1()), To: Square(m.S2()), Promo: fromChessPromo(m.Promo())}
	}
	g.legal, g.cmoves = legal, cm
}

func fromChessPromo(p chess.PieceType) PieceType {
	switch p {
	case chess.Queen:
		return Queen
	case chess.Rook:
		return Rook
	case chess.Bishop:
		return Bishop
	case chess.Knight:
		return Knight
	}
	return NoPieceType
}

// LegalMoves returns the legal moves of the position (a fresh slice, in a
// fixed order: notnil/chess's generation order).
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
	i := g.find(m)
	if i < 0 {
		return fmt.Errorf("%w: %s in %s", ErrIllegalMove, uci, g.FEN())
	}
	g.apply(i)
	return nil
}

// PlayMove plays m; it wraps ErrIllegalMove if m is not legal.
func (g *Game) PlayMove(m Move) error {
	i := g.find(m)
	if i < 0 {
		return fmt.Errorf("%w: %s in %s", ErrIllegalMove, m, g.FEN())
	}
	g.apply(i)
	return nil
}

// apply plays legal move number i.
func (g *Game) apply(i int) {
	m, cm := g.legal[i], g.cmoves[i]
	p := g.mb[m.From]
	// Mailbox.
	switch {
	case p.Type() == King && (int(m.To)-int(m.From) == 2 || int(m.From)-int(m.To) == 2):
		rookFrom, rookTo := m.From+3, m.From+1
		if m.To < m.From {
			rookFrom, rookTo = m.From-4, m.From-1
		}
		g.mb[rookTo], g.mb[rookFrom] = g.mb[rookFrom], NoPiece
	case p.Type() == Pawn && m.From.File() != m.To.File() && g.mb[m.To] == NoPiece:
		g.mb[Square(m.From.Rank()*8+m.To.File())] = NoPiece // en passant
	}
	g.mb[m.To], g.mb[m.From] = p, NoPiece
	if m.Promo != NoPieceType {
		g.mb[m.To] = NewPiece(m.Promo, p.Color())
	}
	// Castling rights.
	for _, s := range [2]Square{m.From, m.To} {
		switch s {
		case 4:
			g.castle &^= CastleWK | CastleWQ
		case 0:
			g.castle &^= CastleWQ
		case 7:
			g.castle &^= CastleWK
		case 60:
			g.castle &^= CastleBK | CastleBQ
		case 56:
			g.castle &^= CastleBQ
		case 63:
			g.castle &^= CastleBK
		}
	}
	g.pos = g.pos.Update(cm)
	g.legal, g.cmoves = nil, nil
	g.moves = append(g.moves, m)
	g.hashes = append(g.hashes, g.hash())
}

// FEN returns the FEN of the current position.
func (g *Game) FEN() string { return g.pos.String() }

// StartFEN returns the (normalized) FEN the game started from.
func (g *Game) StartFEN() string { return g.start }

// SideToMove returns the colour to move.
func (g *Game) SideToMove() Color {
	if g.pos.Turn() == chess.Black {
		return Black
	}
	return White
}

// WhiteToMove reports whether White is to move.
func (g *Game) WhiteToMove() bool { return g.pos.Turn() != chess.Black }

// Ply returns the number of moves played since the start FEN.
func (g *Game) Ply() int { return len(g.moves) }

// HalfMoveClock returns the half-move clock (half-moves since the last capture or pawn move).
func (g *Game) HalfMoveClock() int { return g.pos.HalfMoveClock() }

// FullMoveNumber returns the FEN full-move number.
func (g *Game) FullMoveNumber() int {
	// notnil does not export it; it is the last FEN field.
	f := g.pos.String()
	n := 0
	for i := strings.LastIndexByte(f, ' ') + 1; i < len(f); i++ {
		n = n*10 + int(f[i]-'0')
	}
	return n
}

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
func (g *Game) EnPassant() Square {
	if s := g.pos.EnPassantSquare(); s != chess.NoSquare {
		return Square(s)
	}
	return NoSquare
}

// InCheck reports whether the side to move is in check.
func (g *Game) InCheck() bool { return inCheck(&g.mb, g.SideToMove()) }

// Hash returns the position's hash (pieces, side to move, castling rights and
// the en-passant file when a pawn stands ready to capture), the key of the
// repetition count.
func (g *Game) Hash() uint64 { return g.hashes[len(g.hashes)-1] }

// Repetitions returns how many times the current position occurred before in
// the game (0 the first time; 2 means this is the third occurrence).
func (g *Game) Repetitions() int {
	n := len(g.hashes) - 1
	h := g.hashes[n]
	lo := n - g.pos.HalfMoveClock()
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
	if g.pos.HalfMoveClock() >= 100 {
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
