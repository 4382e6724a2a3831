package onnx

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tinyModel is x[batch,4] @ w[4,3] + b, softmax, with metadata.
func tinyModel(t testing.TB) []byte {
	t.Helper()
	g := NewGraph("tiny")
	x := g.Input("x", Float, Batch, 4)
	w := g.Initializer("w", []int64{4, 3}, make([]float32, 12))
	b := g.Initializer("b", []int64{3}, []float32{1, 2, 3})
	g.Output("y", g.Softmax(g.Add(g.MatMul(x, w), b), -1), Float, Batch, 3)
	g.Output("ids", g.Shape(x), Int64)
	data, err := Model{Graph: g, Metadata: map[string]string{"humchess.contract_version": "1", "k": "v"}}.Marshal()
	require.NoError(t, err)
	return data
}

func TestRoundTrip(t *testing.T) {
	data := tinyModel(t)
	info, err := ReadInfo(data)
	require.NoError(t, err)
	assert.Equal(t, int64(9), info.IRVersion, "opset 18 needs IR 9")
	assert.Equal(t, map[string]int64{"": DefaultOpset}, info.Opsets)
	assert.Equal(t, Producer, info.ProducerName)
	assert.Equal(t, "tiny", info.GraphName)
	assert.Equal(t, map[string]string{"humchess.contract_version": "1", "k": "v"}, info.Metadata)
	assert.Equal(t, []ValueInfo{{Name: "x", DType: Float, HasShape: true, Dims: []Dim{{Param: BatchParam}, {Value: 4}}}}, info.Inputs)
	require.Len(t, info.Outputs, 2)
	assert.Equal(t, ValueInfo{Name: "y", DType: Float, HasShape: true, Dims: []Dim{{Param: BatchParam}, {Value: 3}}}, info.Outputs[0])
	assert.Equal(t, ValueInfo{Name: "ids", DType: Int64}, info.Outputs[1])
	assert.Equal(t, 2, info.NumInitializers)
	assert.Equal(t, 6, info.NumNodes, "matmul, add, softmax, identity y, shape, identity ids")

	md, err := ReadMetadata(data)
	require.NoError(t, err)
	assert.Equal(t, "v", md["k"])

	again := tinyModel(t)
	assert.Equal(t, data, again, "Marshal is deterministic")
}

func TestIRVersion(t *testing.T) {
	tests := []struct {
		opset int
		ir    int64
		want  int64
	}{
		{17, 0, 8}, {18, 0, 9}, {20, 0, 9}, {21, 0, 10}, {23, 0, 11}, {18, 8, 8},
	}
	for _, tc := range tests {
		g := NewGraph("g").SetOpset(tc.opset)
		g.Output("y", g.Relu(g.Input("x", Float, 2)), Float, 2)
		data, err := Model{Graph: g, IRVersion: tc.ir}.Marshal()
		require.NoError(t, err)
		info, err := ReadInfo(data)
		require.NoError(t, err)
		assert.Equal(t, tc.want, info.IRVersion, "opset %d ir %d", tc.opset, tc.ir)
		assert.Equal(t, int64(tc.opset), info.Opsets[""])
	}
}

func TestUniqueNames(t *testing.T) {
	g := NewGraph("g")
	x := g.Input("x", Float, Batch, 2)
	a := g.Relu(x)
	b := g.Relu(x)
	c := g.Node("Relu", []string{x}, []string{"x"})[0]
	w1 := g.Initializer("w", []int64{2}, []float32{1, 2})
	w2 := g.Initializer("w", []int64{2}, []float32{3, 4})
	assert.Equal(t, []string{"relu", "relu_1", "x_1", "w", "w_1"}, []string{a, b, c, w1, w2})
	assert.Equal(t, g.Ints(1, 2), g.Ints(1, 2), "equal constants are shared")
	assert.NotEqual(t, g.Ints(1, 2), g.Ints(2, 1))
	assert.Equal(t, g.Scalar(0.5), g.Scalar(0.5))
	parts := g.Split(x, 1, 1, 1)
	assert.Len(t, parts, 2)
	assert.NotEqual(t, parts[0], parts[1])
	assert.NoError(t, g.Err())
}

