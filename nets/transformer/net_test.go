package transformer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/nets"
	"github.com/humchess/humchess/nets/onnx"
)

// testPositions are real positions: start, an opening line (Black to move),
// promotions for both sides with underpromotions and captures, castling
// with en passant.
var testPositions = []struct {
	fen   string
	moves string
	ctx   board.Context
}{
	{"startpos", "", board.UnknownContext()},
	{"startpos", "e2e4 e7e5 g1f3 b8c6 f1b5", board.Context{MoverRating: 1500, OppRating: 1620, Base: 180, Inc: 2, MoverClock: 170, OppClock: 175.5}},
	{"8/8/8/8/8/8/1p4k1/R3K3 b - - 0 1", "", board.Context{MoverRating: 900, OppRating: 2500, Base: 60, Inc: 0, MoverClock: 3, OppClock: 50}},
	{"3r4/4P3/8/8/8/8/8/4K2k w - - 0 1", "", board.Context{MoverRating: 2200, OppRating: -1, Base: -1, Inc: -1, MoverClock: -1, OppClock: -1}},
	{"r3k2r/ppp1qppp/8/3pP3/8/8/PPPQ1PPP/R3K2R w KQkq d6 0 9", "", board.Context{MoverRating: 1800, OppRating: 1790, Base: 600, Inc: 5, MoverClock: 400, OppClock: 380}},
}

func testInputs(t testing.TB) []nets.Input {
	t.Helper()
	var in []nets.Input
	for _, p := range testPositions {
		g, err := board.NewGame(p.fen)
		require.NoError(t, err, p.fen)
		for _, m := range strings.Fields(p.moves) {
			require.NoError(t, g.Play(m), "%s: %s", p.fen, m)
		}
		in = append(in, nets.Input{Game: g, Ctx: p.ctx})
	}
	return in
}

// tinyNet builds a Tiny net (smolgen on or off), its reference model and its ONNX bytes.
func tinyNet(t testing.TB, smolgen bool, seed uint64) (Arch, *Model, []byte) {
	t.Helper()
	a := Tiny(board.DefaultContract())
	a.Smolgen = smolgen
	m, _, model := randomNet(t, a, seed)
	return a, m, model
}

// randomNet builds a net of architecture a with random weights (seed): its
// reference model, the weights and its ONNX bytes.
func randomNet(t testing.TB, a Arch, seed uint64) (*Model, Weights, []byte) {
	t.Helper()
	w, err := RandomWeights(a, seed)
	require.NoError(t, err)
	m, err := NewModel(a, w)
	require.NoError(t, err)
	model, err := BuildONNX(a, w)
	require.NoError(t, err)
	return m, w, model
}

func TestNetMatchesForwardOnRealPositions(t *testing.T) {
	lib := ortLib(t)
	all := testInputs(t)
	for _, tc := range []struct {
		name    string
		smolgen bool
		in      []nets.Input
	}{
		{"smolgen/batch1", true, all[1:2]},
		{"smolgen/batch5", true, all},
		{"plain/batch1", false, all[2:3]},
		{"plain/batch5", false, all},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, m, model := tinyNet(t, tc.smolgen, 21)
			n, err := Open(model, Options{LibraryPath: lib, MaxBatch: 2})
			require.NoError(t, err)
			defer n.Close()
			assert.Equal(t, a, n.Arch())

			b, err := EncodeInputs(a.Contract(), tc.in)
			require.NoError(t, err)
			want, err := m.Forward(b)
			require.NoError(t, err)
			got, err := n.Run(b)
			require.NoError(t, err)
			want.From, want.To = nil, nil
			requireClose(t, want, got, 1e-4, tc.name)

			outs, err := n.Evaluate(context.Background(), tc.in)
			require.NoError(t, err)
			wantOuts, err := Outputs(want, tc.in)
			require.NoError(t, err)
			require.Len(t, outs, len(tc.in))
			for i, o := range outs {
				g := tc.in[i].Game
				assert.Equal(t, g.LegalMoves(), o.Moves, "position %d (%s): moves", i, g.FEN())
				require.Len(t, o.Logits, len(o.Moves))
				d, at := maxDiff(wantOuts[i].Logits, o.Logits)
				assert.Less(t, d, 1e-4, "position %d (%s): logit of %v", i, g.FEN(), o.Moves[max(at, 0)])
				for _, p := range []struct {
					name string
					v    []float32
					n    int
				}{{"wdl", o.WDL, NumWDL}, {"time", o.Time, NumTimeBins}} {
					require.Len(t, p.v, p.n, "position %d: %s", i, p.name)
					var sum float64
					for _, x := range p.v {
						sum += float64(x)
					}
					assert.InDelta(t, 1, sum, 1e-5, "position %d: %s probabilities sum", i, p.name)
				}
				d, _ = maxDiff(wantOuts[i].WDL, o.WDL)
				assert.Less(t, d, 1e-5, "position %d: wdl", i)
			}
		})
	}
}

