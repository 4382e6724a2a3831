package torch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/ts"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/nets/transformer"
	"github.com/humchess/humchess/train/data/shard"
)

// File names inside a run directory.
const (
	LastName    = "last.ckpt"     // the latest checkpoint
	BestName    = "best.ckpt"     // the checkpoint with the lowest validation loss
	ConfigName  = "config.json"   // the run's configuration
	MetricsName = "metrics.jsonl" // one Record per line
	CurvesName  = "curves.png"    // loss and accuracy curves
)

// Options are the parts of a run that are not configuration.
type Options struct {
	Log    io.Writer // progress lines; nil discards them
	Resume bool      // continue from Out/last.ckpt
	// EndAt, with Resume, moves the run's last step. For a run that reached
	// its last step, a new learning-rate cycle (warm-up, then cosine decay to
	// EndAt) starts after it (a warm restart). For a run interrupted before
	// its last step, the current cycle's cosine decay is stretched or
	// compressed to end at EndAt (the learning rate moves at once to where
	// the new schedule has it), so a run can be fitted into the time left.
	EndAt int
	// Restart, with EndAt, starts a new learning-rate cycle at the step
	// reached, whether or not the current one has finished (after
	// humchess-train grow, say: the new layers start at zero and want the
	// peak learning rate).
	Restart bool
	// NewData, with Resume, continues the run on another shard set (-data):
	// the saved data position, which belongs to the run's old set, is
	// dropped and the new set's train split is read from its start; the best
	// validation loss is forgotten (it was measured on the old set's
	// validation split). Without it, a resume on a set whose train split
	// differs from the run's is refused.
	NewData bool
	// Precision, with Resume, when not "", replaces the run's precision
	// (Config.Precision): like the threads, it belongs to the machine (bf16
	// autocast pays only where the hardware has bf16 arithmetic).
	Precision string
	// DistillMix and DistillWDLMix, with Resume, when not nil, replace the
	// run's distill_mix and distill_wdl_mix from the next step on: a run
	// distilled from a teacher it has outgrown can finish on the played
	// moves and results. The checkpoints carry the new weights.
	DistillMix, DistillWDLMix *float64
	// LR, with Resume, when not nil, replaces the run's peak learning rate
	// (Config.LR) from the next step on: the current cycle's schedule goes
	// on at the new peak, and so do later cycles. A run far into its warm
	// restarts can be continued at a lower peak without a new run.
	LR *float64
	// NewLRMult, with Resume, when not nil, replaces the run's new_lr_mult
	// (Config.NewLRMult) from the next step on.
	NewLRMult *float64
	// AfterStep, when not nil, is called after every optimizer step (after
	// any checkpoint of that step); an error stops the run at once without
	// saving (ErrStopped simulates a killed process in tests).
	AfterStep func(StepInfo) error
	// Source, when not nil, opens the training source instead of the shard
	// set's train split (e.g. one with teacher distributions); pos is nil for
	// a fresh run or the saved position.
	Source func(pos *shard.Position) (Source, error)
}

// StepInfo describes one finished optimizer step.
type StepInfo struct {
	Step     int
	Loss     float64    // weighted total loss of the step (mean over micro-batches)
	Heads    HeadLosses // per-head mean losses
	LR       float64
	GradNorm float64 // before clipping
}

// Band is the validation move accuracy of one mover-rating band, the
// bands eval reports by (board.RatingBand).
type Band struct {
	Name      string  `json:"name"`   // board.RatingBandName
	Rating    int     `json:"rating"` // the band's lowest rating; -1 unknown
	Positions int     `json:"positions"`
	Top1      float64 `json:"top1"`
}

// ratingOf is a Context rating as a whole rating, -1 when unknown.
func ratingOf(r float32) int {
	if !(r >= 0) {
		return -1
	}
	return int(r)
}

