package transformer

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/board"
)

// TestLegalHeadArch checks the legal_head switch: absent from the JSON when
// off (so existing nets keep their bytes), a JSON round trip when on, its six
// tensors and their parameter count, and weights checked against it.
func TestLegalHeadArch(t *testing.T) {
	plain := Tiny(board.DefaultContract())
	assert.NotContains(t, plain.JSON(), "legal", "the JSON of a net without the legal head")
	a := plain
	a.LegalHead = true
	var keys map[string]any
	require.NoError(t, json.Unmarshal([]byte(a.JSON()), &keys))
	assert.Equal(t, true, keys["legal_head"])
	b, err := ParseArch(a.JSON())
	require.NoError(t, err)
	assert.Equal(t, a, b)
	b, err = ParseArch(strings.Replace(plain.JSON(), "{", `{"legal_head":true,`, 1))
	require.NoError(t, err)
	assert.Equal(t, a, b)

	d, p := int64(a.Dim), int64(a.PolicyDim)
	assert.Equal(t, plain.ParamCount()+2*(p*d+p)+NumPromo*d+NumPromo, a.ParamCount())
	var sum int64
	var legal []string
	for _, ts := range a.Tensors() {
		sum += int64(ts.Size())
		if strings.HasPrefix(ts.Name, "legal.") {
			legal = append(legal, ts.Name)
		}
	}
	assert.Equal(t, a.ParamCount(), sum, "ParamCount vs sum of Tensors sizes")
	assert.Equal(t, []string{"legal.q.weight", "legal.q.bias", "legal.k.weight", "legal.k.bias",
		"legal.promo.weight", "legal.promo.bias"}, legal)
	assert.Equal(t, plain.Tensors(), a.Tensors()[:len(plain.Tensors())], "the legal tensors come last")

	wp, err := RandomWeights(plain, 1)
	require.NoError(t, err)
	assert.ErrorIs(t, wp.Check(a), ErrWeights, "weights without the legal head for an arch with it")
	wl, err := RandomWeights(a, 1)
	require.NoError(t, err)
	assert.ErrorIs(t, wl.Check(plain), ErrWeights, "weights with the legal head for an arch without it")

	var buf bytes.Buffer
	require.NoError(t, WriteSafetensors(&buf, a, wl))
	a2, w2, err := ReadSafetensors(&buf)
	require.NoError(t, err)
	assert.Equal(t, a, a2)
	assert.Equal(t, wl["legal.k.weight"], w2["legal.k.weight"])
}

// TestLegalHeadOnRealPositions checks the legal output of the ONNX graph
// against the Go reference on real positions, and that the engine's Net
// loads and runs such a net (ignoring the extra output).
func TestLegalHeadOnRealPositions(t *testing.T) {
	lib := ortLib(t)
	in := testInputs(t)
	a := Tiny(board.DefaultContract())
	a.LegalHead = true
	w, err := RandomWeights(a, 31)
	require.NoError(t, err)
	m, err := NewModel(a, w)
	require.NoError(t, err)
	model, err := BuildONNX(a, w)
	require.NoError(t, err)
	b, err := EncodeInputs(a.Contract(), in)
	require.NoError(t, err)
	want, err := m.Forward(b)
	require.NoError(t, err)
	require.Len(t, want.Legal, len(in)*board.NumMoves)
	got := runONNX(t, model, a, b, 1)
	requireClose(t, want, got, 1e-4, "legal head, real positions")
	d, _ := maxDiff(want.Move, want.Legal)
	assert.Greater(t, d, 1e-2, "the legal logits equal the move logits: the head does not use its own weights")

	n, err := Open(model, Options{LibraryPath: lib})
	require.NoError(t, err)
	defer n.Close()
	assert.True(t, n.Arch().LegalHead)
	outs, err := n.Evaluate(context.Background(), in)
	require.NoError(t, err)
	wantOuts, err := Outputs(want, in)
	require.NoError(t, err)
	for i, o := range outs {
		d, _ := maxDiff(wantOuts[i].Logits, o.Logits)
		assert.Less(t, d, 1e-4, "position %d: move logits", i)
	}

	// Without the head the reference has no legal output.
	plain := a
	plain.LegalHead = false
	for k := range w {
		if strings.HasPrefix(k, "legal.") {
			delete(w, k)
		}
	}
	m2, err := NewModel(plain, w)
	require.NoError(t, err)
	r2, err := m2.Forward(b)
	require.NoError(t, err)
	assert.Nil(t, r2.Legal)
	requireClose(t, Result{N: want.N, Move: want.Move, WDL: want.WDL, Time: want.Time, From: want.From, To: want.To}, r2, 1e-6,
		"the legal head changes no other output")
}
