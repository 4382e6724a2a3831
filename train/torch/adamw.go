package torch

import (
	"fmt"
	"math"

	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/ts"
)

// AdamW is decoupled-weight-decay Adam over the model's parameters, written
// here (not gotch's optimizer) so that its state — the moments and the step
// count — is ours to save in checkpoints and restore exactly.
type AdamW struct {
	Beta1, Beta2, Eps, WeightDecay float64
	Step                           int // updates done

	params []*param
	m, v   []*ts.Tensor // first and second moments, one per parameter
	mult   []*ts.Tensor // per-entry learning-rate multipliers, nil: 1 (SetMult)
}

// SetMult gives parameter i a learning-rate multiplier per entry (its
// shape), applied to the whole step of that entry, weight decay included.
func (o *AdamW) SetMult(i int, mult []float32) (err error) {
	defer recoverTorch(&err)
	p := o.params[i]
	n := 1
	for _, d := range p.shape {
		n *= int(d)
	}
	if n != len(mult) {
		return fmt.Errorf("%w: %s has %d entries, %d multipliers given", ErrConfig, p.name, n, len(mult))
	}
	if o.mult == nil {
		o.mult = make([]*ts.Tensor, len(o.params))
	}
	o.mult[i] = floatTensor(mult, p.shape, o.m[i].MustDevice())
	return nil
}

// NewAdamW returns an optimizer with zero moments.
func NewAdamW(params []*param, dev gotch.Device, beta1, beta2, eps, wd float64) (o *AdamW, err error) {
	defer recoverTorch(&err)
	o = &AdamW{Beta1: beta1, Beta2: beta2, Eps: eps, WeightDecay: wd, params: params}
	for _, p := range params {
		o.m = append(o.m, ts.MustZeros(p.shape, gotch.Float, dev))
		o.v = append(o.v, ts.MustZeros(p.shape, gotch.Float, dev))
	}
	return o, nil
}

// gradNorm returns the global L2 norm of the parameters' gradients.
func (o *AdamW) gradNorm(s *scope) float64 {
	var norms []*ts.Tensor
	for _, p := range o.params {
		g := s.k(p.t.MustGrad(false))
		if !g.MustDefined() {
			continue
		}
		norms = append(norms, s.k(s.k(g.MustSquare(false)).MustSum(gotch.Float, false)))
	}
	if len(norms) == 0 {
		return 0
	}
	total := s.k(s.k(ts.MustStack(norms, 0)).MustSum(gotch.Float, false))
	return math.Sqrt(scalarOf(total))
}

// Update applies one AdamW step with learning rate lr, first scaling the
// gradients by gradScale (for clipping), then zeroes the gradients.
func (o *AdamW) Update(lr, gradScale float64) (err error) {
	defer recoverTorch(&err)
	var s scope
	defer s.drop()
	ng := ts.NewNoGradGuard()
	defer ng.Drop()
	o.Step++
	bc1 := 1 - math.Pow(o.Beta1, float64(o.Step))
	bc2 := 1 - math.Pow(o.Beta2, float64(o.Step))
	for i, p := range o.params {
		g := s.k(p.t.MustGrad(false))
		if !g.MustDefined() {
			continue
		}
		if gradScale != 1 {
			g = s.k(g.MustMulScalar(ts.FloatScalar(gradScale), false))
		}
		m, v := o.m[i], o.v[i]
		// m = b1*m + (1-b1)*g;  v = b2*v + (1-b2)*g^2
		m.MustLerp_(g, ts.FloatScalar(1-o.Beta1))
		v.MustLerp_(s.k(g.MustSquare(false)), ts.FloatScalar(1-o.Beta2))
		den := s.k(s.k(s.k(v.MustMulScalar(ts.FloatScalar(1/bc2), false)).MustSqrt(false)).MustAddScalar(ts.FloatScalar(o.Eps), false))
		if o.mult != nil && o.mult[i] != nil {
			// p -= mult * (lr/bc1 * m / (sqrt(v/bc2) + eps) + lr*wd*p)
			upd := s.k(s.k(m.MustDiv(den, false)).MustMulScalar(ts.FloatScalar(lr/bc1), false))
			if p.decay && o.WeightDecay > 0 {
				upd = s.k(upd.MustAdd(s.k(p.t.MustMulScalar(ts.FloatScalar(lr*o.WeightDecay), false)), false))
			}
			p.t.MustSub_(s.k(upd.MustMul(o.mult[i], false)))
			continue
		}
		if p.decay && o.WeightDecay > 0 {
			p.t.MustMulScalar_(ts.FloatScalar(1 - lr*o.WeightDecay))
		}
		// p -= lr/bc1 * m / (sqrt(v/bc2) + eps)
		upd := s.k(s.k(m.MustDiv(den, false)).MustMulScalar(ts.FloatScalar(lr/bc1), false))
		p.t.MustSub_(upd)
	}
	zeroGrads(o.params)
	return nil
}

// zeroGrads zeroes the gradients in place.
func zeroGrads(params []*param) {
	for _, p := range params {
		g := p.t.MustGrad(false)
		if g.MustDefined() {
			g.MustZero_()
		}
		g.MustDrop()
	}
}

// lrAt returns the learning rate of a step (1-based): linear warm-up to peak,
// then cosine decay to peak*minFrac at the last step.
func lrAt(step, warmup, steps int, peak, minFrac float64) float64 {
	if warmup > 0 && step <= warmup {
		return peak * float64(step) / float64(warmup)
	}
	span := steps - warmup
	if span <= 0 {
		return peak
	}
	t := math.Min(1, float64(step-warmup)/float64(span))
	lo := peak * minFrac
	return lo + (peak-lo)*0.5*(1+math.Cos(math.Pi*t))
}
