// Command humchess is the HumChess engine: with no arguments it speaks UCI on
// stdin/stdout; its tools are subcommands.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/humchess/humchess/engine"
	"github.com/humchess/humchess/nets/ort"
	"github.com/humchess/humchess/uci"
)

var version = "dev"

// subcommands maps each tool to its entry point.
var subcommands = map[string]func(args []string) error{
	"prep":      runPrep,
	"eval":      runEval,
	"match":     runMatch,
	"stats":     runStats,
	"calibrate": runCalibrate,
	"selfplay":  runSelfplay,
}

const usage = `usage: humchess [-onnxruntime LIB] [command [flags]]

With no command, humchess speaks UCI on stdin/stdout (load it in a GUI).
Commands:
  prep    PGN files to training shards
  eval    move matching of nets and engines against human moves
  match   engine-versus-engine matches
  stats   human-likeness statistics of sets of games
  calibrate  fit and measure what UCI_Elo means for a net against human play
  selfplay   self-play games between rating-band nets, as PGN for prep -teacher
  bench   fixed-position benchmark and signature
  version print the version
Run "humchess COMMAND -h" for a command's flags. -onnxruntime names the ONNX
Runtime 1.24.1 shared library explicitly (before ONNXRUNTIME_SHARED_LIBRARY_PATH
and the install location; see "make onnxruntime").
`

func main() {
	args := os.Args[1:]
	if len(args) > 0 {
		flag, lib, hasValue := strings.Cut(strings.TrimPrefix(args[0], "-"), "=")
		if flag == "-onnxruntime" || flag == "onnxruntime" {
			args = args[1:]
			if !hasValue {
				if len(args) == 0 {
					fmt.Fprint(os.Stderr, "humchess: -onnxruntime needs a path\n\n"+usage)
					os.Exit(2)
				}
				lib, args = args[0], args[1:]
			}
			if err := ort.Init(lib); err != nil {
				fmt.Fprintln(os.Stderr, "humchess:", err)
				os.Exit(1)
			}
		}
	}
	if len(args) == 0 {
		if err := runUCI(nil); err != nil {
			fmt.Fprintln(os.Stderr, "humchess:", err)
			os.Exit(1)
		}
		return
	}
	switch cmd := args[0]; cmd {
	case "version", "--version", "-version":
		fmt.Println("humchess", version)
	case "help", "-h", "-help", "--help":
		fmt.Print(usage)
	case "bench":
		benchMain(args[1:])
	default:
		run, ok := subcommands[cmd]
		if !ok {
			fmt.Fprintf(os.Stderr, "humchess: unknown command %q\n\n%s", cmd, usage)
			os.Exit(2)
		}
		if err := run(args[1:]); err != nil && !errors.Is(err, flag.ErrHelp) {
			// -h has printed the usage: a request, not an error.
			fmt.Fprintf(os.Stderr, "humchess %s: %v\n", cmd, err)
			os.Exit(1)
		}
	}
}

// runUCI speaks UCI on stdin and stdout until quit or EOF: what humchess
// does with no arguments.
func runUCI(args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("uci: unexpected arguments %q (set options with setoption)", args)
	}
	e := engine.New(nil)
	defer e.Close()
	return newServer(e, os.Stdout, os.Stderr).Run(os.Stdin)
}

// newServer is humchess's UCI server for e: replies to w, error details to
// log.
func newServer(e uci.Engine, w, log io.Writer) *uci.Server {
	s := uci.NewServer(e, w)
	s.Name = "HumChess " + version
	s.Log = log
	return s
}

// setUsage gives a subcommand's flags the help -h prints, the same for every
// subcommand: "usage: humchess <synopsis>", what it does, its flags.
func setUsage(fs *flag.FlagSet, synopsis, about string) {
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: humchess %s\n\n%s\n\nflags:\n", synopsis, about)
		fs.PrintDefaults()
	}
}
