package transformer

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/nets/onnx"
)

// ONNX metadata keys written by BuildONNX (docs/ARCHITECTURE.md).
const (
	MetaContractVersion = "humchess.contract_version" // decimal board.ContractVersion
	MetaContractDerived = "humchess.contract_derived" // decimal Contract.Derived bits
	MetaVocab           = "humchess.vocab"            // "1858 humchess-1858": size and name
	MetaHistory         = "humchess.history"          // decimal board.HistoryLen
	MetaArch            = "humchess.arch"             // Arch JSON
	MetaSHA256          = "humchess.sha256"           // hex sha256 of the weights (WeightsSHA256)
	MetaKind            = "humchess.kind"             // "transformer" (informative)
)

// Input and output names of the ONNX graph.
const (
	InputPieces  = "pieces"  // int64 [B,64]
	InputSquares = "squares" // float32 [B,64,S]
	InputGlobal  = "global"  // float32 [B,G]
	OutputMove   = "move"    // float32 [B,1858]
	OutputWDL    = "wdl"     // float32 [B,3]
	OutputTime   = "time"    // float32 [B,8]
	OutputFrom   = "from"    // float32 [B,64]
	OutputTo     = "to"      // float32 [B,64]
	OutputLegal  = "legal"   // float32 [B,1858]; only when Arch.LegalHead
)

// VocabMeta is the value of MetaVocab.
var VocabMeta = strconv.Itoa(board.NumMoves) + " " + board.VocabName

// WeightsSHA256 returns the hex sha256 of the weights as WriteSafetensors
// writes them (the canonical safetensors bytes), the value of MetaSHA256.
func WeightsSHA256(a Arch, w Weights) (string, error) {
	h := sha256.New()
	if err := WriteSafetensors(h, a, w); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Metadata returns the ONNX metadata_props BuildONNX writes for a net.
func Metadata(a Arch, w Weights) (map[string]string, error) {
	sum, err := WeightsSHA256(a, w)
	if err != nil {
		return nil, err
	}
	return map[string]string{
		MetaContractVersion: strconv.Itoa(a.ContractVersion),
		MetaContractDerived: strconv.FormatUint(uint64(a.ContractDerived), 10),
		MetaVocab:           VocabMeta,
		MetaHistory:         strconv.Itoa(board.HistoryLen),
		MetaArch:            a.JSON(),
		MetaSHA256:          sum,
		MetaKind:            "transformer",
	}, nil
}

// BuildONNX returns the ONNX model (opset 18) of the transformer: inputs
// pieces int64 [B,64], squares float32 [B,64,S], global float32 [B,G];
// outputs move [B,1858], wdl [B,3], time [B,8], from [B,64], to [B,64]
// and, when a.LegalHead, legal [B,1858] (logits), dynamic batch, the weights as initializers and the metadata of
// Metadata. It computes exactly what Model.Forward computes.
func BuildONNX(a Arch, w Weights) ([]byte, error) {
	meta, err := Metadata(a, w) // also checks a and w
	if err != nil {
		return nil, err
	}
	// Opset 23 for its Attention op: one kernel for the scores, the bias,
	// the softmax and the weighted sum, about 15% off a batch-1 forward
	// pass against MatMul/Softmax/Transpose nodes, same outputs.
	g := onnx.NewGraph("humchess_transformer").SetOpset(23)
	b := graphBuilder{g: g, a: a, w: w, eps: float32(a.NormEps)}
	b.build()
	if err := g.Err(); err != nil {
		return nil, fmt.Errorf("transformer: building the ONNX graph: %w", err)
	}
	m := onnx.Model{
		Graph:     g,
		Metadata:  meta,
		DocString: "HumChess transformer " + a.JSON(),
	}
	out, err := m.Marshal()
	if err != nil {
		return nil, fmt.Errorf("transformer: writing the ONNX model: %w", err)
	}
	return out, nil
}

// ConvertSafetensorsToONNX reads a safetensors file and writes its ONNX
// model to out atomically (what `humchess export` does).
func ConvertSafetensorsToONNX(in, out string) error {
	a, w, err := LoadSafetensors(in)
	if err != nil {
		return err
	}
	model, err := BuildONNX(a, w)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	return WriteFileAtomic(out, func(f io.Writer) error {
		if _, err := f.Write(model); err != nil {
			return fmt.Errorf("transformer: writing %s: %w", out, err)
		}
		return nil
	})
}

// LoadONNX reads an ONNX file from disk.
func LoadONNX(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("transformer: %w", err)
	}
	return b, nil
}

