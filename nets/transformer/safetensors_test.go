package transformer

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/transformer")

const testdataDir = "../../testdata/transformer"

// microArch is the architecture of the committed fixture: small enough to
// commit, with every kind of tensor (smolgen on).
func microArch() Arch {
	return Arch{Layers: 1, Dim: 8, Heads: 2, FFNDim: 12, PolicyDim: 4,
		Smolgen: true, SmolgenCompress: 2, SmolgenHidden: 3,
		SquareDim: 4, GlobalDim: 5, ContractVersion: 1, ContractDerived: 0, NormEps: 1e-6}
}

// encodeST writes a safetensors file to bytes.
func encodeST(t testing.TB, a Arch, w Weights) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, WriteSafetensors(&buf, a, w))
	return buf.Bytes()
}

func TestSafetensorsRoundTrip(t *testing.T) {
	for _, a := range []Arch{microArch(), func() Arch { a := microArch(); a.Smolgen = false; return a }()} {
		w, err := RandomWeights(a, 5)
		require.NoError(t, err)
		data := encodeST(t, a, w)
		hlen := binary.LittleEndian.Uint64(data)
		assert.Zero(t, (8+hlen)%8, "data must start 8-byte aligned")
		var hdr map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(data[8:8+hlen], &hdr), "header is JSON")
		assert.Len(t, hdr, len(a.Tensors())+1, "header entries")
		assert.Equal(t, uint64(len(data)), 8+hlen+uint64(4*a.ParamCount()), "file size")

		a2, w2, err := ReadSafetensors(bytes.NewReader(data))
		require.NoError(t, err)
		assert.Equal(t, a, a2)
		assert.Equal(t, w, w2)
	}
}

