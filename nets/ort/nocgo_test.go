//go:build !cgo

package ort

import (
	"errors"
	"testing"
)

// TestNoCgo checks that a build without cgo reports ErrNoLibrary from every
// entry point, so that nets fall back to pure Go.
func TestNoCgo(t *testing.T) {
	if _, err := Resolve(""); !errors.Is(err, ErrNoLibrary) {
		t.Errorf("Resolve: got %v, want ErrNoLibrary", err)
	}
	if err := Init(""); !errors.Is(err, ErrNoLibrary) {
		t.Errorf("Init: got %v, want ErrNoLibrary", err)
	}
	if _, err := NewSession(nil, SessionOptions{}); !errors.Is(err, ErrNoLibrary) {
		t.Errorf("NewSession: got %v, want ErrNoLibrary", err)
	}
	if _, _, ok := Loaded(); ok {
		t.Error("Loaded: ok in a build without cgo")
	}
}
