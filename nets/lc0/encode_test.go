package lc0

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/board"
)

// squaresOf lists the squares set in plane p of the encoded planes.
func squaresOf(planes []float32, p int) []int {
	var out []int
	for s := 0; s < 64; s++ {
		if planes[p*64+s] != 0 {
			out = append(out, s)
		}
	}
	return out
}

func constPlane(planes []float32, p int) (float32, bool) {
	v := planes[p*64]
	for _, x := range planes[p*64 : p*64+64] {
		if x != v {
			return 0, false
		}
	}
	return v, true
}

func encodeMoves(t *testing.T, fen string, moves ...string) []float32 {
	t.Helper()
	g, err := board.NewGame(fen)
	require.NoError(t, err)
	for _, m := range moves {
		require.NoError(t, g.Play(m), m)
	}
	planes := make([]float32, InputPlanes*64)
	require.NoError(t, EncodeGame(g, planes))
	return planes
}

func rangeSq(lo, hi int) []int {
	var out []int
	for s := lo; s <= hi; s++ {
		out = append(out, s)
	}
	return out
}

// checkAux checks planes 104..111: castling, side, rule 50, zeros, ones.
func checkAux(t *testing.T, planes []float32, castle [4]float32, black bool, rule50 float32) {
	t.Helper()
	for k := 0; k < 4; k++ {
		v, ok := constPlane(planes, auxBase+k)
		require.True(t, ok)
		require.Equal(t, castle[k], v, "castling plane %d", 104+k)
	}
	want := map[int]float32{auxBase + 4: 0, auxBase + 5: rule50, auxBase + 6: 0, auxBase + 7: 1}
	if black {
		want[auxBase+4] = 1
	}
	for p, w := range want {
		v, ok := constPlane(planes, p)
		require.True(t, ok, "plane %d constant", p)
		require.Equal(t, w, v, "plane %d", p)
	}
}

func TestEncodeStartpos(t *testing.T) {
	planes := encodeMoves(t, board.StartFEN)
	want := map[int][]int{
		0: rangeSq(8, 15), 1: {1, 6}, 2: {2, 5}, 3: {0, 7}, 4: {3}, 5: {4},
		6: rangeSq(48, 55), 7: {57, 62}, 8: {58, 61}, 9: {56, 63}, 10: {59}, 11: {60}, 12: nil,
	}
	for p, sq := range want {
		require.Equal(t, sq, squaresOf(planes, p), "plane %d", p)
	}
	// No history before the start position (Lc0's fen_only fill).
	for p := planesPerBoard; p < auxBase; p++ {
		require.Empty(t, squaresOf(planes, p), "plane %d", p)
	}
	checkAux(t, planes, [4]float32{1, 1, 1, 1}, false, 0)
}

func TestEncodeBlackToMove(t *testing.T) {
	planes := encodeMoves(t, board.StartFEN, "e2e4")
	// Black's own pawns, mirrored to the second rank.
	require.Equal(t, rangeSq(8, 15), squaresOf(planes, 0))
	require.Equal(t, []int{4}, squaresOf(planes, 5), "own king e8 -> e1")
	// White's pawns, mirrored; e4 (28) becomes e5 (36).
	require.Equal(t, []int{36, 48, 49, 50, 51, 53, 54, 55}, squaresOf(planes, 6))
	require.Equal(t, []int{60}, squaresOf(planes, 11), "their king e1 -> e8")
	// History: the start position, also seen from Black.
	require.Equal(t, rangeSq(8, 15), squaresOf(planes, 13+0))
	require.Equal(t, rangeSq(48, 55), squaresOf(planes, 13+6))
	for p := 2 * planesPerBoard; p < auxBase; p++ {
		require.Empty(t, squaresOf(planes, p), "plane %d", p)
	}
	checkAux(t, planes, [4]float32{1, 1, 1, 1}, true, 0)
}

func TestEncodeRepetitions(t *testing.T) {
	planes := encodeMoves(t, board.StartFEN, "g1f3", "g8f6", "f3g1", "f6g8")
	require.Len(t, squaresOf(planes, 12), 64, "current position repeats the start")
	for i := 1; i < 5; i++ {
		require.Empty(t, squaresOf(planes, i*planesPerBoard+12), "history %d", i)
	}
	checkAux(t, planes, [4]float32{1, 1, 1, 1}, false, 4)

	planes = encodeMoves(t, board.StartFEN, "g1f3", "g8f6", "f3g1", "f6g8", "g1f3")
	require.Len(t, squaresOf(planes, 12), 64, "after Nf3 again")
	require.Len(t, squaresOf(planes, planesPerBoard+12), 64, "start position again")
	require.Empty(t, squaresOf(planes, 4*planesPerBoard+12), "first Nf3")
	checkAux(t, planes, [4]float32{1, 1, 1, 1}, true, 5)
}