func TestBuilderErrors(t *testing.T) {
	tests := []struct {
		name  string
		build func(g *Graph)
		want  string
	}{
		{"unknown input", func(g *Graph) { g.Output("y", g.Relu("nope"), Float) }, `unknown input "nope"`},
		{"duplicate input", func(g *Graph) { g.Input("x", Float, 1); g.Input("x", Float, 1) }, `"x" is empty or already used`},
		{"bad dim", func(g *Graph) { g.Input("x", Float, -3) }, "dim -3"},
		{"data size", func(g *Graph) { g.Initializer("w", []int64{2, 2}, []float32{1}) }, "4 elements) but 1 values"},
		{"int64 size", func(g *Graph) { g.InitializerInt64("w", []int64{3}, []int64{1}) }, "3 elements) but 1 values"},
		{"no outputs", func(g *Graph) { g.Input("x", Float, 1) }, "no outputs"},
		{"output unknown", func(g *Graph) { g.Output("y", "nope", Float) }, `unknown value "nope"`},
		{"output twice", func(g *Graph) {
			x := g.Input("x", Float, 1)
			g.Output("y", x, Float)
			g.Output("y", x, Float)
		}, "declared twice"},
		{"output name taken", func(g *Graph) {
			x := g.Input("x", Float, 1)
			g.Initializer("w", nil, []float32{1})
			g.Output("w", x, Float)
		}, `"w" is already used`},
		{"bad opset", func(g *Graph) { g.SetOpset(7) }, "opset 7"},
		{"opset 22", func(g *Graph) { g.SetOpset(22) }, "opset 22"},
		{"attention below 23", func(g *Graph) {
			x := g.Input("q", Float, 1, 4, 8)
			g.Attention(x, x, x, "", 2, 0.5)
		}, "needs opset 23"},
		{"empty op", func(g *Graph) { g.Op("", nil) }, "empty op"},
	}
	for _, tc := range tests {
		g := NewGraph("g")
		tc.build(g)
		_, err := Model{Graph: g}.Marshal()
		require.Error(t, err, tc.name)
		assert.ErrorIs(t, err, ErrBuild, tc.name)
		assert.Contains(t, err.Error(), tc.want, tc.name)
	}
	_, err := Model{}.Marshal()
	assert.ErrorIs(t, err, ErrBuild)
}

func TestAttrEncodingDecodes(t *testing.T) {
	// Every attribute kind must produce well-formed protobuf.
	g := NewGraph("g")
	x := g.Input("x", Float, 2)
	y := g.Op("Custom", []string{x},
		AttrInt("i", -3), AttrInts("is", 1, -2), AttrFloat("f", 1.5), AttrFloats("fs", 1, 2),
		AttrString("s", "a"), AttrStrings("ss", "a", "b"),
		AttrTensor("t", Tensor{Dims: []int64{2}, Int64: []int64{5, 6}}))
	g.Output("y", y, Float)
	data, err := Model{Graph: g}.Marshal()
	require.NoError(t, err)
	_, err = ReadInfo(data)
	require.NoError(t, err)
}

func TestReadBadBytes(t *testing.T) {
	good := tinyModel(t)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, err := zw.Write([]byte("lc0 weights"))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	st := binary.LittleEndian.AppendUint64(nil, 2)
	st = append(st, "{}"...)
	tests := []struct {
		name string
		data []byte
		want error
		msg  string
	}{
		{"empty", nil, ErrNotONNX, "empty"},
		{"gzip", gz.Bytes(), ErrNotONNX, "gzip"},
		{"safetensors", st, ErrNotONNX, "safetensors"},
		{"text", []byte("hello world"), ErrNotONNX, ""},
		{"json", []byte(`{"a":1}`), ErrNotONNX, "text"},
		{"truncated half", good[:len(good)/2], ErrCorrupt, ""},
		{"truncated one byte", good[:len(good)-1], ErrCorrupt, ""},
		{"ir only", []byte{0x08, 0x08}, ErrNotONNX, "no ir_version or no graph"},
		{"graph wrong wire type", []byte{0x08, 0x08, 0x38, 0x01}, ErrCorrupt, "wire type"},
		{"huge ir", append([]byte{0x08, 0xff, 0xff, 0xff, 0xff, 0x0f}, 0x3a, 0x00), ErrNotONNX, "ir_version"},
	}
	for _, tc := range tests {
		_, err := ReadInfo(tc.data)
		require.Error(t, err, tc.name)
		assert.ErrorIs(t, err, tc.want, "%s: got %v", tc.name, err)
		assert.Contains(t, err.Error(), tc.msg, tc.name)
		_, err = ReadMetadata(tc.data)
		assert.Error(t, err, tc.name)
	}
	// Every truncation of a good model is an error, never a panic, unless
	// it falls after the whole graph (the metadata entries come last).
	for n := 0; n < len(good); n++ {
		info, err := ReadInfo(good[:n])
		if err == nil {
			assert.Equal(t, "tiny", info.GraphName, "cut at %d of %d decoded without the whole graph", n, len(good))
			assert.Len(t, info.Outputs, 2, "cut at %d", n)
		}
	}
}

func FuzzReadInfo(f *testing.F) {
	f.Add(tinyModel(f))
	f.Add([]byte{})
	f.Add([]byte{0x08, 0x08, 0x3a, 0x00})
	f.Fuzz(func(t *testing.T, data []byte) {
		info, err := ReadInfo(data)
		if err == nil && info == nil {
			t.Fatalf("nil info and nil error for %x", data)
		}
	})
}
