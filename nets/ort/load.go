//go:build cgo

package ort

import (
	"errors"
	"fmt"
	"os"
	"sync"

	ortgo "github.com/yalue/onnxruntime_go"
)

// Resolve finds the library without loading it: explicit (a flag or option)
// if not empty, else the environment variable, else the install locations,
// else the embedded copy.
func Resolve(explicit string) (Location, error) {
	return defaultFinder().resolve(explicit)
}

// state is the process-wide library state.
var state struct {
	sync.Mutex
	loaded  bool
	loc     Location
	version string
	mem     *os.File // the memfd holding the embedded library; closed by Close
}

// Init loads the ONNX Runtime library once per process (see Resolve for the
// lookup order) and creates its environment. Later calls return nil, unless
// explicit names a different file than the one loaded (ErrAlreadyLoaded).
// Safe for concurrent use.
func Init(explicit string) error {
	return initWith(defaultFinder(), explicit)
}

func initWith(f finder, explicit string) error {
	state.Lock()
	defer state.Unlock()
	if state.loaded {
		if explicit != "" && !sameFile(explicit, state.loc.Path) {
			return fmt.Errorf("%w: %s is loaded, %s was asked for", ErrAlreadyLoaded, state.loc.Path, explicit)
		}
		return nil
	}
	loc, err := f.resolve(explicit)
	if err != nil {
		return err
	}
	var version string
	var mem *os.File
	if loc.Source == FromEmbedded {
		loc, version, mem, err = f.loadEmbedded()
	} else {
		version, err = load(loc)
	}
	if err != nil {
		return err
	}
	state.loaded, state.loc, state.version, state.mem = true, loc, version, mem
	return nil
}

// load probes the library's version, then initialises onnxruntime_go with it.
func load(loc Location) (string, error) {
	version, hasAPI, err := probe(loc.Path, APIVersion)
	if err != nil {
		return "", fmt.Errorf("%w: %v (found via %s); %s", ErrNoLibrary, err, loc.Source, advice)
	}
	if !hasAPI {
		return "", fmt.Errorf("%w: %s is ONNX Runtime %s, which lacks C API version %d; humchess needs ONNX Runtime %s (or a later release); %s",
			ErrWrongVersion, loc.Path, version, APIVersion, RequiredVersion, advice)
	}
	ortgo.SetSharedLibraryPath(loc.Path)
	if err := ortgo.InitializeEnvironment(ortgo.WithLogLevelError()); err != nil {
		return "", fmt.Errorf("%w: initialising ONNX Runtime %s from %s: %v; %s", ErrNoLibrary, version, loc.Path, err, advice)
	}
	return version, nil
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	if err1 != nil || err2 != nil {
		return a == b
	}
	return os.SameFile(sa, sb)
}

// Loaded reports the library this process loaded and its version string.
func Loaded() (loc Location, version string, ok bool) {
	state.Lock()
	defer state.Unlock()
	return state.loc, state.version, state.loaded
}

// Close destroys the ONNX Runtime environment and closes the embedded
// library's memfd. Sessions must be closed first. Init may be called again.
func Close() error {
	state.Lock()
	defer state.Unlock()
	if !state.loaded {
		return nil
	}
	var errs []error
	if err := ortgo.DestroyEnvironment(); err != nil {
		errs = append(errs, fmt.Errorf("ort: destroying the environment: %w", err))
	}
	if state.mem != nil {
		if err := state.mem.Close(); err != nil {
			errs = append(errs, fmt.Errorf("ort: closing the embedded library's memfd: %w", err))
		}
	}
	state.loaded, state.loc, state.version, state.mem = false, Location{}, "", nil
	return errors.Join(errs...)
}
