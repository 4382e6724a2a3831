package policy

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Distribution returns the sampling probabilities of moves with the given
// logits: softmax(logits/temperature) over the entries where keep is nil or
// true, others 0. Temperature 0 (or below) puts all the mass on the most
// likely kept move (the first one on ties); +Inf or NaN logits never win.
// With no kept move, or no finite logit, every entry is 0.
func Distribution(logits []float32, keep []bool, temperature float64) []float64 {
	p := make([]float64, len(logits))
	best, mx := -1, math.Inf(-1)
	for i, l := range logits {
		v := float64(l)
		if (keep != nil && !keep[i]) || math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		if v > mx {
			best, mx = i, v
		}
	}
	if best < 0 {
		return p
	}
	if !(temperature > 0) {
		p[best] = 1
		return p
	}
	sum := 0.0
	for i, l := range logits {
		v := float64(l)
		if (keep != nil && !keep[i]) || math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		p[i] = math.Exp((v - mx) / temperature)
		sum += p[i]
	}
	for i := range p {
		p[i] /= sum
	}
	return p
}

// TopP keeps the smallest set of most likely entries whose probabilities
// add up to at least topP, zeroes the rest and renormalises, in place. It
// always keeps the most likely entry. topP >= 1 (or NaN) keeps everything.
func TopP(p []float64, topP float64) []float64 {
	if !(topP < 1) {
		return p
	}
	order := argsort(p)
	total, cum, cut := 0.0, 0.0, len(order)
	for _, i := range order {
		total += p[i]
	}
	if total <= 0 {
		return p
	}
	for k, i := range order {
		cum += p[i] / total
		if cum >= topP {
			cut = k + 1
			break
		}
	}
	kept := 0.0
	for k, i := range order {
		if k >= cut {
			p[i] = 0
		} else {
			kept += p[i]
		}
	}
	for i := range p {
		p[i] /= kept
	}
	return p
}

// Sample draws an index with probability proportional to p using rng. It
// returns -1 when no entry is positive.
func Sample(p []float64, rng *rand.Rand) int {
	total := 0.0
	last := -1
	for i, x := range p {
		if x > 0 {
			total += x
			last = i
		}
	}
	if last < 0 {
		return -1
	}
	r := rng.Float64() * total
	for i, x := range p {
		if x <= 0 {
			continue
		}
		if r < x {
			return i
		}
		r -= x
	}
	return last // rounding
}

// argsort returns the indices of p by decreasing value, stable.
func argsort(p []float64) []int {
	idx := make([]int, len(p))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] > p[idx[b]] })
	return idx
}
