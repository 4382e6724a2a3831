//go:build cgo

package ort

import (
	"errors"
	"fmt"
	"os"
)

// loadEmbedded loads the embedded library, f.embedded, from where no start
// leaves a file behind, whatever way it ends (quit, a signal, SIGKILL):
// first an anonymous in-memory file (memfd, opened as /proc/self/fd/N),
// which the kernel frees with the process; where that cannot load (a kernel
// or policy that forbids executable memfds, no /proc), one copy in the cache
// folder named by the library's sha256, written atomically and reused by
// every later start. It returns the location loaded, its version and the
// memfd to close in Close (nil for the cached copy).
func (f finder) loadEmbedded() (Location, string, *os.File, error) {
	var errs []error
	if !f.noMemfd {
		loc, version, mem, err := loadMemfd(f.embedded)
		if err == nil {
			return loc, version, mem, nil
		}
		errs = append(errs, fmt.Errorf("in memory: %w", err))
	}
	path, err := cachedCopy(f.cache, f.embedded)
	if err != nil {
		errs = append(errs, err)
		return Location{}, "", nil, fmt.Errorf("%w: the embedded copy: %w", ErrNoLibrary, errors.Join(errs...))
	}
	loc := Location{Path: path, Source: FromEmbedded}
	version, err := load(loc)
	if err != nil {
		return Location{}, "", nil, errors.Join(append(errs, err)...)
	}
	return loc, version, nil, nil
}
