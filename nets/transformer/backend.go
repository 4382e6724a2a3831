package transformer

import (
	"fmt"
	"slices"

	"github.com/humchess/humchess/nets/onnx"
)

// Backend chooses how Net runs the network.
type Backend string

// Backends.
const (
	// BackendAuto runs through ONNX Runtime and falls back to the pure-Go
	// forward pass (Model) when the library is missing, of the wrong version,
	// or cannot be loaded by this build (CGO_ENABLED=0).
	BackendAuto Backend = ""
	// BackendORT runs through ONNX Runtime only.
	BackendORT Backend = "ort"
	// BackendGo runs the pure-Go forward pass (slower, needs no library).
	BackendGo Backend = "go"
)

// WeightsFromONNX reads the weights of a HumChess transformer back from the
// initializers BuildONNX wrote (a matrix stored transposed as NAME.T is
// transposed back) and checks them against the architecture and against the
// model's weights sha256 (MetaSHA256), so that the pure-Go forward pass runs
// exactly the net the file names.
func WeightsFromONNX(a Arch, sum string, model []byte) (Weights, error) {
	inits, err := onnx.ReadInitializers(model)
	if err != nil {
		return nil, fmt.Errorf("transformer: %w", err)
	}
	w := Weights{}
	for _, t := range a.Tensors() {
		if x, ok := inits[t.Name]; ok {
			if len(x.Float32) != t.Size() {
				return nil, fmt.Errorf("%w: initializer %q has %d values, want %d (shape %v)", ErrWeights, t.Name, len(x.Float32), t.Size(), t.Shape)
			}
			w[t.Name] = x.Float32
			continue
		}
		x, ok := inits[t.Name+".T"]
		if !ok || len(t.Shape) < 2 || len(t.Shape) > 3 {
			return nil, fmt.Errorf("%w: the model has no initializer %q (nor its transpose)", ErrWeights, t.Name)
		}
		// A matrix [out,in] is stored as [in,out]; a stack [E,out,in] of
		// rating experts as [E,in,out], each matrix transposed.
		stack, out, in := 1, t.Shape[0], t.Shape[1]
		want := []int64{int64(in), int64(out)}
		if len(t.Shape) == 3 {
			stack, out, in = t.Shape[0], t.Shape[1], t.Shape[2]
			want = []int64{int64(stack), int64(in), int64(out)}
		}
		if !slices.Equal(x.Dims, want) || len(x.Float32) != stack*in*out {
			return nil, fmt.Errorf("%w: initializer %q has dims %v, want %v", ErrWeights, t.Name+".T", x.Dims, want)
		}
		m := make([]float32, stack*in*out)
		for e := range stack {
			transposeInto(m[e*in*out:(e+1)*in*out], x.Float32[e*in*out:(e+1)*in*out], in, out)
		}
		w[t.Name] = m
	}
	if err := w.Check(a); err != nil {
		return nil, err
	}
	got, err := WeightsSHA256(a, w)
	if err != nil {
		return nil, err
	}
	if got != sum {
		return nil, fmt.Errorf("%w: the initializers' sha256 is %s, the metadata says %s", ErrWeights, got, sum)
	}
	return w, nil
}
