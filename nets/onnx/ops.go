package onnx

// Operator helpers. Each adds one node (or a few) to the graph and returns the
// output name, generated from the op's name. Constant arguments (shapes, axes,
// pads) become shared int64 initializers. They follow the graph's opset.

// MatMul is numpy-style a @ b.
func (g *Graph) MatMul(a, b string) string { return g.Op("MatMul", []string{a, b}) }

// Gemm is alpha*A'*B' + beta*C with A 2-D; transB transposes b (torch Linear
// weights [out,in] use transB). c may be "" for no bias.
func (g *Graph) Gemm(a, b, c string, transB bool) string {
	var attrs []Attr
	if transB {
		attrs = append(attrs, AttrInt("transB", 1))
	}
	in := []string{a, b}
	if c != "" {
		in = append(in, c)
	}
	return g.Op("Gemm", in, attrs...)
}

// Add is a + b, broadcasting.
func (g *Graph) Add(a, b string) string { return g.Op("Add", []string{a, b}) }

// Sub is a - b, broadcasting.
func (g *Graph) Sub(a, b string) string { return g.Op("Sub", []string{a, b}) }

// Mul is a * b, broadcasting.
func (g *Graph) Mul(a, b string) string { return g.Op("Mul", []string{a, b}) }

// Div is a / b, broadcasting.
func (g *Graph) Div(a, b string) string { return g.Op("Div", []string{a, b}) }

// Pow is a ** b, broadcasting.
func (g *Graph) Pow(a, b string) string { return g.Op("Pow", []string{a, b}) }

// Sqrt is the element-wise square root.
func (g *Graph) Sqrt(x string) string { return g.Op("Sqrt", []string{x}) }

// Reciprocal is 1/x element-wise.
func (g *Graph) Reciprocal(x string) string { return g.Op("Reciprocal", []string{x}) }

// Exp is e**x element-wise.
func (g *Graph) Exp(x string) string { return g.Op("Exp", []string{x}) }

// Neg is -x element-wise.
func (g *Graph) Neg(x string) string { return g.Op("Neg", []string{x}) }

// Sigmoid is 1/(1+e**-x) element-wise.
func (g *Graph) Sigmoid(x string) string { return g.Op("Sigmoid", []string{x}) }

// Relu is max(x, 0) element-wise.
func (g *Graph) Relu(x string) string { return g.Op("Relu", []string{x}) }

// Tanh is tanh(x) element-wise.
func (g *Graph) Tanh(x string) string { return g.Op("Tanh", []string{x}) }

// SiLU is x*sigmoid(x), built from Sigmoid and Mul.
func (g *Graph) SiLU(x string) string { return g.Mul(x, g.Sigmoid(x)) }

// Identity passes x through under a new name.
func (g *Graph) Identity(x string) string { return g.Op("Identity", []string{x}) }

// Cast converts x to element type to.
func (g *Graph) Cast(x string, to DType) string {
	return g.Op("Cast", []string{x}, AttrInt("to", int64(to)))
}

// Softmax normalises x over axis.
func (g *Graph) Softmax(x string, axis int64) string {
	return g.Op("Softmax", []string{x}, AttrInt("axis", axis))
}

// ReduceMean averages x over axes (axes as an input from opset 18, as an
// attribute before).
func (g *Graph) ReduceMean(x string, keepDims bool, axes ...int64) string {
	kd := int64(0)
	if keepDims {
		kd = 1
	}
	if g.opset >= 18 {
		return g.Op("ReduceMean", []string{x, g.Ints(axes...)}, AttrInt("keepdims", kd))
	}
	return g.Op("ReduceMean", []string{x}, AttrInts("axes", axes...), AttrInt("keepdims", kd))
}

// RMSNorm is x / sqrt(mean(x*x over the last axis) + eps) * weight, with
// weight a 1-D initializer name ("" for none).
func (g *Graph) RMSNorm(x, weight string, eps float32) string {
	ms := g.ReduceMean(g.Mul(x, x), true, -1)
	y := g.Div(x, g.Sqrt(g.Add(ms, g.Scalar(eps))))
	if weight == "" {
		return y
	}
	return g.Mul(y, weight)
}

