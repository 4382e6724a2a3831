package board

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewGameRejectsBadFENs(t *testing.T) {
	f, err := os.Open(filepath.Join(testdataDir, "bad_fens.txt"))
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" && !strings.Contains(line, "\t") {
			continue
		}
		fen, want, ok := strings.Cut(line, "\t")
		require.True(t, ok, "fixture line %q needs a tab", line)
		n++
		g, err := NewGame(fen)
		if fen == "" {
			// "" is the start position by definition; test a blank FEN instead.
			g, err = NewGame(" / ")
		}
		if assert.Error(t, err, "FEN %q accepted", fen) {
			assert.ErrorIs(t, err, ErrBadFEN, fen)
			assert.Contains(t, err.Error(), want, "FEN %q", fen)
		}
		assert.Nil(t, g)
	}
	require.NoError(t, sc.Err())
	assert.Greater(t, n, 25)
}

func TestNewGameAccepts(t *testing.T) {
	cases := []struct{ in, fen string }{
		{"", StartFEN},
		{"startpos", StartFEN},
		{"  rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR   w KQkq - 0 1 ", StartFEN},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -", StartFEN},
		{"rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 2", "rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 2"},
		{"4k3/8/8/8/8/8/8/4K2r w - - 0 1", "4k3/8/8/8/8/8/8/4K2r w - - 0 1"},
	}
	for _, c := range cases {
		g, err := NewGame(c.in)
		require.NoError(t, err, c.in)
		assert.Equal(t, c.fen, g.FEN(), c.in)
	}
}

