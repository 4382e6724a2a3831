package onnx

import (
	"bytes"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// Dim is one dimension of a declared shape: a fixed Value, or a symbolic
// Param (for example BatchParam), or neither when unknown.
type Dim struct {
	Value int64
	Param string
}

// ValueInfo is a declared graph input or output.
type ValueInfo struct {
	Name     string
	DType    DType
	Dims     []Dim // nil when the shape is not declared
	HasShape bool
}

// Info is what a model file declares about itself.
type Info struct {
	IRVersion       int64
	ProducerName    string
	ProducerVersion string
	Opsets          map[string]int64 // domain ("" = default) -> version
	GraphName       string
	Inputs          []ValueInfo // graph inputs that are not initializers
	Outputs         []ValueInfo
	Metadata        map[string]string
	NumNodes        int
	NumInitializers int
}

// ReadMetadata returns the model's metadata_props.
func ReadMetadata(data []byte) (map[string]string, error) {
	info, err := ReadInfo(data)
	if err != nil {
		return nil, err
	}
	return info.Metadata, nil
}

// field is one decoded protobuf field.
type field struct {
	num protowire.Number
	typ protowire.Type
	v   uint64 // varint / fixed value
	b   []byte // bytes value
}

// fields decodes every field of one message, failing on malformed bytes.
func fields(data []byte, what string) ([]field, error) {
	var out []field
	off := 0
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 {
			return nil, fmt.Errorf("%w: %s: bad tag at byte %d: %v", ErrCorrupt, what, off, protowire.ParseError(n))
		}
		data, off = data[n:], off+n
		f := field{num: num, typ: typ}
		switch typ {
		case protowire.VarintType:
			f.v, n = protowire.ConsumeVarint(data)
		case protowire.Fixed32Type:
			var v uint32
			v, n = protowire.ConsumeFixed32(data)
			f.v = uint64(v)
		case protowire.Fixed64Type:
			f.v, n = protowire.ConsumeFixed64(data)
		case protowire.BytesType:
			f.b, n = protowire.ConsumeBytes(data)
		default:
			n = protowire.ConsumeFieldValue(num, typ, data)
		}
		if n < 0 {
			return nil, fmt.Errorf("%w: %s: field %d at byte %d: %v", ErrCorrupt, what, num, off, protowire.ParseError(n))
		}
		data, off = data[n:], off+n
		out = append(out, f)
	}
	return out, nil
}

func wantType(f field, t protowire.Type, what string) error {
	if f.typ != t {
		return fmt.Errorf("%w: %s: field %d has wire type %d, want %d", ErrCorrupt, what, f.num, f.typ, t)
	}
	return nil
}

