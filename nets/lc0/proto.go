package lc0

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"

	"google.golang.org/protobuf/encoding/protowire"
)

// maxFileBytes bounds the decompressed size of a weights file (bytes), so a
// gzip bomb fails cleanly instead of exhausting memory.
const maxFileBytes = 1 << 30

// maxDepth bounds protobuf message nesting while parsing.
const maxDepth = 8

// Field numbers from Lc0's net.proto (lczero-common proto/net.proto).
const (
	fNetMagic      = 1
	fNetLicense    = 2
	fNetMinVersion = 3
	fNetFormat     = 4
	fNetWeights    = 10

	fFormatEncoding      = 1
	fFormatNetworkFormat = 2

	fNFInput     = 1
	fNFOutput    = 2
	fNFNetwork   = 3
	fNFPolicy    = 4
	fNFValue     = 5
	fNFMovesLeft = 6

	fWInput     = 1
	fWResidual  = 2
	fWPolicy    = 3
	fWIPPolW    = 4
	fWIPPolB    = 5
	fWValue     = 6
	fWIP1ValW   = 7
	fWIP1ValB   = 8
	fWIP2ValW   = 9
	fWIP2ValB   = 10
	fWPolicy1   = 11
	fWMovesLeft = 12

	fResConv1 = 1
	fResConv2 = 2
	fResSE    = 3

	fConvWeights  = 1
	fConvBiases   = 2
	fConvBNMeans  = 3
	fConvBNStddiv = 4
	fConvBNGammas = 5
	fConvBNBetas  = 6

	fSEW1 = 1
	fSEB1 = 2
	fSEW2 = 3
	fSEB2 = 4

	fLayerMin      = 1
	fLayerMax      = 2
	fLayerParams   = 3
	fLayerEncoding = 4

	fVersionMajor = 1
	fVersionMinor = 2
	fVersionPatch = 3
)

// netMagic is the value of Net.magic in every Lc0 weights file.
const netMagic = 0x1c0

// encodingLinear16 is Format.Encoding LINEAR16.
const encodingLinear16 = 1

// rawLayer is one Weights.Layer as stored: 16-bit linear-quantised values.
type rawLayer struct {
	min, max float32
	params   []byte
	encoding int // Layer.encoding in newer files; 0 (unset) or 1 is LINEAR16
	present  bool
}

// decode dequantises the layer: value = min + (max-min) * u16/65535.
func (l rawLayer) decode(name string) ([]float32, error) {
	if !l.present || len(l.params) == 0 {
		return nil, nil
	}
	if l.encoding != 0 && l.encoding != encodingLinear16 {
		return nil, fmt.Errorf("%w: layer %s has encoding %d; only LINEAR16 is supported", ErrUnsupported, name, l.encoding)
	}
	if len(l.params)%2 != 0 {
		return nil, fmt.Errorf("%w: layer %s has an odd number of bytes (%d)", ErrCorrupt, name, len(l.params))
	}
	if isBad(l.min) || isBad(l.max) {
		return nil, fmt.Errorf("%w: layer %s has a non-finite range [%v, %v]", ErrCorrupt, name, l.min, l.max)
	}
	out := make([]float32, len(l.params)/2)
	scale := (l.max - l.min) / 65535
	for i := range out {
		u := binary.LittleEndian.Uint16(l.params[2*i:])
		out[i] = l.min + scale*float32(u)
	}
	return out, nil
}

func isBad(f float32) bool { return math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) }

type rawConv struct {
	weights, biases, means, stddivs, gammas, betas rawLayer
	present                                        bool
}

type rawSE struct {
	w1, b1, w2, b2 rawLayer
	present        bool
}

type rawResidual struct {
	conv1, conv2 rawConv
	se           rawSE
}

// rawNet is the parsed protobuf before dequantisation and shape checks.
type rawNet struct {
	magic      uint32
	hasMagic   bool
	license    string
	minVersion [3]uint32
	encoding   int
	format     Format
	hasFormat  bool
	hasWeights bool

	input, policy1, policy, value, movesLeft rawConv
	residual                                 []rawResidual
	ipPolW, ipPolB                           rawLayer
	ip1ValW, ip1ValB, ip2ValW, ip2ValB       rawLayer
}

// ReadFile reads a gzipped (or plain) Lc0 weights file.
func ReadFile(path string) (*Weights, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("lc0: %w", err)
	}
	defer f.Close()
	w, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("lc0: %s: %w", path, err)
	}
	return w, nil
}

