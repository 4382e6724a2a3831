package transformer

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/board"
)

func TestPresets(t *testing.T) {
	c := board.DefaultContract()
	for _, tc := range []struct {
		name     string
		lo, hi   int64 // parameter count range
		smolgen  bool
		wantDims [2]int
	}{
		{"tiny", 50_000, 200_000, true, [2]int{c.SquareDim(), c.GlobalDim()}},
		{"default", 4_500_000, 6_000_000, true, [2]int{c.SquareDim(), c.GlobalDim()}},
		{"large", 20_000_000, 40_000_000, true, [2]int{c.SquareDim(), c.GlobalDim()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Preset(tc.name, c)
			require.NoError(t, err)
			n := a.ParamCount()
			assert.GreaterOrEqual(t, n, tc.lo, "%s: ParamCount", tc.name)
			assert.LessOrEqual(t, n, tc.hi, "%s: ParamCount", tc.name)
			var sum int64
			for _, ts := range a.Tensors() {
				sum += int64(ts.Size())
			}
			assert.Equal(t, sum, n, "%s: ParamCount vs sum of Tensors sizes", tc.name)
			assert.Equal(t, tc.wantDims, [2]int{a.SquareDim, a.GlobalDim})
			assert.Equal(t, c, a.Contract())
			assert.Equal(t, tc.smolgen, a.Smolgen)
		})
	}
	_, err := Preset("huge", c)
	assert.ErrorIs(t, err, ErrArch)
}

func TestArchValidate(t *testing.T) {
	good := Tiny(board.DefaultContract())
	for _, tc := range []struct {
		name   string
		change func(*Arch)
		ok     bool
	}{
		{"good", func(*Arch) {}, true},
		{"no smolgen, zero smolgen sizes", func(a *Arch) { a.Smolgen, a.SmolgenCompress, a.SmolgenHidden = false, 0, 0 }, true},
		{"zero layers", func(a *Arch) { a.Layers = 0 }, false},
		{"negative dim", func(a *Arch) { a.Dim = -4 }, false},
		{"dim not multiple of heads", func(a *Arch) { a.Heads = 3 }, false},
		{"zero heads", func(a *Arch) { a.Heads = 0 }, false},
		{"zero ffn", func(a *Arch) { a.FFNDim = 0 }, false},
		{"zero policy", func(a *Arch) { a.PolicyDim = 0 }, false},
		{"smolgen without compress", func(a *Arch) { a.SmolgenCompress = 0 }, false},
		{"smolgen without hidden", func(a *Arch) { a.SmolgenHidden = 0 }, false},
		{"zero square_dim", func(a *Arch) { a.SquareDim = 0 }, false},
		{"zero global_dim", func(a *Arch) { a.GlobalDim = 0 }, false},
		{"zero eps", func(a *Arch) { a.NormEps = 0 }, false},
		{"huge", func(a *Arch) { a.Dim, a.Layers, a.FFNDim = 16384, 256, 65536 }, false},
		{"negative contract", func(a *Arch) { a.ContractVersion = -1 }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := good
			tc.change(&a)
			err := a.Validate()
			if tc.ok {
				assert.NoError(t, err, "%+v", a)
			} else {
				assert.ErrorIs(t, err, ErrArch, "%+v", a)
			}
		})
	}
}

func TestArchJSON(t *testing.T) {
	a := Default(board.DefaultContract())
	var keys map[string]any
	require.NoError(t, json.Unmarshal([]byte(a.JSON()), &keys))
	for _, k := range []string{"layers", "dim", "heads", "ffn_dim", "policy_dim", "smolgen", "smolgen_compress",
		"smolgen_hidden", "square_dim", "global_dim", "contract_version", "contract_derived", "norm_eps"} {
		assert.Contains(t, keys, k, "Arch JSON key")
	}
	assert.Len(t, keys, 13, "Arch JSON keys: %v", keys)
	b, err := ParseArch(a.JSON())
	require.NoError(t, err)
	assert.Equal(t, a, b)

	for _, bad := range []string{``, `{`, `[]`, `{"layers":2,"bogus":1}`, `{"layers":"two"}`, a.JSON() + `{}`, `{"layers":0}`} {
		_, err := ParseArch(bad)
		assert.True(t, errors.Is(err, ErrArch), "ParseArch(%q) = %v, want ErrArch", bad, err)
	}
}