// TestUnderpromotionLogits checks the move head's promotion term on a real
// position for each side: an underpromotion's logit differs from the plain
// (queen) entry of the same from-to by exactly U[to, piece] in the mover's
// frame.
func TestUnderpromotionLogits(t *testing.T) {
	a := Tiny(board.DefaultContract())
	w, err := RandomWeights(a, 4)
	require.NoError(t, err)
	m, err := NewModel(a, w)
	require.NoError(t, err)
	in := testInputs(t)[2:4] // black b2 pawn, white e7 pawn
	b, err := EncodeInputs(a.Contract(), in)
	require.NoError(t, err)
	r, err := m.Forward(b)
	require.NoError(t, err)
	outs, err := Outputs(r, in)
	require.NoError(t, err)
	for i, o := range outs {
		byMove := map[string]float32{}
		for j, mv := range o.Moves {
			byMove[mv.String()] = o.Logits[j]
		}
		var promos int
		for _, mv := range o.Moves {
			if mv.Promo == board.Knight || mv.Promo == board.Bishop || mv.Promo == board.Rook {
				promos++
				q := mv
				q.Promo = board.Queen
				diff := byMove[mv.String()] - byMove[q.String()]
				assert.NotZero(t, diff, "position %d: %s and %s have the same logit", i, mv, q)
			}
		}
		assert.GreaterOrEqual(t, promos, 6, "position %d has underpromotions", i)
	}
}

func TestOpenRefuses(t *testing.T) {
	lib := ortLib(t)
	a := Tiny(board.DefaultContract())
	a.Layers = 1
	w, err := RandomWeights(a, 1)
	require.NoError(t, err)

	other := a
	other.ContractVersion = board.ContractVersion + 1
	otherModel, err := BuildONNX(other, w)
	require.NoError(t, err)

	wrongDims := a
	wrongDims.SquareDim++
	wd, err := RandomWeights(wrongDims, 1)
	require.NoError(t, err)
	wrongDimsModel, err := BuildONNX(wrongDims, wd)
	require.NoError(t, err)

	g := onnx.NewGraph("plain")
	x := g.Input("x", onnx.Float, onnx.Batch, 2)
	g.Output("y", g.Relu(x), onnx.Float, onnx.Batch, 2)
	plain, err := onnx.Model{Graph: g}.Marshal()
	require.NoError(t, err)

	for _, tc := range []struct {
		name  string
		model []byte
		want  error
		msg   []string
	}{
		{"contract version", otherModel, nets.ErrContractMismatch,
			[]string{"version " + strconv.Itoa(board.ContractVersion+1), "version " + strconv.Itoa(board.ContractVersion)}},
		{"input sizes", wrongDimsModel, ErrArch, []string{"square"}},
		{"not humchess", plain, ErrNotHumChess, []string{MetaArch}},
		{"not onnx", []byte("hello, world"), onnx.ErrNotONNX, nil},
		{"empty", nil, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := Open(tc.model, Options{LibraryPath: lib})
			require.Error(t, err)
			assert.Nil(t, n)
			if tc.want != nil {
				assert.True(t, errors.Is(err, tc.want), "error %q, want %v", err, tc.want)
			}
			for _, s := range tc.msg {
				assert.Contains(t, err.Error(), s)
			}
		})
	}
}

