//go:build cgo

package ort

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/internal/testenv"
)

// touch creates an empty file (and its directories).
func touch(t *testing.T, p string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, nil, 0o644))
	return p
}

func TestResolveOrder(t *testing.T) {
	root := t.TempDir()
	flagLib := touch(t, filepath.Join(root, "flag", LibraryName))
	envLib := touch(t, filepath.Join(root, "env", LibraryName))
	repo := filepath.Join(root, "repo")
	repoLib := touch(t, filepath.Join(repo, InstallDir, LibraryName))
	wd := filepath.Join(repo, "nets", "ort")
	require.NoError(t, os.MkdirAll(wd, 0o755))
	exeDir := filepath.Join(root, "bin")
	exeLib := touch(t, filepath.Join(exeDir, LibraryName))
	exeInstall := touch(t, filepath.Join(root, InstallDir, LibraryName)) // beside bin/
	xdg := filepath.Join(root, "xdg")
	xdgLib := touch(t, filepath.Join(xdg, "humchess", LibraryName))
	home := filepath.Join(root, "home")
	homeLib := touch(t, filepath.Join(home, ".local", "share", "humchess", LibraryName))
	nowhere := t.TempDir() // outside root, so walking up finds nothing

	env := func(kv map[string]string) func(string) string {
		return func(k string) string { return kv[k] }
	}
	tests := []struct {
		name     string
		explicit string
		f        finder
		want     Location
		errHas   string
	}{
		{"flag beats all", flagLib, finder{getenv: env(map[string]string{EnvLibraryPath: envLib}), wd: wd, embedded: []byte{1}}, Location{flagLib, FromFlag}, ""},
		{"env beats install", "", finder{getenv: env(map[string]string{EnvLibraryPath: envLib}), wd: wd, embedded: []byte{1}}, Location{envLib, FromEnv}, ""},
		{"repo install from a subdirectory", "", finder{getenv: env(nil), wd: wd, embedded: []byte{1}}, Location{repoLib, FromInstall}, ""},
		{"beside the executable", "", finder{getenv: env(nil), wd: nowhere, exe: filepath.Join(exeDir, "humchess")}, Location{exeLib, FromInstall}, ""},
		{"install above the executable", "", finder{getenv: env(nil), wd: nowhere, exe: filepath.Join(root, "other", "humchess")}, Location{exeInstall, FromInstall}, ""},
		{"xdg data home", "", finder{getenv: env(map[string]string{"XDG_DATA_HOME": xdg}), wd: nowhere, home: home}, Location{xdgLib, FromInstall}, ""},
		{"home default", "", finder{getenv: env(nil), wd: nowhere, home: home}, Location{homeLib, FromInstall}, ""},
		{"embedded last", "", finder{getenv: env(nil), wd: nowhere, embedded: []byte{1}}, Location{"", FromEmbedded}, ""},
		{"missing flag path does not fall through", filepath.Join(nowhere, "x.so"), finder{getenv: env(map[string]string{EnvLibraryPath: envLib}), wd: wd}, Location{}, "is not a file"},
		{"missing env path does not fall through", "", finder{getenv: env(map[string]string{EnvLibraryPath: filepath.Join(nowhere, "y.so")}), wd: wd}, Location{}, EnvLibraryPath + "="},
		{"nothing anywhere", "", finder{getenv: env(nil), wd: nowhere}, Location{}, "make onnxruntime"},
	}
	for _, tc := range tests {
		got, err := tc.f.resolve(tc.explicit)
		if tc.errHas != "" {
			require.ErrorIs(t, err, ErrNoLibrary, tc.name)
			assert.Contains(t, err.Error(), tc.errHas, tc.name)
			assert.Contains(t, err.Error(), "make onnxruntime", "%s: the error says what to do", tc.name)
			continue
		}
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.want, got, tc.name)
	}
}

func TestProbeErrors(t *testing.T) {
	dir := t.TempDir()
	notLib := filepath.Join(dir, LibraryName)
	require.NoError(t, os.WriteFile(notLib, []byte("not an ELF file"), 0o644))
	_, err := load(Location{Path: notLib, Source: FromFlag})
	require.ErrorIs(t, err, ErrNoLibrary)
	assert.Contains(t, err.Error(), "make onnxruntime")

	// A real shared library without OrtGetApiBase (libc is always there).
	libc, err := exec.Command("gcc", "-print-file-name=libc.so.6").Output()
	if err == nil && filepath.IsAbs(strings.TrimSpace(string(libc))) {
		_, err = load(Location{Path: strings.TrimSpace(string(libc)), Source: FromFlag})
		require.ErrorIs(t, err, ErrNoLibrary)
		assert.Contains(t, err.Error(), "not an ONNX Runtime library")
	}
}

