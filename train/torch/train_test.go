package torch

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/sugarme/gotch"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/nets/transformer"
	"github.com/humchess/humchess/train/data/shard"
)

func TestPresets(t *testing.T) {
	for _, name := range Presets() {
		c, err := Preset(name)
		if err != nil {
			t.Fatalf("preset %s: %v", name, err)
		}
		ct := board.DefaultContract()
		if c.Arch.SquareDim != ct.SquareDim() || c.Arch.GlobalDim != ct.GlobalDim() {
			t.Errorf("preset %s: input sizes %d/%d, want %d/%d", name, c.Arch.SquareDim, c.Arch.GlobalDim, ct.SquareDim(), ct.GlobalDim())
		}
	}
	c, rest, err := ParseArgs("t", []string{"-preset", "tiny", "-steps", "7", "-layers=3", "x"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Preset != "tiny" || c.Steps != 7 || c.Arch.Layers != 3 || c.Arch.Dim != 32 || len(rest) != 1 {
		t.Errorf("ParseArgs: preset %q steps %d layers %d dim %d rest %q, want tiny 7 3 32 [x]", c.Preset, c.Steps, c.Arch.Layers, c.Arch.Dim, rest)
	}
	if _, _, err := ParseArgs("t", []string{"-lr", "-1"}, nil); !errors.Is(err, ErrConfig) {
		t.Errorf("ParseArgs -lr -1: error %v, want ErrConfig", err)
	}
}

func TestLRSchedule(t *testing.T) {
	for _, c := range []struct {
		step int
		want float64
	}{{1, 0.1}, {10, 1}, {55, 0.55}, {100, 0.1}} {
		if got := lrAt(c.step, 10, 100, 1, 0.1); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("lrAt(%d): %v, want %v", c.step, got, c.want)
		}
	}
}

// TestForwardMatchesReference checks the gotch forward pass against the
// pure-Go reference of nets/transformer on random weights and real positions.
func TestForwardMatchesReference(t *testing.T) {
	forwardMatchesReference(t, tinyConfig(t), 3, 16)
}

// forwardMatchesReference checks gotch's forward pass of a random net of c's
// arch against the pure-Go reference on n validation positions, and returns
// gotch's outputs.
func forwardMatchesReference(t *testing.T, c Config, seed uint64, n int) transformer.Result {
	t.Helper()
	m, w, exs := randomModel(t, c, seed, n)
	got := gotchForward(t, m, c, exs)
	ref, err := transformer.NewModel(c.Arch, w)
	if err != nil {
		t.Fatal(err)
	}
	hb, err := fillBatch(c.Contract(), exs, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ref.Forward(transformer.Batch{N: hb.n, Pieces: hb.pieces, Squares: hb.squares, Global: hb.global})
	if err != nil {
		t.Fatal(err)
	}
	compareResults(t, want, got, 1e-4, fmt.Sprintf("reference vs gotch (legal head %v)", c.Arch.LegalHead))
	return got
}

// gotchForward runs the model on examples and returns host outputs.
func gotchForward(t testing.TB, m *Model, c Config, exs []Example) transformer.Result {
	t.Helper()
	hb, err := fillBatch(c.Contract(), exs, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	var s scope
	defer s.drop()
	db := hb.upload(&s, c.Arch, m.dev)
	o := m.Forward(&s, db.pieces, db.squares, db.global)
	r := transformer.Result{N: hb.n, Move: hostFloats(o.Move), WDL: hostFloats(o.WDL), Time: hostFloats(o.Time),
		From: hostFloats(o.From), To: hostFloats(o.To)}
	if o.Legal != nil {
		r.Legal = hostFloats(o.Legal)
	}
	return r
}

func compareResults(t testing.TB, want, got transformer.Result, tol float64, what string) {
	t.Helper()
	for _, o := range []struct {
		name      string
		want, got []float32
	}{{"move", want.Move, got.Move}, {"wdl", want.WDL, got.WDL}, {"time", want.Time, got.Time}, {"from", want.From, got.From}, {"to", want.To, got.To}, {"legal", want.Legal, got.Legal}} {
		if len(o.want) != len(o.got) {
			t.Fatalf("%s: output %s has %d values, want %d", what, o.name, len(o.got), len(o.want))
		}
		worst, at := 0.0, 0
		for i := range o.want {
			if d := math.Abs(float64(o.want[i]) - float64(o.got[i])); d > worst || math.IsNaN(d) {
				worst, at = d, i
			}
		}
		if !(worst < tol) {
			t.Errorf("%s: output %s index %d: want %v, got %v (max abs diff %g, tolerance %g)", what, o.name, at, o.want[at], o.got[at], worst, tol)
		} else {
			t.Logf("%s: output %s max abs diff %.3g", what, o.name, worst)
		}
	}
}

// TestTrainTiny trains the tiny preset, checks that it learns, exports it
// and checks that ONNX Runtime computes what gotch computes.
func TestTrainTiny(t *testing.T) {
	if testing.Short() {
		t.Skip("trains for a few hundred steps")
	}
	c := tinyConfig(t)
	sum, err := Run(context.Background(), c, Options{Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Step != c.Steps {
		t.Fatalf("ran %d steps, want %d", sum.Step, c.Steps)
	}
	first, last := meanLoss(sum.Losses[:20]), meanLoss(sum.Losses[len(sum.Losses)-20:])
	if !(last < 0.8*first) {
		t.Errorf("loss did not fall: first 20 steps %.4f, last 20 %.4f", first, last)
	}
	v := sum.LastVal
	if v == nil {
		t.Fatal("no validation ran")
	}
	if !(v.Top1 > v.Uniform) {
		t.Errorf("validation move top-1 %.4f does not beat the uniform-over-legal baseline %.4f", v.Top1, v.Uniform)
	}
	t.Logf("loss %.4f -> %.4f; validation top1 %.4f top3 %.4f, uniform %.4f, bands %+v", first, last, v.Top1, v.Top3, v.Uniform, v.Bands)
	// The bands are board's rating bands, in order, and add up to the whole.
	n, hits := 0, 0.0
	for i, b := range v.Bands {
		if b.Rating != board.RatingBand(b.Rating) || b.Name != board.RatingBandName(b.Rating) || (i > 0 && b.Rating <= v.Bands[i-1].Rating) {
			t.Errorf("band %d %+v: not a board.RatingBand in order after %+v", i, b, v.Bands[max(i-1, 0)])
		}
		n, hits = n+b.Positions, hits+b.Top1*float64(b.Positions)
	}
	if n != v.Positions || math.Abs(hits/float64(n)-v.Top1) > 1e-9 {
		t.Errorf("bands hold %d positions at top-1 %.6f, the whole %d at %.6f", n, hits/float64(n), v.Positions, v.Top1)
	}
	for _, name := range []string{LastName, BestName, ConfigName, MetricsName, CurvesName} {
		if st, err := os.Stat(filepath.Join(c.Out, name)); err != nil || st.Size() == 0 {
			t.Errorf("run directory: %s missing or empty (%v)", name, err)
		}
	}

	// Export and compare ONNX Runtime with gotch on 100 validation positions.
	exportAndCompare(t, c, filepath.Join(c.Out, BestName), 100)
}

func meanLoss(s []StepInfo) float64 {
	var x float64
	for _, i := range s {
		x += i.Loss
	}
	return x / float64(len(s))
}

// TestResume kills a run (a hook stops it without saving, as SIGKILL would)
// after a checkpoint, resumes it and checks that the resumed steps' losses
// match an uninterrupted run's.
func TestResume(t *testing.T) {
	base := tinyConfig(t)
	base.Steps, base.CkptEvery, base.LogEvery, base.ValEvery, base.Warmup = 30, 15, 15, 1000, 5
	base.ValPositions = 0

	a := base
	a.Out = filepath.Join(t.TempDir(), "a")
	full, err := Run(context.Background(), a, Options{})
	if err != nil {
		t.Fatal(err)
	}

	b := base
	b.Out = filepath.Join(t.TempDir(), "b")
	_, err = Run(context.Background(), b, Options{AfterStep: func(s StepInfo) error {
		if s.Step == 22 {
			return ErrStopped
		}
		return nil
	}})
	if !errors.Is(err, ErrStopped) {
		t.Fatalf("interrupted run: error %v, want ErrStopped", err)
	}
	if _, err := Run(context.Background(), b, Options{}); !errors.Is(err, ErrConfig) {
		t.Errorf("fresh run into a used directory: error %v, want ErrConfig", err)
	}
	resumed, err := Run(context.Background(), b, Options{Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(resumed.Losses) != 15 || resumed.Losses[0].Step != 16 {
		t.Fatalf("resumed run did steps %d.. (%d of them), want 16..30", resumed.Losses[0].Step, len(resumed.Losses))
	}
	worst := 0.0
	for i, r := range resumed.Losses {
		want := full.Losses[15+i]
		rel := math.Abs(r.Loss-want.Loss) / math.Abs(want.Loss)
		worst = math.Max(worst, rel)
		if !(rel < 1e-4) {
			t.Errorf("step %d: resumed loss %.7f, uninterrupted %.7f (relative difference %.2g)", r.Step, r.Loss, want.Loss, rel)
		}
	}
	t.Logf("resumed steps 16..30: worst relative loss difference %.3g", worst)
}

func TestCheckpointRoundTrip(t *testing.T) {
	c, err := Preset("tiny")
	if err != nil {
		t.Fatal(err)
	}
	w, err := transformer.RandomWeights(c.Arch, 1)
	if err != nil {
		t.Fatal(err)
	}
	v := 1.5
	ck := &Checkpoint{Arch: c.Arch, Weights: w, M: transformer.Weights{"norm": make([]float32, c.Arch.Dim)},
		V: transformer.Weights{}, State: State{Step: 9, BestVal: &v, Config: c}}
	path := filepath.Join(t.TempDir(), "x.ckpt")
	if err := SaveCheckpoint(path, ck); err != nil {
		t.Fatal(err)
	}
	got, err := LoadCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.State.Step != 9 || got.State.BestVal == nil || *got.State.BestVal != 1.5 || got.State.Config.Arch != c.Arch {
		t.Errorf("state round trip: %+v", got.State)
	}
	for name, x := range w {
		y := got.Weights[name]
		if len(y) != len(x) || (len(x) > 0 && (x[0] != y[0] || x[len(x)-1] != y[len(y)-1])) {
			t.Fatalf("weight %s differs after the round trip", name)
		}
	}
	if len(got.M["norm"]) != c.Arch.Dim {
		t.Errorf("moment norm: %d values, want %d", len(got.M["norm"]), c.Arch.Dim)
	}
	// The checkpoint's weights read as an exported net too.
	if _, _, err := transformer.LoadSafetensors(path); err != nil {
		t.Logf("checkpoint is not a plain net file (optimizer tensors): %v", err)
	}
}

type testLog struct{ t testing.TB }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(string(p[:len(p)-1]))
	return len(p), nil
}

// teacherSource wraps a ShardSource and gives every example a uniform
// teacher distribution over its legal moves (soft targets).
type teacherSource struct{ *ShardSource }

func (s teacherSource) Next(ex *Example) error {
	if err := s.ShardSource.Next(ex); err != nil {
		return err
	}
	ex.Teacher = make([]float32, len(ex.Enc.Legal))
	for i := range ex.Teacher {
		ex.Teacher[i] = 1 / float32(len(ex.Teacher))
	}
	return nil
}

// TestAccumAndDistill runs a few steps with gradient accumulation and soft
// (teacher) move targets through Options.Source.
func TestAccumAndDistill(t *testing.T) {
	c := tinyConfig(t)
	c.Steps, c.Accum, c.BatchSize, c.ValPositions, c.LogEvery, c.ValEvery, c.DistillMix = 4, 2, 16, 32, 1, 4, 0.5
	set, err := shard.Open(c.Data)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Run(context.Background(), c, Options{Log: testLog{t}, Source: func(pos *shard.Position) (Source, error) {
		src, err := OpenShardSource(set, c.TrainSplit, c.ShuffleBuffer, c.Seed, pos)
		return teacherSource{src}, err
	}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Step != 4 || len(sum.Losses) != 4 || math.IsNaN(sum.Losses[3].Loss) {
		t.Fatalf("ran %d steps, losses %+v", sum.Step, sum.Losses)
	}
	// With half the move target uniform over the legal moves, the move loss
	// cannot drop below half the entropy of that uniform distribution.
	if sum.Losses[3].Heads[0] < 1 {
		t.Errorf("move loss %.4f with soft targets, want >= 1", sum.Losses[3].Heads[0])
	}
}

func TestTop3(t *testing.T) {
	var s scope
	defer s.drop()
	row := make([]float32, 2*board.NumMoves)
	for i := range row {
		row[i] = -1e9
	}
	row[5], row[7], row[9], row[11] = 1, 4, 3, 2
	row[board.NumMoves+0], row[board.NumMoves+1857] = 2, 3
	got := s.top3(s.k(floatTensor(row, []int64{2, board.NumMoves}, gotch.CPU)))
	want := []int64{7, 9, 11, 1857, 0, 1}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("top3: got %v, want %v", got, want)
		}
	}
}

// TestExtend finishes a run, extends it on resume and checks that the new
// steps run under a new learning-rate cycle (warm-up from the run's end, then
// decay to the new last step) and that a run cannot end before the step it
// reached.
func TestExtend(t *testing.T) {
	c := tinyConfig(t)
	c.Steps, c.CkptEvery, c.LogEvery, c.ValEvery, c.Warmup, c.ValPositions = 10, 5, 1, 1000, 2, 0
	c.Out = filepath.Join(t.TempDir(), "run")
	first, err := Run(context.Background(), c, Options{})
	require.NoError(t, err)
	require.Equal(t, 10, first.Step)
	assert.InDelta(t, c.LR*c.MinLRFrac, first.Losses[9].LR, 1e-12, "the first cycle ends at the floor")

	_, err = Run(context.Background(), c, Options{Resume: true, EndAt: 9})
	require.ErrorIs(t, err, ErrConfig)
	more, err := Run(context.Background(), c, Options{Resume: true, EndAt: 20})
	require.NoError(t, err)
	require.Equal(t, 20, more.Step)
	require.Len(t, more.Losses, 10)
	assert.Equal(t, 11, more.Losses[0].Step)
	assert.InDelta(t, c.LR/2, more.Losses[0].LR, 1e-12, "warm-up restarts after the old end")
	assert.InDelta(t, c.LR, more.Losses[1].LR, 1e-12)
	assert.InDelta(t, c.LR*c.MinLRFrac, more.Losses[9].LR, 1e-12)
	ck, err := LoadCheckpoint(filepath.Join(c.Out, LastName))
	require.NoError(t, err)
	assert.Equal(t, 20, ck.State.Config.Steps)
	assert.Equal(t, 10, ck.State.Config.CycleStart)
}

// TestEndEarlier stops a run, resumes it with an earlier last step and checks
// that its decay is compressed to end there.
func TestEndEarlier(t *testing.T) {
	c := tinyConfig(t)
	c.Steps, c.CkptEvery, c.LogEvery, c.ValEvery, c.Warmup, c.ValPositions = 20, 5, 1, 1000, 2, 0
	c.Out = filepath.Join(t.TempDir(), "run")
	_, err := Run(context.Background(), c, Options{AfterStep: func(s StepInfo) error {
		if s.Step == 5 {
			return ErrStopped
		}
		return nil
	}})
	require.ErrorIs(t, err, ErrStopped)
	short, err := Run(context.Background(), c, Options{Resume: true, EndAt: 12})
	require.NoError(t, err)
	require.Equal(t, 12, short.Step)
	require.Len(t, short.Losses, 7)
	assert.InDelta(t, lrAt(6, 2, 12, c.LR, c.MinLRFrac), short.Losses[0].LR, 1e-12)
	assert.Less(t, short.Losses[0].LR, lrAt(6, 2, 20, c.LR, c.MinLRFrac), "the learning rate drops at once")
	assert.InDelta(t, c.LR*c.MinLRFrac, short.Losses[6].LR, 1e-12)
}

// TestStretchAndRestart resumes an interrupted run with a later end (its
// decay is stretched, never a negative learning rate, as one bug had it) and
// then with -restart (a new cycle from the step reached).
func TestStretchAndRestart(t *testing.T) {
	c := tinyConfig(t)
	c.Steps, c.CkptEvery, c.LogEvery, c.ValEvery, c.Warmup, c.ValPositions = 20, 1, 1, 1000, 2, 0
	c.Out = filepath.Join(t.TempDir(), "run")
	_, err := Run(context.Background(), c, Options{AfterStep: stopAt(5)})
	require.ErrorIs(t, err, ErrStopped)
	var lrs []float64
	_, err = Run(context.Background(), c, Options{Resume: true, EndAt: 30, AfterStep: func(s StepInfo) error {
		lrs = append(lrs, s.LR)
		return stopAt(8)(s)
	}})
	require.ErrorIs(t, err, ErrStopped)
	require.Len(t, lrs, 3)
	for i, lr := range lrs {
		assert.InDelta(t, lrAt(6+i, 2, 30, c.LR, c.MinLRFrac), lr, 1e-12, "step %d: the decay stretched to step 30", 6+i)
	}
	assert.Greater(t, lrs[0], lrAt(6, 2, 20, c.LR, c.MinLRFrac), "a later end raises the learning rate")

	_, err = Run(context.Background(), c, Options{Resume: true, EndAt: 8, Restart: true})
	require.ErrorIs(t, err, ErrConfig, "a restart must end past the step reached")
	more, err := Run(context.Background(), c, Options{Resume: true, EndAt: 16, Restart: true})
	require.NoError(t, err)
	require.Equal(t, 16, more.Step)
	require.Len(t, more.Losses, 8)
	assert.Equal(t, 9, more.Losses[0].Step)
	assert.InDelta(t, c.LR/2, more.Losses[0].LR, 1e-12, "warm-up from the step reached")
	assert.InDelta(t, c.LR, more.Losses[1].LR, 1e-12)
	assert.InDelta(t, c.LR*c.MinLRFrac, more.Losses[7].LR, 1e-12)
	ck, err := LoadCheckpoint(filepath.Join(c.Out, LastName))
	require.NoError(t, err)
	assert.Equal(t, 8, ck.State.Config.CycleStart)
	assert.Equal(t, 16, ck.State.Config.Steps)
}

// TestNewData checks that a run resumed on another shard set is refused
// unless told -new-data, which reads the new set from its start and forgets
// the old set's best validation loss; later resumes on the new set need
// nothing more.
func TestNewData(t *testing.T) {
	c := tinyConfig(t)
	c.Steps, c.CkptEvery, c.LogEvery, c.ValEvery, c.Warmup, c.ValPositions = 12, 1, 1, 4, 2, 64
	_, err := Run(context.Background(), c, Options{AfterStep: stopAt(4)})
	require.ErrorIs(t, err, ErrStopped)
	old, err := LoadCheckpoint(filepath.Join(c.Out, LastName))
	require.NoError(t, err)
	oldSet, err := shard.Open(c.Data)
	require.NoError(t, err)
	require.Equal(t, DataID(oldSet, c.TrainSplit), old.State.Data)
	require.NotNil(t, old.State.BestVal)
	require.NotZero(t, old.State.Position.Emitted+old.State.Position.Next, "the old set was read from")

	other := filepath.Join(t.TempDir(), "other")
	require.NoError(t, os.MkdirAll(other, 0o755))
	require.NoError(t, prepShards(fixturePGN, other, 150))
	otherSet, err := shard.Open(other)
	require.NoError(t, err)
	newID := DataID(otherSet, c.TrainSplit)
	require.NotEqual(t, old.State.Data, newID)

	c2 := c
	c2.Data = other
	_, err = Run(context.Background(), c2, Options{Resume: true})
	require.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), "-new-data")

	var first StepInfo
	_, err = Run(context.Background(), c2, Options{Resume: true, NewData: true, AfterStep: func(s StepInfo) error {
		if first.Step == 0 {
			first = s
		}
		if s.Step == 6 {
			return ErrStopped
		}
		return nil
	}})
	require.ErrorIs(t, err, ErrStopped)
	assert.Equal(t, 5, first.Step, "the step count goes on")
	ck, err := LoadCheckpoint(filepath.Join(c.Out, LastName))
	require.NoError(t, err)
	assert.Equal(t, newID, ck.State.Data)
	assert.Equal(t, int64(6*c.BatchSize*c.Accum), ck.State.Samples)
	assert.Nil(t, ck.State.BestVal, "no validation on the new set yet (next at step 8)")

	// Reading the new set from its start: the same position as a fresh source
	// on it after two steps' records.
	src, err := OpenShardSource(otherSet, c.TrainSplit, c.ShuffleBuffer, c.Seed, nil)
	require.NoError(t, err)
	var ex Example
	for i := 0; i < 2*c.BatchSize*c.Accum; i++ {
		require.NoError(t, src.Next(&ex))
	}
	assert.Equal(t, src.Position(), ck.State.Position)
	require.NoError(t, src.Close())

	sum, err := Run(context.Background(), c2, Options{Resume: true})
	require.NoError(t, err, "the run now belongs to the new set")
	assert.Equal(t, 12, sum.Step)
	_, err = Run(context.Background(), c, Options{Resume: true, EndAt: 14})
	require.ErrorIs(t, err, ErrConfig, "and the old set is the other one now")
}

// TestWDLTargets checks the value target with and without a teacher
// win/draw/loss: (1-mix)*onehot(result) + mix*teacher, the teacher alone for a
// record without a result.
func TestWDLTargets(t *testing.T) {
	c := tinyConfig(t)
	set, err := shard.Open(c.Data)
	require.NoError(t, err)
	exs, err := ReadExamples(set, c.TrainSplit, 3)
	require.NoError(t, err)
	exs[0].Tgt.Result = 1
	exs[1].Tgt.Result, exs[1].TeacherWDL, exs[1].HasTeacherWDL = -1, [3]float32{0.2, 0.3, 0.5}, true
	exs[2].Tgt.Result, exs[2].TeacherWDL, exs[2].HasTeacherWDL = 2, [3]float32{0.6, 0.1, 0.3}, true // no result
	hb, err := fillBatch(c.Contract(), exs, 1, 0.25)
	require.NoError(t, err)
	assert.InDeltaSlice(t, []float32{1, 0, 0, 0.05, 0.075, 0.875, 0.6, 0.1, 0.3}, hb.wdlT, 1e-6)
	assert.Equal(t, []float32{1, 1, 1}, hb.wdlW)
}

// TestReadSpread checks that validation examples come evenly from the whole
// split: every k-th record, in order.
func TestReadSpread(t *testing.T) {
	c := tinyConfig(t)
	set, err := shard.Open(c.Data)
	require.NoError(t, err)
	all, err := ReadExamples(set, c.ValSplit, 0)
	require.NoError(t, err)
	require.Greater(t, len(all), 40)
	n := len(all) / 10
	got, err := ReadSpread(set, c.ValSplit, n)
	require.NoError(t, err)
	require.Len(t, got, n)
	k := len(all) / n
	for i := range got {
		require.Equal(t, all[i*k].Enc, got[i].Enc, "example %d is record %d", i, i*k)
	}
	whole, err := ReadSpread(set, c.ValSplit, 0)
	require.NoError(t, err)
	assert.Len(t, whole, len(all))
}
