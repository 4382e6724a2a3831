package lc0

import (
	"errors"
	"fmt"
	"math"
)

// Errors returned by this package. Wrapped errors say which field or layer.
var (
	// ErrNotLc0 means the bytes are not an Lc0 weights file (wrong magic).
	ErrNotLc0 = errors.New("lc0: not an Lc0 weights file")
	// ErrCorrupt means the file is truncated or malformed.
	ErrCorrupt = errors.New("lc0: corrupt weights file")
	// ErrUnsupported means a well-formed file uses a format this package does
	// not run (attention bodies, canonical input formats, non-LINEAR16 data).
	ErrUnsupported = errors.New("lc0: unsupported network format")
	// ErrShape means a layer's size does not match the architecture.
	ErrShape = errors.New("lc0: layer shape mismatch")
	// ErrInput means an evaluation request was malformed.
	ErrInput = errors.New("lc0: bad input")
)

// InputFormat is NetworkFormat.InputFormat from Lc0's net.proto.
type InputFormat int

// Input formats (only InputClassical112 is encoded by this package).
const (
	InputUnknown      InputFormat = 0
	InputClassical112 InputFormat = 1 // INPUT_CLASSICAL_112_PLANE (Maia)
	InputCastling112  InputFormat = 2 // INPUT_112_WITH_CASTLING_PLANE
)

// OutputFormat is NetworkFormat.OutputFormat.
type OutputFormat int

// Output formats.
const (
	OutputUnknown   OutputFormat = 0
	OutputClassical OutputFormat = 1
	OutputWDL       OutputFormat = 2
)

// NetworkStructure is NetworkFormat.NetworkStructure.
type NetworkStructure int

// Network structures.
const (
	NetworkUnknown              NetworkStructure = 0
	NetworkClassical            NetworkStructure = 1
	NetworkSE                   NetworkStructure = 2
	NetworkClassicalWithHeadFmt NetworkStructure = 3
	NetworkSEWithHeadFmt        NetworkStructure = 4
)

// PolicyFormat is NetworkFormat.PolicyFormat.
type PolicyFormat int

// Policy formats.
const (
	PolicyUnknown     PolicyFormat = 0
	PolicyClassical   PolicyFormat = 1 // 1x1 conv, BN, ReLU, dense to 1858
	PolicyConvolution PolicyFormat = 2 // 3x3 conv, BN, ReLU, 3x3 conv to 80 planes, map to 1858
)

// ValueFormat is NetworkFormat.ValueFormat.
type ValueFormat int

// Value formats.
const (
	ValueUnknown   ValueFormat = 0
	ValueClassical ValueFormat = 1 // one tanh output
	ValueWDL       ValueFormat = 2 // win, draw, loss logits
)

// Format is the network format a file declares (Format.network_format). A
// file without one is classical in every field, as Lc0 assumes.
type Format struct {
	Input     InputFormat
	Output    OutputFormat
	Network   NetworkStructure
	Policy    PolicyFormat
	Value     ValueFormat
	MovesLeft int // MovesLeftFormat; the moves-left head is ignored
}

// Conv is a convolution with batch norm folded in, as Lc0 folds it: Out
// filters over In input planes with a Kernel x Kernel window (1 or 3), zero
// padding, stride 1.
type Conv struct {
	Out, In, Kernel int
	W               []float32 // [Out][In][Kernel][Kernel]
	B               []float32 // [Out]
}

// Dense is a fully connected layer y = W x + B.
type Dense struct {
	Out, In int
	W       []float32 // [Out][In]
	B       []float32 // [Out]
}

// SE is a squeeze-excitation unit: global average pool, FC1 + ReLU, FC2 to
// 2*Channels values; the first half is a sigmoid scale, the second a bias.
type SE struct {
	FC1 Dense // [Hidden][Channels]
	FC2 Dense // [2*Channels][Hidden]
}

// Block is one residual block: conv-relu, conv, optional SE, add, relu.
type Block struct {
	Conv1, Conv2 Conv
	SE           *SE // nil without squeeze-excitation
}

// Weights is a dequantised Lc0 network with batch norm folded into the
// convolutions.
type Weights struct {
	Format     Format
	License    string
	MinVersion [3]uint32 // major, minor, patch of the Lc0 the file asks for

	Filters int // residual tower width
	Input   Conv
	Blocks  []Block

	// Policy head. PolicyFormat convolution: Policy1 (3x3, with BN) then
	// Policy (3x3 to PolicyPlanes planes, mapped through ConvPolicyMap).
	// PolicyFormat classical: Policy (1x1, with BN) then PolicyFC to 1858.
	Policy1  *Conv
	Policy   Conv
	PolicyFC *Dense

	// Value head: Value (1x1, with BN), Value1 + ReLU, Value2 (3 logits for
	// WDL, or 1 for a classical tanh value).
	Value          Conv
	Value1, Value2 Dense
}

// bnEpsilon is Lc0's batch-norm epsilon.
const bnEpsilon = 1e-5

