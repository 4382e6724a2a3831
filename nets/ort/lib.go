package ort

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Names and versions of the library this package loads.
const (
	// EnvLibraryPath names the environment variable that points at the library.
	EnvLibraryPath = "ONNXRUNTIME_SHARED_LIBRARY_PATH"
	// InstallDir is where `make onnxruntime` installs it, relative to the
	// repository root.
	InstallDir = "build/onnxruntime"
	// APIVersion is the ONNX Runtime C API version onnxruntime_go v1.27.0
	// asks for (ORT_API_VERSION in its onnxruntime_c_api.h).
	APIVersion = 24
	// RequiredVersion is the release `make onnxruntime` installs; any release
	// offering APIVersion (1.24 or newer) loads.
	RequiredVersion = "1.24.1"
)

// What to do when the library is missing or wrong, quoted by every error.
const advice = "run `make onnxruntime` (installs " + InstallDir + "/" + LibraryName +
	") or set " + EnvLibraryPath + " to an ONNX Runtime " + RequiredVersion + " " + LibraryName

// Errors of loading the library.
var (
	// ErrNoLibrary means no ONNX Runtime library was found or it did not load.
	ErrNoLibrary = errors.New("ort: ONNX Runtime library not available")
	// ErrWrongVersion means the library found is not a usable version.
	ErrWrongVersion = errors.New("ort: wrong ONNX Runtime version")
	// ErrAlreadyLoaded means Init was asked for a library other than the one
	// this process already loaded.
	ErrAlreadyLoaded = errors.New("ort: another ONNX Runtime library is already loaded")
)

// Source says where Resolve found the library.
type Source string

// The places Resolve looks, in order.
const (
	FromFlag     Source = "flag"
	FromEnv      Source = "env"
	FromInstall  Source = "install"
	FromEmbedded Source = "embedded"
)

// Location is a library Resolve found. Path is empty for FromEmbedded until
// Init writes the copy out (/proc/self/fd/N for the in-memory copy).
type Location struct {
	Path   string
	Source Source
}

// finder holds what Resolve looks at, so tests can replace it.
type finder struct {
	getenv   func(string) string
	wd       string // working directory; "" = skip
	exe      string // executable path; "" = skip
	home     string // home directory for the XDG default; "" = skip
	embedded []byte // the embedded library; nil = none
	cache    string // folder of the embedded library's cached copy; "" = none
	noMemfd  bool   // load the embedded library from the cached copy only (tests)
}

func defaultFinder() finder {
	wd, _ := os.Getwd() // an unknown directory only skips that candidate
	exe, _ := os.Executable()
	if exe != "" {
		if r, err := filepath.EvalSymlinks(exe); err == nil {
			exe = r
		}
	}
	home, _ := os.UserHomeDir()
	return finder{getenv: os.Getenv, wd: wd, exe: exe, home: home, embedded: embeddedLib, cache: defaultCacheDir()}
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// installCandidates lists the project install locations, in order.
func (f finder) installCandidates() []string {
	var out []string
	rel := filepath.Join(InstallDir, LibraryName)
	for dir := f.wd; dir != ""; {
		out = append(out, filepath.Join(dir, rel))
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	if f.exe != "" {
		dir := filepath.Dir(f.exe)
		out = append(out,
			filepath.Join(dir, LibraryName),
			filepath.Join(dir, rel),
			filepath.Join(filepath.Dir(dir), rel))
	}
	data := f.getenv("XDG_DATA_HOME")
	if data == "" && f.home != "" {
		data = filepath.Join(f.home, ".local", "share")
	}
	if data != "" {
		out = append(out, filepath.Join(data, "humchess", LibraryName))
	}
	return out
}

func (f finder) resolve(explicit string) (Location, error) {
	if explicit != "" {
		if !isFile(explicit) {
			return Location{}, fmt.Errorf("%w: the library path given, %s, is not a file; %s", ErrNoLibrary, explicit, advice)
		}
		return Location{Path: explicit, Source: FromFlag}, nil
	}
	if p := f.getenv(EnvLibraryPath); p != "" {
		if !isFile(p) {
			return Location{}, fmt.Errorf("%w: %s=%s is not a file; %s", ErrNoLibrary, EnvLibraryPath, p, advice)
		}
		return Location{Path: p, Source: FromEnv}, nil
	}
	cands := f.installCandidates()
	for _, p := range cands {
		if isFile(p) {
			return Location{Path: p, Source: FromInstall}, nil
		}
	}
	if len(f.embedded) > 0 {
		return Location{Source: FromEmbedded}, nil
	}
	return Location{}, fmt.Errorf("%w: no %s given, %s unset, none of %d install locations has it (first: %s), and this binary has no embedded copy; %s",
		ErrNoLibrary, LibraryName, EnvLibraryPath, len(cands), first(cands), advice)
}

func first(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return s[0]
}