func TestPlay(t *testing.T) {
	cases := []struct {
		name  string
		fen   string
		moves []string
		want  string // FEN after
	}{
		{"castle king side", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", []string{"e1g1"}, "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1"},
		{"castle queen side", "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", []string{"e8c8"}, "2kr3r/8/8/8/8/8/8/R3K2R w KQ - 1 2"},
		{"promotion", "8/4P1k1/8/8/8/8/6K1/8 w - - 0 1", []string{"e7e8q"}, "4Q3/6k1/8/8/8/8/6K1/8 b - - 0 1"},
		{"underpromotion", "8/4P1k1/8/8/8/8/6K1/8 w - - 0 1", []string{"e7e8n"}, "4N3/6k1/8/8/8/8/6K1/8 b - - 0 1"},
		{"en passant", "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3", []string{"e5d6"}, "rnbqkbnr/ppp1pppp/3P4/8/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3"},
		{"rook capture drops right", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", []string{"a1a8"}, "R3k2r/8/8/8/8/8/8/4K2R b Kk - 0 1"},
	}
	for _, c := range cases {
		g, err := NewGame(c.fen)
		require.NoError(t, err, c.name)
		for _, m := range c.moves {
			require.NoError(t, g.Play(m), c.name)
		}
		assert.Equal(t, c.want, g.FEN(), c.name)
		assert.Equal(t, boardField(c.want), mailboxFEN(g), c.name)
		assert.Equal(t, len(c.moves), g.Ply(), c.name)
		// The hash equals that of a fresh game at the same FEN.
		assert.Equal(t, MustNewGame(c.want).Hash(), g.Hash(), c.name)
	}
}

func TestPlayErrors(t *testing.T) {
	g := MustNewGame("")
	cases := []struct {
		move string
		err  error
	}{
		{"e2e5", ErrIllegalMove},
		{"e7e5", ErrIllegalMove},
		{"e1g1", ErrIllegalMove},
		{"e2e4x", ErrBadMove},
		{"e2", ErrBadMove},
		{"i2i4", ErrBadMove},
		{"", ErrBadMove},
		{"e2e4q", ErrIllegalMove},
	}
	for _, c := range cases {
		err := g.Play(c.move)
		assert.ErrorIs(t, err, c.err, c.move)
		if c.err == ErrIllegalMove {
			assert.Contains(t, err.Error(), c.move)
		}
	}
	assert.Equal(t, StartFEN, g.FEN(), "game unchanged by failed moves")
	assert.Equal(t, 0, g.Ply())
}

func TestPlaySAN(t *testing.T) {
	cases := []struct {
		fen, san, uci string
		err           error
	}{
		{StartFEN, "e4", "e2e4", nil},
		{StartFEN, "Nf3", "g1f3", nil},
		{StartFEN, "Nf3!?", "g1f3", nil},
		{StartFEN, "e5", "", ErrIllegalMove},
		{StartFEN, "Ke2", "", ErrIllegalMove},
		{StartFEN, "Zf3", "", ErrBadMove},
		{StartFEN, "x", "", ErrBadMove},
		{"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "O-O", "e1g1", nil},
		{"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "0-0-0", "e1c1", nil},
		{"r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "O-O-O+", "e8c8", nil},
		{"8/4P1k1/8/8/8/8/6K1/8 w - - 0 1", "e8=Q", "e7e8q", nil},
		{"8/4P1k1/8/8/8/8/6K1/8 w - - 0 1", "e8N", "e7e8n", nil},
		{"8/4P1k1/8/8/8/8/6K1/8 w - - 0 1", "e8", "", ErrIllegalMove},
		{"rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3", "exd6", "e5d6", nil},
		{"rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3", "exd6e.p.", "e5d6", nil},
		{"4k3/8/8/8/8/8/8/R3K2R w - - 0 1", "Rd1", "a1d1", nil},
		{"4k3/8/8/8/8/8/8/R4RK1 w - - 0 1", "Rd1", "", ErrAmbiguousMove},
		{"4k3/8/8/8/8/8/8/R4RK1 w - - 0 1", "Rad1", "a1d1", nil},
		{"4k3/8/8/8/R7/8/8/R5K1 w - - 0 1", "R1a2", "a1a2", nil},
		{"4k3/8/8/8/R7/8/8/R5K1 w - - 0 1", "R4a2", "a4a2", nil},
		{"8/8/8/7k/8/Q7/8/Q1Q3K1 w - - 0 1", "Qa1b2", "a1b2", nil},
		{"8/8/8/7k/8/Q7/8/Q1Q3K1 w - - 0 1", "Qab2", "", ErrAmbiguousMove},
		{"8/8/8/7k/8/Q7/8/Q1Q3K1 w - - 0 1", "Q1b2", "", ErrAmbiguousMove},
		{"8/8/8/7k/8/Q7/8/Q1Q3K1 w - - 0 1", "Qcb2", "c1b2", nil},
	}
	for _, c := range cases {
		g := MustNewGame(c.fen)
		err := g.PlaySAN(c.san)
		if c.err != nil {
			assert.ErrorIs(t, err, c.err, "%s in %s", c.san, c.fen)
			assert.Equal(t, 0, g.Ply())
			continue
		}
		require.NoError(t, err, "%s in %s", c.san, c.fen)
		m, _ := g.LastMove()
		assert.Equal(t, c.uci, m.String(), "%s in %s", c.san, c.fen)
	}
}

func TestStatusAndRepetition(t *testing.T) {
	cases := []struct {
		name  string
		fen   string
		moves []string
		want  Status
		reps  int
	}{
		{"start", "", nil, Ongoing, 0},
		{"fool's mate", "", []string{"f2f3", "e7e5", "g2g4", "d8h4"}, Checkmate, 0},
		{"stalemate", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", nil, Stalemate, 0},
		{"bare kings", "7k/8/6K1/8/8/8/8/8 w - - 0 1", nil, InsufficientMaterial, 0},
		{"king and knight", "7k/8/6K1/8/8/8/8/6N1 w - - 0 1", nil, InsufficientMaterial, 0},
		{"same-colour bishops", "7k/8/6K1/8/8/8/6b1/5B2 w - - 0 1", nil, InsufficientMaterial, 0},
		{"opposite bishops", "7k/8/6K1/8/8/8/5b2/5B2 w - - 0 1", nil, Ongoing, 0},
		{"two knights", "7k/8/6K1/8/8/8/8/5NN1 w - - 0 1", nil, Ongoing, 0},
		{"fifty moves", "7k/8/6K1/8/8/8/8/6R1 w - - 99 80", []string{"g1g2"}, FiftyMove, 0},
		{"fifty reset by pawn", "7k/8/6K1/8/8/8/6P1/6R1 w - - 99 80", []string{"g2g3"}, Ongoing, 0},
		{"second occurrence", "", []string{"g1f3", "g8f6", "f3g1", "f6g8"}, Ongoing, 1},
		{"threefold", "", []string{"g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"}, Threefold, 2},
		{"threefold mid-shuffle", "", []string{"g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8", "g1f3"}, Threefold, 2},
		{"pawn move breaks repetition", "", []string{"g1f3", "g8f6", "f3g1", "f6g8", "e2e3", "e7e6", "g1f3", "g8f6", "f3g1", "f6g8"}, Ongoing, 1},
		{"lost castling right differs", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", []string{"e1f1", "e8f8", "f1e1", "f8e8"}, Ongoing, 0},
		// Double step without a pawn able to capture en passant: the e3 square
		// is not part of the position, so the position repeats.
		{"ep square not capturable", "4k3/8/8/8/8/8/4P3/4K1N1 w - - 0 1", []string{"e2e4", "e8d8", "g1f3", "d8e8", "f3g1", "e8d8", "g1f3", "d8e8"}, Ongoing, 1},
	}
	for _, c := range cases {
		g, err := NewGame(c.fen)
		require.NoError(t, err, c.name)
		for _, m := range c.moves {
			require.NoError(t, g.Play(m), c.name)
		}
		assert.Equal(t, c.want, g.Status(), "%s: %s", c.name, g.FEN())
		assert.Equal(t, c.reps, g.Repetitions(), c.name)
	}
}

func TestCloneIsIndependent(t *testing.T) {
	g := MustNewGame("")
	require.NoError(t, g.Play("e2e4"))
	c := g.Clone()
	require.NoError(t, c.Play("e7e5"))
	require.NoError(t, g.Play("c7c5"))
	require.NoError(t, c.Play("g1f3"))
	assert.Equal(t, "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2", g.FEN())
	assert.Equal(t, "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2", c.FEN())
	assert.Equal(t, []Move{{12, 28, 0}, {50, 34, 0}}, g.Moves())
	assert.Equal(t, 3, c.Ply())
	assert.Equal(t, 2, g.FullMoveNumber())
	assert.Equal(t, Black, c.SideToMove())
}

func TestCloneConcurrent(t *testing.T) {
	g := MustNewGame("")
	done := make(chan []Move)
	for i := 0; i < 4; i++ {
		c := g.Clone()
		go func() {
			_ = c.Play("e2e4")
			done <- c.LegalMoves()
		}()
	}
	for i := 0; i < 4; i++ {
		assert.Len(t, <-done, 20)
	}
}

func TestMoveStringAndParse(t *testing.T) {
	for _, s := range []string{"e2e4", "e7e8q", "a2a1n", "e1g1", "h7h8r", "b2b1b"} {
		m, err := ParseMove(s)
		require.NoError(t, err, s)
		assert.Equal(t, s, m.String())
	}
	assert.Equal(t, "0000", NullMove.String())
	m, err := ParseMove("E7E8Q")
	assert.Error(t, err, "upper-case squares are not UCI: %v", m)
}