type graphBuilder struct {
	g   *onnx.Graph
	a   Arch
	w   Weights
	eps float32

	vocabFromTo, vocabPromo, vocabPromoMask string // vocabulary gather tables, made once
}

// rms is RMSNorm over the last axis times gain: x / sqrt(mean(x^2) + eps) *
// gain, written with Pow(x,2) as torch exports it (the pattern ONNX Runtime
// fuses into SimplifiedLayerNormalization).
func (b *graphBuilder) rms(x, gain string) string {
	g := b.g
	ms := g.ReduceMean(g.Pow(x, g.Scalar(2)), true, -1)
	return g.Mul(g.Div(x, g.Sqrt(g.Add(ms, g.Scalar(b.eps)))), gain)
}

// init adds weight name as an initializer with its Arch shape.
func (b *graphBuilder) init(name string) string {
	for _, t := range b.a.Tensors() { // small: fine at build time
		if t.Name == name {
			dims := make([]int64, len(t.Shape))
			for i, d := range t.Shape {
				dims[i] = int64(d)
			}
			return b.g.Initializer(name, dims, b.w[name])
		}
	}
	return b.g.Initializer(name, nil, nil) // unreachable with checked weights; the builder reports it
}

// initT adds the transpose [in,out] of the [out,in] matrix name, so that
// MatMul(x, W^T) works on any leading dims.
func (b *graphBuilder) initT(name string, out, in int) string {
	src := b.w[name]
	t := make([]float32, len(src))
	transposeInto(t, src, out, in)
	return b.g.Initializer(name+".T", []int64{int64(in), int64(out)}, t)
}

// transposeInto writes the transpose [cols,rows] of the row-major matrix
// src [rows,cols] into dst.
func transposeInto(dst, src []float32, rows, cols int) {
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			dst[c*rows+r] = src[r*cols+c]
		}
	}
}

// linear is x @ W^T (+ bias when biasName is not "").
func (b *graphBuilder) linear(x, weight string, out, in int, biasName string) string {
	y := b.g.MatMul(x, b.initT(weight, out, in))
	if biasName != "" {
		y = b.g.Add(y, b.init(biasName))
	}
	return y
}

// expertLinear is x @ (W + sum_e mix[e]*experts[e])^T for the [out,in]
// matrix weight and its rating experts weight+".experts" [E,out,in]: the
// experts, each stored transposed as weight+".experts.T" [E,in,out], are
// mixed per position into a [B,in,out] matrix for a batched MatMul.
func (b *graphBuilder) expertLinear(x, mix, weight string, out, in int) string {
	g, E := b.g, NumRatingExperts
	src := b.w[weight+".experts"]
	t := make([]float32, len(src))
	for e := 0; e < E; e++ {
		transposeInto(t[e*out*in:(e+1)*out*in], src[e*out*in:(e+1)*out*in], out, in)
	}
	stack := g.Initializer(weight+".experts.T", []int64{int64(E), int64(in), int64(out)}, t)
	dw := g.MatMul(mix, g.Reshape(stack, int64(E), int64(in*out))) // [B,in*out]
	w := g.Add(g.Reshape(dw, 0, int64(in), int64(out)), b.initT(weight, out, in))
	return g.MatMul(x, w)
}

