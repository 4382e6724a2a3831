package torch

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/ts"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/nets/transformer"
)

// param is one trainable tensor of the model.
type param struct {
	name  string
	shape []int64
	t     *ts.Tensor // leaf tensor, requires grad
	decay bool       // gets AdamW weight decay (matrices and embeddings)
}

// Model is the HumChess transformer in libtorch, with the architecture and
// weight names of docs/ARCHITECTURE.md (the same as nets/transformer).
type Model struct {
	arch   transformer.Arch
	dev    gotch.Device
	params []*param
	byName map[string]*ts.Tensor

	moveIdx  *ts.Tensor // [1858] int64: from*64+to of each vocabulary entry
	promoIdx *ts.Tensor // [1858] int64: to*3+piece of an underpromotion, 192 (a zero column) otherwise
}

// NewModel builds a model with freshly initialised weights (deterministic in
// seed): weights of linear maps N(0, 1/fan_in) (the output projections of
// attention and feed-forward scaled by 1/sqrt(2*layers)), embeddings
// N(0, 0.02^2), gains 1, biases 0.
func NewModel(a transformer.Arch, dev gotch.Device, seed uint64) (*Model, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x686d6368657373))
	w := transformer.Weights{}
	for _, t := range a.Tensors() {
		v := make([]float32, t.Size())
		std := initStd(a, t)
		if std < 0 { // a gain
			for i := range v {
				v[i] = 1
			}
		} else if std > 0 {
			for i := range v {
				v[i] = float32(rng.NormFloat64() * std)
			}
		}
		w[t.Name] = v
	}
	return NewModelFromWeights(a, w, dev)
}

// initStd returns the initial standard deviation of a tensor, 0 for zeros
// and -1 for ones (RMSNorm gains).
func initStd(a transformer.Arch, t transformer.Tensor) float64 {
	n := t.Name
	switch {
	case strings.HasSuffix(n, ".bias"):
		return 0
	case len(t.Shape) == 1: // norm gains: norm1, norm2, qnorm, knorm, smolgen norms, final norm
		return -1
	case strings.HasSuffix(n, ".experts"): // rating experts start as the shared weights
		return 0
	case strings.HasPrefix(n, "embed.piece"), strings.HasPrefix(n, "embed.pos"):
		return 0.02
	case n == "smolgen.gen":
		return 0.02 / math.Sqrt(float64(t.Shape[1]))
	}
	std := 1 / math.Sqrt(float64(t.Shape[1]))
	if strings.HasSuffix(n, "attn.o") || strings.HasSuffix(n, "ffn.w2") {
		std /= math.Sqrt(2 * float64(a.Layers))
	}
	return std
}

// NewModelFromWeights builds a model holding copies of the given weights.
func NewModelFromWeights(a transformer.Arch, w transformer.Weights, dev gotch.Device) (m *Model, err error) {
	if err := w.Check(a); err != nil {
		return nil, err
	}
	defer recoverTorch(&err)
	m = &Model{arch: a, dev: dev, byName: map[string]*ts.Tensor{}}
	for _, t := range a.Tensors() {
		shape := make([]int64, len(t.Shape))
		for i, d := range t.Shape {
			shape[i] = int64(d)
		}
		x := floatTensor(w[t.Name], shape, dev)
		x.MustRequiresGrad_(true)
		p := &param{name: t.Name, shape: shape, t: x, decay: len(shape) >= 2}
		m.params = append(m.params, p)
		m.byName[t.Name] = x
	}
	moves := make([]int64, board.NumMoves)
	promos := make([]int64, board.NumMoves)
	for i := range moves {
		mv := board.IndexToMove(i, true)
		moves[i] = int64(mv.From)*64 + int64(mv.To)
		promos[i] = 64 * transformer.NumPromo // the zero column
		switch mv.Promo {
		case board.Knight:
			promos[i] = int64(mv.To)*3 + 0
		case board.Bishop:
			promos[i] = int64(mv.To)*3 + 1
		case board.Rook:
			promos[i] = int64(mv.To)*3 + 2
		}
	}
	m.moveIdx = int64Tensor(moves, []int64{board.NumMoves}, dev)
	m.promoIdx = int64Tensor(promos, []int64{board.NumMoves}, dev)
	return m, nil
}

// Arch returns the model's architecture.
func (m *Model) Arch() transformer.Arch { return m.arch }

// NumParams returns the number of parameters.
func (m *Model) NumParams() int64 { return m.arch.ParamCount() }

// Weights copies the weights to the host, by name.
func (m *Model) Weights() (w transformer.Weights, err error) {
	defer recoverTorch(&err)
	w = transformer.Weights{}
	for _, p := range m.params {
		w[p.name] = hostFloats(p.t)
	}
	return w, nil
}

// Outputs are the heads' logits for a batch (see ARCHITECTURE.md).
type Outputs struct {
	Move  *ts.Tensor // [B,1858]
	WDL   *ts.Tensor // [B,3]
	Time  *ts.Tensor // [B,8]
	From  *ts.Tensor // [B,64]
	To    *ts.Tensor // [B,64]
	Legal *ts.Tensor // [B,1858] legal-move logits; nil when the arch has no legal head
}