// Read reads Lc0 weights from r, gunzipping them when they start with the
// gzip magic. It returns ErrCorrupt, ErrNotLc0 or ErrUnsupported on bad input
// and never panics.
func Read(r io.Reader) (*Weights, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return Parse(data)
}

// Parse decodes Lc0 weights from the bytes of a file, gzipped or not.
func Parse(data []byte) (*Weights, error) {
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%w: gzip: %v", ErrCorrupt, err)
		}
		plain, err := io.ReadAll(io.LimitReader(zr, maxFileBytes+1))
		if err != nil {
			return nil, fmt.Errorf("%w: gzip: %v", ErrCorrupt, err)
		}
		data = plain
	}
	if len(data) > maxFileBytes {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrCorrupt, maxFileBytes)
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("%w: empty file", ErrNotLc0)
	}
	var n rawNet
	if err := parseNet(data, &n); err != nil {
		if !n.hasMagic {
			// Lc0 writes the magic first: without it this is not a net file.
			return nil, fmt.Errorf("%w: %v", ErrNotLc0, err)
		}
		return nil, err
	}
	if !n.hasMagic || n.magic != netMagic {
		return nil, fmt.Errorf("%w: magic %#x, want %#x", ErrNotLc0, n.magic, netMagic)
	}
	return build(&n)
}

// fields walks the top-level fields of one message, calling fn for each.
// fn receives the field number, wire type and, for length-delimited fields,
// the payload; for varint and fixed fields, the value in v.
func fields(b []byte, fn func(num protowire.Number, typ protowire.Type, payload []byte, v uint64) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("%w: bad field tag: %v", ErrCorrupt, protowire.ParseError(n))
		}
		b = b[n:]
		var payload []byte
		var v uint64
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.Fixed32Type:
			var x uint32
			x, n = protowire.ConsumeFixed32(b)
			v = uint64(x)
		case protowire.Fixed64Type:
			v, n = protowire.ConsumeFixed64(b)
		case protowire.BytesType:
			payload, n = protowire.ConsumeBytes(b)
		case protowire.StartGroupType:
			n = protowire.ConsumeFieldValue(num, typ, b)
		default:
			return fmt.Errorf("%w: field %d has wire type %d", ErrCorrupt, num, typ)
		}
		if n < 0 {
			return fmt.Errorf("%w: field %d: %v", ErrCorrupt, num, protowire.ParseError(n))
		}
		b = b[n:]
		if err := fn(num, typ, payload, v); err != nil {
			return err
		}
	}
	return nil
}

// wrongType reports a field whose wire type does not match net.proto.
func wrongType(msg string, num protowire.Number, typ protowire.Type) error {
	return fmt.Errorf("%w: %s field %d has wire type %d", ErrCorrupt, msg, num, typ)
}

func parseNet(b []byte, n *rawNet) error {
	return fields(b, func(num protowire.Number, typ protowire.Type, p []byte, v uint64) error {
		switch num {
		case fNetMagic:
			if typ != protowire.Fixed32Type {
				return wrongType("Net", num, typ)
			}
			n.magic, n.hasMagic = uint32(v), true
		case fNetLicense:
			if typ != protowire.BytesType {
				return wrongType("Net", num, typ)
			}
			n.license = string(p)
		case fNetMinVersion:
			if typ != protowire.BytesType {
				return wrongType("Net", num, typ)
			}
			return fields(p, func(num protowire.Number, typ protowire.Type, _ []byte, v uint64) error {
				if num >= fVersionMajor && num <= fVersionPatch {
					if typ != protowire.VarintType {
						return wrongType("EngineVersion", num, typ)
					}
					n.minVersion[num-1] = uint32(v)
				}
				return nil
			})
		case fNetFormat:
			if typ != protowire.BytesType {
				return wrongType("Net", num, typ)
			}
			n.hasFormat = true
			return parseFormat(p, n)
		case fNetWeights:
			if typ != protowire.BytesType {
				return wrongType("Net", num, typ)
			}
			n.hasWeights = true
			return parseWeights(p, n)
		}
		return nil
	})
}

