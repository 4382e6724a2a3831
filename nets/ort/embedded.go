package ort

/*
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/mman.h>

#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 0x0001U
#endif
#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif
*/
import "C"

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// staleTemp is the age after which a temporary file in the cache folder is
// taken for the leftover of a start that was killed while writing it.
const staleTemp = time.Minute

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

// loadMemfd loads lib from a memfd.
func loadMemfd(lib []byte) (Location, string, *os.File, error) {
	mem, err := memfdWith(lib)
	if err != nil {
		return Location{}, "", nil, err
	}
	loc := Location{Path: fmt.Sprintf("/proc/self/fd/%d", mem.Fd()), Source: FromEmbedded}
	version, err := load(loc)
	if err != nil {
		_ = mem.Close() // not loadable: the load error matters
		return Location{}, "", nil, err
	}
	return loc, version, mem, nil
}

// memfdWith returns an anonymous, executable in-memory file (closed on
// exec) holding lib.
func memfdWith(lib []byte) (*os.File, error) {
	name := C.CString(LibraryName)
	defer C.free(unsafe.Pointer(name))
	fd, err := C.memfd_create(name, C.MFD_CLOEXEC|C.MFD_EXEC)
	if fd < 0 && errors.Is(err, syscall.EINVAL) {
		fd, err = C.memfd_create(name, C.MFD_CLOEXEC) // kernels before 6.3 do not know MFD_EXEC
	}
	if fd < 0 {
		return nil, fmt.Errorf("memfd_create: %w", err)
	}
	f := os.NewFile(uintptr(fd), "memfd:"+LibraryName)
	if _, err := f.Write(lib); err != nil {
		_ = f.Close() // the write error matters
		return nil, fmt.Errorf("writing the memfd: %w", err)
	}
	return f, nil
}

// defaultCacheDir is the folder of the cached copy: humchess in the user's
// cache folder ($XDG_CACHE_HOME, ~/.cache), else humchess-UID in the
// temporary folder.
func defaultCacheDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "humchess")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("humchess-%d", os.Getuid()))
}

// cachedCopy returns the path of lib's copy in dir, named by its sha256
// (libonnxruntime-<sha256>.so), writing it when it is missing or differs:
// to a temporary file renamed into place, so that a start never sees a
// partial copy. Temporary files that a killed start left are removed.
func cachedCopy(dir string, lib []byte) (string, error) {
	if dir == "" {
		return "", errors.New("no cache folder")
	}
	sum := sha256.Sum256(lib)
	name := "libonnxruntime-" + hex.EncodeToString(sum[:]) + ".so"
	path := filepath.Join(dir, name)
	if have, err := os.ReadFile(path); err == nil && bytes.Equal(have, lib) {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	removeStaleTemps(dir)
	tmp, err := os.CreateTemp(dir, name+".*.tmp")
	if err != nil {
		return "", err
	}
	_, err = tmp.Write(lib)
	if err == nil {
		err = tmp.Chmod(0o700)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name()) // best effort: the write error matters
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	return path, nil
}

// removeStaleTemps removes the temporary files in dir older than staleTemp.
func removeStaleTemps(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return // nothing to clean
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "libonnxruntime-") || !strings.HasSuffix(e.Name(), ".tmp") {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > staleTemp {
			_ = os.Remove(filepath.Join(dir, e.Name())) // best effort, another start may have removed it
		}
	}
}
