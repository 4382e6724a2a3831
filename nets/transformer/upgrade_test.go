package transformer

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/nets/onnx"
	"github.com/humchess/humchess/nets/ort"
)

// tiny-opset18.onnx (the Tiny architecture with 1 layer and smolgen hidden 4,
// RandomWeights seed 1) was written by the graph builder
// before it used the opset-23 Attention op (git cff75e8), as nets exported
// then are.
func TestOpenUpgradesOlderGraph(t *testing.T) {
	lib := ortLib(t)
	old, err := os.ReadFile(filepath.Join("..", "..", "testdata", "transformer", "tiny-opset18.onnx"))
	require.NoError(t, err)
	info, err := onnx.ReadInfo(old)
	require.NoError(t, err)
	require.Equal(t, int64(18), info.Opsets[""], "the fixture is an older graph")

	a, sum, err := ReadArch(old)
	require.NoError(t, err)
	up := upgradeGraph(a, sum, old)
	upInfo, err := onnx.ReadInfo(up)
	require.NoError(t, err)
	assert.Equal(t, int64(23), upInfo.Opsets[""])
	assert.Equal(t, up, upgradeGraph(a, sum, up), "a current graph is left as it is")
	assert.Equal(t, old, upgradeGraph(a, strings.Repeat("0", 64), old), "weights that do not match their sha256 run as they are")

	// The upgraded graph computes what the older one and the Go reference do.
	in := testInputs(t)
	goNet, err := Open(old, Options{Backend: BackendGo})
	require.NoError(t, err)
	want, err := goNet.Evaluate(context.Background(), in)
	require.NoError(t, err)
	ortNet, err := Open(old, Options{Backend: BackendORT, LibraryPath: lib})
	require.NoError(t, err)
	defer ortNet.Close()
	got, err := ortNet.Evaluate(context.Background(), in)
	require.NoError(t, err)
	oldNet, err := ort.NewSession(old, ort.SessionOptions{LibraryPath: lib})
	require.NoError(t, err)
	require.NoError(t, oldNet.Close(), "ONNX Runtime still opens the older graph as it is")
	require.Len(t, got, len(want))
	for i := range want {
		assert.InDeltaSlice(t, want[i].Logits, got[i].Logits, 1e-4, "position %d", i)
		assert.InDeltaSlice(t, want[i].WDL[:], got[i].WDL[:], 1e-5, "position %d", i)
	}
}
