// Command humchess-train trains the HumChess transformer with libtorch
// (package train/torch) and exports it for the engine. Wiring only.
//
//	humchess-train train  [-preset tiny|default|large] [-config FILE.json] [flags] -data SHARDS -out RUN
//	humchess-train train  -resume -data SHARDS -out RUN
//	humchess-train export -ckpt RUN/best.ckpt [-safetensors NET.safetensors] [-onnx NET.onnx]
//	humchess-train grow   -ckpt RUN/last.ckpt [-add N] [-dim D [-ffn F]] [-rating-experts L] -out GROWN.ckpt
//	humchess-train adopt  -ckpt RUN/last.ckpt -net NET.onnx -steps N -data SHARDS -out RUN/last.ckpt
//	humchess-train average [-weights W1,W2,...] [-out AVG.ckpt] [-onnx NET.onnx] A.ckpt B.ckpt ...
//	humchess-train presets
//
// SIGINT or SIGTERM saves a checkpoint and exits; after SIGKILL, -resume
// continues from the last checkpoint (at most -ckpt-every steps lost).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/humchess/humchess/nets/transformer"
	"github.com/humchess/humchess/train/data/shard"
	"github.com/humchess/humchess/train/torch"
)

var version = "dev"

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "humchess-train:", err)
		os.Exit(1)
	}
}

