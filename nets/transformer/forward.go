package transformer

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/humchess/humchess/board"
)

// vocabEntry is one move-vocabulary entry in the mover's frame: the from and
// to squares and the underpromotion piece (0 knight, 1 bishop, 2 rook; -1 for
// a plain entry).
type vocabEntry struct {
	from, to, promo int
}

// vocabTable is the move vocabulary in the mover's frame
// (board.IndexToMove with whiteToMove=true), built once.
var vocabTable = sync.OnceValue(func() []vocabEntry {
	t := make([]vocabEntry, board.NumMoves)
	for i := range t {
		m := board.IndexToMove(i, true)
		e := vocabEntry{from: int(m.From), to: int(m.To), promo: -1}
		switch m.Promo {
		case board.Knight:
			e.promo = 0
		case board.Bishop:
			e.promo = 1
		case board.Rook:
			e.promo = 2
		}
		t[i] = e
	}
	return t
})

// Batch is a batch of encoded positions, the three input tensors of the net
// in row-major order.
type Batch struct {
	N       int       // positions
	Pieces  []int64   // [N,64] square tokens 0..12
	Squares []float32 // [N,64,SquareDim]
	Global  []float32 // [N,GlobalDim]
}

// Result holds the outputs of the net for a batch, row-major.
type Result struct {
	N    int
	Move []float32 // [N,1858] logits
	WDL  []float32 // [N,3] logits: win, draw, loss for the mover
	Time []float32 // [N,8] logits over board.ThinkBinEdges bins
	From []float32 // [N,64] logits
	To   []float32 // [N,64] logits
	// Legal is [N,1858]: per vocabulary move, the logit that it is legal.
	// Nil when the net has no legal-moves head (Arch.LegalHead).
	Legal []float32
}

// Model is the pure-Go reference forward pass of a HumChess transformer: slow,
// exact (float64 accumulation), used to check the ONNX graph.
type Model struct {
	arch Arch
	w    Weights
}

// NewModel checks the weights against the architecture and returns the
// reference model. The weights are not copied; do not change them.
func NewModel(a Arch, w Weights) (*Model, error) {
	if err := w.Check(a); err != nil {
		return nil, err
	}
	return &Model{arch: a, w: w}, nil
}

// Arch returns the model's architecture.
func (m *Model) Arch() Arch { return m.arch }

// check reports whether the batch has the sizes the architecture wants.
func (a Arch) checkBatch(b Batch) error {
	if b.N < 0 {
		return fmt.Errorf("%w: batch size %d", ErrInput, b.N)
	}
	if len(b.Pieces) != b.N*NumSquares {
		return fmt.Errorf("%w: pieces has %d values, want %d", ErrInput, len(b.Pieces), b.N*NumSquares)
	}
	if len(b.Squares) != b.N*NumSquares*a.SquareDim {
		return fmt.Errorf("%w: squares has %d values, want %d", ErrInput, len(b.Squares), b.N*NumSquares*a.SquareDim)
	}
	if len(b.Global) != b.N*a.GlobalDim {
		return fmt.Errorf("%w: global has %d values, want %d", ErrInput, len(b.Global), b.N*a.GlobalDim)
	}
	for i, p := range b.Pieces {
		if p < 0 || p >= NumPieces {
			return fmt.Errorf("%w: pieces[%d] = %d, want 0..%d", ErrInput, i, p, NumPieces-1)
		}
	}
	return nil
}

// Forward runs the reference forward pass on a batch, in parallel over
// positions. It blocks.
func (m *Model) Forward(b Batch) (Result, error) {
	a := m.arch
	if err := a.checkBatch(b); err != nil {
		return Result{}, err
	}
	r := Result{
		N:    b.N,
		Move: make([]float32, b.N*board.NumMoves),
		WDL:  make([]float32, b.N*NumWDL),
		Time: make([]float32, b.N*NumTimeBins),
		From: make([]float32, b.N*NumSquares),
		To:   make([]float32, b.N*NumSquares),
	}
	if a.LegalHead {
		r.Legal = make([]float32, b.N*board.NumMoves)
	}
	workers := min(runtime.GOMAXPROCS(0), b.N)
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				m.one(b, i, r)
			}
		}()
	}
	for i := 0; i < b.N; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	return r, nil
}

