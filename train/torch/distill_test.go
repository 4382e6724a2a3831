package torch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/sugarme/gotch"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/train/data/shard"
)

// edgeTeacher is a synthetic teacher: it likes moves to the a- and h-files
// and towards the far ranks (in the mover's frame), which human play does
// not, so a net only learns it from the teacher distributions.
func edgeTeacher(legal []uint16, p []float32) []float32 {
	p = p[:0]
	var z float64
	for _, l := range legal {
		to := board.IndexToMove(int(l), true).To
		x := 0.4 * float64(to/8)
		if f := to % 8; f == 0 || f == 7 {
			x += 2.5
		}
		e := math.Exp(x)
		p = append(p, float32(e))
		z += e
	}
	for k := range p {
		p[k] = float32(float64(p[k]) / z)
	}
	return p
}

// teacherShards copies the first n records of each split of the test shards
// into a new set whose records carry edgeTeacher distributions (as
// humchess prep -teacher writes them).
func teacherShards(t *testing.T, n int) string {
	t.Helper()
	src, err := shard.Open(testShards(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	opts := shard.SplitOptions{WriterOptions: shard.WriterOptions{ContractVersion: board.ContractVersion, Compression: shard.CompressZstd}}
	counts := map[string]shard.Count{}
	var infos []shard.Info
	var e board.Encoded
	var tg board.Targets
	var p []float32
	var out []byte
	for _, split := range []string{"train", "validation"} {
		w := shard.NewSplitWriter(dir, split, opts)
		r := src.Reader(split)
		var k int64
		for ; k < int64(n); k++ {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := shard.DecodeSample(rec, &e, &tg); err != nil {
				t.Fatal(err)
			}
			p = edgeTeacher(e.Legal, p)
			if out, err = shard.AppendTeacher(append(out[:0], rec...), p); err != nil {
				t.Fatal(err)
			}
			if err := w.Append(out); err != nil {
				t.Fatal(err)
			}
		}
		is, err := w.Close()
		if err != nil {
			t.Fatal(err)
		}
		infos = append(infos, is...)
		counts[split] = shard.Count{Positions: k}
	}
	err = shard.WriteManifest(dir, &shard.Manifest{ContractVersion: board.ContractVersion, Created: time.Unix(0, 0).UTC(),
		Tool: "train/torch distill test", Counts: counts, Shards: infos,
		Teacher: &shard.Teacher{File: "edge", Name: "edge", Positions: counts["train"].Positions + counts["validation"].Positions}})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// meanKL returns the mean KL(teacher || net) over examples, the net's
// distribution being the softmax of its move logits over the legal moves.
func meanKL(t *testing.T, m *Model, c Config, exs []Example) float64 {
	t.Helper()
	res := gotchForward(t, m, c, exs)
	var kl float64
	for i := range exs {
		row := res.Move[i*board.NumMoves : (i+1)*board.NumMoves]
		legal, tp := exs[i].Enc.Legal, exs[i].Teacher
		hi := math.Inf(-1)
		for _, l := range legal {
			hi = math.Max(hi, float64(row[l]))
		}
		var z float64
		for _, l := range legal {
			z += math.Exp(float64(row[l]) - hi)
		}
		for k, l := range legal {
			if tp[k] > 0 {
				logq := float64(row[l]) - hi - math.Log(z)
				kl += float64(tp[k]) * (math.Log(float64(tp[k])) - logq)
			}
		}
	}
	return kl / float64(len(exs))
}

// TestDistill trains the tiny preset on shards whose records carry a
// teacher distribution. It checks that ShardSource and ReadExamples read the
// teacher, that the first step's move loss is the soft cross-entropy against
// the teacher (distill_mix 1), and that training moves the net's distribution
// towards the teacher's: KL(teacher || net) on training positions falls, and
// ends well below that of a run trained on the played moves only
// (distill_mix 0).
func TestDistill(t *testing.T) {
	dir := teacherShards(t, 4096)
	set, err := shard.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if set.Manifest.Teacher == nil || set.Manifest.Teacher.Name != "edge" {
		t.Fatalf("manifest teacher %+v", set.Manifest.Teacher)
	}
	probe, err := ReadExamples(set, "train", 256)
	if err != nil {
		t.Fatal(err)
	}
	for i, ex := range probe {
		want := edgeTeacher(ex.Enc.Legal, nil)
		if len(ex.Teacher) != len(want) {
			t.Fatalf("example %d: %d teacher probabilities for %d legal moves", i, len(ex.Teacher), len(want))
		}
		for k := range want {
			// quantisation: 0.5/65535 per value, and up to n/2 steps in the sum
			if math.Abs(float64(ex.Teacher[k]-want[k])) > (1+float64(len(want))/2)/65535 {
				t.Fatalf("example %d move %d: teacher %v, want %v", i, k, ex.Teacher[k], want[k])
			}
		}
	}

	base := tinyConfig(t)
	base.Data = dir
	base.Steps, base.Warmup, base.LR = 40, 5, 0.003
	base.ValPositions, base.ValEvery, base.CkptEvery, base.LogEvery = 64, 40, 40, 20

	// The first batch, as the run's source will give it.
	first, err := OpenShardSource(set, base.TrainSplit, base.ShuffleBuffer, base.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	batch := make([]Example, base.BatchSize)
	for i := range batch {
		if err := first.Next(&batch[i]); err != nil {
			t.Fatal(err)
		}
		if batch[i].Teacher == nil {
			t.Fatalf("ShardSource example %d has no teacher", i)
		}
	}
	m0, err := NewModel(base.Arch, gotch.CPU, base.Seed)
	if err != nil {
		t.Fatal(err)
	}
	var soft float64 // mean soft cross-entropy = KL + teacher entropy
	for i := range batch {
		var h float64
		for _, p := range batch[i].Teacher {
			if p > 0 {
				h -= float64(p) * math.Log(float64(p))
			}
		}
		soft += h
	}
	soft = soft/float64(len(batch)) + meanKL(t, m0, base, batch)
	kl0 := meanKL(t, m0, base, probe)

	train := func(mix float64) (float64, *Summary) {
		c := base
		c.DistillMix = mix
		c.Out = filepath.Join(t.TempDir(), "run")
		var log bytes.Buffer
		sum, err := Run(context.Background(), c, Options{Log: io.MultiWriter(testLog{t}, &log)})
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("records carry edge's move distributions: move target %.2f*played + %.2f*teacher", 1-mix, mix); !strings.Contains(log.String(), want) {
			t.Errorf("the run's log does not say %q", want)
		}
		ck, err := LoadCheckpoint(filepath.Join(c.Out, LastName))
		if err != nil {
			t.Fatal(err)
		}
		m, err := NewModelFromWeights(ck.Arch, ck.Weights, gotch.CPU)
		if err != nil {
			t.Fatal(err)
		}
		return meanKL(t, m, c, probe), sum
	}
	klDistill, sum := train(1)
	if got := sum.Losses[0].Heads[0]; math.Abs(got-soft) > 1e-4*soft {
		t.Errorf("first step move loss %.6f, want the soft cross-entropy against the teacher %.6f", got, soft)
	}
	t.Logf("first step move loss %.6f, soft cross-entropy against the teacher %.6f", sum.Losses[0].Heads[0], soft)
	klPlayed, _ := train(0)
	t.Logf("KL(teacher||net) on %d training positions: initial %.4f, after %d steps distilled %.4f, trained on played moves %.4f",
		len(probe), kl0, base.Steps, klDistill, klPlayed)
	if !(klDistill < 0.6*kl0) {
		t.Errorf("distillation did not move the net towards the teacher: KL %.4f -> %.4f", kl0, klDistill)
	}
	if !(klDistill < 0.6*klPlayed) {
		t.Errorf("distilled KL %.4f is not well below the played-move run's %.4f", klDistill, klPlayed)
	}
}

// TestResumeDistillMix checks that Options.DistillMix and DistillWDLMix
// replace a resumed run's mixes (and the checkpoints then carry them), that
// a resume without them keeps the run's, and that a mix outside 0..1 is
// refused.
func TestResumeDistillMix(t *testing.T) {
	c := tinyConfig(t)
	c.Steps, c.CkptEvery, c.ValPositions, c.Warmup = 6, 1, 0, 2
	c.DistillMix, c.DistillWDLMix = 0.5, 0.5
	_, err := Run(context.Background(), c, Options{AfterStep: stopAt(2)})
	require.ErrorIs(t, err, ErrStopped)
	resumed := c
	resumed.DistillMix = 1 // what the flags say when -distill-mix is not given: ignored
	_, err = Run(context.Background(), resumed, Options{Resume: true, AfterStep: stopAt(3)})
	require.ErrorIs(t, err, ErrStopped)
	ck, err := LoadCheckpoint(filepath.Join(c.Out, LastName))
	require.NoError(t, err)
	assert.Equal(t, 0.5, ck.State.Config.DistillMix, "the run keeps its mix")

	mix, wdl := 0.1, 0.25
	var log strings.Builder
	_, err = Run(context.Background(), resumed, Options{Resume: true, DistillMix: &mix, DistillWDLMix: &wdl, Log: &log, AfterStep: stopAt(4)})
	require.ErrorIs(t, err, ErrStopped)
	ck, err = LoadCheckpoint(filepath.Join(c.Out, LastName))
	require.NoError(t, err)
	assert.Equal(t, 0.1, ck.State.Config.DistillMix)
	assert.Equal(t, 0.25, ck.State.Config.DistillWDLMix)
	assert.Contains(t, log.String(), "distill_mix 0.10 instead of the run's 0.50")
	assert.Contains(t, log.String(), "distill_wdl_mix 0.25 instead of the run's 0.50")

	bad := 1.5
	_, err = Run(context.Background(), resumed, Options{Resume: true, DistillMix: &bad})
	require.ErrorIs(t, err, ErrConfig)
}

// TestResumeLR checks that Options.LR replaces a resumed run's peak
// learning rate: the next steps follow the schedule at the new peak, the
// checkpoints carry it, a resume without it keeps it, and a peak that is
// not positive is refused.
func TestResumeLR(t *testing.T) {
	c := tinyConfig(t)
	c.Steps, c.CkptEvery, c.ValPositions, c.Warmup = 8, 1, 0, 2
	c.LR = 1e-3
	_, err := Run(context.Background(), c, Options{AfterStep: stopAt(3)})
	require.ErrorIs(t, err, ErrStopped)

	peak := 2.5e-4
	var log strings.Builder
	var got []StepInfo
	record := func(s StepInfo) error {
		got = append(got, s)
		return stopAt(5)(s)
	}
	_, err = Run(context.Background(), c, Options{Resume: true, LR: &peak, Log: &log, AfterStep: record})
	require.ErrorIs(t, err, ErrStopped)
	require.NotEmpty(t, got)
	for _, s := range got {
		want := lrAt(s.Step, c.Warmup, c.Steps, peak, c.MinLRFrac)
		assert.InDelta(t, want, s.LR, 1e-12, "step %d's learning rate follows the new peak", s.Step)
		assert.Less(t, s.LR, lrAt(s.Step, c.Warmup, c.Steps, c.LR, c.MinLRFrac), "step %d", s.Step)
	}
	assert.Contains(t, log.String(), "lr 0.00025 instead of the run's 0.001")
	ck, err := LoadCheckpoint(filepath.Join(c.Out, LastName))
	require.NoError(t, err)
	assert.Equal(t, peak, ck.State.Config.LR, "the checkpoint carries the new peak")

	got = nil
	_, err = Run(context.Background(), c, Options{Resume: true, AfterStep: record})
	require.NoError(t, err) // to the end: step 5 was done before
	ck, err = LoadCheckpoint(filepath.Join(c.Out, LastName))
	require.NoError(t, err)
	assert.Equal(t, peak, ck.State.Config.LR, "a resume without LR keeps the run's")
	for _, s := range got {
		assert.InDelta(t, lrAt(s.Step, c.Warmup, c.Steps, peak, c.MinLRFrac), s.LR, 1e-12, "step %d", s.Step)
	}

	zero := 0.0
	_, err = Run(context.Background(), c, Options{Resume: true, LR: &zero})
	require.ErrorIs(t, err, ErrConfig)
}
