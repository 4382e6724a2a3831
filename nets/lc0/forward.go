package lc0

import (
	"fmt"
	"math"
)

// Result is the raw output of one forward pass.
type Result struct {
	Policy []float32 // NumMoves logits over Lc0's move index
	// Value holds the value head's output: 3 logits (win, draw, loss for the
	// mover) for a WDL net, or one tanh value in [-1, 1] for a classical net.
	Value []float32
}

// Forward runs the reference pure-Go forward pass on one position's input
// planes (InputPlanes x 64 floats, as EncodeHistory writes them). It is
// slow (a few tens of ms for a 6x64 net) and exists to check faster paths.
func (w *Weights) Forward(planes []float32) (Result, error) {
	if len(planes) != InputPlanes*64 {
		return Result{}, fmt.Errorf("%w: %d input floats, want %d", ErrInput, len(planes), InputPlanes*64)
	}
	x := w.Input.apply(planes, nil)
	relu(x)
	for _, b := range w.Blocks {
		h := b.Conv1.apply(x, nil)
		relu(h)
		h = b.Conv2.apply(h, nil)
		if b.SE != nil {
			b.SE.apply(h, x)
		} else {
			for i := range h {
				h[i] += x[i]
			}
		}
		relu(h)
		x = h
	}

	var res Result
	if w.Policy1 != nil {
		p := w.Policy1.apply(x, nil)
		relu(p)
		p = w.Policy.apply(p, nil)
		res.Policy = make([]float32, NumMoves)
		for i, m := range convPolMap {
			if m >= 0 {
				res.Policy[m] = p[i]
			}
		}
	} else {
		p := w.Policy.apply(x, nil)
		relu(p)
		res.Policy = w.PolicyFC.apply(p)
	}

	v := w.Value.apply(x, nil)
	relu(v)
	v = w.Value1.apply(v)
	relu(v)
	res.Value = w.Value2.apply(v)
	if len(res.Value) == 1 {
		res.Value[0] = float32(math.Tanh(float64(res.Value[0])))
	}
	return res, nil
}

// apply convolves x ([In][64]) into a new [Out][64] slice (zero padding).
func (c *Conv) apply(x, out []float32) []float32 {
	if out == nil {
		out = make([]float32, c.Out*64)
	}
	k := c.Kernel
	pad := k / 2
	for o := 0; o < c.Out; o++ {
		dst := out[o*64 : o*64+64]
		b := c.B[o]
		for i := range dst {
			dst[i] = b
		}
		for ci := 0; ci < c.In; ci++ {
			src := x[ci*64 : ci*64+64]
			wk := c.W[(o*c.In+ci)*k*k : (o*c.In+ci+1)*k*k]
			for ky := 0; ky < k; ky++ {
				dy := ky - pad
				for kx := 0; kx < k; kx++ {
					dx := kx - pad
					wv := wk[ky*k+kx]
					if wv == 0 {
						continue
					}
					x0, x1 := max(0, -dx), min(8, 8-dx)
					for y := max(0, -dy); y < min(8, 8-dy); y++ {
						d := dst[y*8+x0 : y*8+x1]
						s := src[(y+dy)*8+x0+dx : (y+dy)*8+x1+dx]
						for i := range d {
							d[i] += wv * s[i]
						}
					}
				}
			}
		}
	}
	return out
}

// apply returns W x + B.
func (d *Dense) apply(x []float32) []float32 {
	out := make([]float32, d.Out)
	for o := range out {
		row := d.W[o*d.In : (o+1)*d.In]
		var s float32
		for i, v := range row {
			s += v * x[i]
		}
		out[o] = s + d.B[o]
	}
	return out
}

// apply computes h = sigmoid(z1) * h + z2 + res in place, where z = FC2(relu(FC1(mean(h)))).
func (s *SE) apply(h, res []float32) {
	c := s.FC1.In
	pool := make([]float32, c)
	for ch := 0; ch < c; ch++ {
		var sum float32
		for _, v := range h[ch*64 : ch*64+64] {
			sum += v
		}
		pool[ch] = sum / 64
	}
	z := s.FC1.apply(pool)
	relu(z)
	z = s.FC2.apply(z)
	for ch := 0; ch < c; ch++ {
		g := 1 / (1 + float32(math.Exp(-float64(z[ch]))))
		b := z[c+ch]
		for i := ch * 64; i < ch*64+64; i++ {
			h[i] = g*h[i] + b + res[i]
		}
	}
}

func relu(x []float32) {
	for i, v := range x {
		if v < 0 {
			x[i] = 0
		}
	}
}
