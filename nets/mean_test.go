package nets

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/board"
)

func threeMoves(t *testing.T) []board.Move {
	t.Helper()
	g, err := board.NewGame(board.StartFEN)
	require.NoError(t, err)
	return g.LegalMoves()[:3]
}

func probsOf(o Output) []float64 {
	p := make([]float64, len(o.Logits))
	var sum float64
	for i, l := range o.Logits {
		p[i] = math.Exp(float64(l))
		sum += p[i]
	}
	for i := range p {
		p[i] /= sum
	}
	return p
}

func TestMeanOutputsMixesDistributions(t *testing.T) {
	m := threeMoves(t)
	l := func(p ...float64) []float32 { // logits of a distribution, shifted to show the shift does not matter
		out := make([]float32, len(p))
		for i, x := range p {
			out[i] = float32(math.Log(x) + 3)
		}
		return out
	}
	a := Output{Moves: m, Logits: l(0.7, 0.2, 0.1), WDL: []float32{0.5, 0.3, 0.2}, Time: nil}
	// b lists the moves in another order: m[2], m[0], m[1].
	b := Output{Moves: []board.Move{m[2], m[0], m[1]}, Logits: l(0.6, 0.3, 0.1),
		WDL: []float32{0.1, 0.1, 0.8}, Time: []float32{1}}
	res, err := MeanOutputs([]Output{a, b}, []float64{3, 1})
	require.NoError(t, err)
	assert.Equal(t, m, res.Moves)
	want := []float64{0.75*0.7 + 0.25*0.3, 0.75*0.2 + 0.25*0.1, 0.75*0.1 + 0.25*0.6}
	got := probsOf(res)
	for i := range want {
		assert.InDelta(t, want[i], got[i], 1e-6, "move %d", i)
		assert.InDelta(t, math.Log(want[i]), float64(res.Logits[i]), 1e-5, "logit %d is the mean's log", i)
	}
	assert.Equal(t, a.WDL, res.WDL, "value head: the first member's")
	assert.Equal(t, b.Time, res.Time, "think time: the first member that has it")
}

func TestMeanOutputsOneMemberKeepsItsChoice(t *testing.T) {
	m := threeMoves(t)
	a := Output{Moves: m, Logits: []float32{1, 5, 2}}
	res, err := MeanOutputs([]Output{a}, []float64{1})
	require.NoError(t, err)
	p := probsOf(res)
	assert.Greater(t, p[1], p[0])
	assert.Greater(t, p[2], p[0])
	assert.InDelta(t, 1.0, p[0]+p[1]+p[2], 1e-9)
}

func TestMeanOutputsRejects(t *testing.T) {
	m := threeMoves(t)
	g, err := board.NewGame("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
	require.NoError(t, err)
	other := g.LegalMoves()
	a := Output{Moves: m, Logits: []float32{0, 0, 0}}
	for name, c := range map[string]struct {
		outs []Output
		w    []float64
	}{
		"no members":        {nil, nil},
		"weights short":     {[]Output{a, a}, []float64{1}},
		"zero weight":       {[]Output{a, a}, []float64{1, 0}},
		"negative weight":   {[]Output{a, a}, []float64{1, -1}},
		"NaN weight":        {[]Output{a, a}, []float64{1, math.NaN()}},
		"fewer moves":       {[]Output{a, {Moves: m[:2], Logits: []float32{0, 0}}}, []float64{1, 1}},
		"other moves":       {[]Output{a, {Moves: other[:3], Logits: []float32{0, 0, 0}}}, []float64{1, 1}},
		"a move twice":      {[]Output{a, {Moves: []board.Move{m[0], m[0], m[1]}, Logits: []float32{0, 0, 0}}}, []float64{1, 1}},
		"NaN logit":         {[]Output{a, {Moves: m, Logits: []float32{0, float32(math.NaN()), 0}}}, []float64{1, 1}},
		"logits short":      {[]Output{a, {Moves: m, Logits: []float32{0, 0}}}, []float64{1, 1}},
		"first lists twice": {[]Output{{Moves: []board.Move{m[0], m[0], m[1]}, Logits: []float32{0, 0, 0}}}, []float64{1}},
	} {
		_, err := MeanOutputs(c.outs, c.w)
		assert.Error(t, err, name)
	}
}
