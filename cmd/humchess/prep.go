package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"

	"github.com/humchess/humchess/engine"
	"github.com/humchess/humchess/nets"
	"github.com/humchess/humchess/train/data/prep"
)

// runPrep is `humchess prep [flags] files...`: PGN games to training shards.
func runPrep(args []string) error {
	cfg := prep.DefaultConfig()
	// -config is applied first, so that flags given with it override the file.
	if path, ok := findFlag(args, "config"); ok {
		if err := prep.LoadConfigFile(path, &cfg); err != nil {
			return err
		}
	}
	fs := flag.NewFlagSet("prep", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: humchess prep [flags] files... (\"-\" reads stdin)\n\n"+
			"Reads PGN games (.pgn, .pgn.zst, .pgn.bz2), filters and samples positions, and writes\n"+
			"training shards, a manifest and histograms to the output directory.\n\nflags:\n")
		fs.PrintDefaults()
	}
	var configPath, cpuProfile string
	var printConfig bool
	fs.StringVar(&configPath, "config", "", "JSON config file (its fields override the defaults; flags override it)")
	fs.StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile to this file")
	fs.BoolVar(&printConfig, "print-config", false, "print the configuration as JSON and exit")
	cfg.RegisterFlags(fs)
	inputs, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if len(inputs) > 0 {
		cfg.Inputs = inputs
	}
	if printConfig {
		_, err := os.Stdout.Write(append(cfg.JSON(), '\n'))
		return err
	}
	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if cfg.Teacher != "" {
		cfg.OpenTeacher = openTeacher
		checkRuntime(os.Stderr)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	sum, err := prep.Run(ctx, cfg, os.Stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s\n", cfg.Out)
	return sum.WriteText(os.Stderr)
}

// openTeacher opens a prep teacher net: a net file by its content, or the
// embedded default net for "default", with one ONNX Runtime thread (prep
// opens one per worker).
func openTeacher(path string) (nets.Net, error) {
	if path == "default" {
		path = "" // the engine's default net
	}
	return engine.OpenNet(path, 1)
}

// findFlag returns the value of -name or --name (as "-name v" or "-name=v").
func findFlag(args []string, name string) (string, bool) {
	for i, a := range args {
		if a == "--" {
			break
		}
		t := strings.TrimLeft(a, "-")
		if len(t) == len(a) || len(a)-len(t) > 2 {
			continue
		}
		if t == name && i+1 < len(args) {
			return args[i+1], true
		}
		if v, ok := strings.CutPrefix(t, name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// parseInterleaved parses flags that may come before, between or after the
// positional arguments, and returns the positional ones ("-" included).
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
		if rest[0] == "--" {
			pos = append(pos[:len(pos)-1], args...)
			return pos, nil
		}
	}
}
