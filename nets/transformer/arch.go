package transformer

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/humchess/humchess/board"
)

// Fixed sizes of the HumChess transformer (docs/ARCHITECTURE.md).
const (
	NumSquares   = 64 // board squares, the sequence length
	NumPieces    = 13 // square tokens: 0 empty, 1-6 mover PNBRQK, 7-12 opponent PNBRQK
	NumWDL       = 3  // value head classes: win, draw, loss for the mover
	NumTimeBins  = 8  // think-time classes (board.ThinkBinEdges has 7 edges)
	NumPromo     = 3  // underpromotion pieces: knight, bishop, rook
	VocabName    = "humchess-1858"
	maxTotalSize = 1 << 31 // parameters; an Arch above this is refused as corrupt
)

// Arch describes one HumChess transformer. It is stored as JSON (snake_case
// keys) in the safetensors `__metadata__` under "arch" and in the ONNX
// metadata under "humchess.arch"; the gotch trainer builds the same model from
// it.
type Arch struct {
	Layers          int     `json:"layers"`           // encoder layers
	Dim             int     `json:"dim"`              // model width d
	Heads           int     `json:"heads"`            // attention heads; Dim must be a multiple
	FFNDim          int     `json:"ffn_dim"`          // feed-forward hidden width f
	PolicyDim       int     `json:"policy_dim"`       // move head query/key width p
	Smolgen         bool    `json:"smolgen"`          // Lc0 smolgen attention bias on or off
	SmolgenCompress int     `json:"smolgen_compress"` // per-square compression width (32 in Lc0)
	SmolgenHidden   int     `json:"smolgen_hidden"`   // smolgen hidden width (256 in Lc0)
	SquareDim       int     `json:"square_dim"`       // S: float features per square (board.Contract.SquareDim)
	GlobalDim       int     `json:"global_dim"`       // G: global float features (board.Contract.GlobalDim)
	ContractVersion int     `json:"contract_version"` // board.ContractVersion the net was trained with
	ContractDerived uint32  `json:"contract_derived"` // board.Contract.Derived bits the net was trained with
	NormEps         float64 `json:"norm_eps"`         // RMSNorm epsilon (1e-6)
	// LegalHead adds the auxiliary legal-moves head (weights "legal.*", ONNX
	// output "legal"): one logit per vocabulary move, whether it is legal in
	// the position. Off by default; left out of the JSON when off, so nets
	// without it keep their bytes.
	LegalHead bool `json:"legal_head,omitempty"`
	// RatingExperts gives the feed-forward layers of the last RatingExperts
	// encoder layers one weight delta per mover-rating input (weights
	// "layers.L.ffn.w1.experts" [E,f,d] and "layers.L.ffn.w2.experts"
	// [E,d,f], E = NumRatingExperts): a position runs ffn.w1 + sum_e g_e
	// experts[e], where g is the global input's first E entries, the mover
	// rating's soft one-hot over board.RatingAnchors and its unknown flag
	// (they sum to 1). A net learns rating-specific features at the cost of
	// a weight mix per layer, not of a wider forward pass. 0 (off) is left
	// out of the JSON, so nets without it keep their bytes.
	RatingExperts int `json:"rating_experts,omitempty"`
}

// NumRatingExperts is the number of rating experts of a layer with
// Arch.RatingExperts: one per board.RatingAnchors entry and one for an
// unknown rating, the first NumRatingExperts global inputs.
const NumRatingExperts = board.NumRatingAnchors + 1

// HasExperts reports whether encoder layer l has rating experts.
func (a Arch) HasExperts(l int) bool {
	return a.RatingExperts > 0 && l >= a.Layers-a.RatingExperts
}

// DefaultNormEps is the RMSNorm epsilon of the presets.
const DefaultNormEps = 1e-6

// Tiny returns a very small architecture for tests (2 layers, d=32, 2 heads,
// smolgen on), with the input sizes and contract of c.
func Tiny(c board.Contract) Arch {
	return withContract(c, Arch{
		Layers: 2, Dim: 32, Heads: 2, FFNDim: 64, PolicyDim: 16,
		Smolgen: true, SmolgenCompress: 4, SmolgenHidden: 16,
		NormEps: DefaultNormEps,
	})
}

// Default returns the default architecture, about 5.5M parameters: 8 layers,
// d=256, 8 heads, f=512, p=64, smolgen with compress 16 and hidden 64.
func Default(c board.Contract) Arch {
	return withContract(c, Arch{
		Layers: 8, Dim: 256, Heads: 8, FFNDim: 512, PolicyDim: 64,
		Smolgen: true, SmolgenCompress: 16, SmolgenHidden: 64,
		NormEps: DefaultNormEps,
	})
}

// Large returns a larger architecture, about 31M parameters: 12 layers,
// d=512, 8 heads, f=1024, p=128, smolgen with compress 32 and hidden 128.
func Large(c board.Contract) Arch {
	return withContract(c, Arch{
		Layers: 12, Dim: 512, Heads: 8, FFNDim: 1024, PolicyDim: 128,
		Smolgen: true, SmolgenCompress: 32, SmolgenHidden: 128,
		NormEps: DefaultNormEps,
	})
}