// sniff names well-known non-ONNX formats.
func sniff(data []byte) string {
	switch {
	case len(data) == 0:
		return "empty input"
	case bytes.HasPrefix(data, []byte{0x1f, 0x8b}):
		return "gzip data (an Lc0/Maia .pb.gz weights file? use nets/lc0)"
	case bytes.HasPrefix(data, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return "zstd data"
	case bytes.HasPrefix(data, []byte("PK\x03\x04")):
		return "a zip archive"
	case len(data) > 8 && data[8] == '{' && data[0] != 0x08:
		return "safetensors data (use nets/transformer)"
	case bytes.HasPrefix(data, []byte("<")) || bytes.HasPrefix(data, []byte("{")) || bytes.HasPrefix(data, []byte("#")):
		return "text"
	}
	return ""
}

// ReadInfo decodes the model-level facts of an ONNX file: versions, opsets,
// graph inputs and outputs, metadata. It never panics; bad bytes give
// ErrNotONNX or ErrCorrupt.
func ReadInfo(data []byte) (*Info, error) {
	if s := sniff(data); s != "" {
		return nil, fmt.Errorf("%w: %s", ErrNotONNX, s)
	}
	fs, err := fields(data, "model")
	if err != nil {
		if len(data) > 0 && data[0] != 0x08 {
			return nil, fmt.Errorf("%w: does not decode as a protobuf ModelProto (%v)", ErrNotONNX, err)
		}
		return nil, err
	}
	info := &Info{Opsets: map[string]int64{}, Metadata: map[string]string{}}
	var graph []byte
	hasIR, hasGraph := false, false
	for _, f := range fs {
		switch f.num {
		case fModelIRVersion:
			if err := wantType(f, protowire.VarintType, "ir_version"); err != nil {
				return nil, err
			}
			info.IRVersion, hasIR = int64(f.v), true
		case fModelProducerName, fModelProducerVersion:
			if err := wantType(f, protowire.BytesType, "producer"); err != nil {
				return nil, err
			}
			if f.num == fModelProducerName {
				info.ProducerName = string(f.b)
			} else {
				info.ProducerVersion = string(f.b)
			}
		case fModelGraph:
			if err := wantType(f, protowire.BytesType, "graph"); err != nil {
				return nil, err
			}
			graph, hasGraph = f.b, true
		case fModelOpsetImport:
			if err := wantType(f, protowire.BytesType, "opset_import"); err != nil {
				return nil, err
			}
			dom, ver, err := readEntryOpset(f.b)
			if err != nil {
				return nil, err
			}
			info.Opsets[dom] = ver
		case fModelMetadataProps:
			if err := wantType(f, protowire.BytesType, "metadata_props"); err != nil {
				return nil, err
			}
			k, v, err := readEntry(f.b)
			if err != nil {
				return nil, err
			}
			info.Metadata[k] = v
		}
	}
	if !hasIR || !hasGraph {
		return nil, fmt.Errorf("%w: no ir_version or no graph (ir_version present: %v, graph present: %v)", ErrNotONNX, hasIR, hasGraph)
	}
	if info.IRVersion < 1 || info.IRVersion > 100 {
		return nil, fmt.Errorf("%w: implausible ir_version %d", ErrNotONNX, info.IRVersion)
	}
	if err := readGraph(graph, info); err != nil {
		return nil, err
	}
	return info, nil
}

func readEntry(b []byte) (string, string, error) {
	fs, err := fields(b, "metadata entry")
	if err != nil {
		return "", "", err
	}
	var k, v string
	for _, f := range fs {
		if f.num != fEntryKey && f.num != fEntryValue {
			continue
		}
		if err := wantType(f, protowire.BytesType, "metadata entry"); err != nil {
			return "", "", err
		}
		if f.num == fEntryKey {
			k = string(f.b)
		} else {
			v = string(f.b)
		}
	}
	return k, v, nil
}

func readEntryOpset(b []byte) (string, int64, error) {
	fs, err := fields(b, "opset_import")
	if err != nil {
		return "", 0, err
	}
	var dom string
	var ver int64
	for _, f := range fs {
		switch f.num {
		case fOpsetDomain:
			if err := wantType(f, protowire.BytesType, "opset domain"); err != nil {
				return "", 0, err
			}
			dom = string(f.b)
		case fOpsetVersion:
			if err := wantType(f, protowire.VarintType, "opset version"); err != nil {
				return "", 0, err
			}
			ver = int64(f.v)
		}
	}
	return dom, ver, nil
}

func readGraph(b []byte, info *Info) error {
	fs, err := fields(b, "graph")
	if err != nil {
		return err
	}
	inits := map[string]bool{}
	var ins []ValueInfo
	for _, f := range fs {
		switch f.num {
		case fGraphName:
			if err := wantType(f, protowire.BytesType, "graph name"); err != nil {
				return err
			}
			info.GraphName = string(f.b)
		case fGraphNode:
			if err := wantType(f, protowire.BytesType, "node"); err != nil {
				return err
			}
			info.NumNodes++
		case fGraphInitializer:
			if err := wantType(f, protowire.BytesType, "initializer"); err != nil {
				return err
			}
			name, err := readTensorName(f.b)
			if err != nil {
				return err
			}
			inits[name] = true
			info.NumInitializers++
		case fGraphInput, fGraphOutput:
			if err := wantType(f, protowire.BytesType, "graph input/output"); err != nil {
				return err
			}
			v, err := readValueInfo(f.b)
			if err != nil {
				return err
			}
			if f.num == fGraphInput {
				ins = append(ins, v)
			} else {
				info.Outputs = append(info.Outputs, v)
			}
		}
	}
	for _, v := range ins {
		if !inits[v.Name] {
			info.Inputs = append(info.Inputs, v)
		}
	}
	return nil
}

func readTensorName(b []byte) (string, error) {
	fs, err := fields(b, "tensor")
	if err != nil {
		return "", err
	}
	for _, f := range fs {
		if f.num == fTensorName {
			if err := wantType(f, protowire.BytesType, "tensor name"); err != nil {
				return "", err
			}
			return string(f.b), nil
		}
	}
	return "", nil
}

// sub returns the bytes of the last field num of message b (protobuf merges
// repeated singular messages; the last wins for our purposes).
func sub(b []byte, num protowire.Number, what string) ([]byte, bool, error) {
	fs, err := fields(b, what)
	if err != nil {
		return nil, false, err
	}
	var out []byte
	found := false
	for _, f := range fs {
		if f.num == num {
			if err := wantType(f, protowire.BytesType, what); err != nil {
				return nil, false, err
			}
			out, found = f.b, true
		}
	}
	return out, found, nil
}

func readValueInfo(b []byte) (ValueInfo, error) {
	var v ValueInfo
	fs, err := fields(b, "value_info")
	if err != nil {
		return v, err
	}
	var typ []byte
	for _, f := range fs {
		switch f.num {
		case fValueName:
			if err := wantType(f, protowire.BytesType, "value name"); err != nil {
				return v, err
			}
			v.Name = string(f.b)
		case fValueType:
			if err := wantType(f, protowire.BytesType, "value type"); err != nil {
				return v, err
			}
			typ = f.b
		}
	}
	tensor, ok, err := sub(typ, fTypeTensor, "type")
	if err != nil || !ok {
		return v, err // a non-tensor type: name only
	}
	tfs, err := fields(tensor, "tensor type")
	if err != nil {
		return v, err
	}
	for _, f := range tfs {
		switch f.num {
		case fTensorTypeElem:
			if err := wantType(f, protowire.VarintType, "elem_type"); err != nil {
				return v, err
			}
			v.DType = DType(int32(f.v))
		case fTensorTypeShape:
			if err := wantType(f, protowire.BytesType, "shape"); err != nil {
				return v, err
			}
			v.HasShape = true
			v.Dims = []Dim{}
			dfs, err := fields(f.b, "shape")
			if err != nil {
				return v, err
			}
			for _, df := range dfs {
				if df.num != fShapeDim {
					continue
				}
				if err := wantType(df, protowire.BytesType, "dim"); err != nil {
					return v, err
				}
				d, err := readDim(df.b)
				if err != nil {
					return v, err
				}
				v.Dims = append(v.Dims, d)
			}
		}
	}
	return v, nil
}

func readDim(b []byte) (Dim, error) {
	var d Dim
	fs, err := fields(b, "dim")
	if err != nil {
		return d, err
	}
	for _, f := range fs {
		switch f.num {
		case fDimValue:
			if err := wantType(f, protowire.VarintType, "dim_value"); err != nil {
				return d, err
			}
			d.Value = int64(f.v)
		case fDimParam:
			if err := wantType(f, protowire.BytesType, "dim_param"); err != nil {
				return d, err
			}
			d.Param = string(f.b)
		}
	}
	return d, nil
}
