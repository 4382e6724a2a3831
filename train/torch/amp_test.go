package torch

import (
	"context"
	"math"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/libtch"
)

// forwardAmp runs the model on examples under a (bf16 autocast or fp32) and
// returns the move logits and the WDL logits as float32.
func forwardAmp(t *testing.T, m *Model, c Config, exs []Example, a amp) (move, wdl []float32, dtype gotch.DType) {
	t.Helper()
	hb, err := fillBatch(c.Contract(), exs, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	var s scope
	defer s.drop()
	db := hb.upload(&s, c.Arch, m.dev)
	a.enter()
	if got := libtch.AmpEnabled(false); got != a.on {
		t.Errorf("autocast enabled = %v inside, want %v", got, a.on)
	}
	o := m.Forward(&s, db.pieces, db.squares, db.global)
	a.exit()
	if libtch.AmpEnabled(false) {
		t.Error("autocast still enabled after exit")
	}
	// The last linear map of the value head runs in the autocast dtype.
	dtype = o.WDL.DType()
	move = hostFloats(s.k(o.Move.MustTotype(gotch.Float, false)))
	wdl = hostFloats(s.k(o.WDL.MustTotype(gotch.Float, false)))
	return move, wdl, dtype
}

// TestAutocastForward checks that bf16 autocast really changes the forward
// pass (linear maps in bfloat16) and stays close to float32.
func TestAutocastForward(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c := tinyConfig(t)
	m, _, exs := randomModel(t, c, 5, 32)
	move32, wdl32, dt32 := forwardAmp(t, m, c, exs, newAmp("fp32", gotch.CPU))
	move16, wdl16, dt16 := forwardAmp(t, m, c, exs, newAmp("bf16", gotch.CPU))
	if dt32 != gotch.Float || dt16 != gotch.BFloat16 {
		t.Errorf("value logits dtype: fp32 run %v, bf16 run %v; want float32 and bfloat16", dt32, dt16)
	}
	for _, o := range []struct {
		name   string
		a, b   []float32
		minRel float64
	}{{"move", move32, move16, 0}, {"wdl", wdl32, wdl16, 0}} {
		var diff, scale float64
		for i := range o.a {
			diff = math.Max(diff, math.Abs(float64(o.a[i]-o.b[i])))
			scale = math.Max(scale, math.Abs(float64(o.a[i])))
		}
		rel := diff / scale
		t.Logf("%s logits: max abs diff fp32 vs bf16 %.3g (%.2g of the largest logit %.3g)", o.name, diff, rel, scale)
		if !(diff > 0) {
			t.Errorf("%s logits: bf16 autocast gave exactly the fp32 result; autocast had no effect", o.name)
		}
		if !(rel < 0.05) {
			t.Errorf("%s logits: bf16 differs from fp32 by %.3g of the largest logit, want < 0.05", o.name, rel)
		}
	}
}

// TestTrainBF16 trains the tiny preset with bf16 autocast on the CPU: the loss
// falls and stays finite, and the first step's loss differs slightly from an
// fp32 run's with the same seed (autocast is on in the training step).
func TestTrainBF16(t *testing.T) {
	if testing.Short() {
		t.Skip("trains for a few dozen steps")
	}
	run := func(precision string, steps int) *Summary {
		c := tinyConfig(t)
		c.Precision, c.Steps, c.Warmup, c.ValPositions, c.ValEvery, c.CkptEvery = precision, steps, 5, 64, 1000, 1000
		sum, err := Run(context.Background(), c, Options{Log: testLog{t}})
		if err != nil {
			t.Fatalf("%s: %v", precision, err)
		}
		return sum
	}
	bf := run("bf16", 60)
	fp := run("fp32", 1)
	first, last := meanLoss(bf.Losses[:10]), meanLoss(bf.Losses[len(bf.Losses)-10:])
	t.Logf("bf16: loss %.4f -> %.4f; step 1: bf16 %.6f, fp32 %.6f", first, last, bf.Losses[0].Loss, fp.Losses[0].Loss)
	if !(last < 0.9*first) {
		t.Errorf("bf16 loss did not fall: first 10 steps %.4f, last 10 %.4f", first, last)
	}
	d := math.Abs(bf.Losses[0].Loss-fp.Losses[0].Loss) / fp.Losses[0].Loss
	if !(d > 0) {
		t.Error("step 1 loss is the same in bf16 and fp32: autocast is not on in the training step")
	}
	if !(d < 0.02) {
		t.Errorf("step 1 loss: bf16 %.6f vs fp32 %.6f differ by %.3g, want < 2%%", bf.Losses[0].Loss, fp.Losses[0].Loss, d)
	}
}

func TestHasBF16Flag(t *testing.T) {
	zen3 := "processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu sse2 avx avx2 fma bmi2\n\nprocessor\t: 1\nflags\t\t: fpu sse2 avx avx2 fma bmi2\n"
	zen4 := "processor\t: 0\nflags\t\t: fpu avx avx2 avx512f avx512_bf16 avx512_vnni\n"
	spr := "processor\t: 0\nflags\t\t: avx512f amx_bf16 amx_tile\n"
	if hasBF16Flag([]byte(zen3)) {
		t.Error("an AVX2-only CPU has no bf16")
	}
	if !hasBF16Flag([]byte(zen4)) || !hasBF16Flag([]byte(spr)) {
		t.Error("avx512_bf16 and amx_bf16 are bf16")
	}
	if hasBF16Flag([]byte("model name\t: avx512_bf16 in the name\n")) {
		t.Error("only the flags line counts")
	}
}

// TestResumePrecision checks that a resumed run keeps its precision unless
// Options.Precision names another, which the checkpoint then carries.
func TestResumePrecision(t *testing.T) {
	c := tinyConfig(t)
	c.Precision, c.Steps, c.CkptEvery, c.ValPositions, c.Warmup = "bf16", 6, 1, 0, 2
	_, err := Run(context.Background(), c, Options{AfterStep: stopAt(2)})
	require.ErrorIs(t, err, ErrStopped)
	resumed := c
	resumed.Precision = "auto" // what the flags say when -precision is not given: ignored
	_, err = Run(context.Background(), resumed, Options{Resume: true, AfterStep: stopAt(3)})
	require.ErrorIs(t, err, ErrStopped)
	ck, err := LoadCheckpoint(filepath.Join(c.Out, LastName))
	require.NoError(t, err)
	assert.Equal(t, "bf16", ck.State.Config.Precision, "the run keeps its precision")
	var log strings.Builder
	_, err = Run(context.Background(), resumed, Options{Resume: true, Precision: "fp32", Log: &log, AfterStep: stopAt(4)})
	require.ErrorIs(t, err, ErrStopped)
	ck, err = LoadCheckpoint(filepath.Join(c.Out, LastName))
	require.NoError(t, err)
	assert.Equal(t, "fp32", ck.State.Config.Precision)
	assert.Contains(t, log.String(), "precision fp32 instead of the run's bf16")
	assert.Contains(t, log.String(), ", fp32, ", "the device line names the precision in use")
}
