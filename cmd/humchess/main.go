// Command humchess is the HumChess engine: with no arguments it speaks UCI on
// stdin/stdout; its tools are subcommands.
package main

import (
	"fmt"
	"os"
)

var version = "dev"

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "version", "--version", "-version":
			fmt.Println("humchess", version)
			return
		case "bench":
			benchMain(os.Args[2:])
			return
		case "prep":
			if err := runPrep(os.Args[2:]); err != nil {
				fmt.Fprintln(os.Stderr, "humchess prep:", err)
				os.Exit(1)
			}
			return
		case "eval":
			if err := runEval(os.Args[2:]); err != nil {
				fmt.Fprintln(os.Stderr, "humchess eval:", err)
				os.Exit(1)
			}
			return
		case "match":
			if err := runMatch(os.Args[2:]); err != nil {
				fmt.Fprintln(os.Stderr, "humchess match:", err)
				os.Exit(1)
			}
			return
		case "stats":
			if err := runStats(os.Args[2:]); err != nil {
				fmt.Fprintln(os.Stderr, "humchess stats:", err)
				os.Exit(1)
			}
			return
		}
	}
	if err := runUCI(os.Args[1:]); err != nil { // no subcommand: speak UCI
		fmt.Fprintln(os.Stderr, "humchess:", err)
		os.Exit(1)
	}
}