// withContract sets the contract fields and input sizes of a from c.
func withContract(c board.Contract, a Arch) Arch {
	a.SquareDim, a.GlobalDim = c.SquareDim(), c.GlobalDim()
	a.ContractVersion, a.ContractDerived = c.Version, c.Derived
	return a
}

// Contract returns the encoding contract the net was trained with.
func (a Arch) Contract() board.Contract {
	return board.Contract{Version: a.ContractVersion, Derived: a.ContractDerived}
}

// Preset returns the named preset ("tiny", "default", "large") with the input
// sizes and contract of c, or ErrArch for an unknown name.
func Preset(name string, c board.Contract) (Arch, error) {
	var a Arch
	switch strings.ToLower(name) {
	case "tiny":
		a = Tiny(c)
	case "default", "":
		a = Default(c)
	case "large":
		a = Large(c)
	default:
		return Arch{}, fmt.Errorf("%w: unknown preset %q (want tiny, default or large)", ErrArch, name)
	}
	return a, a.Validate()
}

// HeadDim returns Dim/Heads, the width of one attention head.
func (a Arch) HeadDim() int {
	if a.Heads <= 0 {
		return 0
	}
	return a.Dim / a.Heads
}

// Validate reports the first thing wrong with the architecture, wrapping
// ErrArch, or nil.
func (a Arch) Validate() error {
	type bound struct {
		name     string
		v, lo, h int
	}
	checks := []bound{
		{"layers", a.Layers, 1, 256},
		{"dim", a.Dim, 1, 16384},
		{"heads", a.Heads, 1, 1024},
		{"ffn_dim", a.FFNDim, 1, 65536},
		{"policy_dim", a.PolicyDim, 1, 16384},
		{"square_dim", a.SquareDim, 1, 1 << 16},
		{"global_dim", a.GlobalDim, 1, 1 << 16},
		{"contract_version", a.ContractVersion, 0, math.MaxInt32},
	}
	if a.Smolgen {
		checks = append(checks,
			bound{"smolgen_compress", a.SmolgenCompress, 1, 1024},
			bound{"smolgen_hidden", a.SmolgenHidden, 1, 16384})
	}
	for _, c := range checks {
		if c.v < c.lo || c.v > c.h {
			return fmt.Errorf("%w: %s = %d, want %d..%d", ErrArch, c.name, c.v, c.lo, c.h)
		}
	}
	if a.RatingExperts < 0 || a.RatingExperts > a.Layers {
		return fmt.Errorf("%w: rating_experts = %d, want 0..%d (the layers)", ErrArch, a.RatingExperts, a.Layers)
	}
	if a.RatingExperts > 0 && a.GlobalDim < NumRatingExperts {
		return fmt.Errorf("%w: rating_experts needs the %d mover-rating global inputs, global_dim is %d", ErrArch, NumRatingExperts, a.GlobalDim)
	}
	if a.Dim%a.Heads != 0 {
		return fmt.Errorf("%w: dim %d is not a multiple of heads %d", ErrArch, a.Dim, a.Heads)
	}
	if !(a.NormEps > 0 && a.NormEps < 1) || math.IsNaN(a.NormEps) {
		return fmt.Errorf("%w: norm_eps = %g, want 0 < eps < 1", ErrArch, a.NormEps)
	}
	if n := a.ParamCount(); n > maxTotalSize {
		return fmt.Errorf("%w: %d parameters, more than the %d this package accepts", ErrArch, n, maxTotalSize)
	}
	return nil
}

// Tensor names one weight tensor and its shape (torch Linear order [out,in]
// for matrices).
type Tensor struct {
	Name  string
	Shape []int
}

