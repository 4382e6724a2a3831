package ort

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// staleTemp is the age after which a temporary file in the cache folder is
// taken for the leftover of a start that was killed while writing it.
const staleTemp = time.Minute

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
// (libonnxruntime-<sha256>.so; onnxruntime-<sha256>.dll on Windows),
// writing it when it is missing or differs: to a temporary file renamed into
// place, so that a start never sees a partial copy. Temporary files that a
// killed start left are removed.
func cachedCopy(dir string, lib []byte) (string, error) {
	if dir == "" {
		return "", errors.New("no cache folder")
	}
	sum := sha256.Sum256(lib)
	name := cachePrefix + hex.EncodeToString(sum[:]) + cacheSuffix
	path := filepath.Join(dir, name)
	if holds(path, lib) {
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
		if err = os.Rename(tmp.Name(), path); err != nil && holds(path, lib) {
			// Another start put the same copy there first (Windows cannot
			// replace a DLL that a running start has loaded).
			_ = os.Remove(tmp.Name()) // best effort, as below
			return path, nil
		}
	}
	if err != nil {
		_ = os.Remove(tmp.Name()) // best effort: the write error matters
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	return path, nil
}

// holds reports whether the file at path holds exactly lib.
func holds(path string, lib []byte) bool {
	have, err := os.ReadFile(path)
	return err == nil && bytes.Equal(have, lib)
}

// removeStaleTemps removes the temporary files in dir older than staleTemp.
func removeStaleTemps(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return // nothing to clean
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), cachePrefix) || !strings.HasSuffix(e.Name(), ".tmp") {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > staleTemp {
			_ = os.Remove(filepath.Join(dir, e.Name())) // best effort, another start may have removed it
		}
	}
}
