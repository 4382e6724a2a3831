package onnx

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// ErrUnsupported means a model holds something the reader does not decode
// (an initializer of another element type, or stored outside the file).
var ErrUnsupported = errors.New("onnx: unsupported content")

// More TensorProto field numbers, read only.
const (
	fTensorFloatData    = 4
	fTensorInt64Data    = 7
	fTensorDataLocation = 14
)

// ReadInitializers returns the graph's initializers by name, float32 and
// int64 ones, whether stored as raw_data or as float_data/int64_data. It
// never panics; bad bytes give ErrNotONNX or ErrCorrupt, an initializer of
// another element type or with external data ErrUnsupported.
func ReadInitializers(data []byte) (map[string]Tensor, error) {
	if _, err := ReadInfo(data); err != nil {
		return nil, err
	}
	graph, _, err := sub(data, fModelGraph, "graph")
	if err != nil {
		return nil, err
	}
	fs, err := fields(graph, "graph")
	if err != nil {
		return nil, err
	}
	out := map[string]Tensor{}
	for _, f := range fs {
		if f.num != fGraphInitializer {
			continue
		}
		t, err := readTensor(f.b)
		if err != nil {
			return nil, err
		}
		if _, dup := out[t.Name]; dup {
			return nil, fmt.Errorf("%w: initializer %q appears twice", ErrCorrupt, t.Name)
		}
		out[t.Name] = t
	}
	return out, nil
}

// readTensor decodes one TensorProto of float32 or int64 elements.
func readTensor(b []byte) (Tensor, error) {
	fs, err := fields(b, "tensor")
	if err != nil {
		return Tensor{}, err
	}
	var t Tensor
	var dtype DType
	var raw []byte
	hasRaw := false
	var floats []float32
	var ints []int64
	for _, f := range fs {
		switch f.num {
		case fTensorName:
			if err := wantType(f, protowire.BytesType, "tensor name"); err != nil {
				return Tensor{}, err
			}
			t.Name = string(f.b)
		case fTensorDims:
			vs, err := varints(f, "tensor dims")
			if err != nil {
				return Tensor{}, err
			}
			for _, v := range vs {
				t.Dims = append(t.Dims, int64(v))
			}
		case fTensorDataType:
			if err := wantType(f, protowire.VarintType, "tensor data_type"); err != nil {
				return Tensor{}, err
			}
			dtype = DType(f.v)
		case fTensorRawData:
			if err := wantType(f, protowire.BytesType, "tensor raw_data"); err != nil {
				return Tensor{}, err
			}
			raw, hasRaw = f.b, true
		case fTensorFloatData:
			switch f.typ {
			case protowire.Fixed32Type:
				floats = append(floats, math.Float32frombits(uint32(f.v)))
			case protowire.BytesType:
				if len(f.b)%4 != 0 {
					return Tensor{}, fmt.Errorf("%w: tensor %q: float_data of %d bytes", ErrCorrupt, t.Name, len(f.b))
				}
				for i := 0; i < len(f.b); i += 4 {
					floats = append(floats, math.Float32frombits(binary.LittleEndian.Uint32(f.b[i:])))
				}
			default:
				return Tensor{}, fmt.Errorf("%w: tensor %q: float_data has wire type %d", ErrCorrupt, t.Name, f.typ)
			}
		case fTensorInt64Data:
			vs, err := varints(f, "tensor int64_data")
			if err != nil {
				return Tensor{}, err
			}
			for _, v := range vs {
				ints = append(ints, int64(v))
			}
		case fTensorDataLocation:
			if f.typ == protowire.VarintType && f.v != 0 {
				return Tensor{}, fmt.Errorf("%w: initializer %q has external data", ErrUnsupported, t.Name)
			}
		}
	}
	n := int64(1)
	for _, d := range t.Dims {
		if d < 0 || d > math.MaxInt32 {
			return Tensor{}, fmt.Errorf("%w: tensor %q has dims %v", ErrCorrupt, t.Name, t.Dims)
		}
		n *= d
		if n > math.MaxInt32 {
			return Tensor{}, fmt.Errorf("%w: tensor %q has dims %v", ErrCorrupt, t.Name, t.Dims)
		}
	}
	switch dtype {
	case Float:
		if hasRaw {
			if int64(len(raw)) != 4*n {
				return Tensor{}, fmt.Errorf("%w: tensor %q has dims %v but %d bytes of float32 data", ErrCorrupt, t.Name, t.Dims, len(raw))
			}
			floats = make([]float32, n)
			for i := range floats {
				floats[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
			}
		}
		if int64(len(floats)) != n {
			return Tensor{}, fmt.Errorf("%w: tensor %q has dims %v but %d float32 values", ErrCorrupt, t.Name, t.Dims, len(floats))
		}
		t.Float32 = floats
	case Int64:
		if hasRaw {
			if int64(len(raw)) != 8*n {
				return Tensor{}, fmt.Errorf("%w: tensor %q has dims %v but %d bytes of int64 data", ErrCorrupt, t.Name, t.Dims, len(raw))
			}
			ints = make([]int64, n)
			for i := range ints {
				ints[i] = int64(binary.LittleEndian.Uint64(raw[8*i:]))
			}
		}
		if int64(len(ints)) != n {
			return Tensor{}, fmt.Errorf("%w: tensor %q has dims %v but %d int64 values", ErrCorrupt, t.Name, t.Dims, len(ints))
		}
		t.Int64 = ints
	default:
		return Tensor{}, fmt.Errorf("%w: initializer %q has element type %v; only float and int64 are read", ErrUnsupported, t.Name, dtype)
	}
	return t, nil
}

// varints decodes a repeated int64 field, packed or not.
func varints(f field, what string) ([]uint64, error) {
	switch f.typ {
	case protowire.VarintType:
		return []uint64{f.v}, nil
	case protowire.BytesType:
		var out []uint64
		for b := f.b; len(b) > 0; {
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, what, protowire.ParseError(n))
			}
			out, b = append(out, v), b[n:]
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: %s has wire type %d", ErrCorrupt, what, f.typ)
}