// scope keeps the intermediate tensors of a computation so they can be freed
// together (gotch frees tensors only through Go finalizers otherwise).
type scope struct{ ts []*ts.Tensor }

// k keeps t and returns it.
func (s *scope) k(t *ts.Tensor) *ts.Tensor {
	s.ts = append(s.ts, t)
	return t
}

// drop frees every kept tensor.
func (s *scope) drop() {
	for _, t := range s.ts {
		t.MustDrop()
	}
	s.ts = s.ts[:0]
}

// linear returns x @ w^T (+ b when b is not nil).
func (s *scope) linear(x, w, b *ts.Tensor) *ts.Tensor {
	if b != nil {
		return s.k(ts.MustLinear(x, w, b))
	}
	return s.k(x.MustMatmul(s.k(w.MustT(false)), false))
}

// rms returns x / sqrt(mean(x^2 over the last dim) + eps) * gain.
func (s *scope) rms(x, gain *ts.Tensor, eps float64) *ts.Tensor {
	ms := s.k(s.k(x.MustSquare(false)).MustMeanDim([]int64{-1}, true, gotch.Float, false))
	inv := s.k(s.k(ms.MustAddScalar(ts.FloatScalar(eps), false)).MustRsqrt(false))
	return s.k(s.k(x.MustMul(inv, false)).MustMul(gain, false))
}

func (s *scope) add(a, b *ts.Tensor) *ts.Tensor { return s.k(a.MustAdd(b, false)) }

func (s *scope) silu(x *ts.Tensor) *ts.Tensor { return s.k(x.MustSilu(false)) }

// Forward runs the net on a batch: pieces int64 [B,64], squares float32
// [B,64,S], global float32 [B,G]. The outputs and every intermediate are
// kept in s.
func (m *Model) Forward(s *scope, pieces, squares, global *ts.Tensor) Outputs {
	a, w := m.arch, m.byName
	eps := a.NormEps
	B := pieces.MustSize()[0]

	x := s.k(ts.MustEmbedding(w["embed.piece"], pieces, -1, false, false))
	x = s.add(x, s.linear(squares, w["embed.square.weight"], w["embed.square.bias"]))
	x = s.add(x, w["embed.pos"])
	g := s.linear(global, w["embed.global.weight"], w["embed.global.bias"])
	x = s.add(x, s.k(g.MustUnsqueeze(1, false)))

	var gen *ts.Tensor
	if a.Smolgen {
		gen = w["smolgen.gen"]
	}
	var mix *ts.Tensor // [B,E]: the rating experts' weights, the first global inputs
	if a.RatingExperts > 0 {
		mix = s.k(global.MustNarrow(1, 0, int64(transformer.NumRatingExperts), false))
	}
	for l := 0; l < a.Layers; l++ {
		x = m.layer(s, x, l, B, gen, mix)
	}
	x = s.rms(x, w["norm"], eps)

	move := m.vocabHead(s, x, "policy", B)

	// Pooled heads.
	z := s.k(x.MustMeanDim([]int64{1}, false, gotch.Float, false))
	wdl := s.linear(s.silu(s.linear(z, w["value.fc1.weight"], w["value.fc1.bias"])), w["value.fc2.weight"], w["value.fc2.bias"])
	tm := s.linear(s.silu(s.linear(z, w["time.fc1.weight"], w["time.fc1.bias"])), w["time.fc2.weight"], w["time.fc2.bias"])
	from := s.k(s.linear(x, w["from.weight"], w["from.bias"]).MustReshape([]int64{B, 64}, false))
	to := s.k(s.linear(x, w["to.weight"], w["to.bias"]).MustReshape([]int64{B, 64}, false))
	o := Outputs{Move: move, WDL: wdl, Time: tm, From: from, To: to}
	if a.LegalHead {
		o.Legal = m.vocabHead(s, x, "legal", B)
	}
	return o
}

// vocabHead returns the [B,1858] logits of a from-to head over the final
// normed squares x [B,64,d]: the move head (prefix "policy") or the
// legal-moves head (prefix "legal"). Entry (from,to) gets Q[from].K[to]/sqrt(p);
// an underpromotion adds U[to,piece].
func (m *Model) vocabHead(s *scope, x *ts.Tensor, prefix string, B int64) *ts.Tensor {
	w := m.byName
	q := s.linear(x, w[prefix+".q.weight"], w[prefix+".q.bias"])
	k := s.linear(x, w[prefix+".k.weight"], w[prefix+".k.bias"])
	mm := s.k(q.MustMatmul(s.k(k.MustTranspose(1, 2, false)), false))
	mm = s.k(mm.MustMulScalar(ts.FloatScalar(1/math.Sqrt(float64(m.arch.PolicyDim))), false))
	mflat := s.k(mm.MustReshape([]int64{B, 64 * 64}, false))
	u := s.linear(x, w[prefix+".promo.weight"], w[prefix+".promo.bias"])
	uflat := s.k(u.MustReshape([]int64{B, 64 * transformer.NumPromo}, false))
	zero := s.k(ts.MustZeros([]int64{B, 1}, gotch.Float, m.dev))
	ucat := s.k(ts.MustCat([]*ts.Tensor{uflat, zero}, 1))
	return s.add(s.k(mflat.MustIndexSelect(1, m.moveIdx, false)), s.k(ucat.MustIndexSelect(1, m.promoIdx, false)))
}

