package torch

import (
	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/ts"

	"github.com/humchess/humchess/board"
)

// Heads names the loss terms in the order of HeadLosses.
var Heads = [5]string{"move", "wdl", "time", "from", "to"}

// HeadLosses holds one value per head, in the order of Heads.
type HeadLosses [5]float64

// weights returns the configured loss weights in the order of Heads.
func (c *Config) weights() HeadLosses {
	return HeadLosses{c.WMove, c.WWDL, c.WTime, c.WFrom, c.WTo}
}

// ceSum returns sum_i w_i * -(sum_j T_ij log softmax(logits)_ij) as a scalar tensor.
func (s *scope) ceSum(logits, target, w *ts.Tensor) *ts.Tensor {
	logp := s.k(logits.MustLogSoftmax(-1, gotch.Float, false))
	row := s.k(s.k(target.MustMul(logp, false)).MustSumDimIntlist([]int64{-1}, false, gotch.Float, false))
	return s.k(s.k(s.k(row.MustMul(w, false)).MustSum(gotch.Float, false)).MustNeg(false))
}

// lossOut is the result of losses: the weighted total to back-propagate (a
// scalar tensor) and the per-head means as a [5] tensor.
type lossOut struct {
	total   *ts.Tensor
	perHead *ts.Tensor
	masked  *ts.Tensor // move logits with illegal moves masked, [B,1858]
}

// losses computes every head's mean loss over the rows that have its target,
// and the weighted total scaled by scale (1/accum).
func (s *scope) losses(o Outputs, b *devBatch, w HeadLosses, scale float64) lossOut {
	masked := s.add(o.Move, b.mask)
	sums := []*ts.Tensor{
		s.ceSum(masked, b.moveT, b.moveW),
		s.ceSum(o.WDL, b.wdlT, b.wdlW),
		s.ceSum(o.Time, b.timeT, b.timeW),
		s.ceSum(o.From, b.fT, b.fW),
		s.ceSum(o.To, b.tT, b.tWt),
	}
	var total *ts.Tensor
	means := make([]*ts.Tensor, len(sums))
	for k, sum := range sums {
		mean := s.k(sum.MustMulScalar(ts.FloatScalar(1/max(b.sumW[k], 1)), false))
		means[k] = mean
		if w[k] == 0 {
			continue
		}
		term := s.k(mean.MustMulScalar(ts.FloatScalar(w[k]*scale), false))
		if total == nil {
			total = term
		} else {
			total = s.add(total, term)
		}
	}
	if total == nil { // every weight 0: a zero loss that still has a graph
		total = s.k(means[0].MustMulScalar(ts.FloatScalar(0), false))
	}
	return lossOut{total: total, perHead: s.k(ts.MustStack(means, 0)), masked: masked}
}

// top3 returns, per row, the indices of the 3 largest masked move logits
// (computed on the host: gotch's multi-output wrappers such as Topk are best
// avoided, see scripts/patch-gotch.sh).
func (s *scope) top3(masked *ts.Tensor) []int64 {
	v := hostFloats(masked)
	n := board.NumMoves
	rows := len(v) / n
	out := make([]int64, 3*rows)
	for r := 0; r < rows; r++ {
		row := v[r*n : (r+1)*n]
		best := [3]int{-1, -1, -1}
		for j, x := range row {
			switch {
			case best[0] < 0 || x > row[best[0]]:
				best = [3]int{j, best[0], best[1]}
			case best[1] < 0 || x > row[best[1]]:
				best[1], best[2] = j, best[1]
			case best[2] < 0 || x > row[best[2]]:
				best[2] = j
			}
		}
		for k := range best {
			out[3*r+k] = int64(best[k])
		}
	}
	return out
}