func parseFormat(b []byte, n *rawNet) error {
	return fields(b, func(num protowire.Number, typ protowire.Type, p []byte, v uint64) error {
		switch num {
		case fFormatEncoding:
			if typ != protowire.VarintType {
				return wrongType("Format", num, typ)
			}
			n.encoding = int(int32(v))
		case fFormatNetworkFormat:
			if typ != protowire.BytesType {
				return wrongType("Format", num, typ)
			}
			return fields(p, func(num protowire.Number, typ protowire.Type, _ []byte, v uint64) error {
				if num < fNFInput || num > fNFMovesLeft {
					return nil
				}
				if typ != protowire.VarintType {
					return wrongType("NetworkFormat", num, typ)
				}
				x := int(int32(v))
				switch num {
				case fNFInput:
					n.format.Input = InputFormat(x)
				case fNFOutput:
					n.format.Output = OutputFormat(x)
				case fNFNetwork:
					n.format.Network = NetworkStructure(x)
				case fNFPolicy:
					n.format.Policy = PolicyFormat(x)
				case fNFValue:
					n.format.Value = ValueFormat(x)
				case fNFMovesLeft:
					n.format.MovesLeft = int(x)
				}
				return nil
			})
		}
		return nil
	})
}

func parseWeights(b []byte, n *rawNet) error {
	return fields(b, func(num protowire.Number, typ protowire.Type, p []byte, _ uint64) error {
		if num > fWMovesLeft || num < fWInput {
			return nil // newer fields (attention bodies, ...) are rejected later by format
		}
		if typ != protowire.BytesType {
			return wrongType("Weights", num, typ)
		}
		var err error
		switch num {
		case fWInput:
			err = parseConv(p, &n.input)
		case fWResidual:
			var r rawResidual
			err = parseResidual(p, &r)
			n.residual = append(n.residual, r)
		case fWPolicy:
			err = parseConv(p, &n.policy)
		case fWIPPolW:
			err = parseLayer(p, &n.ipPolW)
		case fWIPPolB:
			err = parseLayer(p, &n.ipPolB)
		case fWValue:
			err = parseConv(p, &n.value)
		case fWIP1ValW:
			err = parseLayer(p, &n.ip1ValW)
		case fWIP1ValB:
			err = parseLayer(p, &n.ip1ValB)
		case fWIP2ValW:
			err = parseLayer(p, &n.ip2ValW)
		case fWIP2ValB:
			err = parseLayer(p, &n.ip2ValB)
		case fWPolicy1:
			err = parseConv(p, &n.policy1)
		case fWMovesLeft:
			err = parseConv(p, &n.movesLeft)
		}
		return err
	})
}

func parseResidual(b []byte, r *rawResidual) error {
	return fields(b, func(num protowire.Number, typ protowire.Type, p []byte, _ uint64) error {
		if num < fResConv1 || num > fResSE {
			return nil
		}
		if typ != protowire.BytesType {
			return wrongType("Residual", num, typ)
		}
		switch num {
		case fResConv1:
			return parseConv(p, &r.conv1)
		case fResConv2:
			return parseConv(p, &r.conv2)
		default:
			r.se.present = true
			return fields(p, func(num protowire.Number, typ protowire.Type, p []byte, _ uint64) error {
				if num < fSEW1 || num > fSEB2 {
					return nil
				}
				if typ != protowire.BytesType {
					return wrongType("SEunit", num, typ)
				}
				l := [...]*rawLayer{&r.se.w1, &r.se.b1, &r.se.w2, &r.se.b2}[num-1]
				return parseLayer(p, l)
			})
		}
	})
}

func parseConv(b []byte, c *rawConv) error {
	c.present = true
	return fields(b, func(num protowire.Number, typ protowire.Type, p []byte, _ uint64) error {
		if num < fConvWeights || num > fConvBNBetas {
			return nil
		}
		if typ != protowire.BytesType {
			return wrongType("ConvBlock", num, typ)
		}
		l := [...]*rawLayer{&c.weights, &c.biases, &c.means, &c.stddivs, &c.gammas, &c.betas}[num-1]
		return parseLayer(p, l)
	})
}

func parseLayer(b []byte, l *rawLayer) error {
	l.present = true
	return fields(b, func(num protowire.Number, typ protowire.Type, p []byte, v uint64) error {
		switch num {
		case fLayerMin, fLayerMax:
			if typ != protowire.Fixed32Type {
				return wrongType("Layer", num, typ)
			}
			f := math.Float32frombits(uint32(v))
			if num == fLayerMin {
				l.min = f
			} else {
				l.max = f
			}
		case fLayerParams:
			if typ != protowire.BytesType {
				return wrongType("Layer", num, typ)
			}
			l.params = p
		case fLayerEncoding:
			if typ != protowire.VarintType {
				return wrongType("Layer", num, typ)
			}
			l.encoding = int(int32(v))
		}
		return nil
	})
}
