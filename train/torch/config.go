package torch

import (
	"bytes"
	"embed"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/nets/transformer"
)

//go:embed presets/*.json
var presetFS embed.FS

// Config is every setting of a training run: one typed struct with defaults
// (the "default" preset), overridable by a preset, a JSON file and flags,
// logged at start and saved in every checkpoint.
type Config struct {
	Preset string           `json:"preset"` // preset the run started from
	Arch   transformer.Arch `json:"arch"`   // square_dim, global_dim and contract_* are set from the contract

	Data       string `json:"data"`        // shard set directory (train/data/shard)
	TrainSplit string `json:"train_split"` // split to train on
	ValSplit   string `json:"val_split"`   // split to validate on
	Out        string `json:"out"`         // run directory: checkpoints, metrics, plots

	Device  string `json:"device"`  // "cpu", "cuda" or "auto" (cuda when available)
	Threads int    `json:"threads"` // libtorch intra-op threads; 0 = leave libtorch's setting (OMP_NUM_THREADS)
	// Precision of the training forward pass: "bf16" runs it under libtorch's
	// autocast to bfloat16 (weights, gradients and optimizer state stay fp32),
	// "fp32" runs it in float32, "auto" (or empty) is bf16 on CUDA, fp32 on CPU.
	Precision string `json:"precision"`
	Seed      uint64 `json:"seed"` // initialisation and data order

	Steps int `json:"steps"` // optimizer steps
	// CycleStart is the step the current learning-rate cycle (warm-up, then
	// cosine decay to Steps) started after: 0 for a run's first cycle, the
	// previous end for a run extended on resume (Options.EndAt).
	CycleStart  int     `json:"cycle_start,omitempty"`
	BatchSize   int     `json:"batch_size"`   // positions per micro-batch
	Accum       int     `json:"accum"`        // micro-batches per optimizer step
	LR          float64 `json:"lr"`           // peak learning rate
	MinLRFrac   float64 `json:"min_lr_frac"`  // cosine decay floor, fraction of LR
	Warmup      int     `json:"warmup"`       // linear warm-up steps
	WeightDecay float64 `json:"weight_decay"` // AdamW decoupled decay (matrices and embeddings only)
	Beta1       float64 `json:"beta1"`        // AdamW first-moment decay
	Beta2       float64 `json:"beta2"`        // AdamW second-moment decay
	AdamEps     float64 `json:"adam_eps"`     // AdamW epsilon
	ClipNorm    float64 `json:"clip_norm"`    // global gradient-norm clip; 0 = off

	// NewLRMult multiplies the learning rate (and weight decay) of the
	// entries a widening added (State.WidenedFrom; humchess-train grow -dim
	// or -ffn): they start at zero or at a fresh net's scale beside weights
	// trained for the whole run, and at the run's late peak they hardly grow.
	// 0 or 1: the same learning rate for every entry.
	NewLRMult float64 `json:"new_lr_mult,omitempty"`

	ShuffleBuffer int `json:"shuffle_buffer"` // records per shuffle window

	WMove float64 `json:"w_move"` // loss weight of the move head
	WWDL  float64 `json:"w_wdl"`  // loss weight of the win/draw/loss head
	WTime float64 `json:"w_time"` // loss weight of the think-time head
	WFrom float64 `json:"w_from"` // loss weight of the from-square head
	WTo   float64 `json:"w_to"`   // loss weight of the to-square head
	// WLegal is the loss weight of the legal-moves head (binary cross-entropy
	// per vocabulary move); it counts only when arch.legal_head is on.
	WLegal float64 `json:"w_legal"`

	// DistillMix is the weight of a record's teacher distribution in the move
	// target when it has one: target = (1-mix)*onehot(played) + mix*teacher.
	DistillMix float64 `json:"distill_mix"`
	// DistillWDLMix is the weight of a record's teacher win/draw/loss in the
	// value target when it has one: (1-mix)*onehot(result) + mix*teacher.
	DistillWDLMix float64 `json:"distill_wdl_mix"`

	LogEvery     int `json:"log_every"`     // steps between progress lines and metric records
	ValEvery     int `json:"val_every"`     // steps between validations
	CkptEvery    int `json:"ckpt_every"`    // steps between checkpoints (a killed run loses at most this many)
	ValPositions int `json:"val_positions"` // validation positions (fixed, spread evenly over the split: ReadSpread)

	ContractDerived uint32 `json:"contract_derived"` // board.Contract.Derived bits of the inputs
}

