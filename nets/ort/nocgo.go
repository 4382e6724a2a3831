//go:build !cgo

package ort

import (
	"fmt"

	"github.com/humchess/humchess/nets/onnx"
)

// errNoCgo says why a build without cgo has no ONNX Runtime.
var errNoCgo = fmt.Errorf("%w: this build was made without cgo (CGO_ENABLED=0) and cannot load a shared library; "+
	"nets fall back to their pure-Go forward pass", ErrNoLibrary)

// Resolve fails: a build without cgo cannot load the library, wherever it is.
func Resolve(string) (Location, error) { return Location{}, errNoCgo }

// Init fails with ErrNoLibrary: a build without cgo cannot load the library.
func Init(string) error { return errNoCgo }

// Loaded reports that no library is loaded.
func Loaded() (Location, string, bool) { return Location{}, "", false }

// Close does nothing: nothing was loaded.
func Close() error { return nil }

// Session is never made in a build without cgo; its methods exist so that
// callers build.
type Session struct{}

// NewSession fails with ErrNoLibrary.
func NewSession([]byte, SessionOptions) (*Session, error) { return nil, errNoCgo }

// Inputs is nil.
func (s *Session) Inputs() []string { return nil }

// Outputs is nil.
func (s *Session) Outputs() []string { return nil }

// Info is nil.
func (s *Session) Info() *onnx.Info { return nil }

// Run fails with ErrNoLibrary.
func (s *Session) Run(...Tensor) ([]Tensor, error) { return nil, errNoCgo }

// Close does nothing.
func (s *Session) Close() error { return nil }
