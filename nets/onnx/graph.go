package onnx

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// DType is an ONNX tensor element type (TensorProto.DataType).
type DType int32

// The element types the builder writes.
const (
	Float  DType = 1  // float32
	Uint8  DType = 2  // uint8
	Int8   DType = 3  // int8
	Int32  DType = 6  // int32
	Int64  DType = 7  // int64
	Bool   DType = 9  // bool
	Double DType = 11 // float64
)

// String names the type as onnx.proto does.
func (d DType) String() string {
	switch d {
	case Float:
		return "float"
	case Uint8:
		return "uint8"
	case Int8:
		return "int8"
	case Int32:
		return "int32"
	case Int64:
		return "int64"
	case Bool:
		return "bool"
	case Double:
		return "double"
	}
	return fmt.Sprintf("dtype(%d)", int32(d))
}

// Batch, passed as a dimension to Graph.Input or Graph.Output, stands for the
// symbolic dynamic batch dimension named BatchParam.
const Batch int64 = -1

// BatchParam is the dim_param written for Batch.
const BatchParam = "batch"

// Default versions written by Marshal.
const (
	DefaultOpset     = 18 // default-domain opset the builder targets
	DefaultIRVersion = 8  // ir_version written when Model.IRVersion is 0
	Producer         = "humchess"
)

// Errors of the builder and the reader.
var (
	// ErrBuild is wrapped by every mistake the builder records.
	ErrBuild = errors.New("onnx: bad graph")
	// ErrNotONNX means the bytes are not an ONNX model at all.
	ErrNotONNX = errors.New("onnx: not an ONNX model")
	// ErrCorrupt means the bytes start like an ONNX model but do not decode.
	ErrCorrupt = errors.New("onnx: corrupt model")
)

// Tensor is a constant tensor: an initializer or a tensor attribute.
// Exactly one of Float32 and Int64 holds the data, in row-major order.
type Tensor struct {
	Name    string
	Dims    []int64
	Float32 []float32
	Int64   []int64
}

// DType is the element type of t's data.
func (t Tensor) DType() DType {
	if t.Int64 != nil {
		return Int64
	}
	return Float
}

func (t Tensor) check() error {
	if t.Float32 != nil && t.Int64 != nil {
		return fmt.Errorf("%w: tensor %q has both float32 and int64 data", ErrBuild, t.Name)
	}
	n := int64(1)
	for _, d := range t.Dims {
		if d < 0 {
			return fmt.Errorf("%w: tensor %q has negative dim in %v", ErrBuild, t.Name, t.Dims)
		}
		n *= d
	}
	got := int64(len(t.Float32) + len(t.Int64))
	if got != n {
		return fmt.Errorf("%w: tensor %q has dims %v (%d elements) but %d values", ErrBuild, t.Name, t.Dims, n, got)
	}
	return nil
}