// fakeOrtSource is a stand-in ONNX Runtime that only knows API versions up
// to 20 and calls itself 1.20.0.
const fakeOrtSource = `
#include <stddef.h>
static const void* get_api(unsigned int v) { return v <= 20 ? (const void*)1 : NULL; }
static const char* get_version(void) { return "1.20.0"; }
static struct { const void* (*a)(unsigned int); const char* (*b)(void); } base = { get_api, get_version };
const void* OrtGetApiBase(void) { return &base; }
`

func TestWrongVersion(t *testing.T) {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		testenv.Missing(t, "gcc not found: cannot build the fake old ONNX Runtime")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "fake.c")
	lib := filepath.Join(dir, LibraryName)
	require.NoError(t, os.WriteFile(src, []byte(fakeOrtSource), 0o644))
	out, err := exec.Command(gcc, "-shared", "-fPIC", "-o", lib, src).CombinedOutput()
	require.NoError(t, err, "gcc: %s", out)

	version, hasAPI, err := probe(lib, APIVersion)
	require.NoError(t, err)
	assert.Equal(t, "1.20.0", version)
	assert.False(t, hasAPI)

	_, err = load(Location{Path: lib, Source: FromFlag})
	require.ErrorIs(t, err, ErrWrongVersion)
	for _, want := range []string{"1.20.0", RequiredVersion, "make onnxruntime"} {
		assert.Contains(t, err.Error(), want, "the error names found and required versions: %v", err)
	}
}

func TestInitBogusPath(t *testing.T) {
	bogus := filepath.Join(t.TempDir(), "no", LibraryName)
	if _, _, ok := Loaded(); ok {
		// Already loaded by another test: a different explicit path is refused.
		err := Init(bogus)
		require.ErrorIs(t, err, ErrAlreadyLoaded)
		return
	}
	err := Init(bogus)
	require.ErrorIs(t, err, ErrNoLibrary)
	assert.Contains(t, err.Error(), bogus)
	assert.Contains(t, err.Error(), "make onnxruntime")
	assert.Contains(t, err.Error(), EnvLibraryPath)
}

// TestCachedCopy checks the embedded library's copy in the cache folder:
// named by its sha256, in a private folder, reused as it is, rewritten when
// damaged, and leftover temporary files of killed starts removed.
func TestCachedCopy(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "humchess")
	lib := []byte("lib v1")
	sum := sha256.Sum256(lib)
	p, err := cachedCopy(dir, lib)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "libonnxruntime-"+hex.EncodeToString(sum[:])+".so"), p)
	st, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), st.Mode().Perm(), "private folder")
	first, err := os.Stat(p)
	require.NoError(t, err)

	again, err := cachedCopy(dir, lib)
	require.NoError(t, err)
	second, err := os.Stat(again)
	require.NoError(t, err)
	assert.True(t, os.SameFile(first, second), "the copy is reused, not rewritten")

	require.NoError(t, os.WriteFile(p, []byte("damaged"), 0o700))
	_, err = cachedCopy(dir, lib)
	require.NoError(t, err)
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, lib, got, "a damaged copy is rewritten")

	stale := filepath.Join(dir, filepath.Base(p)+".111.tmp")
	fresh := filepath.Join(dir, filepath.Base(p)+".222.tmp") // another start writing now
	require.NoError(t, os.WriteFile(stale, []byte("li"), 0o600))
	require.NoError(t, os.WriteFile(fresh, []byte("l"), 0o600))
	old := time.Now().Add(-2 * staleTemp)
	require.NoError(t, os.Chtimes(stale, old, old))
	require.NoError(t, os.Remove(p))
	_, err = cachedCopy(dir, lib)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{p, fresh}, filesUnder(t, dir), "the stale temporary file is removed, the fresh one kept")
}

// filesUnder lists the files (not folders) under dir.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return err
	})
	require.NoError(t, err)
	return out
}

func TestInitLoadsOnce(t *testing.T) {
	requireORT(t)
	loc, version, ok := Loaded()
	require.True(t, ok)
	assert.True(t, strings.HasPrefix(version, "1."), "version %q", version)
	assert.NotEmpty(t, loc.Path)
	require.NoError(t, Init(""), "second Init is a no-op")
	require.NoError(t, Init(loc.Path), "the same explicit path is fine")
}

