package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/humchess/humchess/engine"
	"github.com/humchess/humchess/nets/load"
	"github.com/humchess/humchess/nets/transformer"
	"github.com/humchess/humchess/uci/client"
)

// benchMain is the bench subcommand's entry from main: it exits 1 on an
// error.
func benchMain(args []string) {
	if err := runBench(args, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "humchess bench:", err)
		os.Exit(1)
	}
}

// runBench is `humchess bench [-net FILE | -random PRESET] [-threads N] [-n N]`:
// it plays the fixed bench positions through the UCI server and prints
// timings and the deterministic signature "Bench: <hex>".
func runBench(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	setUsage(fs, "bench [-net FILE | -random PRESET] [-threads N] [-n N] [-positions FILE]\n       humchess bench -engine CMD [-setoption Name=Value ...] [-go ARGS] [-n N]", fmt.Sprintf(
		"Plays the fixed bench positions through the UCI server (Temperature 0, Seed %d,\n"+
			"HumanTiming off) and prints the time from go to bestmove (p50, p99), the time from\n"+
			"start to readyok (opening the net), positions per second, peak memory and the\n"+
			"signature \"Bench: <hex>\" over the chosen moves and their rounded probabilities.\n"+
			"With -engine it plays them on another UCI engine's process instead (Lc0 with a\n"+
			"Maia net, a HumChess binary) and times each go to bestmove from outside it.", engine.BenchSeed))
	netFile := fs.String("net", "", "net file: a HumChess .onnx/.safetensors or a Maia/Lc0 .pb.gz; empty = the embedded default")
	random := fs.String("random", "", "bench a HumChess transformer preset (tiny, default, large) with random weights (seed 1), written to a temporary .onnx")
	threads := fs.Int("threads", 1, "CPU threads for the net (UCI Threads)")
	n := fs.Int("n", 0, "positions to play; 0 = each bench position once; more cycles through them again")
	verbose := fs.Bool("v", false, "also print each position's go to bestmove time and chosen move")
	posFile := fs.String("positions", "", "positions file in the format of testdata/bench/positions.txt; empty = the built-in set")
	external := fs.String("engine", "", "time another UCI engine instead, from outside its process: its command line (split at spaces), e.g. \"lc0 --weights=maia-1500.pb.gz --threads=1\" or \"bin/humchess\"")
	goArgs := fs.String("go", "nodes 1", "with -engine: the go arguments sent for every position")
	var setOpts setOptionFlags
	fs.Var(&setOpts, "setoption", "with -engine: a UCI option to set after uciok, as Name=Value (repeatable), e.g. BlunderFilter=false")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *threads < 1 || *threads > 256 {
		return fmt.Errorf("-threads %d: want 1..256", *threads)
	}
	if *n < 0 {
		return fmt.Errorf("-n %d: want 0 or more", *n)
	}
	text := engine.BenchPositions
	if *posFile != "" {
		b, err := os.ReadFile(*posFile)
		if err != nil {
			return err
		}
		text = string(b)
	}
	ps, err := engine.ParseBenchPositions(text)
	if err != nil {
		return err
	}

	if *external != "" {
		if *netFile != "" || *random != "" {
			return errors.New("-engine times another engine: -net and -random do not apply")
		}
		cfg := engine.ExternalBenchConfig{Command: strings.Fields(*external), Options: setOpts, Go: *goArgs, N: *n}
		if *verbose {
			cfg.Each = stdout
		}
		rep, err := engine.BenchExternal(context.Background(), ps, cfg)
		if err != nil {
			return err
		}
		rep.Write(stdout)
		return nil
	}
	if len(setOpts) > 0 {
		return errors.New("-setoption applies to -engine only (this engine's bench sets its own options)")
	}

	path := *netFile
	switch {
	case *random != "" && path != "":
		return errors.New("give -net or -random, not both")
	case *random != "":
		dir, err := os.MkdirTemp("", "humchess-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		if path, err = writeRandomNet(dir, *random, 1); err != nil {
			return err
		}
	case path == "" && defaultNetName() == "":
		return errors.New("this build embeds no default net: pass -net FILE (a HumChess .onnx or a Maia/Lc0 .pb.gz, e.g. maia-1500.pb.gz) or -random tiny|default")
	}

	checkRuntime(stderr)
	e := engine.New(nil)
	defer e.Close()
	cfg := engine.BenchConfig{Name: "HumChess " + version, NetFile: path, Threads: *threads, N: *n, Log: stderr}
	if *verbose {
		cfg.Each = stdout
	}
	rep, err := engine.Bench(e, ps, cfg)
	if err != nil {
		return err
	}
	rep.Write(stdout)
	return nil
}

// setOptionFlags collects -setoption Name=Value flags.
type setOptionFlags []client.Option

func (s *setOptionFlags) String() string {
	parts := make([]string, len(*s))
	for i, o := range *s {
		parts[i] = o.Name + "=" + o.Value
	}
	return strings.Join(parts, " ")
}

func (s *setOptionFlags) Set(v string) error {
	name, value, ok := strings.Cut(v, "=")
	if !ok || strings.TrimSpace(name) == "" {
		return fmt.Errorf("%q: want Name=Value", v)
	}
	*s = append(*s, client.Option{Name: strings.TrimSpace(name), Value: value})
	return nil
}

// defaultNetName names the net the build embeds ("" = none); tests replace it.
var defaultNetName = load.DefaultName

// writeRandomNet writes a HumChess transformer of the named preset with
// random weights drawn from seed as dir/random-<preset>.onnx.
func writeRandomNet(dir, preset string, seed uint64) (string, error) {
	model, err := transformer.RandomONNX(preset, seed)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "random-"+strings.ToLower(preset)+".onnx")
	return path, os.WriteFile(path, model, 0o644)
}