func (t Tensor) append(b []byte) []byte {
	if len(t.Dims) > 0 {
		b = appendPackedInt64(b, fTensorDims, t.Dims)
	}
	b = appendVarint(b, fTensorDataType, uint64(t.DType()))
	if t.Name != "" {
		b = appendString(b, fTensorName, t.Name)
	}
	// raw_data is written in place: large weights are copied once.
	n := 4 * len(t.Float32)
	if t.Int64 != nil {
		n = 8 * len(t.Int64)
	}
	b = protowire.AppendTag(b, fTensorRawData, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(n))
	b = slices.Grow(b, n)
	if t.Int64 != nil {
		for _, v := range t.Int64 {
			b = binary.LittleEndian.AppendUint64(b, uint64(v))
		}
		return b
	}
	for _, v := range t.Float32 {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

// Attr is one node attribute; make it with AttrInt, AttrInts, AttrFloat,
// AttrFloats, AttrString, AttrStrings or AttrTensor.
type Attr struct {
	name    string
	kind    int
	i       int64
	f       float32
	s       string
	ints    []int64
	floats  []float32
	strings []string
	t       Tensor
}

// AttrInt is an INT attribute.
func AttrInt(name string, v int64) Attr { return Attr{name: name, kind: attrInt, i: v} }

// AttrInts is an INTS attribute.
func AttrInts(name string, v ...int64) Attr {
	return Attr{name: name, kind: attrInts, ints: append([]int64{}, v...)}
}

// AttrFloat is a FLOAT attribute.
func AttrFloat(name string, v float32) Attr { return Attr{name: name, kind: attrFloat, f: v} }

// AttrFloats is a FLOATS attribute.
func AttrFloats(name string, v ...float32) Attr {
	return Attr{name: name, kind: attrFloats, floats: append([]float32{}, v...)}
}

// AttrString is a STRING attribute.
func AttrString(name, v string) Attr { return Attr{name: name, kind: attrString, s: v} }

// AttrStrings is a STRINGS attribute.
func AttrStrings(name string, v ...string) Attr {
	return Attr{name: name, kind: attrStrings, strings: append([]string{}, v...)}
}

// AttrTensor is a TENSOR attribute (for example Constant's value).
func AttrTensor(name string, t Tensor) Attr { return Attr{name: name, kind: attrTensor, t: t} }

func (a Attr) append(b []byte) []byte {
	b = appendString(b, fAttrName, a.name)
	switch a.kind {
	case attrInt:
		b = appendVarint(b, fAttrI, uint64(a.i))
	case attrInts:
		for _, v := range a.ints { // unpacked, as onnx's own writer does
			b = appendVarint(b, fAttrInts, uint64(v))
		}
	case attrFloat:
		b = protowire.AppendTag(b, fAttrF, protowire.Fixed32Type)
		b = protowire.AppendFixed32(b, f32bits(a.f))
	case attrFloats:
		b = appendPackedFloat(b, fAttrFloats, a.floats)
	case attrString:
		b = appendString(b, fAttrS, a.s)
	case attrStrings:
		for _, s := range a.strings {
			b = appendString(b, fAttrStrings, s)
		}
	case attrTensor:
		b = appendMessage(b, fAttrT, a.t.append)
	}
	return appendVarint(b, fAttrType, uint64(a.kind))
}

type node struct {
	op      string
	name    string
	inputs  []string
	outputs []string
	attrs   []Attr
}

type valueInfo struct {
	name  string
	dtype DType
	dims  []int64 // Batch = the symbolic batch dim; nil = rank unknown
	shape bool
}

func (v valueInfo) append(b []byte) []byte {
	b = appendString(b, fValueName, v.name)
	return appendMessage(b, fValueType, func(b []byte) []byte {
		return appendMessage(b, fTypeTensor, func(b []byte) []byte {
			b = appendVarint(b, fTensorTypeElem, uint64(v.dtype))
			if !v.shape {
				return b
			}
			return appendMessage(b, fTensorTypeShape, func(b []byte) []byte {
				for _, d := range v.dims {
					b = appendMessage(b, fShapeDim, func(b []byte) []byte {
						if d == Batch {
							return appendString(b, fDimParam, BatchParam)
						}
						return appendVarint(b, fDimValue, uint64(d))
					})
				}
				return b
			})
		})
	})
}

// Graph builds one ONNX graph. Its methods record the first error and return
// placeholder names afterwards; check Err (Model.Marshal does).
type Graph struct {
	name    string
	opset   int
	nodes   []node
	inits   []Tensor
	inputs  []valueInfo
	outputs []valueInfo
	known   map[string]bool   // every value name defined so far
	counter map[string]int    // next suffix per name stem
	consts  map[string]string // cache key -> initializer name for small constants
	err     error
}

// NewGraph starts an empty graph named name, targeting DefaultOpset.
func NewGraph(name string) *Graph {
	return &Graph{
		name:    name,
		opset:   DefaultOpset,
		known:   map[string]bool{},
		counter: map[string]int{},
		consts:  map[string]string{},
	}
}

// SetOpset makes the graph target default-domain opset v (13 to 21, or 23); the
// helpers whose signature changed (ReduceMean, Split, ...) follow it. Call it
// before adding nodes.
func (g *Graph) SetOpset(v int) *Graph {
	if (v < 13 || v > 21) && v != 23 {
		g.fail(fmt.Errorf("%w: opset %d outside the supported 13..21 and 23", ErrBuild, v))
		return g
	}
	g.opset = v
	return g
}

// Opset is the default-domain opset the graph targets.
func (g *Graph) Opset() int { return g.opset }

// Name is the graph's name.
func (g *Graph) Name() string { return g.name }

// Err is the first error the builder recorded, or nil.
func (g *Graph) Err() error { return g.err }

// NumNodes is the number of nodes added so far.
func (g *Graph) NumNodes() int { return len(g.nodes) }

func (g *Graph) fail(err error) {
	if g.err == nil {
		g.err = err
	}
}

func (g *Graph) failf(format string, args ...any) {
	g.fail(fmt.Errorf("%w: "+format, append([]any{ErrBuild}, args...)...))
}

// Has reports whether a value called name exists in the graph.
func (g *Graph) Has(name string) bool { return g.known[name] }

// unique returns hint if unused, else hint_1, hint_2, ...; it reserves the name.
func (g *Graph) unique(hint string) string {
	if hint == "" {
		hint = "v"
	}
	name := hint
	for g.known[name] {
		g.counter[hint]++
		name = fmt.Sprintf("%s_%d", hint, g.counter[hint])
	}
	g.known[name] = true
	return name
}

func (g *Graph) checkDims(what, name string, dims []int64) bool {
	for _, d := range dims {
		if d < 0 && d != Batch {
			g.failf("%s %q: dim %d in %v (use a size >= 0 or onnx.Batch)", what, name, d, dims)
			return false
		}
	}
	return true
}

// Input declares a graph input with an exact name. dims may use Batch for
// the symbolic batch dimension. It returns name.
func (g *Graph) Input(name string, dt DType, dims ...int64) string {
	if name == "" || g.known[name] {
		g.failf("input name %q is empty or already used", name)
		return name
	}
	if !g.checkDims("input", name, dims) {
		return name
	}
	g.known[name] = true
	g.inputs = append(g.inputs, valueInfo{name: name, dtype: dt, dims: append([]int64{}, dims...), shape: true})
	return name
}

// Output declares value as a graph output called name, with element type dt
// and dims (Batch allowed; no dims = shape left to inference). When value has
// another name an Identity node renames it.
func (g *Graph) Output(name, value string, dt DType, dims ...int64) {
	if !g.checkDims("output", name, dims) {
		return
	}
	for _, o := range g.outputs {
		if o.name == name {
			g.failf("output %q declared twice", name)
			return
		}
	}
	if !g.known[value] {
		g.failf("output %q: unknown value %q", name, value)
		return
	}
	if value != name {
		if g.known[name] {
			g.failf("output name %q is already used by another value", name)
			return
		}
		g.known[name] = true
		g.nodes = append(g.nodes, node{op: "Identity", name: name + "/identity", inputs: []string{value}, outputs: []string{name}})
	}
	g.outputs = append(g.outputs, valueInfo{name: name, dtype: dt, dims: append([]int64{}, dims...), shape: len(dims) > 0})
}

// Initializer adds a float32 constant; name is a hint made unique. It returns
// the name used.
func (g *Graph) Initializer(name string, dims []int64, data []float32) string {
	if data == nil {
		data = []float32{}
	}
	return g.addInit(Tensor{Name: name, Dims: append([]int64{}, dims...), Float32: data})
}

// InitializerInt64 adds an int64 constant; name is a hint made unique. It
// returns the name used.
func (g *Graph) InitializerInt64(name string, dims []int64, data []int64) string {
	if data == nil {
		data = []int64{}
	}
	return g.addInit(Tensor{Name: name, Dims: append([]int64{}, dims...), Int64: data})
}

func (g *Graph) addInit(t Tensor) string {
	if err := t.check(); err != nil {
		g.fail(err)
		return t.Name
	}
	t.Name = g.unique(t.Name)
	g.inits = append(g.inits, t)
	return t.Name
}

// Ints is a 1-D int64 constant holding vs (shapes, axes, indices); equal
// constants are shared.
func (g *Graph) Ints(vs ...int64) string {
	key := fmt.Sprint("i", vs)
	if n, ok := g.consts[key]; ok {
		return n
	}
	n := g.InitializerInt64("const_i64", []int64{int64(len(vs))}, vs)
	g.consts[key] = n
	return n
}

// Scalar is a float32 scalar constant (rank 0); equal constants are shared.
func (g *Graph) Scalar(v float32) string {
	key := fmt.Sprint("f", v)
	if n, ok := g.consts[key]; ok {
		return n
	}
	n := g.Initializer("const_f32", nil, []float32{v})
	g.consts[key] = n
	return n
}

// ScalarInt64 is an int64 scalar constant (rank 0); equal constants are shared.
func (g *Graph) ScalarInt64(v int64) string {
	key := fmt.Sprint("s", v)
	if n, ok := g.consts[key]; ok {
		return n
	}
	n := g.InitializerInt64("const_i64", nil, []int64{v})
	g.consts[key] = n
	return n
}

// Node adds a node running op (default domain) on inputs ("" = an omitted
// optional input). outputs are name hints, made unique; "" asks for a name
// made from op. It returns the output names used, one per hint.
func (g *Graph) Node(op string, inputs, outputs []string, attrs ...Attr) []string {
	if len(outputs) == 0 {
		outputs = []string{""}
	}
	names := make([]string, len(outputs))
	for i, h := range outputs {
		if h == "" {
			h = strings.ToLower(op)
		}
		names[i] = h
	}
	if g.err != nil {
		return names
	}
	if op == "" {
		g.failf("node with empty op type")
		return names
	}
	for _, in := range inputs {
		if in != "" && !g.known[in] {
			g.failf("%s node: unknown input %q", op, in)
			return names
		}
	}
	for i := range names {
		names[i] = g.unique(names[i])
	}
	g.nodes = append(g.nodes, node{
		op:      op,
		name:    g.unique("node/" + names[0]),
		inputs:  append([]string{}, inputs...),
		outputs: names,
		attrs:   append([]Attr{}, attrs...),
	})
	return names
}

// Op is Node for a single-output op, returning its one output name.
func (g *Graph) Op(op string, inputs []string, attrs ...Attr) string {
	return g.Node(op, inputs, nil, attrs...)[0]
}

// pieces encodes the graph's fields one by one (each with its tag and
// length), so Marshal can size the model exactly and copy weights once.
func (g *Graph) pieces() [][]byte {
	var out [][]byte
	for _, n := range g.nodes {
		out = append(out, appendMessage(nil, fGraphNode, func(b []byte) []byte {
			for _, in := range n.inputs {
				b = appendString(b, fNodeInput, in)
			}
			for _, o := range n.outputs {
				b = appendString(b, fNodeOutput, o)
			}
			b = appendString(b, fNodeName, n.name)
			b = appendString(b, fNodeOpType, n.op)
			for _, a := range n.attrs {
				b = appendMessage(b, fNodeAttribute, a.append)
			}
			return b
		}))
	}
	out = append(out, appendString(nil, fGraphName, g.name))
	for _, t := range g.inits {
		body := t.append(nil)
		head := protowire.AppendTag(nil, fGraphInitializer, protowire.BytesType)
		out = append(out, protowire.AppendVarint(head, uint64(len(body))), body)
	}
	for _, v := range g.inputs {
		out = append(out, appendMessage(nil, fGraphInput, v.append))
	}
	for _, v := range g.outputs {
		out = append(out, appendMessage(nil, fGraphOutput, v.append))
	}
	return out
}

// Model is a graph plus what the file says about itself.
type Model struct {
	Graph           *Graph
	Metadata        map[string]string // metadata_props, written sorted by key
	ProducerName    string            // default Producer
	ProducerVersion string
	DocString       string
	IRVersion       int64 // default: DefaultIRVersion for opset <= 17, 9 for opset 18..20, 10 for 21, 11 for 23
	ModelVersion    int64
}

// irFor is the lowest IR version that may import opset.
func irFor(opset int) int64 {
	switch {
	case opset <= 17:
		return DefaultIRVersion
	case opset <= 20:
		return 9
	case opset <= 21:
		return 10
	}
	return 11
}

// Marshal encodes m as an ONNX ModelProto. It fails if the graph recorded an
// error, has no outputs, or is nil.
func (m Model) Marshal() ([]byte, error) {
	g := m.Graph
	if g == nil {
		return nil, fmt.Errorf("%w: model has no graph", ErrBuild)
	}
	if g.err != nil {
		return nil, g.err
	}
	if len(g.outputs) == 0 {
		return nil, fmt.Errorf("%w: graph %q has no outputs", ErrBuild, g.name)
	}
	ir := m.IRVersion
	if ir == 0 {
		ir = irFor(g.opset)
	}
	producer := m.ProducerName
	if producer == "" {
		producer = Producer
	}
	var b []byte
	b = appendVarint(b, fModelIRVersion, uint64(ir))
	b = appendString(b, fModelProducerName, producer)
	if m.ProducerVersion != "" {
		b = appendString(b, fModelProducerVersion, m.ProducerVersion)
	}
	if m.ModelVersion != 0 {
		b = appendVarint(b, fModelModelVersion, uint64(m.ModelVersion))
	}
	if m.DocString != "" {
		b = appendString(b, fModelDocString, m.DocString)
	}
	pieces := g.pieces()
	size := 0
	for _, p := range pieces {
		size += len(p)
	}
	b = protowire.AppendTag(b, fModelGraph, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(size))
	b = slices.Grow(b, size+1024)
	for _, p := range pieces {
		b = append(b, p...)
	}
	b = appendMessage(b, fModelOpsetImport, func(b []byte) []byte {
		b = appendString(b, fOpsetDomain, "")
		return appendVarint(b, fOpsetVersion, uint64(g.opset))
	})
	keys := make([]string, 0, len(m.Metadata))
	for k := range m.Metadata {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		b = appendMessage(b, fModelMetadataProps, func(b []byte) []byte {
			b = appendString(b, fEntryKey, k)
			return appendString(b, fEntryValue, m.Metadata[k])
		})
	}
	return b, nil
}
