package torch

import (
	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/ts"

	"github.com/humchess/humchess/board"
)

// Heads names the loss terms in the order of HeadLosses. "legal" (the
// legal-moves head) is 0 and left out of the records when the arch has no
// legal head.
var Heads = [6]string{"move", "wdl", "time", "from", "to", "legal"}

// HeadLegal is the index of the legal-moves head in Heads.
const HeadLegal = 5

// HeadLosses holds one value per head, in the order of Heads.
type HeadLosses [6]float64

// weights returns the configured loss weights in the order of Heads (the
// legal head's is 0 when the arch has none).
func (c *Config) weights() HeadLosses {
	w := HeadLosses{c.WMove, c.WWDL, c.WTime, c.WFrom, c.WTo}
	if c.Arch.LegalHead {
		w[HeadLegal] = c.WLegal
	}
	return w
}

// hasHead reports whether head k exists for the arch (all but the legal
// head always do).
func (c *Config) hasHead(k int) bool { return k != HeadLegal || c.Arch.LegalHead }

// legalTarget returns the legal-move target [B,1858] from the move mask:
// 1 where the mask is 0 (legal), 0 where it is maskIllegal.
func (s *scope) legalTarget(mask *ts.Tensor) *ts.Tensor {
	return s.k(s.k(mask.MustGt(ts.FloatScalar(maskIllegal/2), false)).MustTotype(gotch.Float, false))
}

// bceMean returns the mean over every entry of the binary cross-entropy of
// logits against the 0/1 target, softplus(x) - t*x (stable for any x), in
// float32.
func (s *scope) bceMean(logits, target *ts.Tensor) *ts.Tensor {
	x := s.k(logits.MustTotype(gotch.Float, false))
	l := s.k(s.k(x.MustSoftplus(false)).MustSub(s.k(x.MustMul(target, false)), false))
	return s.k(l.MustMean(gotch.Float, false))
}

// ceSum returns sum_i w_i * -(sum_j T_ij log softmax(logits)_ij) as a scalar tensor.
func (s *scope) ceSum(logits, target, w *ts.Tensor) *ts.Tensor {
	logp := s.k(logits.MustLogSoftmax(-1, gotch.Float, false))
	row := s.k(s.k(target.MustMul(logp, false)).MustSumDimIntlist([]int64{-1}, false, gotch.Float, false))
	return s.k(s.k(s.k(row.MustMul(w, false)).MustSum(gotch.Float, false)).MustNeg(false))
}

// lossOut is the result of losses: the weighted total to back-propagate (a
// scalar tensor) and the per-head means as a [6] tensor (in the order of
// Heads; the legal head's is 0 without one).
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
	means := make([]*ts.Tensor, 0, len(Heads))
	for k, sum := range sums {
		means = append(means, s.k(sum.MustMulScalar(ts.FloatScalar(1/max(b.sumW[k], 1)), false)))
	}
	if o.Legal != nil { // every row has a legal-move target: the mean over rows and moves
		means = append(means, s.bceMean(o.Legal, s.legalTarget(b.mask)))
	} else {
		means = append(means, s.k(means[0].MustMulScalar(ts.FloatScalar(0), false)))
	}
	var total *ts.Tensor
	for k, mean := range means {
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

// legalStats accumulates the validation figures of the legal-moves head.
type legalStats struct {
	rows        int
	acc, base   float64 // sums over rows of the fraction of entries right: the head, all-illegal
	tp, fp, fne int64   // legal moves found, illegal ones called legal, legal ones missed
}

// add counts a batch: logits of the legal head and the move mask (0 legal,
// maskIllegal otherwise), both [rows,1858] on the host.
func (l *legalStats) add(logits, mask []float32) {
	n := board.NumMoves
	for r := 0; r < len(mask)/n; r++ {
		right, legal := 0, 0
		for j := r * n; j < (r+1)*n; j++ {
			isLegal, said := mask[j] == 0, logits[j] > 0
			if isLegal {
				legal++
			}
			switch {
			case isLegal == said:
				right++
				if said {
					l.tp++
				}
			case said:
				l.fp++
			default:
				l.fne++
			}
		}
		l.rows++
		l.acc += float64(right) / float64(n)
		l.base += float64(n-legal) / float64(n)
	}
}

// metrics returns the mean per-position accuracy, that of the all-illegal
// classifier, and the F1 score of the legal moves (0 when none is predicted
// and none exists).
func (l *legalStats) metrics() (acc, base, f1 float64) {
	if l.rows == 0 {
		return 0, 0, 0
	}
	if d := 2*l.tp + l.fp + l.fne; d > 0 {
		f1 = 2 * float64(l.tp) / float64(d)
	}
	return l.acc / float64(l.rows), l.base / float64(l.rows), f1
}
