package lc0

import (
	"fmt"
	"math"

	"github.com/humchess/humchess/board"
)

// LegalIndices returns the move-index entry of each of g's legal moves, in
// g.LegalMoves() order.
func LegalIndices(g *board.Game) ([]board.Move, []int, error) {
	if g == nil {
		return nil, nil, fmt.Errorf("%w: nil game", ErrInput)
	}
	legal := g.LegalMoves()
	black := !g.WhiteToMove()
	idx := make([]int, len(legal))
	for i, m := range legal {
		k, err := LegalIndex(m, black, g.PieceAt(m.From).Type() == board.King)
		if err != nil {
			return nil, nil, err
		}
		idx[i] = k
	}
	return legal, idx, nil
}

// LegalLogits gathers the policy logits (NumMoves of them, as Forward
// returns) of g's legal moves, in g.LegalMoves() order.
func LegalLogits(g *board.Game, policy []float32) ([]float32, error) {
	if len(policy) != NumMoves {
		return nil, fmt.Errorf("%w: %d policy logits, want %d", ErrInput, len(policy), NumMoves)
	}
	_, idx, err := LegalIndices(g)
	if err != nil {
		return nil, err
	}
	out := make([]float32, len(idx))
	for i, k := range idx {
		out[i] = policy[k]
	}
	return out, nil
}

// WDLProbs turns a value head's output into win/draw/loss probabilities for
// the mover: the softmax of 3 WDL logits, or for a classical net's single
// value q in [-1, 1], ((1+q)/2, 0, (1-q)/2). It returns nil for any other length.
func WDLProbs(value []float32) []float32 {
	switch len(value) {
	case 3:
		mx := max(value[0], value[1], value[2])
		var e [3]float64
		var sum float64
		for i, v := range value {
			e[i] = math.Exp(float64(v - mx))
			sum += e[i]
		}
		return []float32{float32(e[0] / sum), float32(e[1] / sum), float32(e[2] / sum)}
	case 1:
		q := min(max(value[0], -1), 1)
		return []float32{(1 + q) / 2, 0, (1 - q) / 2}
	}
	return nil
}