// The child process of TestEmbeddedLeavesNothing loads, as if embedded, the
// library named by envEmbedChild, and ends as envEmbedEnd says: "close"
// (ort.Close, then the test ends), "exit" (the test ends without Close, as
// humchess does on quit or EOF) or "kill" (it waits to be killed). With
// envEmbedNoMemfd set it may only use the cached copy.
const (
	envEmbedChild   = "HUMCHESS_ORT_EMBED_CHILD"
	envEmbedEnd     = "HUMCHESS_ORT_EMBED_END"
	envEmbedNoMemfd = "HUMCHESS_ORT_EMBED_NO_MEMFD"
)

// TestEmbeddedLeavesNothing starts child processes that load the real
// library as if it were embedded and end in every way, SIGKILL included:
// the temporary folder stays empty, and the cache folder holds nothing (the
// memfd) or the one copy named by the library's sha256 (without memfd).
func TestEmbeddedLeavesNothing(t *testing.T) {
	if os.Getenv(envEmbedChild) != "" {
		embeddedChild(t)
		return
	}
	if testing.Short() {
		t.Skip("starts child processes (skipped with -short)")
	}
	loc, err := Resolve("")
	if err != nil || loc.Source == FromEmbedded {
		testenv.Missing(t, "no ONNX Runtime library on disk to embed (run `make onnxruntime`): %v", err)
	}
	lib, err := os.ReadFile(loc.Path)
	require.NoError(t, err)
	sum := sha256.Sum256(lib)
	for _, memfd := range []bool{true, false} {
		t.Run(map[bool]string{true: "memfd", false: "cached-copy"}[memfd], func(t *testing.T) {
			tmp, cache := t.TempDir(), t.TempDir()
			for _, end := range []string{"close", "exit", "kill", "exit", "kill"} {
				runEmbeddedChild(t, loc.Path, end, memfd, tmp, cache)
			}
			assert.Empty(t, filesUnder(t, tmp), "files left in the temporary folder")
			var want []string
			if !memfd {
				want = []string{filepath.Join(cache, "humchess", "libonnxruntime-"+hex.EncodeToString(sum[:])+".so")}
			}
			assert.ElementsMatch(t, want, filesUnder(t, cache), "files in the cache folder")
		})
	}
}

// runEmbeddedChild runs one child process of TestEmbeddedLeavesNothing with
// tmp as its temporary folder and cache as its cache home.
func runEmbeddedChild(t *testing.T, lib, end string, memfd bool, tmp, cache string) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "-test.run=^TestEmbeddedLeavesNothing$", "-test.v")
	cmd.Env = append(os.Environ(), envEmbedChild+"="+lib, envEmbedEnd+"="+end, "TMPDIR="+tmp, "XDG_CACHE_HOME="+cache)
	if !memfd {
		cmd.Env = append(cmd.Env, envEmbedNoMemfd+"=1")
	}
	var out strings.Builder
	cmd.Stderr = &out
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if end == "kill" && sc.Text() == "embedded-loaded" {
			require.NoError(t, cmd.Process.Kill()) // SIGKILL
			break
		}
	}
	_, _ = io.Copy(io.Discard, stdout) // the rest, if any
	err = cmd.Wait()
	if end == "kill" {
		require.Contains(t, out.String(), "embedded-loaded", "child (%s): %s", end, out.String())
		return
	}
	require.NoError(t, err, "child (%s): %s", end, out.String())
	assert.Contains(t, out.String(), "embedded-ok", "child (%s): %s", end, out.String())
}

func embeddedChild(t *testing.T) {
	lib, err := os.ReadFile(os.Getenv(envEmbedChild))
	require.NoError(t, err)
	noMemfd := os.Getenv(envEmbedNoMemfd) != ""
	f := finder{getenv: func(string) string { return "" }, embedded: lib, cache: defaultCacheDir(), noMemfd: noMemfd}
	require.NoError(t, initWith(f, ""))
	loc, _, ok := Loaded()
	require.True(t, ok)
	require.Equal(t, FromEmbedded, loc.Source)
	if !noMemfd {
		assert.True(t, strings.HasPrefix(loc.Path, "/proc/self/fd/"), "loaded from %s, want the memfd", loc.Path)
	}

	s, err := NewSession(twoOut(t), SessionOptions{})
	require.NoError(t, err)
	out, err := s.Run(Tensor{Name: "x", Shape: []int64{1, 3}, Float32: []float32{1, 2, 3}})
	require.NoError(t, err)
	assert.Equal(t, []float32{2, 4, 6}, out[0].Float32)
	switch os.Getenv(envEmbedEnd) {
	case "kill":
		fmt.Println("embedded-loaded")
		time.Sleep(time.Minute) // until killed
		t.Fatal("not killed")
	case "close":
		require.NoError(t, s.Close())
		require.NoError(t, Close())
	}
	fmt.Println("embedded-ok")
}
