package ort

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		t.Skip("gcc not found: cannot build the fake old ONNX Runtime")
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

func TestWriteEmbedded(t *testing.T) {
	dir, path, err := writeEmbedded([]byte("lib"))
	require.NoError(t, err)
	defer os.RemoveAll(dir)
	st, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), st.Mode().Perm(), "private directory")
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "lib", string(got))
	assert.Equal(t, LibraryName, filepath.Base(path))
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

// envEmbedChild marks the child process of TestEmbeddedCopy.
const envEmbedChild = "HUMCHESS_ORT_EMBED_CHILD"

// TestEmbeddedCopy loads the real library as if it were embedded, in a child
// process (a process loads ONNX Runtime once): the copy is written to a 0700
// temporary directory, runs a model, and Close removes it.
func TestEmbeddedCopy(t *testing.T) {
	if os.Getenv(envEmbedChild) != "" {
		embeddedChild(t)
		return
	}
	if testing.Short() {
		t.Skip("starts a child process (skipped with -short)")
	}
	loc, err := Resolve("")
	if err != nil || loc.Source == FromEmbedded {
		t.Skipf("no ONNX Runtime library on disk to embed (run `make onnxruntime`): %v", err)
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "-test.run=^TestEmbeddedCopy$", "-test.v")
	cmd.Env = append(os.Environ(), envEmbedChild+"="+loc.Path)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "child: %s", out)
	assert.Contains(t, string(out), "embedded-ok", "child output: %s", out)
}

func embeddedChild(t *testing.T) {
	lib, err := os.ReadFile(os.Getenv(envEmbedChild))
	require.NoError(t, err)
	nowhere := t.TempDir()
	f := finder{getenv: func(string) string { return "" }, wd: nowhere, embedded: lib}
	require.NoError(t, initWith(f, ""))
	loc, _, ok := Loaded()
	require.True(t, ok)
	require.Equal(t, FromEmbedded, loc.Source)
	dir := filepath.Dir(loc.Path)
	st, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), st.Mode().Perm())

	s, err := NewSession(twoOut(t), SessionOptions{})
	require.NoError(t, err)
	out, err := s.Run(Tensor{Name: "x", Shape: []int64{1, 3}, Float32: []float32{1, 2, 3}})
	require.NoError(t, err)
	assert.Equal(t, []float32{2, 4, 6}, out[0].Float32)
	require.NoError(t, s.Close())
	require.NoError(t, Close())
	_, err = os.Stat(dir)
	assert.True(t, os.IsNotExist(err), "Close removes %s: %v", dir, err)
	t.Log("embedded-ok")
}