// Defaults returns the built-in defaults: the "default" preset with no data
// or output directory.
func Defaults() Config {
	c, err := Preset("default")
	if err != nil { // the embedded preset is tested
		panic(err)
	}
	return c
}

// base returns the settings that no preset changes.
func base() Config {
	return Config{
		TrainSplit: "train", ValSplit: "validation", Out: "run",
		Device: "auto", Precision: "auto", Seed: 1,
		Accum: 1, Beta1: 0.9, Beta2: 0.95, AdamEps: 1e-8, ClipNorm: 1,
		WMove: 1, WWDL: 0.5, WTime: 0.1, WFrom: 0.05, WTo: 0.05, WLegal: 0.1, DistillMix: 1, DistillWDLMix: 0.5,
		ContractDerived: board.DefaultContract().Derived,
	}
}

// Presets lists the preset names.
func Presets() []string { return []string{"tiny", "default", "large"} }

// Preset returns the named preset over the base settings.
func Preset(name string) (Config, error) {
	b, err := presetFS.ReadFile("presets/" + strings.ToLower(name) + ".json")
	if err != nil {
		return Config{}, fmt.Errorf("%w: unknown preset %q (want %s)", ErrConfig, name, strings.Join(Presets(), ", "))
	}
	c := base()
	if err := c.merge(b); err != nil {
		return Config{}, fmt.Errorf("preset %s: %w", name, err)
	}
	c.Preset = strings.ToLower(name)
	return c, c.finish()
}

// merge overlays a JSON object on c, refusing unknown keys.
func (c *Config) merge(js []byte) error {
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(c); err != nil {
		return fmt.Errorf("%w: %v", ErrConfig, err)
	}
	return nil
}

// Contract returns the board contract the inputs are built with.
func (c *Config) Contract() board.Contract {
	return board.Contract{Version: board.ContractVersion, Derived: c.ContractDerived}
}

// finish fills the architecture's input sizes from the contract and checks
// everything.
func (c *Config) finish() error {
	ct := c.Contract()
	if err := ct.Validate(); err != nil {
		return err
	}
	c.Arch.SquareDim, c.Arch.GlobalDim = ct.SquareDim(), ct.GlobalDim()
	c.Arch.ContractVersion, c.Arch.ContractDerived = ct.Version, ct.Derived
	if c.Arch.NormEps == 0 {
		c.Arch.NormEps = transformer.DefaultNormEps
	}
	return c.Validate()
}

// Validate reports the first setting out of range, wrapping ErrConfig.
func (c *Config) Validate() error {
	if err := c.Arch.Validate(); err != nil {
		return fmt.Errorf("%w: %v", ErrConfig, err)
	}
	bad := func(name string, v any, want string) error {
		return fmt.Errorf("%w: %s = %v, want %s", ErrConfig, name, v, want)
	}
	switch {
	case c.Steps < 1:
		return bad("steps", c.Steps, ">= 1")
	case c.BatchSize < 1:
		return bad("batch_size", c.BatchSize, ">= 1")
	case c.Accum < 1:
		return bad("accum", c.Accum, ">= 1")
	case !(c.LR > 0):
		return bad("lr", c.LR, "> 0")
	case c.MinLRFrac < 0 || c.MinLRFrac > 1:
		return bad("min_lr_frac", c.MinLRFrac, "0..1")
	case c.Warmup < 0:
		return bad("warmup", c.Warmup, ">= 0")
	case c.WeightDecay < 0:
		return bad("weight_decay", c.WeightDecay, ">= 0")
	case c.Beta1 < 0 || c.Beta1 >= 1, c.Beta2 < 0 || c.Beta2 >= 1:
		return bad("beta1/beta2", [2]float64{c.Beta1, c.Beta2}, "0 <= beta < 1")
	case !(c.AdamEps > 0):
		return bad("adam_eps", c.AdamEps, "> 0")
	case c.ClipNorm < 0:
		return bad("clip_norm", c.ClipNorm, ">= 0")
	case c.NewLRMult < 0:
		return bad("new_lr_mult", c.NewLRMult, ">= 0")
	case c.ShuffleBuffer < 1:
		return bad("shuffle_buffer", c.ShuffleBuffer, ">= 1")
	case c.WMove < 0 || c.WWDL < 0 || c.WTime < 0 || c.WFrom < 0 || c.WTo < 0 || c.WLegal < 0:
		return bad("loss weights", []float64{c.WMove, c.WWDL, c.WTime, c.WFrom, c.WTo, c.WLegal}, ">= 0")
	case c.DistillMix < 0 || c.DistillMix > 1:
		return bad("distill_mix", c.DistillMix, "0..1")
	case c.DistillWDLMix < 0 || c.DistillWDLMix > 1:
		return bad("distill_wdl_mix", c.DistillWDLMix, "0..1")
	case c.LogEvery < 1 || c.ValEvery < 1 || c.CkptEvery < 1:
		return bad("log_every/val_every/ckpt_every", []int{c.LogEvery, c.ValEvery, c.CkptEvery}, ">= 1")
	case c.ValPositions < 0:
		return bad("val_positions", c.ValPositions, ">= 0")
	case c.Threads < 0:
		return bad("threads", c.Threads, ">= 0")
	case c.Device != "cpu" && c.Device != "cuda" && c.Device != "auto":
		return bad("device", c.Device, "cpu, cuda or auto")
	case c.Precision != "" && c.Precision != "auto" && c.Precision != "fp32" && c.Precision != "bf16":
		return bad("precision", c.Precision, "auto, fp32 or bf16")
	}
	return nil
}

