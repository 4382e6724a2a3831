package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/nets/ort"
)

func TestWarnNoRuntime(t *testing.T) {
	var w bytes.Buffer
	ok := warnNoRuntime(&w, func(explicit string) error {
		assert.Empty(t, explicit, "the lookup order decides the library")
		return errors.New("no library here")
	})
	assert.False(t, ok)
	assert.Contains(t, w.String(), "pure-Go forward pass")
	assert.Contains(t, w.String(), "no library here")

	w.Reset()
	assert.True(t, warnNoRuntime(&w, func(string) error { return nil }))
	assert.Empty(t, w.String(), "no warning when the library loads")
}

// TestBenchWarnsWithoutRuntime runs "humchess bench" in a child process
// whose ONNX Runtime lookup cannot succeed: it still plays every position
// (on the pure-Go forward pass) and says on stderr why it is slow.
func TestBenchWarnsWithoutRuntime(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	c := exec.Command(exe, "-test.run=^TestHelpExitsZero$")
	c.Env = append(os.Environ(),
		envMainArgs+"=bench -random tiny -n 2",
		ort.EnvLibraryPath+"="+filepath.Join(t.TempDir(), "missing.so"))
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	require.NoError(t, c.Run(), "stderr:\n%s", stderr.String())
	assert.Contains(t, stderr.String(), "warning: nets run on their pure-Go forward pass")
	assert.Contains(t, stderr.String(), ort.EnvLibraryPath)
	assert.Contains(t, stdout.String(), "Bench: ")
}