func TestSafetensorsFileAtomic(t *testing.T) {
	dir := t.TempDir()
	a := microArch()
	w, err := RandomWeights(a, 1)
	require.NoError(t, err)
	p := filepath.Join(dir, "net.safetensors")
	require.NoError(t, SaveSafetensors(p, a, w))
	a2, w2, err := LoadSafetensors(p)
	require.NoError(t, err)
	assert.Equal(t, a, a2)
	assert.Equal(t, w, w2)

	// A failing writer leaves the old file and no temporary file behind.
	bad := Weights{}
	assert.ErrorIs(t, SaveSafetensors(p, a, bad), ErrWeights)
	_, w3, err := LoadSafetensors(p)
	require.NoError(t, err)
	assert.Equal(t, w, w3)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "temporary files left: %v", entries)

	_, _, err = LoadSafetensors(filepath.Join(dir, "missing.safetensors"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestWriteSafetensorsChecksWeights(t *testing.T) {
	a := microArch()
	for _, tc := range []struct {
		name   string
		change func(Weights)
	}{
		{"missing", func(w Weights) { delete(w, "norm") }},
		{"extra", func(w Weights) { w["bogus"] = []float32{1} }},
		{"short", func(w Weights) { w["norm"] = w["norm"][1:] }},
		{"nan", func(w Weights) { w["norm"][0] = float32(math.NaN()) }},
		{"inf", func(w Weights) { w["embed.pos"][3] = float32(math.Inf(1)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := RandomWeights(a, 1)
			require.NoError(t, err)
			tc.change(w)
			var buf bytes.Buffer
			err = WriteSafetensors(&buf, a, w)
			assert.ErrorIs(t, err, ErrWeights)
			assert.Zero(t, buf.Len(), "nothing written on error")
		})
	}
	bad := a
	bad.Heads = 3
	w, err := RandomWeights(a, 1)
	require.NoError(t, err)
	assert.ErrorIs(t, WriteSafetensors(&bytes.Buffer{}, bad, w), ErrArch)
}

// makeST builds a safetensors file from a header map and data, for corrupt cases.
func makeST(t testing.TB, hdr map[string]any, data []byte) []byte {
	t.Helper()
	h, err := json.Marshal(hdr)
	require.NoError(t, err)
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
	out = append(out, h...)
	return append(out, data...)
}

// stHeader decodes the header of a good file into a mutable map.
func stHeader(t testing.TB, data []byte) (map[string]any, []byte) {
	t.Helper()
	n := binary.LittleEndian.Uint64(data)
	var hdr map[string]any
	require.NoError(t, json.Unmarshal(data[8:8+n], &hdr))
	return hdr, data[8+n:]
}

func TestReadSafetensorsErrors(t *testing.T) {
	a := microArch()
	w, err := RandomWeights(a, 1)
	require.NoError(t, err)
	good := encodeST(t, a, w)
	entry := func(hdr map[string]any, name string) map[string]any { return hdr[name].(map[string]any) }

	for _, tc := range []struct {
		name string
		data func() []byte
		want error
		msg  string // part of the message
	}{
		{"empty", func() []byte { return nil }, ErrTruncated, "header length"},
		{"short length", func() []byte { return good[:5] }, ErrTruncated, "header length"},
		{"truncated header", func() []byte { return good[:40] }, ErrTruncated, "header"},
		{"truncated data", func() []byte { return good[:len(good)-3] }, ErrTruncated, "tensor data"},
		{"trailing data", func() []byte { return append(append([]byte{}, good...), 0) }, ErrCorrupt, "past the last tensor"},
		{"huge header length", func() []byte {
			b := append([]byte{}, good...)
			binary.LittleEndian.PutUint64(b, 1<<40)
			return b
		}, ErrCorrupt, "header length"},
		{"header not JSON", func() []byte {
			b := append([]byte{}, good...)
			b[8] = 'x'
			return b
		}, ErrCorrupt, "header JSON"},
		{"no metadata", func() []byte {
			hdr, data := stHeader(t, good)
			delete(hdr, "__metadata__")
			return makeST(t, hdr, data)
		}, ErrArch, "arch"},
		{"bad arch", func() []byte {
			hdr, data := stHeader(t, good)
			hdr["__metadata__"] = map[string]string{"arch": `{"layers":1}`}
			return makeST(t, hdr, data)
		}, ErrArch, "dim = 0"},
		{"metadata not strings", func() []byte {
			hdr, data := stHeader(t, good)
			hdr["__metadata__"] = map[string]any{"arch": 3}
			return makeST(t, hdr, data)
		}, ErrCorrupt, "__metadata__"},
		{"missing tensor", func() []byte {
			hdr, data := stHeader(t, good)
			delete(hdr, "norm")
			return makeST(t, hdr, data)
		}, ErrWeights, `missing tensor "norm"`},
		{"extra tensor", func() []byte {
			hdr, data := stHeader(t, good)
			hdr["bogus"] = map[string]any{"dtype": "F32", "shape": []int{0}, "data_offsets": []int{0, 0}}
			return makeST(t, hdr, data)
		}, ErrWeights, "bogus"},
		{"wrong shape", func() []byte {
			hdr, data := stHeader(t, good)
			entry(hdr, "embed.pos")["shape"] = []int{8, 64}
			return makeST(t, hdr, data)
		}, ErrWeights, "shape [8 64], want [64 8]"},
		{"wrong dtype", func() []byte {
			hdr, data := stHeader(t, good)
			entry(hdr, "norm")["dtype"] = "F16"
			return makeST(t, hdr, data)
		}, ErrWeights, `dtype "F16"`},
		{"bad offsets", func() []byte {
			hdr, data := stHeader(t, good)
			entry(hdr, "norm")["data_offsets"] = []int{10}
			return makeST(t, hdr, data)
		}, ErrCorrupt, "data_offsets"},
		{"offsets reversed", func() []byte {
			hdr, data := stHeader(t, good)
			entry(hdr, "norm")["data_offsets"] = []int{40, 8}
			return makeST(t, hdr, data)
		}, ErrCorrupt, "data_offsets"},
		{"overlap", func() []byte {
			hdr, data := stHeader(t, good)
			entry(hdr, "norm")["data_offsets"] = []int{0, 32}
			return makeST(t, hdr, data)
		}, ErrCorrupt, "hole or overlap"},
		{"nan value", func() []byte {
			hdr, data := stHeader(t, good)
			off := int(entry(hdr, "norm")["data_offsets"].([]any)[0].(float64))
			d := append([]byte{}, data...)
			binary.LittleEndian.PutUint32(d[off:], math.Float32bits(float32(math.NaN())))
			return makeST(t, hdr, d)
		}, ErrWeights, "norm"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ReadSafetensors(bytes.NewReader(tc.data()))
			require.Error(t, err)
			assert.True(t, errors.Is(err, tc.want), "error %q, want %v", err, tc.want)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
}

// FuzzReadSafetensors checks the reader never panics and that whatever it
// accepts writes back and reads back to the same thing.
func FuzzReadSafetensors(f *testing.F) {
	a := microArch()
	w, err := RandomWeights(a, 1)
	require.NoError(f, err)
	good := encodeST(f, a, w)
	f.Add(good)
	f.Add(good[:100])
	f.Add([]byte{})
	f.Add(makeST(f, map[string]any{"__metadata__": map[string]string{"arch": a.JSON()}}, nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, w, err := ReadSafetensors(bytes.NewReader(data))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		require.NoError(t, WriteSafetensors(&buf, a, w))
		a2, w2, err := ReadSafetensors(&buf)
		require.NoError(t, err)
		require.Equal(t, a, a2)
		require.Equal(t, w, w2)
	})
}

// golden is the committed forward-pass fixture: inputs and the outputs of
// Model.Forward on microArch weights (testdata/transformer/micro.safetensors).
type golden struct {
	Arch    Arch      `json:"arch"`
	N       int       `json:"n"`
	Pieces  []int64   `json:"pieces"`
	Squares []float32 `json:"squares"`
	Global  []float32 `json:"global"`
	Move    []float32 `json:"move"`
	WDL     []float32 `json:"wdl"`
	Time    []float32 `json:"time"`
	From    []float32 `json:"from"`
	To      []float32 `json:"to"`
}

// TestGolden pins the file format and the forward pass: the committed
// micro.safetensors must be what WriteSafetensors writes for RandomWeights(microArch(), 11),
// and Model.Forward on it must give micro_golden.json's outputs. Regenerate
// with go test ./nets/transformer -run TestGolden -update. The trainer can use
// the same two files to check its forward pass.
func TestGolden(t *testing.T) {
	a := microArch()
	w, err := RandomWeights(a, 11)
	require.NoError(t, err)
	stPath := filepath.Join(testdataDir, "micro.safetensors")
	goldPath := filepath.Join(testdataDir, "micro_golden.json")
	m, err := NewModel(a, w)
	require.NoError(t, err)
	b := randomBatch(a, 3, 12)
	res, err := m.Forward(b)
	require.NoError(t, err)
	if *update {
		require.NoError(t, SaveSafetensors(stPath, a, w))
		g := golden{Arch: a, N: b.N, Pieces: b.Pieces, Squares: b.Squares, Global: b.Global,
			Move: res.Move, WDL: res.WDL, Time: res.Time, From: res.From, To: res.To}
		js, err := json.MarshalIndent(g, "", " ")
		require.NoError(t, err)
		require.NoError(t, WriteFileAtomic(goldPath, func(f io.Writer) error { _, err := f.Write(append(js, '\n')); return err }))
	}
	data, err := os.ReadFile(stPath)
	require.NoError(t, err, "run go test ./nets/transformer -run TestGolden -update")
	assert.Equal(t, encodeST(t, a, w), data, "micro.safetensors differs from what WriteSafetensors writes")
	a2, w2, err := ReadSafetensors(bytes.NewReader(data))
	require.NoError(t, err)
	assert.Equal(t, a, a2)
	m2, err := NewModel(a2, w2)
	require.NoError(t, err)

	js, err := os.ReadFile(goldPath)
	require.NoError(t, err)
	var g golden
	require.NoError(t, json.Unmarshal(js, &g))
	got, err := m2.Forward(Batch{N: g.N, Pieces: g.Pieces, Squares: g.Squares, Global: g.Global})
	require.NoError(t, err)
	requireClose(t, Result{N: g.N, Move: g.Move, WDL: g.WDL, Time: g.Time, From: g.From, To: g.To}, got, 1e-5, "golden")
	assert.False(t, strings.Contains(string(js), "NaN"))
}