// one computes position i of the batch into r.
func (m *Model) one(b Batch, i int, r Result) {
	a, w := m.arch, m.w
	d, S, G := a.Dim, a.SquareDim, a.GlobalDim
	eps := float32(a.NormEps)

	// 1. Embedding.
	x := make([]float32, NumSquares*d)
	glob := linear(b.Global[i*G:(i+1)*G], 1, G, w["embed.global.weight"], w["embed.global.bias"], d)
	sq := linear(b.Squares[i*NumSquares*S:(i+1)*NumSquares*S], NumSquares, S, w["embed.square.weight"], w["embed.square.bias"], d)
	piece, pos := w["embed.piece"], w["embed.pos"]
	for s := 0; s < NumSquares; s++ {
		p := int(b.Pieces[i*NumSquares+s])
		for j := 0; j < d; j++ {
			x[s*d+j] = piece[p*d+j] + sq[s*d+j] + pos[s*d+j] + glob[j]
		}
	}

	// 2. Layers.
	mix := b.Global[i*G : i*G+min(G, NumRatingExperts)] // the rating experts' weights
	for l := 0; l < a.Layers; l++ {
		m.layer(x, l, mix)
	}

	// 3. Final norm.
	x = rmsRows(x, NumSquares, d, w["norm"], eps)

	// 4. Heads.
	m.vocabHead(x, "policy", r.Move[i*board.NumMoves:(i+1)*board.NumMoves])
	if a.LegalHead {
		m.vocabHead(x, "legal", r.Legal[i*board.NumMoves:(i+1)*board.NumMoves])
	}
	z := make([]float32, d)
	for s := 0; s < NumSquares; s++ {
		for j := 0; j < d; j++ {
			z[j] += x[s*d+j]
		}
	}
	for j := range z {
		z[j] /= NumSquares
	}
	hv := silu(linear(z, 1, d, w["value.fc1.weight"], w["value.fc1.bias"], d))
	copy(r.WDL[i*NumWDL:], linear(hv, 1, d, w["value.fc2.weight"], w["value.fc2.bias"], NumWDL))
	ht := silu(linear(z, 1, d, w["time.fc1.weight"], w["time.fc1.bias"], d))
	copy(r.Time[i*NumTimeBins:], linear(ht, 1, d, w["time.fc2.weight"], w["time.fc2.bias"], NumTimeBins))
	copy(r.From[i*NumSquares:], linear(x, NumSquares, d, w["from.weight"], w["from.bias"], 1))
	copy(r.To[i*NumSquares:], linear(x, NumSquares, d, w["to.weight"], w["to.bias"], 1))
}

// vocabHead computes a from-to head over the final normed squares x [64,d]
// into out [1858]: the move head (prefix "policy") or the legal-moves head
// (prefix "legal"), with weights PREFIX.q, PREFIX.k and PREFIX.promo. Entry
// (from,to) gets Q[from].K[to]/sqrt(p); an underpromotion adds U[to,piece].
func (m *Model) vocabHead(x []float32, prefix string, out []float32) {
	w, d, p := m.w, m.arch.Dim, m.arch.PolicyDim
	q := linear(x, NumSquares, d, w[prefix+".q.weight"], w[prefix+".q.bias"], p)
	k := linear(x, NumSquares, d, w[prefix+".k.weight"], w[prefix+".k.bias"], p)
	u := linear(x, NumSquares, d, w[prefix+".promo.weight"], w[prefix+".promo.bias"], NumPromo)
	scale := 1 / math.Sqrt(float64(p))
	for j, e := range vocabTable() {
		v := float32(dot(q[e.from*p:(e.from+1)*p], k[e.to*p:(e.to+1)*p]) * scale)
		if e.promo >= 0 {
			v += u[e.to*NumPromo+e.promo]
		}
		out[j] = v
	}
}

