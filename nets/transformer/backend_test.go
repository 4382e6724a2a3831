package transformer

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/nets/onnx"
)

// TestWeightsFromONNX reads the weights back from BuildONNX's model exactly,
// and refuses a model whose initializers differ from its sha256.
func TestWeightsFromONNX(t *testing.T) {
	for _, smolgen := range []bool{true, false} {
		a := Tiny(board.DefaultContract())
		a.Smolgen = smolgen
		if !smolgen {
			a.RatingExperts = 1 // the stacked [E,in,out] initializers read back too
		}
		w, err := RandomWeights(a, 5)
		require.NoError(t, err)
		model, err := BuildONNX(a, w)
		require.NoError(t, err)
		_, sum, err := ReadArch(model)
		require.NoError(t, err)
		got, err := WeightsFromONNX(a, sum, model)
		require.NoError(t, err, "smolgen %v", smolgen)
		assert.Equal(t, w, got, "smolgen %v", smolgen)

		other, err := RandomWeights(a, 6)
		require.NoError(t, err)
		_, err = WeightsFromONNX(a, sum, mustBuild(t, a, other))
		assert.ErrorIs(t, err, ErrWeights, "smolgen %v: another net's weights under this sha256", smolgen)
	}
	g := onnx.NewGraph("plain")
	x := g.Input("x", onnx.Float, onnx.Batch, 2)
	g.Output("y", g.Relu(x), onnx.Float, onnx.Batch, 2)
	plain, err := onnx.Model{Graph: g}.Marshal()
	require.NoError(t, err)
	_, err = WeightsFromONNX(Tiny(board.DefaultContract()), "", plain)
	assert.ErrorIs(t, err, ErrWeights, "a model without the weights")
}

func mustBuild(t *testing.T, a Arch, w Weights) []byte {
	t.Helper()
	model, err := BuildONNX(a, w)
	require.NoError(t, err)
	return model
}

// TestBackendGo plays real positions on the pure-Go backend: the outputs are
// Model.Forward's, and where ONNX Runtime is available, the ONNX Runtime
// backend's within float32 rounding.
func TestBackendGo(t *testing.T) {
	a, m, model := tinyNet(t, true, 9)
	in := testInputs(t)
	n, err := Open(model, Options{Backend: BackendGo})
	require.NoError(t, err)
	defer n.Close()
	assert.Equal(t, BackendGo, n.Backend())
	got, err := n.Evaluate(context.Background(), in)
	require.NoError(t, err)
	b, err := EncodeInputs(a.Contract(), in)
	require.NoError(t, err)
	r, err := m.Forward(b)
	require.NoError(t, err)
	want, err := Outputs(r, in)
	require.NoError(t, err)
	assert.Equal(t, want, got, "the pure-Go backend is Model.Forward")

	_, err = Open(model, Options{Backend: "gpu"})
	assert.ErrorIs(t, err, ErrInput, "unknown backend")

	require.NoError(t, n.Close())
	_, err = n.Evaluate(context.Background(), in)
	assert.Error(t, err, "closed")

	lib := ortLib(t)
	o, err := Open(model, Options{LibraryPath: lib})
	require.NoError(t, err)
	defer o.Close()
	assert.Equal(t, BackendORT, o.Backend(), "auto picks ONNX Runtime when it loads")
	viaORT, err := o.Evaluate(context.Background(), in)
	require.NoError(t, err)
	for i := range in {
		d, _ := maxDiff(got[i].Logits, viaORT[i].Logits)
		assert.Less(t, d, 1e-4, "position %d: logits, Go against ONNX Runtime", i)
	}
}