func run(args []string, log io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: humchess-train train|export|grow|adopt|average|presets|version [flags] (-h for each)")
	}
	switch args[0] {
	case "train":
		var resume, restart, newData bool
		var endAt int
		var trainFlags *flag.FlagSet
		cfg, rest, err := torch.ParseArgs("humchess-train train", args[1:], func(fs *flag.FlagSet) {
			trainFlags = fs
			fs.BoolVar(&resume, "resume", false, "continue the run in -out from its last checkpoint")
			fs.IntVar(&endAt, "end-at", 0, "with -resume: end the run at this step; after a finished cycle a new learning-rate cycle, within one its decay stretched or compressed")
			fs.BoolVar(&restart, "restart", false, "with -resume -end-at: start a new learning-rate cycle at the step reached (warm restart), finished cycle or not")
			fs.BoolVar(&newData, "new-data", false, "with -resume: continue on another shard set (-data), read from its start (the run's data position belongs to its old set)")
		})
		if err != nil {
			return err
		}
		if len(rest) > 0 {
			return fmt.Errorf("unexpected arguments %q", rest)
		}
		if cfg.Data == "" {
			return errors.New("train: -data (a shard set directory) is required")
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		if endAt > 0 && !resume {
			return errors.New("train: -end-at changes a run's end: use it with -resume")
		}
		if restart && endAt == 0 {
			return errors.New("train: -restart starts a new learning-rate cycle: give its end with -end-at")
		}
		if newData && !resume {
			return errors.New("train: -new-data continues a run on another shard set: use it with -resume")
		}
		// A resumed run keeps its own configuration except the precision, the
		// distillation mixes, the peak learning rate and the widened entries'
		// multiplier, when given.
		opts := torch.Options{Log: log, Resume: resume, EndAt: endAt, Restart: restart, NewData: newData}
		trainFlags.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "precision":
				opts.Precision = cfg.Precision
			case "distill-mix":
				opts.DistillMix = &cfg.DistillMix
			case "distill-wdl-mix":
				opts.DistillWDLMix = &cfg.DistillWDLMix
			case "lr":
				opts.LR = &cfg.LR
			case "new-lr-mult":
				opts.NewLRMult = &cfg.NewLRMult
			}
		})
		sum, err := torch.Run(ctx, cfg, opts)
		if errors.Is(err, context.Canceled) {
			fmt.Fprintf(log, "humchess-train: interrupted at step %d; checkpoint saved, continue with -resume\n", sum.Step)
			return nil
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(log, "humchess-train: done at step %d, best validation loss %.5f, run directory %s\n", sum.Step, sum.BestVal, sum.Dir)
		return nil
	case "export":
		fs := flag.NewFlagSet("humchess-train export", flag.ContinueOnError)
		ckpt := fs.String("ckpt", "", "checkpoint to export (e.g. RUN/best.ckpt)")
		st := fs.String("safetensors", "", "write the weights as safetensors here")
		onnx := fs.String("onnx", "", "write the ONNX net here")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *ckpt == "" || (*st == "" && *onnx == "") {
			return errors.New("export: -ckpt and at least one of -safetensors, -onnx are required")
		}
		a, err := torch.Export(*ckpt, *st, *onnx)
		if err != nil {
			return err
		}
		fmt.Fprintf(log, "humchess-train: exported %s (%d parameters)\n", *ckpt, a.ParamCount())
		return nil
	case "grow":
		fs := flag.NewFlagSet("humchess-train grow", flag.ContinueOnError)
		ckpt := fs.String("ckpt", "", "training checkpoint to grow (e.g. RUN/last.ckpt)")
		add := fs.Int("add", 0, "encoder layers to add, spread evenly through the old ones (2 when neither -dim nor -ffn is given)")
		dim := fs.Int("dim", 0, "widen the model to this width (a multiple of the head width; new channels come as new heads)")
		ffn := fs.Int("ffn", 0, "widen the feed-forward layers to this width (default: the model width's growth in proportion)")
		seed := fs.Uint64("seed", 1, "seed of the new entries that start random when widening")
		experts := fs.Int("rating-experts", 0, "give the feed-forward layers of the last L encoder layers one weight delta per mover-rating input, starting at zero")
		out := fs.String("out", "", "write the grown checkpoint here (may be -ckpt itself)")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *ckpt == "" || *out == "" {
			return errors.New("grow: -ckpt and -out are required")
		}
		ck, err := torch.LoadCheckpoint(*ckpt)
		if err != nil {
			return err
		}
		g := ck
		if *dim != 0 || *ffn != 0 {
			d, f := *dim, *ffn
			if d == 0 {
				d = ck.Arch.Dim
			}
			if f == 0 {
				f = ck.Arch.FFNDim * d / ck.Arch.Dim
			}
			if g, err = torch.Widen(g, d, f, *seed); err != nil {
				return err
			}
		} else if *add == 0 && *experts == 0 {
			*add = 2
		}
		if *add != 0 {
			if g, err = torch.Grow(g, *add); err != nil {
				return err
			}
		}
		if *experts != 0 {
			if g, err = torch.AddRatingExperts(g, *experts); err != nil {
				return err
			}
		}
		if err := torch.SaveCheckpoint(*out, g); err != nil {
			return err
		}
		a, b := ck.Arch, g.Arch
		fmt.Fprintf(log, "humchess-train: grew %s from %d layers x %d (ffn %d, rating experts in %d) to %d x %d (ffn %d, rating experts in %d), %d to %d parameters, at step %d into %s; continue with train -resume -end-at N\n",
			*ckpt, a.Layers, a.Dim, a.FFNDim, a.RatingExperts, b.Layers, b.Dim, b.FFNDim, b.RatingExperts, a.ParamCount(), b.ParamCount(), g.State.Step, *out)
		return nil
	case "adopt":
		fs := flag.NewFlagSet("humchess-train adopt", flag.ContinueOnError)
		ckpt := fs.String("ckpt", "", "the run's training checkpoint (e.g. RUN/last.ckpt), the latest one kept")
		net := fs.String("net", "", "an ONNX net exported later in the same run (its weights replace the checkpoint's)")
		steps := fs.Int("steps", 0, "training steps between the checkpoint and the net (the step and the data position advance by them)")
		data := fs.String("data", "", "the run's shard set (to advance the data position)")
		out := fs.String("out", "", "write the new checkpoint here (may be -ckpt itself)")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *ckpt == "" || *net == "" || *out == "" || (*steps > 0 && *data == "") {
			return errors.New("adopt: -ckpt, -net and -out are required, and -data with -steps")
		}
		ck, err := torch.LoadCheckpoint(*ckpt)
		if err != nil {
			return err
		}
		model, err := transformer.LoadONNX(*net)
		if err != nil {
			return err
		}
		a, sum, err := transformer.ReadArch(model)
		if err != nil {
			return fmt.Errorf("%s: %w", *net, err)
		}
		w, err := transformer.WeightsFromONNX(a, sum, model)
		if err != nil {
			return fmt.Errorf("%s: %w", *net, err)
		}
		var set *shard.Set
		if *steps > 0 {
			if set, err = shard.Open(*data); err != nil {
				return err
			}
		}
		nc, err := torch.Adopt(ck, a, w, *steps, set)
		if err != nil {
			return err
		}
		if err := torch.SaveCheckpoint(*out, nc); err != nil {
			return err
		}
		fmt.Fprintf(log, "humchess-train: %s now holds %s's weights (%d layers) at step %d (%d positions seen), AdamW moments reset; continue with train -resume -end-at N\n",
			*out, *net, a.Layers, nc.State.Step, nc.State.Samples)
		return nil
	case "average":
		fs := flag.NewFlagSet("humchess-train average", flag.ContinueOnError)
		by := fs.String("weights", "", "comma-separated weight of each checkpoint (default: equal)")
		out := fs.String("out", "", "write the averaged weights here as a checkpoint (for export, not for -resume)")
		onnx := fs.String("onnx", "", "write the averaged weights here as an ONNX net")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if fs.NArg() < 2 || (*out == "" && *onnx == "") {
			return errors.New("average: two or more checkpoints, and at least one of -out, -onnx, are required")
		}
		var ws []float64
		if *by != "" {
			for _, f := range strings.Split(*by, ",") {
				w, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
				if err != nil {
					return fmt.Errorf("average: -weights: %q is not a number", f)
				}
				ws = append(ws, w)
			}
		}
		var cks []*torch.Checkpoint
		for _, p := range fs.Args() {
			ck, err := torch.LoadCheckpoint(p)
			if err != nil {
				return err
			}
			cks = append(cks, ck)
		}
		avg, err := torch.Average(cks, ws)
		if err != nil {
			return err
		}
		if *out != "" {
			if err := torch.SaveCheckpoint(*out, avg); err != nil {
				return err
			}
		}
		if err := torch.ExportCheckpoint(avg, "", *onnx); err != nil {
			return err
		}
		fmt.Fprintf(log, "humchess-train: averaged %d checkpoints (%d parameters, latest step %d)\n", len(cks), avg.Arch.ParamCount(), avg.State.Step)
		return nil
	case "presets":
		for _, name := range torch.Presets() {
			c, err := torch.Preset(name)
			if err != nil {
				return err
			}
			fmt.Fprintf(log, "# %s (%d parameters)\n%s\n", name, c.Arch.ParamCount(), c.JSON())
		}
		return nil
	case "version", "-version", "--version":
		fmt.Fprintln(log, "humchess-train", version)
		return nil
	}
	return fmt.Errorf("unknown command %q (want train, export, grow, adopt, average, presets or version)", args[0])
}
