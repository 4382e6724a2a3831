package lc0

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/nets"
)

func TestReadMaia(t *testing.T) {
	for _, name := range []string{"maia-1100", "maia-1900"} {
		w := testWeights(t, name)
		require.Equal(t, Format{Input: InputClassical112, Output: OutputWDL, Network: NetworkSEWithHeadFmt,
			Policy: PolicyConvolution, Value: ValueWDL}, w.Format, name)
		require.Equal(t, 64, w.Filters)
		require.Len(t, w.Blocks, 6)
		for i, b := range w.Blocks {
			require.NotNil(t, b.SE, "%s block %d", name, i)
			require.Equal(t, 64, b.SE.FC1.In)
			require.Equal(t, 128, b.SE.FC2.Out)
		}
		require.Equal(t, Conv{Out: 64, In: 64, Kernel: 3}, Conv{Out: w.Policy1.Out, In: w.Policy1.In, Kernel: w.Policy1.Kernel})
		require.Equal(t, 80, w.Policy.Out)
		require.Equal(t, 3, w.Policy.Kernel)
		require.Equal(t, 32, w.Value.Out)
		require.Equal(t, 1, w.Value.Kernel)
		require.Equal(t, Dense{Out: 128, In: 2048}, Dense{Out: w.Value1.Out, In: w.Value1.In})
		require.Equal(t, Dense{Out: 3, In: 128}, Dense{Out: w.Value2.Out, In: w.Value2.In})
		require.Nil(t, w.PolicyFC)
	}
}

// TestReadAllMaia reads the Maia nets copied into testdata/lc0 and, when the
// shared folder sits beside the checkout, all nine in ../shared/maia.
func TestReadAllMaia(t *testing.T) {
	shared, _ := filepath.Glob("../../../shared/maia/maia-*.pb.gz")
	copies, _ := filepath.Glob("../../testdata/lc0/maia-*.pb.gz")
	require.NotEmpty(t, copies, "testdata/lc0 holds maia-1100 and maia-1900")
	paths := append(copies, shared...)
	for _, p := range paths {
		w, err := ReadFile(p)
		require.NoError(t, err, p)
		require.Equal(t, "6x64 SE, policy convolution, value WDL", w.String(), p)
	}
}

// quantLayer writes values that LINEAR16 holds exactly (min 0, max 65535).
func quantLayer(vals ...uint16) rawLayer {
	p := make([]byte, 2*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint16(p[2*i:], v)
	}
	return rawLayer{min: 0, max: 65535, params: p, present: true}
}

func TestDequantize(t *testing.T) {
	p := make([]byte, 6)
	binary.LittleEndian.PutUint16(p[0:], 0)
	binary.LittleEndian.PutUint16(p[2:], 65535)
	binary.LittleEndian.PutUint16(p[4:], 32768)
	got, err := rawLayer{min: -1, max: 3, params: p, present: true}.decode("x")
	require.NoError(t, err)
	require.InDeltaSlice(t, []float32{-1, 3, -1 + 4*32768.0/65535}, got, 1e-6)

	_, err = rawLayer{min: 0, max: 1, params: []byte{1, 2, 3}, present: true}.decode("x")
	require.ErrorIs(t, err, ErrCorrupt)
	_, err = rawLayer{min: float32(math.NaN()), max: 1, params: []byte{1, 2}, present: true}.decode("x")
	require.ErrorIs(t, err, ErrCorrupt)
	_, err = rawLayer{min: 0, max: 1, params: []byte{1, 2}, encoding: 2, present: true}.decode("x")
	require.ErrorIs(t, err, ErrUnsupported)
}

