package lc0

import (
	"fmt"

	"github.com/humchess/humchess/nets/onnx"
)

// Names of the ONNX graph's tensors.
const (
	// ONNXInput is the input: float32 [batch, 112, 8, 8].
	ONNXInput = "planes"
	// ONNXPolicy is the policy output: float32 [batch, 1858] logits over
	// Lc0's move index.
	ONNXPolicy = "policy"
	// ONNXWDL is the value output of WDL nets: float32 [batch, 3] logits
	// (win, draw, loss for the mover).
	ONNXWDL = "wdl"
	// ONNXValue is the value output of classical-value nets: float32
	// [batch, 1], tanh applied.
	ONNXValue = "value"
)

// ValueOutput returns the name of the graph's value output (ONNXWDL or
// ONNXValue).
func (w *Weights) ValueOutput() string {
	if w.Format.Value == ValueWDL {
		return ONNXWDL
	}
	return ONNXValue
}

// ONNX writes the network as an ONNX model with a dynamic batch dimension:
// input ONNXInput, outputs ONNXPolicy and ValueOutput(). metadata is added
// to the model's metadata_props (with lc0.* keys describing the net).
func (w *Weights) ONNX(name string, metadata map[string]string) ([]byte, error) {
	g := onnx.NewGraph(name)
	x := g.Input(ONNXInput, onnx.Float, onnx.Batch, InputPlanes, 8, 8)

	x = g.Relu(convNode(g, "input", x, &w.Input))
	for i, b := range w.Blocks {
		pre := fmt.Sprintf("block%d", i)
		h := g.Relu(convNode(g, pre+".conv1", x, &b.Conv1))
		h = convNode(g, pre+".conv2", h, &b.Conv2)
		if b.SE != nil {
			c := int64(b.SE.FC1.In)
			pool := g.Flatten(g.GlobalAveragePool(h), 1)
			z := g.Relu(gemm(g, pre+".se.fc1", pool, &b.SE.FC1))
			z = gemm(g, pre+".se.fc2", z, &b.SE.FC2)
			parts := g.Split(z, 1, c, c)
			scale := g.Reshape(g.Sigmoid(parts[0]), -1, c, 1, 1)
			bias := g.Reshape(parts[1], -1, c, 1, 1)
			h = g.Add(g.Mul(h, scale), bias)
		}
		x = g.Relu(g.Add(h, x))
	}

	var policy string
	if w.Policy1 != nil {
		p := g.Relu(convNode(g, "policy1", x, w.Policy1))
		p = convNode(g, "policy", p, &w.Policy)
		p = g.Reshape(p, -1, int64(w.Policy.Out*64))
		idx := make([]int64, NumMoves)
		for i, m := range convPolMap {
			if m >= 0 {
				idx[m] = int64(i)
			}
		}
		policy = g.Gather(p, g.InitializerInt64("policy.map", []int64{NumMoves}, idx), 1)
	} else {
		p := g.Relu(convNode(g, "policy", x, &w.Policy))
		policy = gemm(g, "policy.fc", g.Flatten(p, 1), w.PolicyFC)
	}
	g.Output(ONNXPolicy, policy, onnx.Float, onnx.Batch, NumMoves)

	v := g.Relu(convNode(g, "value", x, &w.Value))
	v = g.Relu(gemm(g, "value.fc1", g.Flatten(v, 1), &w.Value1))
	v = gemm(g, "value.fc2", v, &w.Value2)
	if w.Format.Value == ValueWDL {
		g.Output(ONNXWDL, v, onnx.Float, onnx.Batch, 3)
	} else {
		g.Output(ONNXValue, g.Tanh(v), onnx.Float, onnx.Batch, 1)
	}

	md := map[string]string{
		"lc0.blocks":       fmt.Sprint(len(w.Blocks)),
		"lc0.filters":      fmt.Sprint(w.Filters),
		"lc0.input_format": fmt.Sprint(int(w.Format.Input)),
		"lc0.policy":       fmt.Sprint(int(w.Format.Policy)),
		"lc0.value":        fmt.Sprint(int(w.Format.Value)),
		"lc0.description":  w.String(),
	}
	for k, v := range metadata {
		md[k] = v
	}
	b, err := onnx.Model{Graph: g, Metadata: md, DocString: "Lc0 network converted by humchess nets/lc0"}.Marshal()
	if err != nil {
		return nil, fmt.Errorf("lc0: building the ONNX graph: %w", err)
	}
	return b, nil
}

func convNode(g *onnx.Graph, name, x string, c *Conv) string {
	k := int64(c.Kernel)
	wt := g.Initializer(name+".w", []int64{int64(c.Out), int64(c.In), k, k}, c.W)
	b := g.Initializer(name+".b", []int64{int64(c.Out)}, c.B)
	p := k / 2
	return g.Conv(x, wt, b, []int64{p, p, p, p}, onnx.AttrInts("kernel_shape", k, k))
}

func gemm(g *onnx.Graph, name, x string, d *Dense) string {
	wt := g.Initializer(name+".w", []int64{int64(d.Out), int64(d.In)}, d.W)
	b := g.Initializer(name+".b", []int64{int64(d.Out)}, d.B)
	return g.Gemm(x, wt, b, true)
}