// Size returns the number of elements of the tensor.
func (t Tensor) Size() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// Tensors lists every weight tensor of the architecture in a fixed order
// (embedding, layers, smolgen generator, final norm, heads, then the legal
// head when on), with its shape.
// The names are the safetensors keys of docs/ARCHITECTURE.md.
func (a Arch) Tensors() []Tensor {
	d, f, p, hd := a.Dim, a.FFNDim, a.PolicyDim, a.HeadDim()
	c, hs := a.SmolgenCompress, a.SmolgenHidden
	ts := []Tensor{
		{"embed.piece", []int{NumPieces, d}},
		{"embed.square.weight", []int{d, a.SquareDim}},
		{"embed.square.bias", []int{d}},
		{"embed.pos", []int{NumSquares, d}},
		{"embed.global.weight", []int{d, a.GlobalDim}},
		{"embed.global.bias", []int{d}},
	}
	for i := 0; i < a.Layers; i++ {
		l := fmt.Sprintf("layers.%d.", i)
		ts = append(ts,
			Tensor{l + "norm1", []int{d}},
			Tensor{l + "attn.q", []int{d, d}},
			Tensor{l + "attn.k", []int{d, d}},
			Tensor{l + "attn.v", []int{d, d}},
			Tensor{l + "attn.o", []int{d, d}},
			Tensor{l + "attn.qnorm", []int{hd}},
			Tensor{l + "attn.knorm", []int{hd}},
			Tensor{l + "norm2", []int{d}},
			Tensor{l + "ffn.w1", []int{f, d}},
			Tensor{l + "ffn.w2", []int{d, f}},
		)
		if a.HasExperts(i) {
			ts = append(ts,
				Tensor{l + "ffn.w1.experts", []int{NumRatingExperts, f, d}},
				Tensor{l + "ffn.w2.experts", []int{NumRatingExperts, d, f}},
			)
		}
		if a.Smolgen {
			ts = append(ts,
				Tensor{l + "smolgen.compress", []int{c, d}},
				Tensor{l + "smolgen.dense1.weight", []int{hs, NumSquares * c}},
				Tensor{l + "smolgen.dense1.bias", []int{hs}},
				Tensor{l + "smolgen.norm1", []int{hs}},
				Tensor{l + "smolgen.dense2.weight", []int{a.Heads * hs, hs}},
				Tensor{l + "smolgen.dense2.bias", []int{a.Heads * hs}},
				Tensor{l + "smolgen.norm2", []int{hs}},
			)
		}
	}
	if a.Smolgen {
		ts = append(ts, Tensor{"smolgen.gen", []int{NumSquares * NumSquares, hs}})
	}
	ts = append(ts,
		Tensor{"norm", []int{d}},
		Tensor{"policy.q.weight", []int{p, d}},
		Tensor{"policy.q.bias", []int{p}},
		Tensor{"policy.k.weight", []int{p, d}},
		Tensor{"policy.k.bias", []int{p}},
		Tensor{"policy.promo.weight", []int{NumPromo, d}},
		Tensor{"policy.promo.bias", []int{NumPromo}},
		Tensor{"value.fc1.weight", []int{d, d}},
		Tensor{"value.fc1.bias", []int{d}},
		Tensor{"value.fc2.weight", []int{NumWDL, d}},
		Tensor{"value.fc2.bias", []int{NumWDL}},
		Tensor{"time.fc1.weight", []int{d, d}},
		Tensor{"time.fc1.bias", []int{d}},
		Tensor{"time.fc2.weight", []int{NumTimeBins, d}},
		Tensor{"time.fc2.bias", []int{NumTimeBins}},
		Tensor{"from.weight", []int{1, d}},
		Tensor{"from.bias", []int{1}},
		Tensor{"to.weight", []int{1, d}},
		Tensor{"to.bias", []int{1}},
	)
	if a.LegalHead {
		ts = append(ts,
			Tensor{"legal.q.weight", []int{p, d}},
			Tensor{"legal.q.bias", []int{p}},
			Tensor{"legal.k.weight", []int{p, d}},
			Tensor{"legal.k.bias", []int{p}},
			Tensor{"legal.promo.weight", []int{NumPromo, d}},
			Tensor{"legal.promo.bias", []int{NumPromo}},
		)
	}
	return ts
}

// ParamCount returns the number of float32 parameters of the architecture.
// It is computed in closed form, so it is safe on any Arch.
func (a Arch) ParamCount() int64 {
	d, f, p := int64(a.Dim), int64(a.FFNDim), int64(a.PolicyDim)
	hd := int64(a.HeadDim())
	n := NumPieces*d + d*int64(a.SquareDim) + d + NumSquares*d + d*int64(a.GlobalDim) + d
	layer := d + 4*d*d + 2*hd + d + 2*f*d
	if a.Smolgen {
		c, hs, h := int64(a.SmolgenCompress), int64(a.SmolgenHidden), int64(a.Heads)
		layer += c*d + hs*NumSquares*c + hs + hs + h*hs*hs + h*hs + hs
		n += NumSquares * NumSquares * hs
	}
	n += int64(a.Layers) * layer
	if a.RatingExperts > 0 && a.RatingExperts <= a.Layers {
		n += int64(a.RatingExperts) * int64(NumRatingExperts) * 2 * f * d
	}
	n += d                                 // norm
	n += 2*(p*d+p) + NumPromo*d + NumPromo // policy
	n += d*d + d + NumWDL*d + NumWDL       // value
	n += d*d + d + NumTimeBins*d + NumTimeBins
	n += 2 * (d + 1) // from, to
	if a.LegalHead {
		n += 2*(p*d+p) + NumPromo*d + NumPromo // legal: same shapes as policy
	}
	return n
}

// JSON returns the architecture as compact JSON (the form stored in files).
func (a Arch) JSON() string {
	b, err := json.Marshal(a)
	if err != nil { // cannot happen: Arch has only plain fields
		return "{}"
	}
	return string(b)
}

// ParseArch decodes an Arch from JSON, refusing unknown keys, and validates it.
func ParseArch(s string) (Arch, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	var a Arch
	if err := dec.Decode(&a); err != nil {
		return Arch{}, fmt.Errorf("%w: arch JSON: %v", ErrArch, err)
	}
	if dec.More() {
		return Arch{}, fmt.Errorf("%w: arch JSON: trailing data", ErrArch)
	}
	if err := a.Validate(); err != nil {
		return Arch{}, err
	}
	return a, nil
}
