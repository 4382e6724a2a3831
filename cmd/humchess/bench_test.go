package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunBenchErrors checks the command line: a clear error, never a
// panic, for every misuse.
func TestRunBenchErrors(t *testing.T) {
	saved := defaultNetName
	defaultNetName = func() string { return "" }
	defer func() { defaultNetName = saved }()
	bad := filepath.Join(t.TempDir(), "bad.txt")
	if err := os.WriteFile(bad, []byte("x | 1500 1500 | - | startpos | e2e5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "-net FILE"},
		{[]string{"-net", "a.onnx", "-random", "tiny"}, "not both"},
		{[]string{"-threads", "0"}, "-threads 0"},
		{[]string{"-n", "-1"}, "-n -1"},
		{[]string{"extra"}, "unexpected arguments"},
		{[]string{"-nosuchflag"}, "nosuchflag"},
		{[]string{"-positions", bad}, "e2e5"},
		{[]string{"-positions", filepath.Join(t.TempDir(), "missing.txt")}, "missing.txt"},
		{[]string{"-random", "huge"}, "unknown preset"},
		{[]string{"-net", filepath.Join(t.TempDir(), "missing.onnx")}, "NetFile"},
		{[]string{"-engine", "lc0", "-net", "a.onnx"}, "do not apply"},
		{[]string{"-setoption", "Hash=16"}, "-engine only"},
		{[]string{"-engine", "lc0", "-setoption", "Hash"}, "Name=Value"},
		{[]string{"-engine", filepath.Join(t.TempDir(), "no-such-engine")}, "starting"},
	} {
		var out, errOut bytes.Buffer
		err := runBench(tc.args, &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("humchess bench %q: error %v, want one containing %q", tc.args, err, tc.want)
		}
	}
	var out, errOut bytes.Buffer
	if err := runBench([]string{"-h"}, &out, &errOut); err != nil || !strings.Contains(errOut.String(), "usage: humchess bench") {
		t.Errorf("humchess bench -h: error %v, output %q; want usage and no error", err, errOut.String())
	}
}