func TestEncodeFromFEN(t *testing.T) {
	// Black just played e7e5; history before the FEN repeats it with the
	// double step undone.
	planes := encodeMoves(t, "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2")
	require.Equal(t, []int{36, 48, 49, 50, 51, 53, 54, 55}, squaresOf(planes, 6), "current: e5 pawn")
	for i := 1; i < HistoryLen; i++ {
		require.Equal(t, rangeSq(48, 55), squaresOf(planes, i*planesPerBoard+6), "history %d: e7 pawn", i)
		require.Equal(t, squaresOf(planes, 0), squaresOf(planes, i*planesPerBoard), "history %d: own pawns", i)
	}

	// Partial castling rights, Black to move, a rule-50 count.
	planes = encodeMoves(t, "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 37 60")
	checkAux(t, planes, [4]float32{1, 0, 0, 1}, true, 37)
	for i := 1; i < HistoryLen; i++ {
		require.Equal(t, squaresOf(planes, 3), squaresOf(planes, i*planesPerBoard+3), "history %d: own rooks", i)
	}
	require.Equal(t, []int{0, 7}, squaresOf(planes, 3), "own rooks a8 h8 -> a1 h1")
}

// TestHistoryReplay checks the encoder's own move replay against board.Game
// at every ply of every reference game.
func TestHistoryReplay(t *testing.T) {
	for _, l := range loadReference(t)[:40] {
		g := board.MustNewGame(board.StartFEN)
		for _, m := range l.Moves {
			require.NoError(t, g.Play(m))
		}
		h, err := History(g)
		require.NoError(t, err)
		require.Len(t, h, len(l.Moves)+1)
		g = board.MustNewGame(board.StartFEN)
		for i := range h {
			require.Equal(t, positionOf(g), h[i], "game %s ply %d", l.FEN, i)
			if i < len(l.Moves) {
				require.NoError(t, g.Play(l.Moves[i]))
			}
		}
	}
}

func TestEncodeErrors(t *testing.T) {
	require.ErrorIs(t, EncodeGame(nil, make([]float32, InputPlanes*64)), ErrInput)
	require.ErrorIs(t, EncodeGame(board.MustNewGame(board.StartFEN), make([]float32, 10)), ErrInput)
	require.ErrorIs(t, EncodeHistory(nil, make([]float32, InputPlanes*64)), ErrInput)
	_, err := startPos.apply(board.Move{From: 12, To: 28}) // e2e4 fine
	require.NoError(t, err)
	_, err = startPos.apply(board.Move{From: 52, To: 36}) // e7e5 with White to move
	require.ErrorIs(t, err, ErrInput)
	_, err = startPos.apply(board.Move{From: 30, To: 38}) // empty square
	require.ErrorIs(t, err, ErrInput)
}

func TestPolicyMap(t *testing.T) {
	// Spot values of Lc0's kConvPolicyMap and move index.
	m := ConvPolicyMap()
	require.Len(t, m, PolicyPlanes*64)
	for _, c := range []struct{ cell, want int }{
		{0, 7}, {1, 31}, {55, 1597}, {56, -1}, // N, distance 1: a1a2, b1b2, h7h8
		{56*64 + 0, 11},                                            // knight N from a1: a1b3
		{64*64 + 49, 1799}, {65*64 + 49, 1800}, {66*64 + 49, 1798}, // b7a8 r, b, q
		{67*64 + 48, 1793}, {70*64 + 48, 1796}, {72*64 + 48, 1795}, // a7a8r, a7b8r, a7b8q
	} {
		require.Equal(t, c.want, int(m[c.cell]), "cell %d", c.cell)
	}
	// Every move index entry appears exactly once in the map.
	seen := make([]int, NumMoves)
	for _, v := range m {
		if v >= 0 {
			seen[v]++
		}
	}
	for i, n := range seen {
		require.Equal(t, 1, n, "entry %d", i)
	}
	// Round trips and a few names.
	for i := 0; i < NumMoves; i++ {
		mv, ok := IndexMove(i)
		require.True(t, ok)
		j, ok := MoveIndex(mv)
		require.True(t, ok)
		require.Equal(t, i, j, "%v", mv)
	}
	for i, want := range map[int]string{0: "a1b1", 7: "a1a2", 1792: "a7a8q", 1793: "a7a8r", 1794: "a7a8b", 1857: "h7h8b"} {
		mv, _ := IndexMove(i)
		require.Equal(t, want, mv.String(), "entry %d", i)
	}
	_, ok := IndexMove(NumMoves)
	require.False(t, ok)
	_, ok = MoveIndex(IndexedMove{From: 0, To: 63, Promo: PromoQueen})
	require.False(t, ok)

	// Castling goes king-to-rook; Black's moves are mirrored.
	for _, c := range []struct {
		m           string
		black, king bool
		want        string
	}{
		{"e1g1", false, true, "e1h1"}, {"e1c1", false, true, "e1a1"},
		{"e8g8", true, true, "e1h1"}, {"e8c8", true, true, "e1a1"},
		{"e1g1", false, false, "e1g1"}, // a rook or queen, not castling
		{"h2h1n", true, false, "h7h8"}, {"h2h1q", true, false, "h7h8q"},
	} {
		mv, err := board.ParseMove(c.m)
		require.NoError(t, err)
		i, err := LegalIndex(mv, c.black, c.king)
		require.NoError(t, err)
		got, _ := IndexMove(i)
		require.Equal(t, c.want, got.String(), "%+v", c)
	}
	_, err := LegalIndex(board.Move{From: 0, To: 1, Promo: board.King}, false, false)
	require.ErrorIs(t, err, ErrInput)
	_, err = LegalIndex(board.Move{From: 0, To: 18}, false, false) // a1c3
	require.NoError(t, err)
	_, err = LegalIndex(board.Move{From: 0, To: 26}, false, false) // a1c4
	require.ErrorIs(t, err, ErrInput)
}
