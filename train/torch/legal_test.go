package torch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sugarme/gotch"

	"github.com/humchess/humchess/board"
)

// legalConfig is the tiny preset with the legal-moves head switched on
// through a -config JSON file, as a user would.
func legalConfig(t testing.TB) Config {
	t.Helper()
	file := filepath.Join(t.TempDir(), "legal.json")
	if err := os.WriteFile(file, []byte(`{"arch": {"legal_head": true}, "w_legal": 0.5}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _, err := ParseArgs("t", []string{"-preset", "tiny", "-config", file}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tiny, err := Preset("tiny")
	if err != nil {
		t.Fatal(err)
	}
	want := tiny.Arch
	want.LegalHead = true
	if c.Arch != want || c.WLegal != 0.5 {
		t.Fatalf("-config {arch: {legal_head: true}}: arch %+v w_legal %v, want %+v 0.5", c.Arch, c.WLegal, want)
	}
	if f, _, err := ParseArgs("t", []string{"-preset", "tiny", "-legal-head"}, nil); err != nil || !f.Arch.LegalHead {
		t.Fatalf("-legal-head: legal_head %v, error %v", f.Arch.LegalHead, err)
	}
	if !strings.Contains(c.JSON(), `"legal_head": true`) {
		t.Errorf("config JSON does not record the legal head:\n%s", c.JSON())
	}
	c.Data = testShards(t)
	c.Out = filepath.Join(t.TempDir(), "run")
	c.Device = "cpu"
	return c
}

// TestForwardMatchesReferenceLegal checks the gotch forward pass of a net
// with the legal-moves head, legal logits included, against the pure-Go
// reference on real positions.
func TestForwardMatchesReferenceLegal(t *testing.T) {
	got := forwardMatchesReference(t, legalConfig(t), 5, 16)
	if len(got.Legal) != 16*board.NumMoves {
		t.Fatalf("gotch legal output: %d values, want %d", len(got.Legal), 16*board.NumMoves)
	}
}

// TestLegalLoss checks the legal head's loss (binary cross-entropy against
// the mask-derived target) and validation figures against host arithmetic.
func TestLegalLoss(t *testing.T) {
	const rows = 3
	n := board.NumMoves
	rng := rand.New(rand.NewPCG(1, 2))
	logits := make([]float32, rows*n)
	mask := make([]float32, rows*n)
	var want float64
	for i := range logits {
		logits[i] = float32(4 * rng.NormFloat64())
		mask[i] = maskIllegal
		y := 0.0
		if rng.IntN(20) == 0 {
			mask[i], y = 0, 1
		}
		x := float64(logits[i])
		want += -y*math.Log(1/(1+math.Exp(-x))) - (1-y)*math.Log(1-1/(1+math.Exp(-x)))
	}
	want /= float64(rows * n)
	var s scope
	defer s.drop()
	lt := s.k(floatTensor(logits, []int64{rows, int64(n)}, gotch.CPU))
	mt := s.k(floatTensor(mask, []int64{rows, int64(n)}, gotch.CPU))
	target := hostFloats(s.legalTarget(mt))
	for i, y := range target {
		if (y == 1) != (mask[i] == 0) || (y != 0 && y != 1) {
			t.Fatalf("legal target %d: %v for mask %v", i, y, mask[i])
		}
	}
	got := float64(hostFloats(s.bceMean(lt, s.legalTarget(mt)))[0])
	if math.Abs(got-want) > 1e-5*want {
		t.Errorf("legal loss %.7f, want %.7f", got, want)
	}

	var l legalStats
	// Row 0: legal {0,1}, predicted {1,2}; row 1: legal {5}, predicted none.
	lg := make([]float32, 2*n)
	mk := make([]float32, 2*n)
	for i := range lg {
		lg[i], mk[i] = -1, maskIllegal
	}
	mk[0], mk[1], mk[n+5] = 0, 0, 0
	lg[1], lg[2] = 1, 1
	l.add(lg, mk)
	acc, base, f1 := l.metrics()
	wantAcc := (float64(n-2)/float64(n) + float64(n-1)/float64(n)) / 2
	wantBase := (float64(n-2)/float64(n) + float64(n-1)/float64(n)) / 2
	if math.Abs(acc-wantAcc) > 1e-12 || math.Abs(base-wantBase) > 1e-12 || math.Abs(f1-2.0/(2+1+2)) > 1e-12 {
		t.Errorf("legal metrics: acc %v base %v F1 %v, want %v %v %v", acc, base, f1, wantAcc, wantBase, 2.0/5)
	}
}

// TestTrainLegalHead trains the tiny preset with the legal-moves head
// (switched on by a -config file): the head's loss must fall, and on
// validation it must beat the best constant predictor's loss and find legal
// moves. Then the export must carry the head: ONNX Runtime's "legal" output
// must equal gotch's.
func TestTrainLegalHead(t *testing.T) {
	if testing.Short() {
		t.Skip("trains for a hundred steps")
	}
	c := legalConfig(t)
	c.Steps, c.Warmup, c.LogEvery, c.ValEvery, c.CkptEvery, c.ValPositions = 120, 15, 40, 1000, 1000, 256
	sum, err := Run(context.Background(), c, Options{Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	legalLoss := func(s []StepInfo) float64 {
		var x float64
		for _, i := range s {
			x += i.Heads[HeadLegal]
		}
		return x / float64(len(s))
	}
	first, last := legalLoss(sum.Losses[:10]), legalLoss(sum.Losses[len(sum.Losses)-10:])
	if !(last < 0.5*first) {
		t.Errorf("legal-head loss did not fall: first 10 steps %.4f, last 10 %.4f", first, last)
	}
	v := sum.LastVal
	if v == nil {
		t.Fatal("no validation ran")
	}
	// The trivial classifiers: the best constant probability (the fraction
	// of legal entries, p) has loss H(p); calling every move illegal has
	// accuracy LegalBaseline and F1 0. A tiny net this short does not yet
	// beat the all-illegal accuracy (it needs confident logits > 0, after
	// about 300 steps), so the test asks it to beat the constant's loss and
	// to find some legal moves.
	vl, ok := v.Heads["legal"]
	if !ok {
		t.Fatalf("validation record has no legal loss: %v", v.Heads)
	}
	p := 1 - v.LegalBaseline
	constLoss := -p*math.Log(p) - (1-p)*math.Log(1-p)
	if !(vl < 0.9*constLoss) || !(v.LegalF1 > 0) || !(v.LegalAcc > 0.95) {
		t.Errorf("validation legal loss %.4f (best constant %.4f), accuracy %.5f (all-illegal %.5f), F1 %.4f: the head learnt nothing",
			vl, constLoss, v.LegalAcc, v.LegalBaseline, v.LegalF1)
	}
	t.Logf("legal-head loss %.4f -> %.4f; validation legal loss %.4f (best constant %.4f), accuracy %.5f vs all-illegal %.5f, F1 %.4f; move top1 %.4f",
		first, last, vl, constLoss, v.LegalAcc, v.LegalBaseline, v.LegalF1, v.Top1)
	b, err := os.ReadFile(filepath.Join(c.Out, MetricsName))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"legal":`)) || !bytes.Contains(b, []byte(`"legal_acc":`)) {
		t.Errorf("metrics.jsonl lacks the legal head:\n%s", b)
	}

	// Export: the safetensors file holds the head, and ONNX Runtime's outputs,
	// "legal" included, equal gotch's on validation positions.
	a, w := exportAndCompare(t, c, filepath.Join(c.Out, LastName), 50)
	if !a.LegalHead || len(w["legal.q.weight"]) != a.PolicyDim*a.Dim {
		t.Fatalf("exported net: legal_head %v, legal.q.weight %d values", a.LegalHead, len(w["legal.q.weight"]))
	}
}

