package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/humchess/humchess/nets"
	"github.com/humchess/humchess/nets/load"
	"github.com/humchess/humchess/train/tools/selfplay"
)

// runSelfplay is "humchess selfplay": games between rating-band nets as PGN.
func runSelfplay(args []string) error {
	cfg := selfplay.DefaultConfig()
	fs := flag.NewFlagSet("selfplay", flag.ContinueOnError)
	setUsage(fs, "selfplay -net DIR|FILE -openings FILES [-o OUT.pgn] [flags]",
		"Plays self-play games from the openings of real games, each side sampling its moves\n"+
			"from the net of its rating band, and writes them as PGN (no clocks) for\n"+
			"\"humchess prep -teacher\" to label.")
	cfg.RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q (give openings with -openings)", fs.Args())
	}
	cfg.OpenNet = openSelfplayNet
	checkRuntime(os.Stderr)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	sum, err := selfplay.Run(ctx, cfg, os.Stderr)
	if sum != nil && sum.Games > 0 {
		if werr := sum.WriteText(os.Stderr); werr != nil && err == nil {
			err = werr
		}
	}
	return err
}

// openSelfplayNet opens a self-play net file with one ONNX Runtime thread
// (selfplay opens one per worker and band).
func openSelfplayNet(path string) (nets.Net, error) {
	return load.Open(path, load.Options{Threads: 1})
}
