package ort

import "errors"

// Errors of sessions.
var (
	// ErrModel means ONNX Runtime refused the model bytes.
	ErrModel = errors.New("ort: bad model")
	// ErrInput means Run's inputs do not match the model.
	ErrInput = errors.New("ort: bad input")
	// ErrRun means ONNX Runtime failed while running the model.
	ErrRun = errors.New("ort: run failed")
	// ErrClosed means the session was closed.
	ErrClosed = errors.New("ort: session closed")
)

// SessionOptions configure NewSession. The zero value is one thread, all
// outputs, the library found by Resolve.
type SessionOptions struct {
	LibraryPath    string   // passed to Init when the library is not loaded yet
	IntraOpThreads int      // threads inside one operator; 0 means 1
	InterOpThreads int      // threads across operators; 0 means 1
	Outputs        []string // outputs Run returns, in this order; nil = all, in model order
}

// Tensor is a named dense tensor. Exactly one of Float32 and Int64 holds the
// data, in row-major order, len = product of Shape.
type Tensor struct {
	Name    string
	Shape   []int64
	Float32 []float32
	Int64   []int64
}

// Find returns the tensor called name in ts.
func Find(ts []Tensor, name string) (Tensor, bool) {
	for _, t := range ts {
		if t.Name == name {
			return t, true
		}
	}
	return Tensor{}, false
}