// TestBatchNormFold checks the folding against the batch-norm formula
// gamma*(conv(x)+b-mean)/sqrt(var+eps)+beta on a 1x1 convolution.
func TestBatchNormFold(t *testing.T) {
	c, err := conv("t", rawConv{
		weights: quantLayer(2, 3), // 1 filter, 2 input planes
		means:   quantLayer(5),
		stddivs: quantLayer(4),
		gammas:  quantLayer(3),
		betas:   quantLayer(7),
		present: true,
	}, 2, 1)
	require.NoError(t, err)
	g := 3 / math.Sqrt(4+bnEpsilon)
	require.InDeltaSlice(t, []float32{float32(2 * g), float32(3 * g)}, c.W, 1e-6)
	require.InDeltaSlice(t, []float32{float32(7 - 5*g)}, c.B, 1e-5)

	// Without gammas and betas (old files) they are 1 and 0; with conv
	// biases, the bias is folded too.
	c, err = conv("t", rawConv{weights: quantLayer(1), biases: quantLayer(2), means: quantLayer(1), stddivs: quantLayer(1), present: true}, 1, 1)
	require.NoError(t, err)
	g = 1 / math.Sqrt(1+bnEpsilon)
	require.InDeltaSlice(t, []float32{float32(g)}, c.W, 1e-6)
	require.InDeltaSlice(t, []float32{float32(g * (2 - 1))}, c.B, 1e-6)

	// No batch norm: weights and biases as stored.
	c, err = conv("t", rawConv{weights: quantLayer(4, 5), biases: quantLayer(6), present: true}, 2, 1)
	require.NoError(t, err)
	require.Equal(t, []float32{4, 5}, c.W)
	require.Equal(t, []float32{6}, c.B)

	_, err = conv("t", rawConv{weights: quantLayer(4, 5, 6), biases: quantLayer(6), present: true}, 2, 1)
	require.ErrorIs(t, err, ErrShape)
	_, err = conv("t", rawConv{}, 2, 1)
	require.ErrorIs(t, err, ErrCorrupt)
}

var synthSpecs = []synthSpec{
	{filters: 8, blocks: 2, se: true, convPolicy: true, wdl: true, seed: 1},
	{filters: 8, blocks: 1, se: false, convPolicy: false, wdl: false, seed: 2},
	{filters: 4, blocks: 2, se: true, convPolicy: false, wdl: true, noGammaBeta: true, seed: 3},
	{filters: 6, blocks: 1, se: false, convPolicy: true, wdl: false, seed: 4},
}

func TestParseSynthetic(t *testing.T) {
	want := []string{
		"2x8 SE, policy convolution, value WDL",
		"1x8, policy classical, value classical",
		"2x4 SE, policy classical, value WDL",
		"1x6, policy convolution, value classical",
	}
	for i, s := range synthSpecs {
		w, err := Parse(synthNet(s))
		require.NoError(t, err, "spec %+v", s)
		require.Equal(t, want[i], w.String())
		require.Equal(t, "test", w.License)
	}
}

// TestSyntheticForward runs the less common heads through the Go forward
// pass and, when ONNX Runtime is present, compares the ONNX graph with it.
func TestSyntheticForward(t *testing.T) {
	g := board.MustNewGame(board.StartFEN)
	for _, m := range []string{"e2e4", "c7c5", "g1f3", "d7d6", "d2d4"} {
		require.NoError(t, g.Play(m))
	}
	planes := make([]float32, InputPlanes*64)
	require.NoError(t, EncodeGame(g, planes))
	for _, s := range synthSpecs {
		w, err := Parse(synthNet(s))
		require.NoError(t, err)
		r, err := w.Forward(planes)
		require.NoError(t, err)
		require.Len(t, r.Policy, NumMoves)
		if s.wdl {
			require.Len(t, r.Value, 3)
		} else {
			require.Len(t, r.Value, 1)
			require.LessOrEqual(t, math.Abs(float64(r.Value[0])), 1.0)
		}
		wdl := WDLProbs(r.Value)
		require.InDelta(t, 1, wdl[0]+wdl[1]+wdl[2], 1e-5)

		n, err := New(w, nets.HashBytes(nil), Options{Name: "synth"})
		require.NoError(t, err)
		out, err := n.Evaluate(context.Background(), []nets.Input{{Game: g}, {Game: g}})
		require.NoError(t, err)
		want, err := LegalLogits(g, r.Policy)
		require.NoError(t, err)
		for _, o := range out {
			require.InDeltaSlice(t, want, o.Logits, 1e-4, "spec %+v backend %s", s, n.Backend())
			require.InDeltaSlice(t, wdl, o.WDL, 1e-4, "spec %+v backend %s", s, n.Backend())
		}
		require.NoError(t, n.Close())
	}
}

