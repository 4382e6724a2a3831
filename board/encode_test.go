package board

import (
	"bufio"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/board/*.golden")

const testdataDir = "../testdata/board"

type posCase struct {
	name  string
	fen   string
	moves []string
	ctx   Context
}

// loadPositions reads testdata/board/positions.txt.
func loadPositions(t testing.TB) []posCase {
	t.Helper()
	f, err := os.Open(filepath.Join(testdataDir, "positions.txt"))
	require.NoError(t, err)
	defer f.Close()
	var out []posCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		parts := strings.Split(line, "|")
		require.Len(t, parts, 4, line)
		var ctx [6]float32
		fields := strings.Fields(parts[3])
		require.Len(t, fields, 6, line)
		for i, s := range fields {
			v, err := strconv.ParseFloat(s, 32)
			require.NoError(t, err, line)
			ctx[i] = float32(v)
		}
		out = append(out, posCase{
			name:  strings.TrimSpace(parts[0]),
			fen:   strings.TrimSpace(parts[1]),
			moves: strings.Fields(parts[2]),
			ctx:   Context{ctx[0], ctx[1], ctx[2], ctx[3], ctx[4], ctx[5]},
		})
	}
	require.NoError(t, sc.Err())
	return out
}

func (c posCase) game(t testing.TB) *Game {
	t.Helper()
	g, err := NewGame(c.fen)
	require.NoError(t, err, c.name)
	for _, m := range c.moves {
		require.NoError(t, g.Play(m), c.name)
	}
	return g
}

// dumpEncoded renders an Encoded and its tensors as stable text.
func dumpEncoded(e *Encoded, c Contract) string {
	var b strings.Builder
	fmt.Fprintf(&b, "squares (mover's frame, rank 8 first):\n")
	for r := 7; r >= 0; r-- {
		b.WriteString("  ")
		for f := 0; f < 8; f++ {
			fmt.Fprintf(&b, "%3d", e.Squares[r*8+f])
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "castling=%04b ep=%d halfmove=%d repetition=%d moverIsWhite=%v\n", e.Castling, e.EPFile, e.HalfMove, e.Repetition, e.MoverIsWhite)
	fmt.Fprintf(&b, "history:")
	for _, h := range e.History {
		fmt.Fprintf(&b, " %s%s", Square(h[0]), Square(h[1]))
	}
	fmt.Fprintf(&b, "\nctx=%+v\nlegal(%d):", e.Ctx, len(e.Legal))
	for _, i := range e.Legal {
		fmt.Fprintf(&b, " %d", i)
	}
	fmt.Fprintf(&b, "\nbinary=%s\n", hex.EncodeToString(e.AppendBinary(nil)))
	pieces := make([]int64, 64)
	squares := make([]float32, 64*c.SquareDim())
	global := make([]float32, c.GlobalDim())
	if err := c.Fill(e, pieces, squares, global); err != nil {
		fmt.Fprintf(&b, "fill error: %v\n", err)
		return b.String()
	}
	sn := c.SquareFeatureNames()
	fmt.Fprintf(&b, "square features (non-zero):\n")
	for s := 0; s < 64; s++ {
		for ch, name := range sn {
			if v := squares[s*c.SquareDim()+ch]; v != 0 {
				fmt.Fprintf(&b, "  %s %s=%g\n", Square(s), name, v)
			}
		}
	}
	fmt.Fprintf(&b, "global features (non-zero):\n")
	for i, name := range c.GlobalFeatureNames() {
		if global[i] != 0 {
			fmt.Fprintf(&b, "  %s=%.6g\n", name, global[i])
		}
	}
	return b.String()
}

func TestEncodeGolden(t *testing.T) {
	c := DefaultContract()
	var b strings.Builder
	for _, pc := range loadPositions(t) {
		g := pc.game(t)
		e := Encode(g, pc.ctx)
		fmt.Fprintf(&b, "== %s\nfen: %s\nmoves: %s\n", pc.name, g.FEN(), strings.Join(pc.moves, " "))
		b.WriteString(dumpEncoded(&e, c))
		b.WriteByte('\n')
	}
	path := filepath.Join(testdataDir, "encode.golden")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./board -run TestEncodeGolden -update")
	assert.Equal(t, string(want), b.String())
}

func TestVocabularyGolden(t *testing.T) {
	var b strings.Builder
	for i := 0; i < NumMoves; i++ {
		fmt.Fprintf(&b, "%d %s\n", i, IndexToMove(i, true))
	}
	path := filepath.Join(testdataDir, "vocab.golden")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./board -run TestVocabularyGolden -update")
	assert.Equal(t, string(want), b.String())
}

// mirrorFEN flips the board (ranks mirrored, colours swapped), the side to
// move, the castling rights and the en-passant square.
func mirrorFEN(t *testing.T, fen string) string {
	f := strings.Fields(fen)
	require.Len(t, f, 6)
	ranks := strings.Split(f[0], "/")
	for i, j := 0, len(ranks)-1; i < j; i, j = i+1, j-1 {
		ranks[i], ranks[j] = ranks[j], ranks[i]
	}
	swap := func(s string) string {
		return strings.Map(func(r rune) rune {
			switch {
			case r >= 'a' && r <= 'z':
				return r - 'a' + 'A'
			case r >= 'A' && r <= 'Z':
				return r - 'A' + 'a'
			}
			return r
		}, s)
	}
	stm := map[string]string{"w": "b", "b": "w"}[f[1]]
	castle := "-"
	if f[2] != "-" {
		castle = ""
		for _, c := range "KQkq" {
			if strings.ContainsRune(swap(f[2]), c) {
				castle += string(c)
			}
		}
	}
	ep := "-"
	if f[3] != "-" {
		ep = string(f[3][0]) + string('1'+'8'-f[3][1])
	}
	return strings.Join([]string{swap(strings.Join(ranks, "/")), stm, castle, ep, f[4], f[5]}, " ")
}

func TestMirrorTwinEncodesIdentically(t *testing.T) {
	c := DefaultContract()
	fens := []string{
		StartFEN,
		"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
		"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
		"rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
		"rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
		"4k3/8/8/8/8/8/4q3/R3K2R w KQ - 0 1",
		"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
	}
	ctx := Context{1500, 1700, 300, 3, 120, 200}
	for _, fen := range fens {
		tw := mirrorFEN(t, fen)
		g1, err := NewGame(fen)
		require.NoError(t, err, fen)
		g2, err := NewGame(tw)
		require.NoError(t, err, tw)
		e1, e2 := Encode(g1, ctx), Encode(g2, ctx)
		assert.NotEqual(t, e1.MoverIsWhite, e2.MoverIsWhite, fen)
		e2.MoverIsWhite = e1.MoverIsWhite
		assert.Equal(t, e1, e2, "%s vs twin %s", fen, tw)
		p1, s1, gl1 := fillAll(t, c, &e1)
		e2.MoverIsWhite = !e1.MoverIsWhite
		p2, s2, gl2 := fillAll(t, c, &e2)
		assert.Equal(t, p1, p2, fen)
		assert.Equal(t, s1, s2, fen)
		gl1[globalMoverIsWhite], gl2[globalMoverIsWhite] = 0, 0
		assert.Equal(t, gl1, gl2, fen)
		// The twin's legal moves are the mirrored moves.
		assert.Equal(t, len(g1.LegalMoves()), len(g2.LegalMoves()), fen)
		for _, m := range g1.LegalMoves() {
			assert.True(t, g2.IsLegal(m.Mirror()), "%s: mirror of %s not legal in %s", fen, m, tw)
		}
	}
}

// globalMoverIsWhite is the global index of mover-is-white (documented on Contract).
const globalMoverIsWhite = 2*(NumRatingAnchors+1) + 9

func TestGlobalFeatureNamesMatchLayout(t *testing.T) {
	for _, d := range []uint32{0, DerivedMaterial, DerivedCheckers, DerivedAttacks, DerivedAll} {
		c := Contract{Version: ContractVersion, Derived: d}
		assert.Len(t, c.SquareFeatureNames(), c.SquareDim(), "derived %b", d)
		assert.Len(t, c.GlobalFeatureNames(), c.GlobalDim(), "derived %b", d)
		assert.Equal(t, "mover_is_white", c.GlobalFeatureNames()[globalMoverIsWhite])
	}
}

func fillAll(t *testing.T, c Contract, e *Encoded) ([]int64, []float32, []float32) {
	t.Helper()
	p := make([]int64, 64)
	s := make([]float32, 64*c.SquareDim())
	g := make([]float32, c.GlobalDim())
	require.NoError(t, c.Fill(e, p, s, g))
	return p, s, g
}

func TestHistoryMoveByMoveEqualsReplay(t *testing.T) {
	moves := []string{"e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6", "e1g1", "f8e7", "f1e1", "b7b5", "a4b3", "d7d6", "c2c3", "e8g8"}
	ctx := UnknownContext()
	g := MustNewGame("")
	for i, m := range moves {
		require.NoError(t, g.Play(m))
		replay := MustNewGame("")
		for _, mm := range moves[:i+1] {
			require.NoError(t, replay.Play(mm))
		}
		assert.Equal(t, Encode(replay, ctx), Encode(g, ctx), "after %v", moves[:i+1])
		assert.Equal(t, Encode(replay, ctx), Encode(g.Clone(), ctx), "clone after %v", moves[:i+1])
		// From the FEN alone the board facts agree; only the history is lost.
		fromFEN := Encode(MustNewGame(g.FEN()), ctx)
		live := Encode(g, ctx)
		assert.Equal(t, live.Squares, fromFEN.Squares)
		assert.Equal(t, live.Legal, fromFEN.Legal)
		assert.Equal(t, live.Castling, fromFEN.Castling)
		// The history is the played moves, most recent first, in the mover's frame.
		for k := 0; k < HistoryLen; k++ {
			j := i - k
			if j < 0 {
				assert.Equal(t, [2]uint8{64, 64}, live.History[k])
				continue
			}
			pm, _ := ParseMove(moves[j])
			if !g.WhiteToMove() {
				pm = pm.Mirror()
			}
			assert.Equal(t, [2]uint8{uint8(pm.From), uint8(pm.To)}, live.History[k], "history %d after %v", k, moves[:i+1])
		}
	}
}

func TestEncodedBinaryRoundTrip(t *testing.T) {
	for _, pc := range loadPositions(t) {
		e := Encode(pc.game(t), pc.ctx)
		buf := e.AppendBinary([]byte{0xAA}) // appends after existing bytes
		require.Equal(t, e.BinarySize()+1, len(buf))
		var d Encoded
		n, err := d.DecodeBinary(buf[1:])
		require.NoError(t, err, pc.name)
		assert.Equal(t, e.BinarySize(), n)
		assert.Equal(t, e, d, pc.name)
		// Every strict prefix is truncated.
		for k := 0; k < len(buf)-1; k++ {
			_, err := d.DecodeBinary(buf[1 : 1+k])
			assert.ErrorIs(t, err, ErrTruncated, "%s prefix %d", pc.name, k)
		}
		// Trailing bytes are left alone.
		n, err = d.DecodeBinary(append(buf[1:], 1, 2, 3))
		require.NoError(t, err)
		assert.Equal(t, e.BinarySize(), n)
	}
}

func TestEncodedDecodeCorrupt(t *testing.T) {
	e := Encode(MustNewGame(""), UnknownContext())
	good := e.AppendBinary(nil)
	cases := []struct {
		name string
		off  int
		val  byte
	}{
		{"version", 0, 99},
		{"token", 1, 0xDD},
		{"flags", 33, 0xE0},
		{"ep file", 34, 8},
		{"history square", 38, 65},
		{"history half none", 38, 12},
		{"context NaN", 57, 0x7F},
		{"legal count", 79, 0xFF},
		{"legal index", EncodedFixedSize + 1, 0xFF},
	}
	for _, c := range cases {
		b := append([]byte(nil), good...)
		b[c.off] = c.val
		if c.name == "context NaN" {
			copy(b[54:58], []byte{0x00, 0x00, 0xC0, 0x7F})
		}
		var d Encoded
		_, err := d.DecodeBinary(b)
		assert.Error(t, err, c.name)
		assert.True(t, errorIsAny(err, ErrCorrupt, ErrTruncated), "%s: %v", c.name, err)
	}
}

func errorIsAny(err error, targets ...error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}

func TestFillErrors(t *testing.T) {
	e := Encode(MustNewGame(""), UnknownContext())
	c := DefaultContract()
	p, s, g := make([]int64, 64), make([]float32, 64*c.SquareDim()), make([]float32, c.GlobalDim())
	assert.ErrorIs(t, c.Fill(&e, p[:63], s, g), ErrContract)
	assert.ErrorIs(t, c.Fill(&e, p, s[:10], g), ErrContract)
	assert.ErrorIs(t, c.Fill(&e, p, s, g[:1]), ErrContract)
	assert.ErrorIs(t, Contract{Version: 2, Derived: 0}.Fill(&e, p, s, g), ErrContract)
	assert.ErrorIs(t, Contract{Version: ContractVersion, Derived: 1 << 20}.Validate(), ErrContract)
	assert.NoError(t, c.Fill(&e, p, s, g))
}

func TestDerivedSwitches(t *testing.T) {
	// Each derived bit adds exactly its documented inputs.
	base := Contract{Version: ContractVersion}
	assert.Equal(t, 18, base.SquareDim())
	assert.Equal(t, 46, base.GlobalDim())
	assert.Equal(t, 46+11, Contract{ContractVersion, DerivedMaterial}.GlobalDim())
	assert.Equal(t, 19, Contract{ContractVersion, DerivedCheckers}.SquareDim())
	assert.Equal(t, 48, Contract{ContractVersion, DerivedCheckers}.GlobalDim())
	assert.Equal(t, 20, Contract{ContractVersion, DerivedAttacks}.SquareDim())
	// The base inputs are a prefix of the global inputs whatever the bits.
	g := MustNewGame("4k3/8/8/8/8/8/4q3/R3K2R w KQ - 0 1")
	e := Encode(g, Context{1500, 1500, 60, 0, 30, 30})
	_, _, g0 := fillAll(t, base, &e)
	_, _, gAll := fillAll(t, DefaultContract(), &e)
	assert.Equal(t, g0, gAll[:len(g0)])
}