// build dequantises, checks shapes and folds batch norm.
func build(n *rawNet) (*Weights, error) {
	if n.encoding != 0 && n.encoding != encodingLinear16 {
		return nil, fmt.Errorf("%w: weights encoding %d", ErrUnsupported, n.encoding)
	}
	if !n.hasWeights {
		return nil, fmt.Errorf("%w: no weights", ErrCorrupt)
	}
	f := n.format
	if !n.hasFormat || f.Input == InputUnknown {
		f.Input = InputClassical112
	}
	if f.Output == OutputUnknown {
		f.Output = OutputClassical
	}
	if f.Network == NetworkUnknown {
		f.Network = NetworkClassical
	}
	if f.Policy == PolicyUnknown {
		f.Policy = PolicyClassical
	}
	if f.Value == ValueUnknown {
		f.Value = ValueClassical
		if f.Output == OutputWDL {
			f.Value = ValueWDL
		}
	}
	if f.Input != InputClassical112 {
		return nil, fmt.Errorf("%w: input format %d (only INPUT_CLASSICAL_112_PLANE)", ErrUnsupported, f.Input)
	}
	if f.Network < NetworkClassical || f.Network > NetworkSEWithHeadFmt {
		return nil, fmt.Errorf("%w: network structure %d (only residual towers)", ErrUnsupported, f.Network)
	}
	if f.Policy != PolicyClassical && f.Policy != PolicyConvolution {
		return nil, fmt.Errorf("%w: policy format %d", ErrUnsupported, f.Policy)
	}
	if f.Value != ValueClassical && f.Value != ValueWDL {
		return nil, fmt.Errorf("%w: value format %d", ErrUnsupported, f.Value)
	}
	w := &Weights{Format: f, License: n.license, MinVersion: n.minVersion}

	var err error
	if w.Input, err = conv("input", n.input, InputPlanes, 3); err != nil {
		return nil, err
	}
	w.Filters = w.Input.Out
	if len(n.residual) == 0 {
		return nil, fmt.Errorf("%w: no residual blocks", ErrCorrupt)
	}
	for i, r := range n.residual {
		var b Block
		name := fmt.Sprintf("residual[%d]", i)
		if b.Conv1, err = conv(name+".conv1", r.conv1, w.Filters, 3); err != nil {
			return nil, err
		}
		if b.Conv2, err = conv(name+".conv2", r.conv2, w.Filters, 3); err != nil {
			return nil, err
		}
		if b.Conv1.Out != w.Filters || b.Conv2.Out != w.Filters {
			return nil, fmt.Errorf("%w: %s has %d and %d filters, tower has %d", ErrShape, name, b.Conv1.Out, b.Conv2.Out, w.Filters)
		}
		if r.se.present {
			if b.SE, err = se(name+".se", r.se, w.Filters); err != nil {
				return nil, err
			}
		}
		w.Blocks = append(w.Blocks, b)
	}

	switch f.Policy {
	case PolicyConvolution:
		p1, err := conv("policy1", n.policy1, w.Filters, 3)
		if err != nil {
			return nil, err
		}
		w.Policy1 = &p1
		if w.Policy, err = conv("policy", n.policy, p1.Out, 3); err != nil {
			return nil, err
		}
		if w.Policy.Out < PolicyPlanes {
			return nil, fmt.Errorf("%w: policy conv has %d planes, need at least %d", ErrShape, w.Policy.Out, PolicyPlanes)
		}
	default:
		if w.Policy, err = conv("policy", n.policy, w.Filters, 1); err != nil {
			return nil, err
		}
		d, err := dense("ip_pol", n.ipPolW, n.ipPolB, w.Policy.Out*64, NumMoves)
		if err != nil {
			return nil, err
		}
		w.PolicyFC = &d
	}

	if w.Value, err = conv("value", n.value, w.Filters, 1); err != nil {
		return nil, err
	}
	if w.Value1, err = dense("ip1_val", n.ip1ValW, n.ip1ValB, w.Value.Out*64, 0); err != nil {
		return nil, err
	}
	outs := 1
	if f.Value == ValueWDL {
		outs = 3
	}
	if w.Value2, err = dense("ip2_val", n.ip2ValW, n.ip2ValB, w.Value1.Out, outs); err != nil {
		return nil, err
	}
	return w, nil
}

