//go:build cgo

package ort

import (
	"fmt"
	"sync"

	ortgo "github.com/yalue/onnxruntime_go"

	"github.com/humchess/humchess/nets/onnx"
)

// Session runs one model. Run is safe for concurrent use; Close waits for
// running calls.
type Session struct {
	mu      sync.RWMutex
	s       *ortgo.DynamicAdvancedSession
	inputs  []string
	outputs []string
	info    *onnx.Info
}

// NewSession loads the library if needed (Init(opts.LibraryPath)) and creates
// a session for the ONNX model bytes.
func NewSession(model []byte, opts SessionOptions) (*Session, error) {
	info, err := onnx.ReadInfo(model)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrModel, err)
	}
	if err := Init(opts.LibraryPath); err != nil {
		return nil, err
	}
	intra, inter := opts.IntraOpThreads, opts.InterOpThreads
	if intra < 0 || inter < 0 {
		return nil, fmt.Errorf("ort: negative thread count (intra-op %d, inter-op %d)", intra, inter)
	}
	if intra == 0 {
		intra = 1
	}
	if inter == 0 {
		inter = 1
	}
	so, err := ortgo.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("ort: session options: %w", err)
	}
	defer func() { _ = so.Destroy() }() // the session keeps its own copy
	if err := so.SetIntraOpNumThreads(intra); err != nil {
		return nil, fmt.Errorf("ort: intra-op threads %d: %w", intra, err)
	}
	if err := so.SetInterOpNumThreads(inter); err != nil {
		return nil, fmt.Errorf("ort: inter-op threads %d: %w", inter, err)
	}
	// Spinning worker threads burn the cores a GUI, a second engine or the
	// other side of a match need; an engine that waits between moves gains
	// nothing from them.
	for _, key := range []string{"session.intra_op.allow_spinning", "session.inter_op.allow_spinning"} {
		if err := so.AddSessionConfigEntry(key, "0"); err != nil {
			return nil, fmt.Errorf("ort: %s: %w", key, err)
		}
	}
	inputs := make([]string, len(info.Inputs))
	for i, v := range info.Inputs {
		inputs[i] = v.Name
	}
	outputs := opts.Outputs
	if outputs == nil {
		for _, v := range info.Outputs {
			outputs = append(outputs, v.Name)
		}
	} else {
		for _, name := range outputs {
			if !hasOutput(info, name) {
				return nil, fmt.Errorf("%w: no output %q (the model has %v)", ErrModel, name, names(info.Outputs))
			}
		}
	}
	if len(inputs) == 0 || len(outputs) == 0 {
		return nil, fmt.Errorf("%w: the model declares %d inputs and %d outputs", ErrModel, len(inputs), len(outputs))
	}
	s, err := ortgo.NewDynamicAdvancedSessionWithONNXData(model, inputs, outputs, so)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrModel, err)
	}
	return &Session{s: s, inputs: inputs, outputs: append([]string{}, outputs...), info: info}, nil
}

func hasOutput(info *onnx.Info, name string) bool {
	for _, v := range info.Outputs {
		if v.Name == name {
			return true
		}
	}
	return false
}

func names(vs []onnx.ValueInfo) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Name
	}
	return out
}

// Inputs are the model's input names, in model order.
func (s *Session) Inputs() []string { return append([]string{}, s.inputs...) }

// Outputs are the names Run returns, in order.
func (s *Session) Outputs() []string { return append([]string{}, s.outputs...) }

// Info is what the model file declares (metadata, declared shapes).
func (s *Session) Info() *onnx.Info { return s.info }

func checkTensor(t Tensor) error {
	if (t.Float32 == nil) == (t.Int64 == nil) {
		return fmt.Errorf("%w: %q must hold exactly one of float32 and int64 data", ErrInput, t.Name)
	}
	if len(t.Shape) == 0 {
		return fmt.Errorf("%w: %q has no shape (rank-0 inputs are not supported)", ErrInput, t.Name)
	}
	n := int64(1)
	for _, d := range t.Shape {
		if d < 0 {
			return fmt.Errorf("%w: %q has negative dim in shape %v", ErrInput, t.Name, t.Shape)
		}
		n *= d
	}
	if got := int64(len(t.Float32) + len(t.Int64)); got != n {
		return fmt.Errorf("%w: %q has shape %v (%d elements) but %d values", ErrInput, t.Name, t.Shape, n, got)
	}
	return nil
}

// Run feeds one tensor per model input (matched by name, any order) and
// returns the outputs named by SessionOptions.Outputs, in that order, with
// their shapes. Blocks until ONNX Runtime is done.
func (s *Session) Run(inputs ...Tensor) ([]Tensor, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.s == nil {
		return nil, ErrClosed
	}
	byName := make(map[string]Tensor, len(inputs))
	for _, t := range inputs {
		if _, dup := byName[t.Name]; dup {
			return nil, fmt.Errorf("%w: input %q given twice", ErrInput, t.Name)
		}
		if err := checkTensor(t); err != nil {
			return nil, err
		}
		byName[t.Name] = t
	}
	if len(byName) != len(s.inputs) {
		return nil, fmt.Errorf("%w: got %d inputs, the model takes %d: %v", ErrInput, len(byName), len(s.inputs), s.inputs)
	}
	values := make([]ortgo.Value, len(s.inputs))
	defer func() {
		for _, v := range values {
			if v != nil {
				_ = v.Destroy() // releases ORT's view of Go memory; cannot fail usefully
			}
		}
	}()
	for i, name := range s.inputs {
		t, ok := byName[name]
		if !ok {
			return nil, fmt.Errorf("%w: missing input %q (the model takes %v)", ErrInput, name, s.inputs)
		}
		var err error
		if t.Float32 != nil {
			values[i], err = ortgo.NewTensor(ortgo.NewShape(t.Shape...), t.Float32)
		} else {
			values[i], err = ortgo.NewTensor(ortgo.NewShape(t.Shape...), t.Int64)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %q: %v", ErrInput, name, err)
		}
	}
	outs := make([]ortgo.Value, len(s.outputs))
	defer func() {
		for _, v := range outs {
			if v != nil {
				_ = v.Destroy() // frees the copy ORT handed back
			}
		}
	}()
	if err := s.s.Run(values, outs); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrRun, err)
	}
	res := make([]Tensor, len(outs))
	for i, v := range outs {
		t := Tensor{Name: s.outputs[i], Shape: append([]int64{}, v.GetShape()...)}
		switch ov := v.(type) {
		case *ortgo.Tensor[float32]:
			t.Float32 = ov.GetData() // a Go copy ORT made; Destroy leaves it valid
		case *ortgo.Tensor[int64]:
			t.Int64 = ov.GetData()
		default:
			return nil, fmt.Errorf("%w: output %q has unsupported type %T", ErrRun, s.outputs[i], v)
		}
		res[i] = t
	}
	return res, nil
}

// Close releases the session. Safe to call twice.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.s == nil {
		return nil
	}
	err := s.s.Destroy()
	s.s = nil
	if err != nil {
		return fmt.Errorf("ort: closing session: %w", err)
	}
	return nil
}