func TestNetLifecycle(t *testing.T) {
	lib := ortLib(t)
	_, _, model := tinyNet(t, true, 3)
	dir := t.TempDir()
	p := filepath.Join(dir, "tiny.onnx")
	require.NoError(t, os.WriteFile(p, model, 0o644))
	n, err := OpenFile(p, Options{LibraryPath: lib, Threads: 2, Name: "tiny"})
	require.NoError(t, err)
	info := n.Info()
	assert.Equal(t, "tiny", info.Name)
	assert.Equal(t, nets.KindHumChess, info.Kind)
	assert.NoError(t, info.Validate())
	assert.True(t, info.HasWDL && info.HasTime)

	in := testInputs(t)
	outs, err := n.Evaluate(context.Background(), nil)
	require.NoError(t, err)
	assert.Empty(t, outs)

	_, err = n.Evaluate(context.Background(), []nets.Input{{}})
	assert.ErrorIs(t, err, nets.ErrBadInput)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = n.Evaluate(ctx, in)
	assert.ErrorIs(t, err, context.Canceled)

	require.NoError(t, n.Close())
	require.NoError(t, n.Close())
	_, err = n.Evaluate(context.Background(), in)
	assert.ErrorIs(t, err, nets.ErrClosed)

	_, err = OpenFile(filepath.Join(dir, "missing.onnx"), Options{LibraryPath: lib})
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestConvertSafetensorsToONNX(t *testing.T) {
	lib := ortLib(t)
	a := Tiny(board.DefaultContract())
	w, err := RandomWeights(a, 8)
	require.NoError(t, err)
	dir := t.TempDir()
	st, out := filepath.Join(dir, "net.safetensors"), filepath.Join(dir, "net.onnx")
	require.NoError(t, SaveSafetensors(st, a, w))
	require.NoError(t, ConvertSafetensorsToONNX(st, out))
	n, err := OpenFile(out, Options{LibraryPath: lib})
	require.NoError(t, err)
	defer n.Close()
	sum, err := WeightsSHA256(a, w)
	require.NoError(t, err)
	stBytes, err := os.ReadFile(st)
	require.NoError(t, err)
	assert.Equal(t, nets.HashBytes(stBytes), sum, "the hash is the sha256 of the safetensors file")
	assert.Equal(t, sum, n.Info().Hash)
	assert.Equal(t, "humchess-nn-"+sum[:12], n.Info().Name)

	model, err := os.ReadFile(out)
	require.NoError(t, err)
	meta, err := onnx.ReadMetadata(model)
	require.NoError(t, err)
	for k, v := range map[string]string{
		MetaContractVersion: strconv.Itoa(board.ContractVersion),
		MetaContractDerived: strconv.Itoa(int(board.DefaultContract().Derived)),
		MetaVocab:           "1858 humchess-1858",
		MetaHistory:         "8",
		MetaArch:            a.JSON(),
		MetaSHA256:          sum,
	} {
		assert.Equal(t, v, meta[k], "metadata %s", k)
	}

	// A corrupt safetensors file is refused and leaves no ONNX file.
	require.NoError(t, os.WriteFile(st, stBytes[:len(stBytes)/2], 0o644))
	bad := filepath.Join(dir, "bad.onnx")
	assert.ErrorIs(t, ConvertSafetensorsToONNX(st, bad), ErrTruncated)
	_, err = os.Stat(bad)
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// TestDefaultArchMatches runs the Default architecture (8 heads, 8 layers)
// once through both paths on a real position. Skipped with -short.
func TestDefaultArchMatches(t *testing.T) {
	if testing.Short() {
		t.Skip("the Default architecture's Go forward takes about a second")
	}
	m, _, n := openRandom(t, Default(board.DefaultContract()), 6)
	defer n.Close()
	b, err := EncodeInputs(m.Arch().Contract(), testInputs(t)[1:3])
	require.NoError(t, err)
	want, err := m.Forward(b)
	require.NoError(t, err)
	got, err := n.Run(b)
	require.NoError(t, err)
	want.From, want.To = nil, nil
	requireClose(t, want, got, 1e-4, "default arch")
}

// openRandom returns the pure-Go reference of architecture a with random
// weights (seed), the weights, and the same net opened through ONNX Runtime.
func openRandom(t *testing.T, a Arch, seed uint64) (*Model, Weights, *Net) {
	t.Helper()
	lib := ortLib(t)
	m, w, model := randomNet(t, a, seed)
	n, err := Open(model, Options{LibraryPath: lib})
	require.NoError(t, err)
	return m, w, n
}