func TestParseErrors(t *testing.T) {
	good := synthNet(synthSpecs[0])
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, err := zw.Write(good)
	require.NoError(t, err)
	require.NoError(t, zw.Close())

	withFormat := func(input, policy uint64) []byte {
		// A copy of good with another NetworkFormat appended: later fields win.
		var nf []byte
		nf = appendVarintField(nf, fNFInput, input)
		nf = appendVarintField(nf, fNFPolicy, policy)
		b := append([]byte(nil), good...)
		return appendMsg(b, fNetFormat, appendMsg(nil, fFormatNetworkFormat, nf))
	}
	badMagic := append([]byte(nil), good...)
	badMagic[1] ^= 0xff

	for _, c := range []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrNotLc0},
		{"text", []byte("hello, this is not a net\n"), ErrNotLc0},
		{"bad magic", badMagic, ErrNotLc0},
		{"gzip garbage", []byte{0x1f, 0x8b, 1, 2, 3}, ErrCorrupt},
		{"gzip truncated", gz.Bytes()[:gz.Len()/2], ErrCorrupt},
		{"truncated", good[:len(good)-10], ErrCorrupt},
		{"no weights", good[:bytes.Index(good, []byte{byte(fNetWeights<<3 | 2)})], ErrCorrupt},
		{"canonical input", withFormat(3, 2), ErrUnsupported},
		{"attention policy", withFormat(1, 3), ErrUnsupported},
		{"linear16 not set", appendMsg(append([]byte(nil), good...), fNetFormat, appendVarintField(nil, fFormatEncoding, 2)), ErrUnsupported},
	} {
		_, err := Parse(c.data)
		require.ErrorIs(t, err, c.want, c.name)
	}
	w, err := Parse(gz.Bytes())
	require.NoError(t, err)
	require.Equal(t, "2x8 SE, policy convolution, value WDL", w.String())
	w, err = Read(bytes.NewReader(gz.Bytes()))
	require.NoError(t, err)
	require.Equal(t, 8, w.Filters)
}

// TestTruncatedMaia cuts a real net at many points: every cut fails cleanly.
func TestTruncatedMaia(t *testing.T) {
	gzData, err := os.ReadFile(filepath.Join(testdataDir, "maia-1100.pb.gz"))
	require.NoError(t, err)
	zr, err := gzip.NewReader(bytes.NewReader(gzData))
	require.NoError(t, err)
	raw, err := io.ReadAll(zr)
	require.NoError(t, err)
	for _, data := range [][]byte{raw, gzData} {
		step := len(data)/41 + 1
		for cut := 0; cut < len(data); cut += step {
			_, err := Parse(data[:cut])
			require.Error(t, err, "cut at %d of %d", cut, len(data))
		}
	}
	// Flipping bytes never panics (it may or may not still parse).
	for i := 0; i < 200; i++ {
		b := append([]byte(nil), raw...)
		b[(i*7919)%len(b)] ^= byte(i | 1)
		_, _ = Parse(b)
	}
}

func FuzzParse(f *testing.F) {
	// Small seeds (convolutional policy: no 1858-wide dense layer).
	f.Add(synthNet(synthSpec{filters: 2, blocks: 1, se: true, convPolicy: true, wdl: true}))
	f.Add(synthNet(synthSpec{filters: 1, blocks: 1, convPolicy: true, noGammaBeta: true}))
	f.Add([]byte{0x0d, 0xc0, 0x01, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := Parse(data)
		if err == nil && w == nil {
			t.Fatal("nil weights without error")
		}
	})
}

func TestProtoWireTypes(t *testing.T) {
	// A magic written as a varint is a wire-type error, not a crash.
	var b []byte
	b = protowire.AppendTag(b, fNetMagic, protowire.VarintType)
	b = protowire.AppendVarint(b, netMagic)
	_, err := Parse(b)
	require.ErrorIs(t, err, ErrNotLc0)
}
