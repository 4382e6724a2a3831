// Command fakeengine is a tiny UCI engine for the tests of uci/client and
// train/tools/match: a random mover that can be told to misbehave after a number
// of moves (crash, play an illegal move, sleep past its time, print a
// malformed bestmove) or to never finish the handshake. It refuses any
// option but UCI_Elo (100..3000) with "info string error: ...".
//
// The tests build it with "go build" into a temporary directory.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/humchess/humchess/board"
)

func main() {
	name := flag.String("name", "fakeengine", "id name")
	seed := flag.Uint64("seed", 1, "random seed")
	crashAfter := flag.Int("crash-after", -1, "exit with status 3 at go number N+1 (counted over the process's life)")
	illegalAfter := flag.Int("illegal-after", -1, "answer go number N+1 with an illegal move")
	sleepAfter := flag.Int("sleep-after", -1, "at go number N+1 sleep an hour before answering")
	garbageAfter := flag.Int("garbage-after", -1, "answer go number N+1 with a bestmove line without a move")
	noUCIOK := flag.Bool("no-uciok", false, "never answer uci")
	noReadyOK := flag.Bool("no-readyok", false, "never answer isready")
	think := flag.Duration("think", 0, "time spent on each move")
	reportThink := flag.Duration("report-think", -1, "in debug mode, say before each bestmove \"info string played M think D\", as HumChess does")
	plan := flag.String("plan", "", "per-game misbehaviour, games counted by ucinewgame: comma-separated crash:N, illegal:N, sleep:N, garbage:N or ok (fires at the game's go number N+1)")
	state := flag.String("state", "", "file keeping the ucinewgame count across restarts (for -plan)")
	extra := flag.String("options", "", "more spin options declared and accepted, comma-separated (e.g. Threads,Hash, as a judging Stockfish is set up)")
	flag.Parse()
	if *extra != "" {
		extraOptions = strings.Split(*extra, ",")
	}
	steps := strings.Split(*plan, ",")
	gameNo := readCount(*state)
	gameGos := 0

	rng := rand.New(rand.NewPCG(*seed, 7))
	out := bufio.NewWriter(os.Stdout)
	say := func(format string, args ...any) {
		fmt.Fprintf(out, format+"\n", args...)
		out.Flush()
	}
	var g *board.Game
	gos := 0
	debug := false
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "uci":
			if *noUCIOK {
				continue
			}
			say("id name %s", *name)
			say("id author humchess tests")
			say("option name UCI_Elo type spin default 1500 min 100 max 3000")
			for _, o := range extraOptions {
				say("option name %s type spin default 1 min 1 max 1024", o)
			}
			say("uciok")
		case "setoption":
			if msg := setOption(f[1:]); msg != "" {
				say("info string error: %s", msg)
			}
		case "debug":
			debug = len(f) > 1 && f[1] == "on"
		case "isready":
			if !*noReadyOK {
				say("readyok")
			}
		case "ucinewgame":
			if *plan != "" {
				gameNo++
				gameGos = 0
				writeCount(*state, gameNo)
			}
		case "position":
			var err error
			g, err = position(f[1:])
			if err != nil {
				say("info string error: %v", err)
				g = nil
			}
		case "go":
			n := gos
			gos++
			if *plan != "" && gameNo >= 1 && gameNo <= len(steps) {
				kind, at, _ := strings.Cut(steps[gameNo-1], ":")
				k, err := strconv.Atoi(at)
				if err == nil && k == gameGos {
					switch kind {
					case "crash":
						*crashAfter = n
					case "illegal":
						*illegalAfter = n
					case "sleep":
						*sleepAfter = n
					case "garbage":
						*garbageAfter = n
					}
				}
				gameGos++
			}
			switch {
			case n == *crashAfter:
				os.Exit(3)
			case n == *sleepAfter:
				time.Sleep(time.Hour)
			case n == *garbageAfter:
				say("bestmove")
				continue
			}
			if *think > 0 {
				time.Sleep(*think)
			}
			if g == nil {
				say("bestmove 0000")
				continue
			}
			moves := g.LegalMoves()
			if n == *illegalAfter {
				say("bestmove %s", illegal(g))
				continue
			}
			if len(moves) == 0 {
				say("bestmove (none)")
				continue
			}
			m := moves[rng.IntN(len(moves))]
			say("info depth 1 score cp %d nodes 1 pv %s", rng.IntN(41)-20, m)
			if *reportThink >= 0 && debug {
				say("info string played %s think %v", m, *reportThink)
			}
			say("bestmove %s", m)
		case "quit":
			return
		}
	}
}

// setOption checks "name N value V" against the one declared option
// (UCI_Elo, 100..3000) and returns why it is refused, or "".
func setOption(args []string) string {
	if len(args) < 2 || args[0] != "name" {
		return "setoption: want name <id> [value <x>]"
	}
	name, value, _ := strings.Cut(strings.Join(args[1:], " "), " value ")
	for _, o := range extraOptions {
		if strings.EqualFold(name, o) {
			return "" // accepted, no effect
		}
	}
	if !strings.EqualFold(name, "UCI_Elo") {
		return fmt.Sprintf("setoption: unknown option %q", name)
	}
	v, err := strconv.Atoi(value)
	if err != nil || v < 100 || v > 3000 {
		return fmt.Sprintf("setoption: UCI_Elo: %q is not in 100..3000", value)
	}
	return ""
}

// extraOptions are the -options declared beside UCI_Elo.
var extraOptions []string

// readCount reads the game count kept in path (0 when there is none).
func readCount(path string) int {
	if path == "" {
		return 0
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0
	}
	return n
}

// writeCount stores the game count in path.
func writeCount(path string, n int) {
	if path == "" {
		return
	}
	if err := os.WriteFile(path, []byte(strconv.Itoa(n)), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "fakeengine:", err)
	}
}

// position parses the arguments of a position command.
func position(f []string) (*board.Game, error) {
	if len(f) == 0 {
		return nil, fmt.Errorf("empty position")
	}
	fen := ""
	rest := f[1:]
	if f[0] == "fen" {
		i := 0
		for i < len(rest) && rest[i] != "moves" {
			i++
		}
		fen = strings.Join(rest[:i], " ")
		rest = rest[i:]
	}
	g, err := board.NewGame(fen)
	if err != nil {
		return nil, err
	}
	if len(rest) > 0 && rest[0] == "moves" {
		for _, m := range rest[1:] {
			if err := g.Play(m); err != nil {
				return nil, err
			}
		}
	}
	return g, nil
}

// illegal returns a well-formed move that is not legal in g.
func illegal(g *board.Game) string {
	for from := range board.Square(64) {
		for to := range board.Square(64) {
			m := board.Move{From: from, To: to}
			if from != to && !g.IsLegal(m) {
				return m.String()
			}
		}
	}
	return "a1a2"
}