// Conv is a 2-D (or N-D) convolution of x by w, plus bias b ("" for none).
// pads is ONNX order (begins then ends); nil means no padding. Pass more
// attributes (strides, dilations, group) in attrs.
func (g *Graph) Conv(x, w, b string, pads []int64, attrs ...Attr) string {
	in := []string{x, w}
	if b != "" {
		in = append(in, b)
	}
	if pads != nil {
		attrs = append([]Attr{AttrInts("pads", pads...)}, attrs...)
	}
	return g.Op("Conv", in, attrs...)
}

// Reshape reshapes x to the constant shape (0 copies a dim, -1 infers one).
func (g *Graph) Reshape(x string, shape ...int64) string {
	return g.Op("Reshape", []string{x, g.Ints(shape...)})
}

// ReshapeTo reshapes x to the shape held by the int64 value shape.
func (g *Graph) ReshapeTo(x, shape string) string {
	return g.Op("Reshape", []string{x, shape})
}

// Transpose permutes the axes of x.
func (g *Graph) Transpose(x string, perm ...int64) string {
	return g.Op("Transpose", []string{x}, AttrInts("perm", perm...))
}

// Gather takes entries of data along axis at indices.
func (g *Graph) Gather(data, indices string, axis int64) string {
	return g.Op("Gather", []string{data, indices}, AttrInt("axis", axis))
}

// Concat joins inputs along axis.
func (g *Graph) Concat(axis int64, inputs ...string) string {
	return g.Op("Concat", inputs, AttrInt("axis", axis))
}

// Pad pads x with the constant value; pads is ONNX order (all begins, then
// all ends).
func (g *Graph) Pad(x string, value float32, pads ...int64) string {
	return g.Op("Pad", []string{x, g.Ints(pads...), g.Scalar(value)}, AttrString("mode", "constant"))
}

// Unsqueeze inserts size-1 axes.
func (g *Graph) Unsqueeze(x string, axes ...int64) string {
	return g.Op("Unsqueeze", []string{x, g.Ints(axes...)})
}

// Squeeze removes size-1 axes.
func (g *Graph) Squeeze(x string, axes ...int64) string {
	return g.Op("Squeeze", []string{x, g.Ints(axes...)})
}

// Shape is the shape of x as a 1-D int64 tensor.
func (g *Graph) Shape(x string) string { return g.Op("Shape", []string{x}) }

// ShapeRange is the shape of x from axis start to end (exclusive), as 1-D int64.
func (g *Graph) ShapeRange(x string, start, end int64) string {
	return g.Op("Shape", []string{x}, AttrInt("start", start), AttrInt("end", end))
}

// Slice takes x[starts:ends] on axes with steps (nil steps = 1).
func (g *Graph) Slice(x string, starts, ends, axes, steps []int64) string {
	in := []string{x, g.Ints(starts...), g.Ints(ends...), g.Ints(axes...)}
	if steps != nil {
		in = append(in, g.Ints(steps...))
	}
	return g.Op("Slice", in)
}

// Expand broadcasts x to the shape held by the int64 value shape.
func (g *Graph) Expand(x, shape string) string { return g.Op("Expand", []string{x, shape}) }

// GlobalAveragePool averages each channel of an NCHW tensor to N,C,1,1.
func (g *Graph) GlobalAveragePool(x string) string {
	return g.Op("GlobalAveragePool", []string{x})
}

// Flatten reshapes x to 2-D, joining axes before and from axis.
func (g *Graph) Flatten(x string, axis int64) string {
	return g.Op("Flatten", []string{x}, AttrInt("axis", axis))
}

// Attention is scaled dot-product attention (opset 23) on q, k, v of shape
// [B,S,heads*headDim] with an optional float bias ("" for none; broadcast to [B,heads,S,S]) added
// to the scaled scores before the softmax; it returns [B,S,heads*headDim].
// The graph must target opset 23.
func (g *Graph) Attention(q, k, v, bias string, heads int64, scale float32) string {
	if g.opset < 23 {
		g.failf("Attention needs opset 23, the graph targets %d", g.opset)
	}
	in := []string{q, k, v}
	if bias != "" {
		in = append(in, bias)
	}
	return g.Op("Attention", in,
		AttrInt("q_num_heads", heads), AttrInt("kv_num_heads", heads), AttrFloat("scale", scale))
}

// Split cuts x along axis into pieces of the given sizes, returning one name
// per piece.
func (g *Graph) Split(x string, axis int64, sizes ...int64) []string {
	outs := make([]string, len(sizes))
	for i := range outs {
		outs[i] = "split"
	}
	return g.Node("Split", []string{x, g.Ints(sizes...)}, outs, AttrInt("axis", axis))
}