// decodeAll dequantises several layers at once.
func decodeAll(name string, ls map[string]rawLayer) (map[string][]float32, error) {
	out := make(map[string][]float32, len(ls))
	for k, l := range ls {
		v, err := l.decode(name + "." + k)
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
}

// conv decodes a ConvBlock with in input planes and the given kernel size and
// folds its batch norm the way Lc0's weight loader does:
// gamma' = gamma / sqrt(var + eps), W' = W * gamma', b' = beta + gamma' * (b - mean).
// The file's "bn_stddivs" hold variances.
func conv(name string, c rawConv, in, kernel int) (Conv, error) {
	if !c.present {
		return Conv{}, fmt.Errorf("%w: missing %s", ErrCorrupt, name)
	}
	v, err := decodeAll(name, map[string]rawLayer{
		"weights": c.weights, "biases": c.biases, "bn_means": c.means,
		"bn_stddivs": c.stddivs, "bn_gammas": c.gammas, "bn_betas": c.betas,
	})
	if err != nil {
		return Conv{}, err
	}
	wts, bias, means, vars, gammas, betas := v["weights"], v["biases"], v["bn_means"], v["bn_stddivs"], v["bn_gammas"], v["bn_betas"]
	out := len(bias)
	if len(means) > 0 {
		out = len(means)
	}
	if out == 0 || len(wts) == 0 {
		return Conv{}, fmt.Errorf("%w: %s has no weights or no biases/batch norm", ErrCorrupt, name)
	}
	k2 := kernel * kernel
	if len(wts) != out*in*k2 {
		return Conv{}, fmt.Errorf("%w: %s has %d weights, want %d filters x %d planes x %dx%d = %d",
			ErrShape, name, len(wts), out, in, kernel, kernel, out*in*k2)
	}
	if bias == nil {
		bias = make([]float32, out)
	}
	if len(bias) != out {
		return Conv{}, fmt.Errorf("%w: %s has %d biases, want %d", ErrShape, name, len(bias), out)
	}
	if len(means) > 0 {
		if gammas == nil && betas == nil {
			gammas, betas = make([]float32, out), make([]float32, out)
			for i := range gammas {
				gammas[i] = 1
			}
		}
		for k, s := range map[string][]float32{"bn_stddivs": vars, "bn_gammas": gammas, "bn_betas": betas} {
			if len(s) != out {
				return Conv{}, fmt.Errorf("%w: %s.%s has %d values, want %d", ErrShape, name, k, len(s), out)
			}
		}
		per := in * k2
		for o := 0; o < out; o++ {
			if vars[o] < 0 {
				return Conv{}, fmt.Errorf("%w: %s has a negative variance %v", ErrCorrupt, name, vars[o])
			}
			g := gammas[o] / float32(math.Sqrt(float64(vars[o])+bnEpsilon))
			for i := o * per; i < (o+1)*per; i++ {
				wts[i] *= g
			}
			bias[o] = betas[o] + g*(bias[o]-means[o])
		}
	}
	return Conv{Out: out, In: in, Kernel: kernel, W: wts, B: bias}, nil
}

// dense decodes an FC layer with in inputs; outs > 0 fixes the output count.
func dense(name string, wl, bl rawLayer, in, outs int) (Dense, error) {
	wts, err := wl.decode(name + "_w")
	if err != nil {
		return Dense{}, err
	}
	b, err := bl.decode(name + "_b")
	if err != nil {
		return Dense{}, err
	}
	if len(b) == 0 || len(wts) != len(b)*in || (outs > 0 && len(b) != outs) {
		want := "any"
		if outs > 0 {
			want = fmt.Sprint(outs)
		}
		return Dense{}, fmt.Errorf("%w: %s has %d weights and %d biases, want %s outputs x %d inputs",
			ErrShape, name, len(wts), len(b), want, in)
	}
	return Dense{Out: len(b), In: in, W: wts, B: b}, nil
}

// se decodes a squeeze-excitation unit over c channels.
func se(name string, s rawSE, c int) (*SE, error) {
	w1, err := s.w1.decode(name + ".w1")
	if err != nil {
		return nil, err
	}
	b1, err := s.b1.decode(name + ".b1")
	if err != nil {
		return nil, err
	}
	w2, err := s.w2.decode(name + ".w2")
	if err != nil {
		return nil, err
	}
	b2, err := s.b2.decode(name + ".b2")
	if err != nil {
		return nil, err
	}
	h := len(b1)
	if h == 0 || len(w1) != h*c || len(b2) != 2*c || len(w2) != 2*c*h {
		return nil, fmt.Errorf("%w: %s has w1 %d, b1 %d, w2 %d, b2 %d values for %d channels",
			ErrShape, name, len(w1), len(b1), len(w2), len(b2), c)
	}
	return &SE{
		FC1: Dense{Out: h, In: c, W: w1, B: b1},
		FC2: Dense{Out: 2 * c, In: h, W: w2, B: b2},
	}, nil
}

// NumBlocks returns the number of residual blocks.
func (w *Weights) NumBlocks() int { return len(w.Blocks) }

// String describes the network in one line, e.g. "6x64 SE, policy convolution, value WDL".
func (w *Weights) String() string {
	pol := "classical"
	if w.Format.Policy == PolicyConvolution {
		pol = "convolution"
	}
	val := "classical"
	if w.Format.Value == ValueWDL {
		val = "WDL"
	}
	se := ""
	if len(w.Blocks) > 0 && w.Blocks[0].SE != nil {
		se = " SE"
	}
	return fmt.Sprintf("%dx%d%s, policy %s, value %s", len(w.Blocks), w.Filters, se, pol, val)
}
