// Package clienttest builds the fake UCI engine (testdata/match/fakeengine)
// that the tests of engine-driving packages (uci/client, train/tools/match) play
// against. It is for tests only.
package clienttest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	once sync.Once
	path string
	err  error
)

// FakeEngine builds the fake engine's source folder src (relative to the
// calling test's package) once per test binary and returns the executable's
// path; the test fails when it cannot be built. Call Cleanup from TestMain.
func FakeEngine(t testing.TB, src string) string {
	t.Helper()
	once.Do(func() {
		dir, e := os.MkdirTemp("", "fakeengine")
		if e != nil {
			err = e
			return
		}
		path = filepath.Join(dir, "fakeengine")
		if out, e := exec.Command("go", "build", "-o", path, src).CombinedOutput(); e != nil {
			err = errors.New("building the fake engine: " + string(out))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// Cleanup removes the built engine.
func Cleanup() {
	if path != "" {
		_ = os.RemoveAll(filepath.Dir(path))
	}
}

// Main is a TestMain for packages that use FakeEngine: it runs the tests,
// removes the built engine and exits with the tests' status.
func Main(m *testing.M) {
	code := m.Run()
	Cleanup()
	os.Exit(code)
}

// Buffer is a bytes.Buffer that several goroutines (a UCI printer, engines'
// stderr copiers) may write to while a test reads it.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns what was written so far.
func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