func (b *graphBuilder) build() {
	g, a := b.g, b.a
	d, S, G, H, hd := a.Dim, a.SquareDim, a.GlobalDim, a.Heads, a.HeadDim()
	pieces := g.Input(InputPieces, onnx.Int64, onnx.Batch, NumSquares)
	squares := g.Input(InputSquares, onnx.Float, onnx.Batch, NumSquares, int64(S))
	global := g.Input(InputGlobal, onnx.Float, onnx.Batch, int64(G))

	// 1. Embedding.
	x := g.Gather(b.init("embed.piece"), pieces, 0)
	x = g.Add(x, b.linear(squares, "embed.square.weight", d, S, "embed.square.bias"))
	x = g.Add(x, b.init("embed.pos"))
	gl := b.linear(global, "embed.global.weight", d, G, "embed.global.bias")
	x = g.Add(x, g.Unsqueeze(gl, 1))

	mix := "" // [B,E]: the rating experts' weights, the first global inputs
	if a.RatingExperts > 0 {
		mix = g.Slice(global, []int64{0}, []int64{int64(NumRatingExperts)}, []int64{1}, nil)
	}

	var gen string
	if a.Smolgen {
		gen = b.initT("smolgen.gen", NumSquares*NumSquares, a.SmolgenHidden)
	}
	qkScale := float32(1 / math.Sqrt(float64(hd)))

	// 2. Layers.
	for l := 0; l < a.Layers; l++ {
		pre := fmt.Sprintf("layers.%d.", l)
		h := b.rms(x, b.init(pre+"norm1"))
		// q and k RMS-normed per head; the attention op takes [B,64,H*hd]
		// and adds the smolgen bias [B,H,64,64] to the scaled scores.
		headNorm := func(t, norm string) string {
			t = b.rms(g.Reshape(t, 0, NumSquares, int64(H), int64(hd)), b.init(norm))
			return g.Reshape(t, 0, NumSquares, int64(d))
		}
		q := headNorm(b.linear(h, pre+"attn.q", d, d, ""), pre+"attn.qnorm")
		k := headNorm(b.linear(h, pre+"attn.k", d, d, ""), pre+"attn.knorm")
		v := b.linear(h, pre+"attn.v", d, d, "")
		bias := ""
		if a.Smolgen {
			bias = b.smolgen(h, pre, gen)
		}
		att := g.Attention(q, k, v, bias, int64(H), qkScale)
		x = g.Add(x, b.linear(att, pre+"attn.o", d, d, ""))

		h = b.rms(x, b.init(pre+"norm2"))
		if a.HasExperts(l) {
			f := g.SiLU(b.expertLinear(h, mix, pre+"ffn.w1", a.FFNDim, d))
			x = g.Add(x, b.expertLinear(f, mix, pre+"ffn.w2", d, a.FFNDim))
		} else {
			f := g.SiLU(b.linear(h, pre+"ffn.w1", a.FFNDim, d, ""))
			x = g.Add(x, b.linear(f, pre+"ffn.w2", d, a.FFNDim, ""))
		}
	}

	// 3. Final norm.
	x = b.rms(x, b.init("norm"))

	// 4. Heads.
	g.Output(OutputMove, b.vocabHead(x, "policy"), onnx.Float, onnx.Batch, board.NumMoves)

	z := g.ReduceMean(x, false, 1) // [B,d]
	wdl := g.SiLU(b.linear(z, "value.fc1.weight", d, d, "value.fc1.bias"))
	wdl = b.linear(wdl, "value.fc2.weight", NumWDL, d, "value.fc2.bias")
	g.Output(OutputWDL, wdl, onnx.Float, onnx.Batch, NumWDL)
	tm := g.SiLU(b.linear(z, "time.fc1.weight", d, d, "time.fc1.bias"))
	tm = b.linear(tm, "time.fc2.weight", NumTimeBins, d, "time.fc2.bias")
	g.Output(OutputTime, tm, onnx.Float, onnx.Batch, NumTimeBins)
	from := g.Reshape(b.linear(x, "from.weight", 1, d, "from.bias"), 0, NumSquares)
	g.Output(OutputFrom, from, onnx.Float, onnx.Batch, NumSquares)
	to := g.Reshape(b.linear(x, "to.weight", 1, d, "to.bias"), 0, NumSquares)
	g.Output(OutputTo, to, onnx.Float, onnx.Batch, NumSquares)
	if a.LegalHead {
		g.Output(OutputLegal, b.vocabHead(x, "legal"), onnx.Float, onnx.Batch, board.NumMoves)
	}
}