// JSON returns the configuration as indented JSON.
func (c Config) JSON() string {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil { // plain fields only
		return "{}"
	}
	return string(b)
}

// Flags binds every setting to a flag of fs (names as the JSON keys, with
// dashes). Parse fs after calling it; the values in c are the defaults shown.
func (c *Config) Flags(fs *flag.FlagSet) {
	fs.StringVar(&c.Data, "data", c.Data, "shard set directory (from humchess prep)")
	fs.StringVar(&c.TrainSplit, "train-split", c.TrainSplit, "split to train on")
	fs.StringVar(&c.ValSplit, "val-split", c.ValSplit, "split to validate on")
	fs.StringVar(&c.Out, "out", c.Out, "run directory (checkpoints, metrics.jsonl, curves.png)")
	fs.StringVar(&c.Device, "device", c.Device, "cpu, cuda or auto")
	fs.IntVar(&c.Threads, "threads", c.Threads, "libtorch threads (0: OMP_NUM_THREADS)")
	fs.StringVar(&c.Precision, "precision", c.Precision, "forward pass precision: auto (bf16 on CUDA, fp32 on CPU), fp32 or bf16 (autocast)")
	fs.Uint64Var(&c.Seed, "seed", c.Seed, "seed of initialisation and data order")
	fs.IntVar(&c.Steps, "steps", c.Steps, "optimizer steps")
	fs.IntVar(&c.BatchSize, "batch-size", c.BatchSize, "positions per micro-batch")
	fs.IntVar(&c.Accum, "accum", c.Accum, "micro-batches per optimizer step (gradient accumulation)")
	fs.Float64Var(&c.LR, "lr", c.LR, "peak learning rate (with -resume: replaces the run's peak from the next step on)")
	fs.Float64Var(&c.MinLRFrac, "min-lr-frac", c.MinLRFrac, "cosine floor as a fraction of lr")
	fs.IntVar(&c.Warmup, "warmup", c.Warmup, "linear warm-up steps")
	fs.Float64Var(&c.WeightDecay, "weight-decay", c.WeightDecay, "AdamW weight decay")
	fs.Float64Var(&c.Beta1, "beta1", c.Beta1, "AdamW beta1")
	fs.Float64Var(&c.Beta2, "beta2", c.Beta2, "AdamW beta2")
	fs.Float64Var(&c.AdamEps, "adam-eps", c.AdamEps, "AdamW epsilon")
	fs.Float64Var(&c.ClipNorm, "clip-norm", c.ClipNorm, "gradient norm clip (0 off)")
	fs.Float64Var(&c.NewLRMult, "new-lr-mult", c.NewLRMult, "learning-rate multiplier of the entries a widening added (humchess-train grow -dim/-ffn; with -resume: replaces the run's from the next step on; 0 or 1 off)")
	fs.IntVar(&c.ShuffleBuffer, "shuffle-buffer", c.ShuffleBuffer, "records per shuffle window")
	fs.Float64Var(&c.WMove, "w-move", c.WMove, "move loss weight")
	fs.Float64Var(&c.WWDL, "w-wdl", c.WWDL, "win/draw/loss loss weight")
	fs.Float64Var(&c.WTime, "w-time", c.WTime, "think-time loss weight")
	fs.Float64Var(&c.WFrom, "w-from", c.WFrom, "from-square loss weight")
	fs.Float64Var(&c.WTo, "w-to", c.WTo, "to-square loss weight")
	fs.Float64Var(&c.WLegal, "w-legal", c.WLegal, "legal-moves head loss weight (with -legal-head)")
	fs.Float64Var(&c.DistillMix, "distill-mix", c.DistillMix, "weight of a teacher distribution in the move target")
	fs.Float64Var(&c.DistillWDLMix, "distill-wdl-mix", c.DistillWDLMix, "weight of a teacher win/draw/loss in the value target")
	fs.IntVar(&c.LogEvery, "log-every", c.LogEvery, "steps between progress lines")
	fs.IntVar(&c.ValEvery, "val-every", c.ValEvery, "steps between validations")
	fs.IntVar(&c.CkptEvery, "ckpt-every", c.CkptEvery, "steps between checkpoints")
	fs.IntVar(&c.ValPositions, "val-positions", c.ValPositions, "validation positions")
	fs.IntVar(&c.Arch.Layers, "layers", c.Arch.Layers, "encoder layers")
	fs.IntVar(&c.Arch.Dim, "dim", c.Arch.Dim, "model width")
	fs.IntVar(&c.Arch.Heads, "heads", c.Arch.Heads, "attention heads")
	fs.IntVar(&c.Arch.FFNDim, "ffn-dim", c.Arch.FFNDim, "feed-forward width")
	fs.IntVar(&c.Arch.PolicyDim, "policy-dim", c.Arch.PolicyDim, "move head query/key width")
	fs.BoolVar(&c.Arch.Smolgen, "smolgen", c.Arch.Smolgen, "smolgen attention bias")
	fs.BoolVar(&c.Arch.LegalHead, "legal-head", c.Arch.LegalHead, "auxiliary legal-moves head (arch legal_head)")
}