// TestResumeOldCheckpoint resumes a run from a checkpoint written before the
// legal head existed: its state's config has no w_legal and its arch no
// legal_head.
func TestResumeOldCheckpoint(t *testing.T) {
	c := tinyConfig(t)
	c.Steps, c.CkptEvery, c.LogEvery, c.ValEvery, c.Warmup, c.ValPositions, c.BatchSize = 5, 3, 1, 5, 1, 32, 16
	_, err := Run(context.Background(), c, Options{AfterStep: func(s StepInfo) error {
		if s.Step == 3 {
			return ErrStopped
		}
		return nil
	}})
	if !errors.Is(err, ErrStopped) {
		t.Fatalf("interrupted run: error %v, want ErrStopped", err)
	}
	// Blank out w_legal in the saved state (a JSON string inside the header),
	// keeping every length.
	path := filepath.Join(c.Out, LastName)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	key := []byte(`\"w_legal\":0.1,`)
	if bytes.Count(b, key) != 1 || bytes.Contains(b, []byte("legal_head")) {
		t.Fatalf("checkpoint header: %d w_legal keys, legal_head present %v", bytes.Count(b, key), bytes.Contains(b, []byte("legal_head")))
	}
	b = bytes.Replace(b, key, bytes.Repeat([]byte(" "), len(key)), 1)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ck, err := LoadCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	if ck.State.Config.WLegal != 0 || ck.Arch.LegalHead {
		t.Fatalf("old checkpoint: w_legal %v legal_head %v, want 0 false", ck.State.Config.WLegal, ck.Arch.LegalHead)
	}
	sum, err := Run(context.Background(), c, Options{Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Step != 5 || len(sum.Losses) != 2 || sum.LastVal == nil {
		t.Fatalf("resumed run: step %d, %d steps, validation %v", sum.Step, len(sum.Losses), sum.LastVal)
	}
	if _, ok := sum.LastVal.Heads["legal"]; ok || sum.LastVal.LegalBaseline != 0 {
		t.Errorf("a net without the legal head reports it: %+v", sum.LastVal)
	}
	var rec map[string]any
	lines := bytes.Split(bytes.TrimSpace(mustRead(t, filepath.Join(c.Out, MetricsName))), []byte("\n"))
	if err := json.Unmarshal(lines[len(lines)-1], &rec); err != nil {
		t.Fatal(err)
	}
	if heads, _ := rec["heads"].(map[string]any); heads == nil || heads["legal"] != nil || heads["move"] == nil {
		t.Errorf("metrics.jsonl record heads %v: want move and no legal", rec["heads"])
	}
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