// vocabHead returns the [B,1858] logits of a from-to head over the final
// normed squares x [B,64,d]: the move head (prefix "policy") or the
// legal-moves head (prefix "legal"); see Model.vocabHead.
func (b *graphBuilder) vocabHead(x, prefix string) string {
	g, d, p := b.g, b.a.Dim, b.a.PolicyDim
	pq := b.linear(x, prefix+".q.weight", p, d, prefix+".q.bias")
	pk := b.linear(x, prefix+".k.weight", p, d, prefix+".k.bias")
	mm := g.Mul(g.MatMul(pq, g.Transpose(pk, 0, 2, 1)), g.Scalar(float32(1/math.Sqrt(float64(p)))))
	mm = g.Reshape(mm, 0, NumSquares*NumSquares) // [B,4096], index from*64+to
	u := b.linear(x, prefix+".promo.weight", NumPromo, d, prefix+".promo.bias")
	u = g.Reshape(u, 0, NumSquares*NumPromo) // [B,192], index to*3+piece
	if b.vocabFromTo == "" {
		vt := vocabTable()
		ft := make([]int64, len(vt))
		ui := make([]int64, len(vt))
		mask := make([]float32, len(vt))
		for i, e := range vt {
			ft[i] = int64(e.from*NumSquares + e.to)
			if e.promo >= 0 {
				ui[i] = int64(e.to*NumPromo + e.promo)
				mask[i] = 1
			}
		}
		n := int64(len(vt))
		b.vocabFromTo = g.InitializerInt64("vocab.from_to", []int64{n}, ft)
		b.vocabPromo = g.InitializerInt64("vocab.promo", []int64{n}, ui)
		b.vocabPromoMask = g.Initializer("vocab.promo_mask", []int64{n}, mask)
	}
	out := g.Gather(mm, b.vocabFromTo, 1)
	promo := g.Gather(u, b.vocabPromo, 1)
	return g.Add(out, g.Mul(promo, b.vocabPromoMask))
}

// smolgen returns the attention bias [B,H,64,64] of one layer from its normed
// input h [B,64,d].
func (b *graphBuilder) smolgen(h, pre, gen string) string {
	g, a := b.g, b.a
	d, C, Hs, H := a.Dim, a.SmolgenCompress, a.SmolgenHidden, a.Heads
	c := b.linear(h, pre+"smolgen.compress", C, d, "")
	c = g.Reshape(c, 0, int64(NumSquares*C)) // [B,64*C], square-major
	s := g.SiLU(b.linear(c, pre+"smolgen.dense1.weight", Hs, NumSquares*C, pre+"smolgen.dense1.bias"))
	s = b.rms(s, b.init(pre+"smolgen.norm1"))
	s = b.linear(s, pre+"smolgen.dense2.weight", H*Hs, Hs, pre+"smolgen.dense2.bias")
	s = g.Reshape(s, 0, int64(H), int64(Hs))
	s = b.rms(s, b.init(pre+"smolgen.norm2"))
	s = g.MatMul(s, gen) // [B,H,4096]
	return g.Reshape(s, 0, int64(H), NumSquares, NumSquares)
}