// ParseArgs builds a Config from command-line arguments: -preset NAME (default
// "default") and -config FILE.json are applied first, in that order, then
// every other flag. extra, when not nil, declares the caller's own flags on
// the same set. It returns the remaining positional arguments.
func ParseArgs(name string, args []string, extra func(*flag.FlagSet)) (Config, []string, error) {
	pre := flag.NewFlagSet(name, flag.ContinueOnError)
	pre.SetOutput(discard{})
	preset := pre.String("preset", "default", "")
	file := pre.String("config", "", "")
	// Only -preset and -config matter in this pass; scan them by hand so the
	// other flags need not be declared twice.
	var early []string
	for i := 0; i < len(args); i++ {
		a := strings.TrimLeft(args[i], "-")
		if !strings.HasPrefix(args[i], "-") {
			continue
		}
		for _, n := range []string{"preset", "config"} {
			if a == n && i+1 < len(args) {
				early = append(early, "-"+n, args[i+1])
			} else if strings.HasPrefix(a, n+"=") {
				early = append(early, "-"+a)
			}
		}
	}
	if err := pre.Parse(early); err != nil {
		return Config{}, nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	c, err := Preset(*preset)
	if err != nil {
		return Config{}, nil, err
	}
	if *file != "" {
		b, err := os.ReadFile(*file)
		if err != nil {
			return Config{}, nil, fmt.Errorf("%w: %v", ErrConfig, err)
		}
		if err := c.merge(b); err != nil {
			return Config{}, nil, fmt.Errorf("%s: %w", *file, err)
		}
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.String("preset", *preset, "preset: "+strings.Join(Presets(), ", "))
	fs.String("config", *file, "JSON file overlaid on the preset")
	c.Flags(fs)
	if extra != nil {
		extra(fs)
	}
	if err := fs.Parse(args); err != nil {
		return Config{}, nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	if err := c.finish(); err != nil {
		return Config{}, nil, err
	}
	return c, fs.Args(), nil
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