// Record is one line of metrics.jsonl.
type Record struct {
	Kind          string             `json:"kind"` // "train" (mean since the last record) or "val"
	Step          int                `json:"step"`
	Elapsed       float64            `json:"elapsed_s"`
	Loss          float64            `json:"loss"`
	Heads         map[string]float64 `json:"heads"`
	Top1          float64            `json:"top1"`
	Top3          float64            `json:"top3"`
	LR            float64            `json:"lr,omitempty"`
	GradNorm      float64            `json:"grad_norm,omitempty"`
	SamplesPerSec float64            `json:"samples_per_s,omitempty"`
	Positions     int                `json:"positions,omitempty"`
	Uniform       float64            `json:"uniform_baseline,omitempty"` // mean 1/#legal (val)
	Bands         []Band             `json:"bands,omitempty"`
	// The legal-moves head on validation (nets with arch.legal_head only):
	// LegalAcc is the fraction of the 1858 vocabulary entries classified
	// correctly (logit > 0 means legal), averaged over the positions;
	// LegalBaseline is the same for the trivial all-illegal classifier (1 -
	// mean #legal/1858); LegalF1 is the F1 score of the legal moves over all
	// validation entries (the all-illegal classifier scores 0).
	LegalAcc      float64 `json:"legal_acc,omitempty"`
	LegalBaseline float64 `json:"legal_baseline,omitempty"`
	LegalF1       float64 `json:"legal_f1,omitempty"`
}

// Summary is what Run returns.
type Summary struct {
	Step    int     // optimizer steps done
	LastVal *Record // the last validation, nil when none ran
	BestVal float64 // best validation loss (NaN when none)
	Losses  []StepInfo
	Dir     string
}

// Run trains the model of cfg on its shard set, writing checkpoints, metrics
// and plots into cfg.Out. It blocks; on ctx cancellation it saves a
// checkpoint and returns ctx.Err(). The calling goroutine is locked to its OS
// thread for the run (libtorch's grad mode is per thread).
func Run(ctx context.Context, cfg Config, opts Options) (*Summary, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r := &runner{opts: opts, log: opts.Log, start: time.Now()}
	if r.log == nil {
		r.log = io.Discard
	}
	sum, err := r.run(ctx, cfg)
	if r.stop != nil {
		r.stop()
	}
	return sum, err
}

type runner struct {
	opts  Options
	log   io.Writer
	cfg   Config
	dev   gotch.Device
	amp   amp       // bf16 autocast of the training forward pass, or fp32
	bar   *progress // the terminal's progress bar, nil outside the training loop
	model *Model
	opt   *AdamW
	st    State
	start time.Time
	prior float64 // elapsed seconds of earlier sessions of a resumed run

	val      []*hostBatch
	uniform  float64
	batches  chan batchOrErr
	stop     context.CancelFunc
	records  []Record
	metricsF *os.File
}

type batchOrErr struct {
	b   *hostBatch
	err error
}

func (r *runner) logf(format string, args ...any) {
	if r.bar != nil {
		r.bar.clear()
		defer r.bar.redraw()
	}
	fmt.Fprintf(r.log, format+"\n", args...)
}

// override sets a resumed run's configuration value *dst to *v when v is
// given and differs, and says so (each value printed with verb).
func (r *runner) override(name, verb string, v *float64, dst *float64) {
	if v != nil && *v != *dst {
		r.logf("humchess-train: %s "+verb+" instead of the run's "+verb, name, *v, *dst)
		*dst = *v
	}
}

