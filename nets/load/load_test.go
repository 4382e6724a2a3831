package load

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/nets"
	"github.com/humchess/humchess/nets/calib"
	"github.com/humchess/humchess/nets/ort"
	"github.com/humchess/humchess/nets/transformer"

	"github.com/humchess/humchess/internal/testenv"
)

const maiaPath = "../../testdata/lc0/maia-1100.pb.gz"

func needORT(t *testing.T) {
	t.Helper()
	if _, err := ort.Resolve(""); err != nil {
		testenv.Missing(t, "ONNX Runtime not available (run `make onnxruntime` or set ONNXRUNTIME_SHARED_LIBRARY_PATH): %v", err)
	}
}

func TestSniff(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want Format
		err  bool
	}{
		{"gzip", []byte{0x1f, 0x8b, 8, 0}, FormatLc0, false},
		{"onnx", []byte{0x08, 0x09, 0x12}, FormatONNX, false},
		{"safetensors", append([]byte{5, 0, 0, 0, 0, 0, 0, 0}, []byte("{}   ")...), FormatSafetensors, false},
		{"empty", nil, "", true},
		{"text", []byte("hello world"), "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Sniff(tc.data)
			if tc.err {
				assert.ErrorIs(t, err, ErrUnknownFormat, "Sniff(%q)", tc.data)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got, "Sniff(%q)", tc.data)
		})
	}
}

func TestOpenBadFiles(t *testing.T) {
	dir := t.TempDir()
	cases := map[string][]byte{
		"empty.onnx":      {},
		"text.onnx":       []byte("not a net"),
		"trunc.pb.gz":     {0x1f, 0x8b, 8, 0, 0, 0},
		"garbage.onnx":    {0x08, 0xff, 0xff, 0xff},
		"bad.safetensors": append([]byte{200, 0, 0, 0, 0, 0, 0, 0}, '{'),
	}
	for name, data := range cases {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, data, 0o644))
		n, err := Open(p, Options{})
		assert.Error(t, err, "Open(%s) should fail", name)
		assert.Nil(t, n)
	}
	_, err := Open(filepath.Join(dir, "missing.onnx"), Options{})
	assert.ErrorIs(t, err, os.ErrNotExist)
	_, err = Open(dir, Options{})
	assert.ErrorIs(t, err, ErrNotRegular, "Open of a folder")
}

// evalStart evaluates the start position and checks the output is a
// distribution over its 20 legal moves.
func evalStart(t *testing.T, n nets.Net) nets.Output {
	t.Helper()
	g, err := board.NewGame("startpos")
	require.NoError(t, err)
	out, err := n.Evaluate(context.Background(), []nets.Input{{Game: g, Ctx: board.UnknownContext()}})
	require.NoError(t, err)
	require.Len(t, out, 1)
	assert.Len(t, out[0].Logits, 20)
	return out[0]
}

func TestOpenMaia(t *testing.T) {
	needORT(t)
	if _, err := os.Stat(maiaPath); err != nil {
		testenv.Missing(t, "Maia nets not present: %v", err)
	}
	n, err := Open(maiaPath, Options{})
	require.NoError(t, err)
	defer n.Close()
	assert.Equal(t, nets.KindLc0, n.Info().Kind)
	assert.Equal(t, "maia-1100", n.Info().Name)
	out := evalStart(t, n)
	assert.Len(t, out.WDL, 3)
	assert.Nil(t, out.Time, "Maia has no think-time head")
}

func TestOpenTransformerFormats(t *testing.T) {
	needORT(t)
	a := transformer.Tiny(board.DefaultContract())
	w, err := transformer.RandomWeights(a, 7)
	require.NoError(t, err)
	var st bytes.Buffer
	require.NoError(t, transformer.WriteSafetensors(&st, a, w))
	model, err := transformer.BuildONNX(a, w)
	require.NoError(t, err)

	dir := t.TempDir()
	var logits [][]float32
	for name, data := range map[string][]byte{"tiny.onnx": model, "tiny.safetensors": st.Bytes()} {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, data, 0o644))
		n, err := Open(p, Options{})
		require.NoError(t, err, name)
		assert.Equal(t, nets.KindHumChess, n.Info().Kind, name)
		assert.Equal(t, "tiny", n.Info().Name, name)
		out := evalStart(t, n)
		assert.Len(t, out.Time, board.NumThinkBins, name)
		logits = append(logits, out.Logits)
		require.NoError(t, n.Close())
	}
	require.Len(t, logits, 2)
	assert.InDeltaSlice(t, logits[0], logits[1], 1e-5, "the .onnx and the .safetensors of one net must agree")
}

// TestDefault opens the embedded default net and plays the start position,
// or, in a build that embeds none, checks that Default says so.
func TestDefault(t *testing.T) {
	name := DefaultName()
	if name == "" {
		_, err := Default(Options{})
		assert.ErrorIs(t, err, ErrNoDefault)
		return
	}
	needORT(t)
	n, err := Default(Options{})
	require.NoError(t, err, "embedded default net %s", name)
	defer n.Close()
	assert.Equal(t, nets.KindHumChess, n.Info().Kind)
	assert.Equal(t, "hc-"+n.Info().ShortHash()+".onnx", name, "the default net is named by its weights' hash")
	out := evalStart(t, n)
	assert.Len(t, out.WDL, 3)
	assert.Len(t, out.Time, board.NumThinkBins)

	// A new default net ships its own UCI_Elo calibration
	// (nets/calib/shipped); without it UCI_Elo falls back to raw settings.
	c, err := calib.Shipped(n.Info().Hash)
	require.NoError(t, err)
	require.NotNil(t, c, "no calibration in nets/calib/shipped for the embedded net %s: run humchess calibrate and copy it there", name)
	assert.Equal(t, "hc-"+n.Info().ShortHash(), c.Net) // Shipped matched on the hash already
}