// layer applies encoder layer l to x [B,64,d]; mix [B,E] weighs the
// layer's rating experts (Arch.RatingExperts).
func (m *Model) layer(s *scope, x *ts.Tensor, l int, B int64, gen, mix *ts.Tensor) *ts.Tensor {
	a, w := m.arch, m.byName
	eps := a.NormEps
	H, hd, d := int64(a.Heads), int64(a.HeadDim()), int64(a.Dim)
	pre := fmt.Sprintf("layers.%d.", l)

	h := s.rms(x, w[pre+"norm1"], eps)
	split := func(t *ts.Tensor) *ts.Tensor { // [B,64,d] -> [B,64,H,hd]
		return s.k(t.MustReshape([]int64{B, 64, H, hd}, false))
	}
	q := s.rms(split(s.linear(h, w[pre+"attn.q"], nil)), w[pre+"attn.qnorm"], eps)
	k := s.rms(split(s.linear(h, w[pre+"attn.k"], nil)), w[pre+"attn.knorm"], eps)
	v := split(s.linear(h, w[pre+"attn.v"], nil))
	q = s.k(q.MustPermute([]int64{0, 2, 1, 3}, false)) // [B,H,64,hd]
	k = s.k(k.MustPermute([]int64{0, 2, 3, 1}, false)) // [B,H,hd,64]
	v = s.k(v.MustPermute([]int64{0, 2, 1, 3}, false)) // [B,H,64,hd]
	scores := s.k(q.MustMatmul(k, false))
	scores = s.k(scores.MustMulScalar(ts.FloatScalar(1/math.Sqrt(float64(hd))), false))
	if a.Smolgen {
		scores = s.add(scores, m.smolgen(s, h, pre, B, gen))
	}
	att := s.k(scores.MustSoftmax(-1, gotch.Float, false))
	o := s.k(att.MustMatmul(v, false))                 // [B,H,64,hd]
	o = s.k(o.MustPermute([]int64{0, 2, 1, 3}, false)) // [B,64,H,hd]
	o = s.k(o.MustReshape([]int64{B, 64, d}, false))
	x = s.add(x, s.linear(o, w[pre+"attn.o"], nil))

	h = s.rms(x, w[pre+"norm2"], eps)
	if a.HasExperts(l) {
		f := m.expertLinear(s, s.silu(m.expertLinear(s, h, mix, pre+"ffn.w1", B)), mix, pre+"ffn.w2", B)
		return s.add(x, f)
	}
	f := s.linear(s.silu(s.linear(h, w[pre+"ffn.w1"], nil)), w[pre+"ffn.w2"], nil)
	return s.add(x, f)
}

// expertLinear returns x [B,64,in] @ (W + sum_e mix[e]*experts[e])^T for the
// [out,in] matrix name and its rating experts name+".experts" [E,out,in],
// the mixed matrix made per position.
func (m *Model) expertLinear(s *scope, x, mix *ts.Tensor, name string, B int64) *ts.Tensor {
	w := m.byName[name]
	sz := w.MustSize()
	out, in := sz[0], sz[1]
	ex := s.k(m.byName[name+".experts"].MustReshape([]int64{int64(transformer.NumRatingExperts), out * in}, false))
	dw := s.k(s.k(mix.MustMatmul(ex, false)).MustReshape([]int64{B, out, in}, false))
	wb := s.add(dw, w) // [B,out,in]
	return s.k(x.MustMatmul(s.k(wb.MustTranspose(1, 2, false)), false))
}

// smolgen returns the attention bias [B,H,64,64] of a layer from its normed
// input h [B,64,d].
func (m *Model) smolgen(s *scope, h *ts.Tensor, pre string, B int64, gen *ts.Tensor) *ts.Tensor {
	a, w := m.arch, m.byName
	eps := a.NormEps
	C, Hs, H := int64(a.SmolgenCompress), int64(a.SmolgenHidden), int64(a.Heads)
	c := s.linear(h, w[pre+"smolgen.compress"], nil) // [B,64,C]
	c = s.k(c.MustReshape([]int64{B, 64 * C}, false))
	z := s.silu(s.linear(c, w[pre+"smolgen.dense1.weight"], w[pre+"smolgen.dense1.bias"]))
	z = s.rms(z, w[pre+"smolgen.norm1"], eps)
	z = s.linear(z, w[pre+"smolgen.dense2.weight"], w[pre+"smolgen.dense2.bias"])
	z = s.k(z.MustReshape([]int64{B, H, Hs}, false))
	z = s.rms(z, w[pre+"smolgen.norm2"], eps)
	bias := s.linear(z, gen, nil) // [B,H,4096]
	return s.k(bias.MustReshape([]int64{B, H, 64, 64}, false))
}
