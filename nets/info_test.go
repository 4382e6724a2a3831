package nets

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/board"
)

func TestCheckContract(t *testing.T) {
	tests := []struct {
		net, want int
		ok        bool
	}{
		{1, 1, true},
		{1, 2, false},
		{3, 1, false},
	}
	for _, tc := range tests {
		err := CheckContract(tc.net, tc.want)
		if tc.ok {
			assert.NoError(t, err, "net %d want %d", tc.net, tc.want)
			continue
		}
		require.ErrorIs(t, err, ErrContractMismatch, "net %d want %d", tc.net, tc.want)
		assert.Contains(t, err.Error(), "version "+itoa(tc.net), "net %d want %d: %v", tc.net, tc.want, err)
		assert.Contains(t, err.Error(), "version "+itoa(tc.want), "net %d want %d: %v", tc.net, tc.want, err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func goodInfo() Info {
	return Info{
		Name: "test", Kind: KindHumChess, ContractVersion: board.ContractVersion,
		HasWDL: true, HasTime: true, ThinkBinEdges: append([]float64{}, board.ThinkBinEdges[:]...),
		Hash: HashBytes([]byte("w")),
	}
}

func TestInfoValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Info)
		want error
	}{
		{"good", func(*Info) {}, nil},
		{"lc0 ignores contract", func(i *Info) { i.Kind, i.ContractVersion = KindLc0, 0 }, nil},
		{"no time head", func(i *Info) { i.HasTime, i.ThinkBinEdges = false, nil }, nil},
		{"unknown kind", func(i *Info) { i.Kind = "pytorch" }, ErrBadInfo},
		{"old contract", func(i *Info) { i.ContractVersion = board.ContractVersion + 1 }, ErrContractMismatch},
		{"short edges", func(i *Info) { i.ThinkBinEdges = i.ThinkBinEdges[:3] }, ErrBadInfo},
		{"moved edge", func(i *Info) { i.ThinkBinEdges[2] = 3 }, ErrBadInfo},
		{"edges without head", func(i *Info) { i.HasTime = false }, ErrBadInfo},
		{"bad hash", func(i *Info) { i.Hash = "xyz" }, ErrBadInfo},
		{"non-hex hash", func(i *Info) { i.Hash = strings.Repeat("g", 64) }, ErrBadInfo},
	}
	for _, tc := range tests {
		i := goodInfo()
		tc.edit(&i)
		err := i.Validate()
		if tc.want == nil {
			assert.NoError(t, err, tc.name)
		} else {
			assert.ErrorIs(t, err, tc.want, "%s: got %v", tc.name, err)
		}
	}
}

func TestInfoString(t *testing.T) {
	i := goodInfo()
	assert.Len(t, i.ShortHash(), 12)
	s := i.String()
	assert.Contains(t, s, "policy+wdl+time")
	assert.Contains(t, s, i.ShortHash())
}

func TestSoftmax(t *testing.T) {
	ninf := float32(math.Inf(-1))
	tests := []struct {
		name string
		in   []float32
		want []float32
	}{
		{"empty", nil, []float32{}},
		{"uniform", []float32{1, 1}, []float32{0.5, 0.5}},
		{"large", []float32{1000, 1000, ninf}, []float32{0.5, 0.5, 0}},
		{"all -inf", []float32{ninf, ninf}, []float32{0, 0}},
		{"ln3", []float32{float32(math.Log(3)), 0}, []float32{0.75, 0.25}},
	}
	for _, tc := range tests {
		got := Softmax(nil, tc.in)
		require.Len(t, got, len(tc.want), tc.name)
		for k := range got {
			assert.InDelta(t, tc.want[k], got[k], 1e-6, "%s [%d]: in %v got %v", tc.name, k, tc.in, got)
		}
	}
}

func TestValidateInputs(t *testing.T) {
	g := board.MustNewGame(board.StartFEN)
	assert.NoError(t, ValidateInputs([]Input{{Game: g}}))
	err := ValidateInputs([]Input{{Game: g}, {}})
	assert.True(t, errors.Is(err, ErrBadInput), "got %v", err)
	assert.Contains(t, err.Error(), "input 1 of 2")
}
