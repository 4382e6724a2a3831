package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/humchess/humchess/train/data/prep"
)

func TestRun(t *testing.T) {
	for _, c := range []struct {
		args    []string
		wantErr string // "" for success
		wantOut string
	}{
		{nil, "usage", ""},
		{[]string{"nope"}, "unknown command", ""},
		{[]string{"train"}, "-data", ""},
		{[]string{"train", "-preset", "huge", "-data", "x"}, "unknown preset", ""},
		{[]string{"export"}, "-ckpt", ""},
		{[]string{"average", "-out", "x.ckpt", "a.ckpt"}, "two or more checkpoints", ""},
		{[]string{"average", "a.ckpt", "b.ckpt"}, "-onnx", ""},
		{[]string{"average", "-weights", "1,x", "-out", "x.ckpt", "a.ckpt", "b.ckpt"}, "not a number", ""},
		{[]string{"average", "-out", "x.ckpt", "missing-a.ckpt", "missing-b.ckpt"}, "missing-a.ckpt", ""},
		{[]string{"presets"}, "", `"layers": 8`},
		{[]string{"version"}, "", "humchess-train"},
	} {
		var out bytes.Buffer
		err := run(c.args, &out)
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("run %q: error %v, want none", c.args, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("run %q: error %v, want one containing %q", c.args, err, c.wantErr)
		case !strings.Contains(out.String(), c.wantOut):
			t.Errorf("run %q: output %q, want it to contain %q", c.args, out.String(), c.wantOut)
		}
	}
}

// TestMain lets the test binary act as the command (for TestKillResume).
func TestMain(m *testing.M) {
	if os.Getenv("HUMCHESS_TRAIN_BE_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestKillResume trains in a child process, SIGKILLs it after its first
// checkpoint, resumes the run to its end and exports it.
func TestKillResume(t *testing.T) {
	if testing.Short() {
		t.Skip("trains in a child process")
	}
	dir := t.TempDir()
	shards, out := filepath.Join(dir, "shards"), filepath.Join(dir, "run")
	pc := prep.DefaultConfig()
	pc.Inputs, pc.Out, pc.Quiet = []string{"../../testdata/train/games.pgn.zst"}, shards, true
	pc.BalanceBand, pc.MinClock, pc.ValFraction = 0, 0, 0.1
	if _, err := prep.Run(context.Background(), pc, io.Discard); err != nil {
		t.Fatalf("prep: %v", err)
	}
	args := []string{"train", "-preset", "tiny", "-data", shards, "-out", out, "-steps", "60",
		"-ckpt-every", "20", "-log-every", "5", "-val-every", "30", "-val-positions", "128"}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "HUMCHESS_TRAIN_BE_MAIN=1")
	logPath := filepath.Join(dir, "child.log")
	logF, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logF.Close()
	cmd.Stdout, cmd.Stderr = logF, logF
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	childLog := func() string {
		b, _ := os.ReadFile(logPath)
		return string(b)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(childLog(), "step     25/") {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("child did not reach step 25; its output:\n%s", childLog())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	var out2 bytes.Buffer
	if err := run(append(args, "-resume"), &out2); err != nil {
		t.Fatalf("resume: %v\n%s", err, out2.String())
	}
	if !strings.Contains(out2.String(), "at step 20") || !strings.Contains(out2.String(), "done at step 60") {
		t.Errorf("resume output does not show a resume at step 20 and an end at 60:\n%s", out2.String())
	}
	onnx := filepath.Join(dir, "net.onnx")
	if err := run([]string{"export", "-ckpt", filepath.Join(out, "best.ckpt"), "-onnx", onnx}, io.Discard); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(onnx); err != nil || st.Size() == 0 {
		t.Errorf("export wrote no ONNX file: %v", err)
	}
	avg := filepath.Join(dir, "avg.onnx")
	var out3 bytes.Buffer
	if err := run([]string{"average", "-weights", "1,2", "-onnx", avg, filepath.Join(out, "best.ckpt"), filepath.Join(out, "last.ckpt")}, &out3); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(avg); err != nil || st.Size() == 0 || !strings.Contains(out3.String(), "averaged 2 checkpoints") {
		t.Errorf("average wrote no ONNX file (%v) or said %q", err, out3.String())
	}
}
