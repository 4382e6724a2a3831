// Command humchess-train trains the HumChess transformer with libtorch
// (package train/torch) and exports it for the engine. Wiring only.
//
//	humchess-train train  [-preset tiny|default|large] [-config FILE.json] [flags] -data SHARDS -out RUN
//	humchess-train train  -resume -data SHARDS -out RUN
//	humchess-train export -ckpt RUN/best.ckpt [-safetensors NET.safetensors] [-onnx NET.onnx]
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
	"syscall"

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
		return errors.New("usage: humchess-train train|export|presets|version [flags] (-h for each)")
	}
	switch args[0] {
	case "train":
		var resume bool
		var endAt int
		cfg, rest, err := torch.ParseArgs("humchess-train train", args[1:], func(fs *flag.FlagSet) {
			fs.BoolVar(&resume, "resume", false, "continue the run in -out from its last checkpoint")
			fs.IntVar(&endAt, "end-at", 0, "with -resume: end the run at this step; past its last step a new learning-rate cycle, before it a compressed decay")
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
		sum, err := torch.Run(ctx, cfg, torch.Options{Log: log, Resume: resume, EndAt: endAt})
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
	return fmt.Errorf("unknown command %q (want train, export, presets or version)", args[0])
}