func (r *runner) run(ctx context.Context, cfg Config) (sum *Summary, err error) {
	defer recoverTorch(&err)
	var ck *Checkpoint
	last := filepath.Join(cfg.Out, LastName)
	if r.opts.Resume {
		if ck, err = LoadCheckpoint(last); err != nil {
			return nil, err
		}
		// The run continues with its own configuration; only where the data and
		// the outputs live and what machine runs it may change.
		c := ck.State.Config
		c.Data, c.Out, c.Device, c.Threads = cfg.Data, cfg.Out, cfg.Device, cfg.Threads
		if p := r.opts.Precision; p != "" && p != c.Precision {
			r.logf("humchess-train: precision %s instead of the run's %s", p, c.Precision)
			c.Precision = p
		}
		r.override("distill_mix", "%.2f", r.opts.DistillMix, &c.DistillMix)
		r.override("distill_wdl_mix", "%.2f", r.opts.DistillWDLMix, &c.DistillWDLMix)
		r.override("lr", "%g", r.opts.LR, &c.LR)
		r.override("new_lr_mult", "%g", r.opts.NewLRMult, &c.NewLRMult)
		switch end, at := r.opts.EndAt, ck.State.Step; {
		case r.opts.Restart && end <= at:
			return nil, fmt.Errorf("%w: a restart needs -end-at past the step reached (%d), got %d", ErrConfig, at, end)
		case r.opts.Restart:
			r.logf("humchess-train: a new learning-rate cycle starts after step %d and ends at step %d (warm restart)", at, end)
			c.CycleStart, c.Steps = at, end
		case end == 0 || end == c.Steps:
		case end <= at:
			return nil, fmt.Errorf("%w: -end-at %d is not past the step reached (%d)", ErrConfig, end, at)
		case end > c.Steps && at >= c.Steps:
			r.logf("humchess-train: extending the run from %d to %d steps: a new learning-rate cycle starts after step %d", c.Steps, end, c.Steps)
			c.CycleStart, c.Steps = c.Steps, end
		case end > c.Steps:
			r.logf("humchess-train: ending the run at step %d instead of %d: the current learning-rate decay is stretched to end there", end, c.Steps)
			c.Steps = end
		default:
			r.logf("humchess-train: ending the run at step %d instead of %d: the learning-rate decay is compressed to end there", end, c.Steps)
			c.Steps = end
		}
		cfg = c
		r.st = ck.State
		r.prior = ck.State.Elapsed
	} else if _, err := os.Stat(last); err == nil {
		return nil, fmt.Errorf("%w: %s already holds a run (%s): resume it or choose another directory", ErrConfig, cfg.Out, LastName)
	}
	if err := cfg.finish(); err != nil {
		return nil, err
	}
	r.cfg = cfg
	if r.dev, err = pickDevice(cfg.Device); err != nil {
		return nil, err
	}
	if cfg.Threads > 0 {
		prev := Threads()
		SetThreads(cfg.Threads)
		defer SetThreads(prev)
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, err
	}
	if err := shard.WriteFileAtomic(filepath.Join(cfg.Out, ConfigName), []byte(cfg.JSON()+"\n")); err != nil {
		return nil, err
	}
	r.logf("humchess-train: config %s", compactJSON(cfg))
	r.amp = newAmp(cfg.Precision, r.dev)
	if r.amp.on && !r.amp.cuda && !cpuHasBF16() {
		r.logf("humchess-train: warning: bf16 autocast on a CPU without bf16 instructions (no avx512_bf16 or amx_bf16 in /proc/cpuinfo): it emulates them and runs several times slower than fp32; use -precision fp32 (with -resume too)")
	}
	r.logf("humchess-train: device %v, %s, %d libtorch threads, %d parameters", r.dev, r.amp, Threads(), cfg.Arch.ParamCount())

	set, err := shard.Open(cfg.Data)
	if err != nil {
		return nil, err
	}
	if t := set.Manifest.Teacher; t != nil {
		r.logf("humchess-train: records carry %s's move distributions: move target %.2f*played + %.2f*teacher (distill_mix; validation move loss too, top-1 counts the played move); where they carry its win/draw/loss, value target %.2f*result + %.2f*teacher (distill_wdl_mix)",
			t.Name, 1-cfg.DistillMix, cfg.DistillMix, 1-cfg.DistillWDLMix, cfg.DistillWDLMix)
	} else if r.opts.Source == nil {
		r.logf("humchess-train: no teacher distributions in %s: move targets are the played moves", cfg.Data)
	}
	id := DataID(set, cfg.TrainSplit)
	switch {
	case ck == nil: // a fresh run: State is made below
	case r.opts.NewData:
		r.logf("humchess-train: continuing on a new shard set %s (%s): its train split read from the start, the best validation loss forgotten", cfg.Data, id)
		r.st.Data, r.st.BestVal = id, nil
	case r.st.ReadsOther(id):
		return nil, fmt.Errorf("%w: the run's data position belongs to shard set %s, and the train split of %s is %s: to continue on this set, add -new-data", ErrConfig, r.st.Data, cfg.Data, id)
	default:
		r.st.Data = id
	}
	if err := r.loadVal(set); err != nil {
		return nil, err
	}

	if ck != nil {
		if r.model, err = NewModelFromWeights(ck.Arch, ck.Weights, r.dev); err != nil {
			return nil, err
		}
	} else if r.model, err = NewModel(cfg.Arch, r.dev, cfg.Seed); err != nil {
		return nil, err
	}
	if r.opt, err = NewAdamW(r.model.params, r.dev, cfg.Beta1, cfg.Beta2, cfg.AdamEps, cfg.WeightDecay); err != nil {
		return nil, err
	}
	if ck != nil {
		if err := r.loadMoments(ck); err != nil {
			return nil, err
		}
		r.logf("humchess-train: resumed %s at step %d", last, r.st.Step)
		if err := r.setNewLRMults(); err != nil {
			return nil, err
		}
	} else if cfg.NewLRMult != 0 && cfg.NewLRMult != 1 {
		return nil, fmt.Errorf("%w: new_lr_mult %g is for a widened net (humchess-train grow -dim/-ffn, then train -resume), not a fresh run", ErrConfig, cfg.NewLRMult)
	} else {
		r.st = State{Config: cfg, Data: id}
		r.keepBetterBest()
	}
	r.st.RNGStream = "none besides the data position: initialisation from seed, no dropout"

	if err := r.openMetrics(); err != nil {
		return nil, err
	}
	defer r.metricsF.Close()

	var pos *shard.Position
	if ck != nil && !r.opts.NewData {
		p := ck.State.Position
		pos = &p
	}
	var src Source
	if r.opts.Source != nil {
		src, err = r.opts.Source(pos)
	} else {
		src, err = OpenShardSource(set, cfg.TrainSplit, cfg.ShuffleBuffer, cfg.Seed, pos)
	}
	if err != nil {
		return nil, err
	}
	lctx, cancel := context.WithCancel(context.Background())
	r.stop = cancel
	r.batches = make(chan batchOrErr, 2)
	go r.load(lctx, src)

	return r.loop(ctx)
}

