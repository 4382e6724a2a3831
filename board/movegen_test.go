package board

import (
	"fmt"
	"slices"
	"testing"

	"github.com/notnil/chess"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The package's move generator is checked against notnil/chess, the
// reference: the same moves in the same order, node by node, on the perft
// positions and on real games, and the same perft counts.

func fromChessMove(m *chess.Move) Move {
	promo := NoPieceType
	switch m.Promo() {
	case chess.Queen:
		promo = Queen
	case chess.Rook:
		promo = Rook
	case chess.Bishop:
		promo = Bishop
	case chess.Knight:
		promo = Knight
	}
	return Move{From: Square(m.S1()), To: Square(m.S2()), Promo: promo}
}

func notnilMoves(pos *chess.Position) []Move {
	var out []Move
	for _, m := range pos.ValidMoves() {
		out = append(out, fromChessMove(m))
	}
	return out
}

func notnilPosition(t testing.TB, fen string) *chess.Position {
	t.Helper()
	pos := &chess.Position{}
	require.NoError(t, pos.UnmarshalText([]byte(fen)), fen)
	return pos
}

// notnilPerft is notnil/chess's perft, bulk-counted at the last ply.
func notnilPerft(pos *chess.Position, depth int) uint64 {
	if depth <= 0 {
		return 1
	}
	moves := pos.ValidMoves()
	if depth == 1 {
		return uint64(len(moves))
	}
	var n uint64
	for _, m := range moves {
		n += notnilPerft(pos.Update(m), depth-1)
	}
	return n
}

// compareTree walks the tree to depth plies through the Game API and
// notnil's positions side by side, requiring the same legal moves in the
// same order and the same FEN at every node. It returns the nodes visited.
func compareTree(t *testing.T, g *Game, pos *chess.Position, depth int) int {
	want := pos.ValidMoves()
	got := g.LegalMoves()
	if len(got) != len(want) {
		t.Fatalf("%s after %v: %d moves %v, notnil %d %v", g.FEN(), g.Moves(), len(got), got, len(want), notnilMoves(pos))
	}
	for i, m := range want {
		if got[i] != fromChessMove(m) {
			t.Fatalf("%s after %v: move %d is %s, notnil %s\ngot  %v\nwant %v", g.FEN(), g.Moves(), i, got[i], fromChessMove(m), got, notnilMoves(pos))
		}
	}
	if g.FEN() != pos.String() {
		t.Fatalf("after %v: FEN %q, notnil %q", g.Moves(), g.FEN(), pos.String())
	}
	if depth == 0 {
		return 1
	}
	n := 1
	for i, m := range want {
		c := g.Clone()
		if err := c.PlayMove(got[i]); err != nil {
			t.Fatal(err)
		}
		n += compareTree(t, c, pos.Update(m), depth-1)
	}
	return n
}

func TestMoveGenMatchesNotnilTree(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range perftCases {
		if seen[c.fen] {
			continue
		}
		seen[c.fen] = true
		depth := 3
		if testing.Short() {
			depth = 2
		}
		g := MustNewGame(c.fen)
		n := compareTree(t, g, notnilPosition(t, c.fen), depth)
		t.Logf("%s: %d nodes compared to depth %d", c.name, n, depth)
	}
}

func TestPerftMatchesNotnil(t *testing.T) {
	for _, c := range perftCases {
		if c.deep || c.depth > 3 {
			continue
		}
		g := MustNewGame(c.fen)
		want := notnilPerft(notnilPosition(t, c.fen), c.depth)
		assert.Equal(t, want, g.Perft(c.depth), "%s depth %d", c.name, c.depth)
		assert.Equal(t, c.nodes, want, "notnil: %s depth %d", c.name, c.depth)
	}
}

// TestMoveGenEdgeCases covers pins, checks, en passant and castling corners
// that the perft positions touch rarely, against notnil and by hand.
func TestMoveGenEdgeCases(t *testing.T) {
	cases := []struct {
		name, fen string
		n         int // legal moves
	}{
		{"ep capture exposes king on rank", "8/8/8/K2pP2r/8/8/8/7k w - d6 0 1", 6},
		{"ep capture answers pawn check", "8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1", 9},
		{"pinned pawn may capture pinner", "4k3/8/8/8/8/2b5/3P4/4K3 w - - 0 1", 5},
		{"double check: king only", "k7/8/8/4r3/8/3n4/8/4K3 w - - 0 1", 3},
		{"castling through attack", "4kr2/8/8/8/8/8/8/4K2R w K - 0 1", 12},
		{"castling queen side with b1 attacked", "4k3/8/8/8/4b3/8/8/R3K3 w Q - 0 1", 16},
		{"promotions", "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", 9},
		{"promotion does not answer check", "r3k3/1P6/8/8/8/8/8/r3K3 w - - 0 1", 3},
		{"stalemate", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", 0},
		{"checkmate", "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", 0},
	}
	for _, c := range cases {
		g, err := NewGame(c.fen)
		require.NoError(t, err, c.name)
		got := g.LegalMoves()
		assert.Equal(t, notnilMoves(notnilPosition(t, c.fen)), got, "%s: %s", c.name, c.fen)
		assert.Len(t, got, c.n, "%s: %s: %v", c.name, c.fen, got)
	}
}

// TestMoveGenRealGames compares the generator with notnil on every position
// of real games (same moves, same order, same FEN), and perft(2) on a sample.
func TestMoveGenRealGames(t *testing.T) {
	max, every := 1500, 40
	if testing.Short() {
		max, every = 150, 200
	}
	games := readSANGames(t, realGamesPath, max)
	positions, perfts := 0, 0
	for gi, sans := range games {
		g := MustNewGame("")
		pos := notnilPosition(t, StartFEN)
		for ply, san := range sans {
			cm := pos.ValidMoves()
			want := notnilMoves(pos)
			got := g.LegalMoves()
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("game %d ply %d %s:\ngot  %v\nwant %v", gi, ply, g.FEN(), got, want)
			}
			if positions%every == 0 {
				if n, w := g.Perft(2), notnilPerft(pos, 2); n != w {
					t.Fatalf("game %d ply %d %s: perft(2) %d, notnil %d", gi, ply, g.FEN(), n, w)
				}
				perfts++
			}
			positions++
			m, err := g.ParseSAN(san)
			require.NoError(t, err, "game %d ply %d %s", gi, ply, san)
			i := slices.Index(got, m) // the same index in notnil's list
			require.NoError(t, g.PlayMove(m))
			pos = pos.Update(cm[i])
			require.Equal(t, pos.String(), g.FEN(), "game %d ply %d", gi, ply)
		}
	}
	t.Logf("%d games, %d positions compared, %d perft(2) compared", len(games), positions, perfts)
	assert.Greater(t, positions, 1000)
}

// TestMoveGenInCheckCastling pins down the one known difference from
// notnil: a position read from a FEN with the side to move in check. notnil
// does not compute the check for such a position and lets the king castle
// out of it; the generator does not.
func TestMoveGenInCheckCastling(t *testing.T) {
	g := MustNewGame("4k3/8/8/8/8/8/4r3/R3K2R w KQ - 0 1")
	for _, m := range g.LegalMoves() {
		assert.False(t, m == Move{From: 4, To: 6} || m == Move{From: 4, To: 2}, "castles out of check: %s", m)
	}
}

func BenchmarkPerft(b *testing.B) {
	g := MustNewGame("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
	var n uint64
	for b.Loop() {
		n = g.Perft(3)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(uint64(b.N)*n), "ns/leaf")
}

// TestCloneSharesLegalMovesSafely plays different moves on a game and its
// clones, which share the legal-move list, and checks that each one's legal
// moves are those of a fresh game at its FEN.
func TestCloneSharesLegalMovesSafely(t *testing.T) {
	g := MustNewGame("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
	legal := g.LegalMoves()
	var games []*Game
	for _, m := range legal[:8] {
		c := g.Clone()
		require.NoError(t, c.PlayMove(m))
		_ = c.NumLegalMoves()
		games = append(games, c)
	}
	require.NoError(t, g.PlayMove(legal[len(legal)-1]))
	games = append(games, g)
	for _, c := range games {
		assert.Equal(t, MustNewGame(c.FEN()).LegalMoves(), c.LegalMoves(), "after %v", c.Moves())
	}
}