// layer applies encoder layer l to x [64,d] in place; mix weighs the
// layer's rating experts (Arch.RatingExperts).
func (m *Model) layer(x []float32, l int, mix []float32) {
	a, w := m.arch, m.w
	d, H, hd := a.Dim, a.Heads, a.HeadDim()
	eps := float32(a.NormEps)
	pre := fmt.Sprintf("layers.%d.", l)

	h := rmsRows(x, NumSquares, d, w[pre+"norm1"], eps)
	q := linear(h, NumSquares, d, w[pre+"attn.q"], nil, d)
	k := linear(h, NumSquares, d, w[pre+"attn.k"], nil, d)
	v := linear(h, NumSquares, d, w[pre+"attn.v"], nil, d)
	// QK-norm: per square and head, over the head dimension.
	q = rmsRows(q, NumSquares*H, hd, w[pre+"attn.qnorm"], eps)
	k = rmsRows(k, NumSquares*H, hd, w[pre+"attn.knorm"], eps)

	var bias []float32 // [H,64,64]
	if a.Smolgen {
		bias = m.smolgen(h, pre)
	}
	scale := 1 / math.Sqrt(float64(hd))
	att := make([]float32, NumSquares*d)
	scores := make([]float64, NumSquares)
	for hh := 0; hh < H; hh++ {
		for qs := 0; qs < NumSquares; qs++ {
			qv := q[qs*d+hh*hd : qs*d+(hh+1)*hd]
			mx := math.Inf(-1)
			for ks := 0; ks < NumSquares; ks++ {
				s := dot(qv, k[ks*d+hh*hd:ks*d+(hh+1)*hd]) * scale
				if bias != nil {
					s += float64(bias[(hh*NumSquares+qs)*NumSquares+ks])
				}
				scores[ks] = s
				mx = math.Max(mx, s)
			}
			var sum float64
			for ks := range scores {
				scores[ks] = math.Exp(scores[ks] - mx)
				sum += scores[ks]
			}
			out := att[qs*d+hh*hd : qs*d+(hh+1)*hd]
			for j := 0; j < hd; j++ {
				var acc float64
				for ks := 0; ks < NumSquares; ks++ {
					acc += scores[ks] * float64(v[ks*d+hh*hd+j])
				}
				out[j] = float32(acc / sum)
			}
		}
	}
	o := linear(att, NumSquares, d, w[pre+"attn.o"], nil, d)
	for j := range x {
		x[j] += o[j]
	}

	h = rmsRows(x, NumSquares, d, w[pre+"norm2"], eps)
	w1, w2 := w[pre+"ffn.w1"], w[pre+"ffn.w2"]
	if a.HasExperts(l) {
		w1 = mixExperts(w1, w[pre+"ffn.w1.experts"], mix)
		w2 = mixExperts(w2, w[pre+"ffn.w2.experts"], mix)
	}
	f := silu(linear(h, NumSquares, d, w1, nil, a.FFNDim))
	f = linear(f, NumSquares, a.FFNDim, w2, nil, d)
	for j := range x {
		x[j] += f[j]
	}
}

// mixExperts returns the matrix base + sum_e mix[e]*experts[e] (experts
// [len(mix), len(base)]), accumulated in float64.
func mixExperts(base, experts, mix []float32) []float32 {
	out := make([]float32, len(base))
	n := len(base)
	for j := range out {
		acc := float64(base[j])
		for e, g := range mix {
			acc += float64(g) * float64(experts[e*n+j])
		}
		out[j] = float32(acc)
	}
	return out
}

// smolgen returns the attention bias [heads,64,64] of one layer from its
// normed input h [64,d].
func (m *Model) smolgen(h []float32, pre string) []float32 {
	a, w := m.arch, m.w
	d, C, Hs, H := a.Dim, a.SmolgenCompress, a.SmolgenHidden, a.Heads
	eps := float32(a.NormEps)
	c := linear(h, NumSquares, d, w[pre+"smolgen.compress"], nil, C) // [64,C] = [64*C] flat
	s := silu(linear(c, 1, NumSquares*C, w[pre+"smolgen.dense1.weight"], w[pre+"smolgen.dense1.bias"], Hs))
	s = rmsRows(s, 1, Hs, w[pre+"smolgen.norm1"], eps)
	s = linear(s, 1, Hs, w[pre+"smolgen.dense2.weight"], w[pre+"smolgen.dense2.bias"], H*Hs)
	s = rmsRows(s, H, Hs, w[pre+"smolgen.norm2"], eps)
	return linear(s, H, Hs, w["smolgen.gen"], nil, NumSquares*NumSquares)
}

// linear returns x [rows,in] @ W^T + b with W [out,in] (b may be nil), as
// [rows,out], accumulating in float64.
func linear(x []float32, rows, in int, W, b []float32, out int) []float32 {
	y := make([]float32, rows*out)
	for r := 0; r < rows; r++ {
		xr := x[r*in : (r+1)*in]
		for o := 0; o < out; o++ {
			acc := dot(xr, W[o*in:(o+1)*in])
			if b != nil {
				acc += float64(b[o])
			}
			y[r*out+o] = float32(acc)
		}
	}
	return y
}

// dot is the float64-accumulated dot product of two equal-length vectors.
func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// rmsRows returns each of the rows of x [rows,n] divided by
// sqrt(mean(row^2)+eps) and multiplied by gain [n].
func rmsRows(x []float32, rows, n int, gain []float32, eps float32) []float32 {
	y := make([]float32, rows*n)
	for r := 0; r < rows; r++ {
		row := x[r*n : (r+1)*n]
		var ss float64
		for _, v := range row {
			ss += float64(v) * float64(v)
		}
		inv := 1 / math.Sqrt(ss/float64(n)+float64(eps))
		for j, v := range row {
			y[r*n+j] = float32(float64(v) * inv * float64(gain[j]))
		}
	}
	return y
}

// silu applies x*sigmoid(x) in place and returns x.
func silu(x []float32) []float32 {
	for i, v := range x {
		x[i] = float32(float64(v) / (1 + math.Exp(-float64(v))))
	}
	return x
}