// loadVal reads and converts the fixed validation positions.
func (r *runner) loadVal(set *shard.Set) error {
	if r.cfg.ValPositions == 0 || set.Records(r.cfg.ValSplit) == 0 {
		r.logf("humchess-train: no validation (split %q has %d records)", r.cfg.ValSplit, set.Records(r.cfg.ValSplit))
		return nil
	}
	exs, err := ReadSpread(set, r.cfg.ValSplit, r.cfg.ValPositions)
	if err != nil {
		return err
	}
	r.uniform = uniformBaseline(exs)
	for i := 0; i < len(exs); i += r.cfg.BatchSize {
		// the value head is validated against game results only
		b, err := fillBatch(r.cfg.Contract(), exs[i:min(i+r.cfg.BatchSize, len(exs))], r.cfg.DistillMix, 0)
		if err != nil {
			return err
		}
		r.val = append(r.val, b)
	}
	r.logf("humchess-train: %d validation positions, uniform-over-legal accuracy %.4f", len(exs), r.uniform)
	return nil
}

// loadMoments restores the optimizer from a checkpoint.
func (r *runner) loadMoments(ck *Checkpoint) error {
	for i, p := range r.model.params {
		m, okm := ck.M[p.name]
		v, okv := ck.V[p.name]
		if !okm || !okv {
			return fmt.Errorf("%w: optimizer moments of %s missing", ErrCheckpoint, p.name)
		}
		r.opt.m[i].Copy_(floatTensor(m, p.shape, r.dev))
		r.opt.v[i].Copy_(floatTensor(v, p.shape, r.dev))
	}
	r.opt.Step = ck.State.AdamStep
	return nil
}

// setNewLRMults gives the entries a widening added (State.WidenedFrom) the
// learning-rate multiplier new_lr_mult.
func (r *runner) setNewLRMults() error {
	k := r.cfg.NewLRMult
	if k == 0 || k == 1 {
		return nil
	}
	if r.st.WidenedFrom == nil {
		return fmt.Errorf("%w: new_lr_mult %g: the run's net was not widened (humchess-train grow -dim/-ffn), so no entries are new", ErrConfig, k)
	}
	old := map[string]transformer.Tensor{}
	for _, t := range r.st.WidenedFrom.Tensors() {
		old[t.Name] = t
	}
	cur := map[string]transformer.Tensor{}
	for _, t := range r.cfg.Arch.Tensors() {
		cur[t.Name] = t
	}
	total := 0
	for i, p := range r.model.params {
		t, ok := cur[p.name]
		if !ok {
			return fmt.Errorf("%w: parameter %s is not in the run's architecture", ErrCheckpoint, p.name)
		}
		mult, n := newEntryMults(old, t, float32(k))
		if n == 0 {
			continue
		}
		if err := r.opt.SetMult(i, mult); err != nil {
			return err
		}
		total += n
	}
	r.logf("humchess-train: %d entries added by widening (from %d x %d, ffn %d) learn at %g times the learning rate", total, r.st.WidenedFrom.Layers, r.st.WidenedFrom.Dim, r.st.WidenedFrom.FFNDim, k)
	return nil
}

