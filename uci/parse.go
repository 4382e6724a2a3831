package uci

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ErrSyntax is wrapped by every parse error of a command's arguments.
var ErrSyntax = errors.New("syntax")

// parseSetOption splits "name <id...> [value <x...>]" (the tokens after
// setoption). Names and values may contain spaces.
func parseSetOption(args []string) (name, value string, err error) {
	if len(args) == 0 || args[0] != "name" {
		return "", "", fmt.Errorf("%w: setoption: want \"setoption name <id> [value <x>]\"", ErrSyntax)
	}
	i := 1
	for i < len(args) && args[i] != "value" {
		i++
	}
	name = strings.Join(args[1:i], " ")
	if name == "" {
		return "", "", fmt.Errorf("%w: setoption: missing option name", ErrSyntax)
	}
	if i < len(args) {
		value = strings.Join(args[i+1:], " ")
	}
	return name, value, nil
}

// parsePosition splits "startpos|fen <fields> [moves <m>...]" (the tokens
// after position). A FEN with 4 or 5 fields gets the missing counters
// ("0 1"); more than 6 fields is an error.
func parsePosition(args []string) (fen string, moves []string, err error) {
	if len(args) == 0 {
		return "", nil, fmt.Errorf("%w: position: want \"position startpos|fen <fen> [moves ...]\"", ErrSyntax)
	}
	rest := args[1:]
	switch args[0] {
	case "startpos":
	case "fen":
		i := 0
		for i < len(rest) && rest[i] != "moves" {
			i++
		}
		f := rest[:i]
		rest = rest[i:]
		switch {
		case len(f) < 4:
			return "", nil, fmt.Errorf("%w: position: FEN %s has %d fields, want 6", ErrSyntax, quote(strings.Join(f, " ")), len(f))
		case len(f) > 6:
			return "", nil, fmt.Errorf("%w: position: FEN %s has %d fields, want 6", ErrSyntax, quote(strings.Join(f, " ")), len(f))
		case len(f) == 4:
			f = append(f, "0", "1")
		case len(f) == 5:
			f = append(f, "1")
		}
		fen = strings.Join(f, " ")
	default:
		return "", nil, fmt.Errorf("%w: position: %s is neither startpos nor fen", ErrSyntax, quote(args[0]))
	}
	if len(rest) > 0 {
		if rest[0] != "moves" {
			return "", nil, fmt.Errorf("%w: position: unexpected %s (want moves)", ErrSyntax, quote(rest[0]))
		}
		moves = append([]string(nil), rest[1:]...)
	}
	return fen, moves, nil
}

var goKeywords = map[string]bool{
	"searchmoves": true, "ponder": true, "wtime": true, "btime": true, "winc": true, "binc": true,
	"movestogo": true, "depth": true, "nodes": true, "mate": true, "movetime": true, "infinite": true,
}

// parseGo parses the tokens after go. It never fails as a whole: each bad
// token is reported in errs and skipped, so the GUI still gets its bestmove.
func parseGo(args []string) (lim Limits, errs []error) {
	lim = NoLimits()
	bad := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("%w: go: "+format, append([]any{ErrSyntax}, a...)...))
	}
	for i := 0; i < len(args); i++ {
		key := args[i]
		switch key {
		case "ponder":
			lim.Ponder = true
			continue
		case "infinite":
			lim.Infinite = true
			continue
		case "searchmoves":
			for i+1 < len(args) && !goKeywords[args[i+1]] {
				i++
				lim.SearchMoves = append(lim.SearchMoves, args[i])
			}
			if len(lim.SearchMoves) == 0 {
				bad("searchmoves without moves")
			}
			continue
		case "wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "mate", "movetime":
		default:
			bad("unknown token %s", quote(key))
			continue
		}
		if i+1 >= len(args) || goKeywords[args[i+1]] {
			bad("%s needs a value", key)
			continue
		}
		i++
		n, err := strconv.ParseInt(args[i], 10, 64)
		if err != nil {
			bad("%s: %s is not an integer", key, quote(args[i]))
			continue
		}
		ms := time.Duration(max(n, 0)) * time.Millisecond
		if n > int64(1<<62/time.Millisecond) {
			ms = time.Duration(1<<62) / time.Millisecond * time.Millisecond
		}
		switch key {
		case "wtime":
			lim.WTime = ms
		case "btime":
			lim.BTime = ms
		case "winc":
			lim.WInc = ms
		case "binc":
			lim.BInc = ms
		case "movetime":
			if n <= 0 {
				bad("movetime %d is not positive", n)
				continue
			}
			lim.MoveTime = ms
		default:
			if n <= 0 || n > 1<<31 {
				bad("%s %d is out of range 1..%d", key, n, 1<<31)
				continue
			}
			switch key {
			case "movestogo":
				lim.MovesToGo = int(n)
			case "depth":
				lim.Depth = int(n)
			case "nodes":
				lim.Nodes = n
			case "mate":
				lim.Mate = int(n)
			}
		}
	}
	return lim, errs
}
