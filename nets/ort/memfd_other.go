//go:build cgo && !linux

package ort

import (
	"errors"
	"os"
	"runtime"
)

// loadMemfd fails: only Linux loads a library from memory (a memfd); other
// systems load the embedded library from its cached copy.
func loadMemfd([]byte) (Location, string, *os.File, error) {
	return Location{}, "", nil, errors.New("no in-memory loading on " + runtime.GOOS)
}
