package lc0

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
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
	for o := 0; o < c.Out; o++ {
		dst := out[o*64 : o*64+64]
		for i := range dst {
			dst[i] = c.B[o]
		}
	}
	if c.Kernel == 1 {
		for o := 0; o < c.Out; o++ {
			dst := out[o*64 : o*64+64]
			for ci, wv := range c.W[o*c.In : (o+1)*c.In] {
				src := x[ci*64 : ci*64+64]
				for i := range dst {
					dst[i] += wv * src[i]
				}
			}
		}
		return out
	}
	// 3x3: copy the input into zero-padded 10x10 planes, then slide.
	pad := make([]float32, c.In*100)
	for ci := 0; ci < c.In; ci++ {
		for y := 0; y < 8; y++ {
			copy(pad[ci*100+(y+1)*10+1:ci*100+(y+1)*10+9], x[ci*64+y*8:ci*64+y*8+8])
		}
	}
	for o := 0; o < c.Out; o++ {
		dst := out[o*64 : o*64+64]
		for ci := 0; ci < c.In; ci++ {
			p := pad[ci*100 : ci*100+100]
			w := c.W[(o*c.In+ci)*9 : (o*c.In+ci)*9+9]
			for y := 0; y < 8; y++ {
				r0, r1, r2 := p[y*10:y*10+10], p[y*10+10:y*10+20], p[y*10+20:y*10+30]
				d := dst[y*8 : y*8+8]
				for i := range d {
					d[i] += w[0]*r0[i] + w[1]*r0[i+1] + w[2]*r0[i+2] +
						w[3]*r1[i] + w[4]*r1[i+1] + w[5]*r1[i+2] +
						w[6]*r2[i] + w[7]*r2[i+1] + w[8]*r2[i+2]
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

// forwardBatch runs Forward on b positions (b*InputPlanes*64 floats) on up
// to GOMAXPROCS goroutines, returning [b][NumMoves] policy logits and the
// [b][len(Value)] value outputs. It checks ctx between positions.
func (w *Weights) forwardBatch(ctx context.Context, planes []float32, b int) (policy, value []float32, err error) {
	const per = InputPlanes * 64
	if b <= 0 || len(planes) != b*per {
		return nil, nil, fmt.Errorf("%w: %d input floats for batch %d", ErrInput, len(planes), b)
	}
	res := make([]Result, b)
	errs := make([]error, b)
	var next sync.Mutex
	i := 0
	var wg sync.WaitGroup
	for k := 0; k < min(runtime.GOMAXPROCS(0), b); k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				next.Lock()
				j := i
				i++
				next.Unlock()
				if j >= b {
					return
				}
				if err := ctx.Err(); err != nil {
					errs[j] = err
					continue
				}
				res[j], errs[j] = w.Forward(planes[j*per : (j+1)*per])
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	nv := len(res[0].Value)
	policy = make([]float32, 0, b*NumMoves)
	value = make([]float32, 0, b*nv)
	for _, r := range res {
		policy = append(policy, r.Policy...)
		value = append(value, r.Value...)
	}
	return policy, value, nil
}
