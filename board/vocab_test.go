package board

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVocabularyIsABijection(t *testing.T) {
	for _, white := range []bool{true, false} {
		seen := map[Move]bool{}
		for i := 0; i < NumMoves; i++ {
			m := IndexToMove(i, white)
			require.False(t, seen[m], "index %d: %s repeats", i, m)
			seen[m] = true
			j, ok := MoveToIndex(m, white)
			require.True(t, ok, "index %d: %s", i, m)
			require.Equal(t, i, j, "index %d: %s", i, m)
		}
	}
	assert.Equal(t, NumPlainMoves+NumUnderPromo, NumMoves)
	assert.Equal(t, NullMove, IndexToMove(-1, true))
	assert.Equal(t, NullMove, IndexToMove(NumMoves, true))
}

func TestMoveToIndexCases(t *testing.T) {
	cases := []struct {
		move  string
		white bool
		ok    bool
		same  string // another move that must share the index ("" = none)
	}{
		{"e2e4", true, true, ""},
		{"e7e5", false, true, "e2e4"},  // Black's e7e5 is White's e2e4 in the mover's frame
		{"e7e8q", true, true, "e7e8"},  // queen promotion = plain entry
		{"e2e1q", false, true, "e7e8"}, // mirrored
		{"e7e8n", true, true, ""},
		{"e2d1r", false, true, "e7d8r"},
		{"e6e8n", true, false, ""}, // not a pawn step
		{"e7g8n", true, false, ""},
		{"a1h7", true, false, ""}, // not a queen or knight line
		{"g1f3", true, true, ""},
	}
	for _, c := range cases {
		m, err := ParseMove(c.move)
		require.NoError(t, err)
		i, ok := MoveToIndex(m, c.white)
		assert.Equal(t, c.ok, ok, c.move)
		if c.same != "" {
			o, _ := ParseMove(c.same)
			j, _ := MoveToIndex(o, true)
			assert.Equal(t, j, i, "%s vs %s", c.move, c.same)
		}
	}
	for _, m := range []Move{NullMove, {12, 28, King}, {12, 28, Pawn}, {64, 0, 0}} {
		_, ok := MoveToIndex(m, true)
		assert.False(t, ok, "%+v", m)
	}
}

func TestLegalMaskAndIndices(t *testing.T) {
	g := MustNewGame("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
	mask := make([]bool, NumMoves)
	g.LegalMask(mask)
	idx := g.LegalIndices(nil)
	assert.Len(t, idx, 48)
	n := 0
	for _, b := range mask {
		if b {
			n++
		}
	}
	assert.Equal(t, 48, n)
	for _, i := range idx {
		assert.True(t, mask[i])
	}
}

func TestTargets(t *testing.T) {
	m, _ := ParseMove("e7e5")
	tg, err := NewTargets(m, false, 1, 3.25)
	require.NoError(t, err)
	i, _ := MoveToIndex(m, false)
	assert.Equal(t, Targets{Move: int16(i), Result: 1, Seconds: 3.25, From: 12, To: 28}, tg)
	buf := tg.AppendBinary(nil)
	require.Len(t, buf, TargetsSize)
	var d Targets
	n, err := d.DecodeBinary(buf)
	require.NoError(t, err)
	assert.Equal(t, TargetsSize, n)
	assert.Equal(t, tg, d)
	for k := 0; k < TargetsSize; k++ {
		_, err := d.DecodeBinary(buf[:k])
		assert.ErrorIs(t, err, ErrTruncated)
	}
	bad := append([]byte(nil), buf...)
	bad[2] = 5
	_, err = d.DecodeBinary(bad)
	assert.ErrorIs(t, err, ErrCorrupt)
	_, err = NewTargets(m, false, 2, 1)
	assert.ErrorIs(t, err, ErrCorrupt)
	bogus, _ := ParseMove("a1h7")
	_, err = NewTargets(bogus, true, 0, 1)
	assert.ErrorIs(t, err, ErrBadMove)
	tg, err = NewTargets(m, false, 0, -5)
	require.NoError(t, err)
	assert.Equal(t, float32(-1), tg.Seconds)
}

func TestMoverResult(t *testing.T) {
	cases := []struct {
		res   string
		white bool
		want  int
		ok    bool
	}{
		{"1-0", true, 1, true}, {"1-0", false, -1, true}, {"0-1", true, -1, true},
		{"0-1", false, 1, true}, {"1/2-1/2", false, 0, true}, {"*", true, 0, false},
	}
	for _, c := range cases {
		r, ok := MoverResult(c.res, c.white)
		assert.Equal(t, c.ok, ok, c.res)
		assert.Equal(t, c.want, r, "%s white=%v", c.res, c.white)
	}
}

func TestThinkBin(t *testing.T) {
	cases := []struct {
		sec  float64
		want int
	}{
		{-1, -1}, {0, 0}, {0.49, 0}, {0.5, 1}, {1.49, 1}, {1.5, 2}, {2.5, 3}, {4.49, 3},
		{4.5, 4}, {9.5, 5}, {19.49, 5}, {19.5, 6}, {59.49, 6}, {59.5, 7}, {3600, 7},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, ThinkBin(c.sec), "%v s", c.sec)
	}
}

func TestThinkSpent(t *testing.T) {
	cases := []struct{ prev, cur, inc, want float64 }{
		{180, 175, 0, 5},
		{180, 177, 2, 5},
		{10, 11.5, 2, 0.5},
		{10, 13, 2, 0}, // clamped
		{-1, 10, 0, -1},
		{10, -1, 0, -1},
		{10, 9, -1, 1}, // unknown increment counts as 0
	}
	for _, c := range cases {
		assert.InDelta(t, c.want, ThinkSpent(c.prev, c.cur, c.inc), 1e-9, "%+v", c)
	}
}

func TestRatingOneHot(t *testing.T) {
	cases := []struct {
		rating float32
		known  bool
		want   map[int]float32
	}{
		{-1, false, map[int]float32{}},
		{100, true, map[int]float32{0: 1}},
		{600, true, map[int]float32{0: 1}},
		{700, true, map[int]float32{0: 0.5, 1: 0.5}},
		{1550, true, map[int]float32{4: 0.25, 5: 0.75}},
		{1600, true, map[int]float32{5: 1}},
		{3000, true, map[int]float32{12: 1}},
		{3500, true, map[int]float32{12: 1}},
	}
	for _, c := range cases {
		dst := make([]float32, NumRatingAnchors)
		assert.Equal(t, c.known, RatingOneHot(c.rating, dst), "%v", c.rating)
		var sum float32
		for i, v := range dst {
			assert.InDelta(t, c.want[i], v, 1e-6, "rating %v anchor %d", c.rating, i)
			sum += v
		}
		if c.known {
			assert.InDelta(t, 1, sum, 1e-6)
		}
	}
}
