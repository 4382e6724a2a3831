package board

import (
	"fmt"
	"strings"
)

// ParseSAN returns the legal move written in Standard Algebraic Notation
// ("e4", "Nbd7", "exd6", "O-O", "e8=Q+", "Qh4#"; check marks and "!?"
// annotations are ignored, "0-0" is accepted). It matches the parsed
// piece, squares and promotion against the legal moves directly, without
// writing each legal move in SAN. Errors wrap ErrBadMove (does
// not parse), ErrIllegalMove (no legal move matches) or ErrAmbiguousMove.
func (g *Game) ParseSAN(san string) (Move, error) {
	s := strings.TrimSuffix(strings.TrimSpace(san), "e.p.")
	s = strings.TrimRight(s, "+#!? ")
	if len(s) < 2 {
		return NullMove, fmt.Errorf("%w: SAN %q", ErrBadMove, san)
	}
	g.ensureLegal()
	switch s {
	case "O-O", "0-0", "O-O-O", "0-0-0":
		long := len(s) == 5
		for _, m := range g.legal {
			if g.mb[m.From].Type() != King || abs(int(m.To)-int(m.From)) != 2 {
				continue
			}
			if (m.To < m.From) == long {
				return m, nil
			}
		}
		return NullMove, fmt.Errorf("%w: %s in %s", ErrIllegalMove, san, g.FEN())
	}
	piece, i := Pawn, 0
	switch s[0] {
	case 'K':
		piece = King
	case 'Q':
		piece = Queen
	case 'R':
		piece = Rook
	case 'B':
		piece = Bishop
	case 'N':
		piece = Knight
	case 'P':
		piece = Pawn
	default:
		if s[0] >= 'A' && s[0] <= 'Z' {
			return NullMove, fmt.Errorf("%w: SAN %q: piece letter", ErrBadMove, san)
		}
		i = -1
	}
	i++
	promo := NoPieceType
	if n := len(s); piece == Pawn && n >= 3 {
		c, skip := s[n-1], 0
		if s[n-2] == '=' {
			skip = 2
		} else if c >= 'A' && c <= 'Z' {
			skip = 1
		}
		if skip > 0 {
			switch c {
			case 'Q', 'q':
				promo = Queen
			case 'R', 'r':
				promo = Rook
			case 'B', 'b':
				promo = Bishop
			case 'N', 'n':
				promo = Knight
			default:
				return NullMove, fmt.Errorf("%w: SAN %q: promotion piece", ErrBadMove, san)
			}
			s = s[:n-skip]
		}
	}
	if len(s)-i < 2 {
		return NullMove, fmt.Errorf("%w: SAN %q", ErrBadMove, san)
	}
	to, err := ParseSquare(s[len(s)-2:])
	if err != nil {
		return NullMove, fmt.Errorf("%w: SAN %q: destination", ErrBadMove, san)
	}
	mid := s[i : len(s)-2]
	mid = strings.TrimSuffix(strings.TrimSuffix(mid, "x"), ":")
	mid = strings.TrimSuffix(mid, "-")
	fromFile, fromRank := -1, -1
	for j := 0; j < len(mid); j++ {
		switch c := mid[j]; {
		case c >= 'a' && c <= 'h' && fromFile < 0 && fromRank < 0:
			fromFile = int(c - 'a')
		case c >= '1' && c <= '8' && fromRank < 0:
			fromRank = int(c - '1')
		default:
			return NullMove, fmt.Errorf("%w: SAN %q: disambiguation %q", ErrBadMove, san, mid)
		}
	}
	found, n := NullMove, 0
	for _, m := range g.legal {
		if m.To != to || g.mb[m.From].Type() != piece || m.Promo != promo {
			continue
		}
		if (fromFile >= 0 && m.From.File() != fromFile) || (fromRank >= 0 && m.From.Rank() != fromRank) {
			continue
		}
		found = m
		n++
	}
	switch n {
	case 0:
		return NullMove, fmt.Errorf("%w: %s in %s", ErrIllegalMove, san, g.FEN())
	case 1:
		return found, nil
	}
	return NullMove, fmt.Errorf("%w: %s matches %d moves in %s", ErrAmbiguousMove, san, n, g.FEN())
}

// PlaySAN plays a move given in SAN (see ParseSAN); the game is unchanged on error.
func (g *Game) PlaySAN(san string) error {
	m, err := g.ParseSAN(san)
	if err != nil {
		return err
	}
	return g.PlayMove(m)
}

// Perft counts the leaf nodes of the legal-move tree to depth plies (the
// package's generator, bulk-counted at the last ply).
func (g *Game) Perft(depth int) uint64 {
	return perft(g.position, depth)
}