// keepBetterBest reads the validation loss of an existing best checkpoint so
// a new run in the same directory replaces it only when it does better.
func (r *runner) keepBetterBest() {
	ck, err := LoadCheckpoint(filepath.Join(r.cfg.Out, BestName))
	if err != nil || ck.State.ValLoss == nil {
		return
	}
	v := *ck.State.ValLoss
	r.st.BestVal = &v
	r.logf("humchess-train: keeping %s (validation loss %.5f) unless beaten", BestName, v)
}

// load produces batches until ctx ends.
// A source that is an io.Closer is closed when it ends.
func (r *runner) load(ctx context.Context, src Source) {
	defer close(r.batches)
	if c, ok := src.(io.Closer); ok {
		defer c.Close()
	}
	for {
		exs := make([]Example, r.cfg.BatchSize)
		var err error
		for i := range exs {
			if err = src.Next(&exs[i]); err != nil {
				break
			}
		}
		var b *hostBatch
		if err == nil {
			b, err = fillBatch(r.cfg.Contract(), exs, r.cfg.DistillMix, r.cfg.DistillWDLMix)
		}
		if b != nil {
			b.after = src.Position()
		}
		select {
		case r.batches <- batchOrErr{b, err}:
		case <-ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}

// acc accumulates training metrics between records.
type acc struct {
	steps, rows, top1, top3 int
	loss                    float64
	heads                   HeadLosses
	gradNorm                float64
	samples                 int
	since                   time.Time
}

func (r *runner) loop(ctx context.Context) (*Summary, error) {
	cfg := r.cfg
	w := cfg.weights()
	sum := &Summary{Step: r.st.Step, BestVal: math.NaN(), Dir: cfg.Out}
	a := acc{since: time.Now()}
	r.bar = newProgress(r.log, r.st.Step+1, cfg.Steps)
	defer func() { r.bar.done(); r.bar = nil }()
	for step := r.st.Step + 1; step <= cfg.Steps; step++ {
		if err := ctx.Err(); err != nil {
			if err2 := r.checkpoint(nil); err2 != nil {
				return sum, err2
			}
			return sum, err
		}
		info := StepInfo{Step: step}
		for k := 0; k < cfg.Accum; k++ {
			be, ok := <-r.batches
			if !ok {
				return sum, fmt.Errorf("%w: training data ended", ErrData)
			}
			if be.err != nil {
				return sum, be.err
			}
			hb := be.b
			var s scope
			db := hb.upload(&s, cfg.Arch, r.dev)
			r.amp.enter()
			out := r.model.Forward(&s, db.pieces, db.squares, db.global)
			lo := s.losses(out, db, w, 1/float64(cfg.Accum))
			r.amp.exit()
			lo.total.MustBackward()
			heads := hostFloats(lo.perHead)
			top := s.top3(lo.masked)
			s.drop()
			for h := range heads {
				info.Heads[h] += float64(heads[h]) / float64(cfg.Accum)
				info.Loss += w[h] * float64(heads[h]) / float64(cfg.Accum)
			}
			for i, t := range hb.target {
				if t < 0 {
					continue
				}
				a.rows++
				if top[3*i] == int64(t) {
					a.top1++
				}
				if top[3*i] == int64(t) || top[3*i+1] == int64(t) || top[3*i+2] == int64(t) {
					a.top3++
				}
			}
			a.samples += hb.n
			r.st.Samples += int64(hb.n)
			r.st.Position = hb.after
		}
		var s scope
		gn := r.opt.gradNorm(&s)
		s.drop()
		scale := 1.0
		if cfg.ClipNorm > 0 && gn > cfg.ClipNorm {
			scale = cfg.ClipNorm / gn
		}
		info.LR = lrAt(step-cfg.CycleStart, cfg.Warmup, cfg.Steps-cfg.CycleStart, cfg.LR, cfg.MinLRFrac)
		info.GradNorm = gn
		if err := r.opt.Update(info.LR, scale); err != nil {
			return sum, err
		}
		if math.IsNaN(info.Loss) || math.IsInf(info.Loss, 0) {
			return sum, fmt.Errorf("%w: loss is %v at step %d", ErrTorch, info.Loss, step)
		}
		r.st.Step, r.st.AdamStep = step, r.opt.Step
		sum.Step = step
		sum.Losses = append(sum.Losses, info)
		r.bar.step(step, cfg.BatchSize*cfg.Accum, info.Loss)
		a.steps++
		a.loss += info.Loss
		a.gradNorm += gn
		for h := range a.heads {
			a.heads[h] += info.Heads[h]
		}

		final := step == cfg.Steps
		if step%cfg.LogEvery == 0 || final {
			r.trainRecord(&a, info)
		}
		var valLoss *float64
		if len(r.val) > 0 && (step%cfg.ValEvery == 0 || final) {
			rec, err := r.validate(step)
			if err != nil {
				return sum, err
			}
			sum.LastVal = rec
			v := rec.Loss
			valLoss = &v
		}
		if step%cfg.CkptEvery == 0 || final || valLoss != nil {
			if err := r.checkpoint(valLoss); err != nil {
				return sum, err
			}
		}
		if r.opts.AfterStep != nil {
			if err := r.opts.AfterStep(info); err != nil {
				return sum, err
			}
		}
	}
	if r.st.BestVal != nil {
		sum.BestVal = *r.st.BestVal
	}
	r.plot()
	return sum, nil
}

// elapsed returns the run's training seconds, over all its sessions.
func (r *runner) elapsed() float64 { return r.prior + time.Since(r.start).Seconds() }

func (r *runner) trainRecord(a *acc, info StepInfo) {
	n := float64(max(a.steps, 1))
	rec := Record{Kind: "train", Step: info.Step, Elapsed: r.elapsed(), Loss: a.loss / n, Heads: map[string]float64{},
		LR: info.LR, GradNorm: a.gradNorm / n, SamplesPerSec: float64(a.samples) / time.Since(a.since).Seconds()}
	for h, name := range Heads {
		if r.cfg.hasHead(h) {
			rec.Heads[name] = a.heads[h] / n
		}
	}
	if a.rows > 0 {
		rec.Top1, rec.Top3 = float64(a.top1)/float64(a.rows), float64(a.top3)/float64(a.rows)
	}
	legal := ""
	if r.cfg.hasHead(HeadLegal) {
		legal = fmt.Sprintf("  legal %.4f", rec.Heads["legal"])
	}
	r.logf("step %6d/%d  loss %.4f  move %.4f  wdl %.4f  time %.4f%s  top1 %.3f  top3 %.3f  lr %.2e  |g| %.3f  %.0f pos/s",
		info.Step, r.cfg.Steps, rec.Loss, rec.Heads["move"], rec.Heads["wdl"], rec.Heads["time"], legal, rec.Top1, rec.Top3,
		rec.LR, rec.GradNorm, rec.SamplesPerSec)
	r.write(rec)
	*a = acc{since: time.Now()}
}

// validate runs the fixed validation positions and records the metrics.
func (r *runner) validate(step int) (*Record, error) {
	w := r.cfg.weights()
	ng := ts.NewNoGradGuard()
	defer ng.Drop()
	var heads, hw HeadLosses
	var rows, top1, top3 int
	bands := map[int]*Band{} // by board.RatingBand
	var lg legalStats
	for _, hb := range r.val {
		var s scope
		db := hb.upload(&s, r.cfg.Arch, r.dev)
		out := r.model.Forward(&s, db.pieces, db.squares, db.global)
		lo := s.losses(out, db, w, 1)
		hl := hostFloats(lo.perHead)
		top := s.top3(lo.masked)
		if out.Legal != nil {
			lg.add(hostFloats(out.Legal), hb.mask)
		}
		s.drop()
		for h := range heads {
			wt := float64(hb.n) // the legal head: every row
			if h < len(db.sumW) {
				wt = db.sumW[h]
			}
			heads[h] += float64(hl[h]) * wt
			hw[h] += wt
		}
		for i, t := range hb.target {
			if t < 0 {
				continue
			}
			rows++
			k := board.RatingBand(ratingOf(hb.rating[i]))
			b := bands[k]
			if b == nil {
				b = &Band{Rating: k}
				bands[k] = b
			}
			b.Positions++
			if top[3*i] == int64(t) {
				top1++
				b.Top1++
			}
			if top[3*i] == int64(t) || top[3*i+1] == int64(t) || top[3*i+2] == int64(t) {
				top3++
			}
		}
	}
	rec := &Record{Kind: "val", Step: step, Elapsed: r.elapsed(), Heads: map[string]float64{}, Positions: rows, Uniform: r.uniform}
	for h, name := range Heads {
		if !r.cfg.hasHead(h) {
			continue
		}
		if hw[h] > 0 {
			heads[h] /= hw[h]
		}
		rec.Heads[name] = heads[h]
		rec.Loss += w[h] * heads[h]
	}
	legal := ""
	if r.cfg.hasHead(HeadLegal) {
		rec.LegalAcc, rec.LegalBaseline, rec.LegalF1 = lg.metrics()
		legal = fmt.Sprintf("  legal %.4f acc %.4f (all-illegal %.4f) F1 %.3f",
			rec.Heads["legal"], rec.LegalAcc, rec.LegalBaseline, rec.LegalF1)
	}
	if rows > 0 {
		rec.Top1, rec.Top3 = float64(top1)/float64(rows), float64(top3)/float64(rows)
	}
	for _, b := range bands {
		b.Name = board.RatingBandName(b.Rating)
		b.Top1 /= float64(b.Positions)
		rec.Bands = append(rec.Bands, *b)
	}
	slices.SortFunc(rec.Bands, func(a, b Band) int { return a.Rating - b.Rating })
	r.logf("val  %6d  loss %.4f  move %.4f  top1 %.3f  top3 %.3f  (uniform %.3f, %d positions)%s",
		step, rec.Loss, rec.Heads["move"], rec.Top1, rec.Top3, r.uniform, rows, legal)
	r.write(*rec)
	return rec, nil
}

// checkpoint writes last.ckpt and, when valLoss beats the best so far, best.ckpt.
func (r *runner) checkpoint(valLoss *float64) error {
	w, err := r.model.Weights()
	if err != nil {
		return err
	}
	ck := &Checkpoint{Arch: r.model.arch, Weights: w, M: transformer.Weights{}, V: transformer.Weights{}}
	for i, p := range r.model.params {
		ck.M[p.name] = hostFloats(r.opt.m[i])
		ck.V[p.name] = hostFloats(r.opt.v[i])
	}
	better := valLoss != nil && (r.st.BestVal == nil || *valLoss < *r.st.BestVal)
	if better {
		v := *valLoss
		r.st.BestVal = &v
	}
	r.st.ValLoss = valLoss
	r.st.Elapsed = r.elapsed()
	r.st.Config = r.cfg
	ck.State = r.st
	if err := SaveCheckpoint(filepath.Join(r.cfg.Out, LastName), ck); err != nil {
		return err
	}
	if better {
		if err := SaveCheckpoint(filepath.Join(r.cfg.Out, BestName), ck); err != nil {
			return err
		}
		r.logf("humchess-train: step %d: new best validation loss %.5f -> %s", r.st.Step, *valLoss, BestName)
	}
	r.plot()
	return nil
}

// openMetrics opens metrics.jsonl for appending, keeping (on resume) only
// the records up to the checkpoint's step, and reads them for the plot.
func (r *runner) openMetrics() error {
	path := filepath.Join(r.cfg.Out, MetricsName)
	var keep []byte
	if b, err := os.ReadFile(path); err == nil && r.opts.Resume {
		dec := json.NewDecoder(bytes.NewReader(b))
		for {
			var rec Record
			if err := dec.Decode(&rec); err != nil {
				break
			}
			if rec.Step > r.st.Step {
				continue // written after the checkpoint by a run that was killed
			}
			r.records = append(r.records, rec)
			line, _ := json.Marshal(rec)
			keep = append(append(keep, line...), '\n')
		}
	}
	if err := shard.WriteFileAtomic(path, keep); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	r.metricsF = f
	return nil
}

func (r *runner) write(rec Record) {
	r.records = append(r.records, rec)
	line, err := json.Marshal(rec)
	if err != nil {
		return
	}
	if _, err := r.metricsF.Write(append(line, '\n')); err != nil {
		r.logf("humchess-train: writing metrics: %v", err)
	}
}

func (r *runner) plot() {
	if err := PlotCurves(filepath.Join(r.cfg.Out, CurvesName), r.records); err != nil {
		r.logf("humchess-train: plot: %v", err)
	}
}

// compactJSON returns v as one line of JSON.
func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
