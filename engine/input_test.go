package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/nets"
)

// netInput plays commands (setoption, position, one go) on a fresh engine
// over UCI and returns the global input tensor the net received for the
// root of the go, with the contract's feature names.
func netInput(t *testing.T, commands []string) (global []float32, names []string) {
	t.Helper()
	net := &recordingNet{Fake: nets.NewFake(1)}
	e := New(func(string, int) (nets.Net, error) { return net, nil })
	defer e.Close()
	s := StartSession(e, "HumChess input test", nil)
	defer s.Close()
	for _, c := range []string{"setoption name Seed value 1", "setoption name HumanTiming value false", "isready"} {
		require.NoError(t, s.Send(c))
	}
	_, _, err := s.Expect("readyok", benchStartupWait)
	require.NoError(t, err, "isready")
	before := net.calls()
	for _, c := range commands {
		require.NoError(t, s.Send(c))
	}
	_, _, err = s.Expect("bestmove", benchGoTimeout)
	require.NoError(t, err, "%q", commands)
	require.Greater(t, net.calls(), before, "%q: the net was not asked", commands)
	enc, _ := net.call(before)
	c := board.DefaultContract()
	global = make([]float32, c.GlobalDim())
	require.NoError(t, c.Fill(&enc, make([]int64, 64), make([]float32, 64*c.SquareDim()), global))
	return global, c.GlobalFeatureNames()
}

// ratingOf is the rating the soft one-hot of who ("mover" or "opp") stands
// for: the anchors weighted by their entries; -1 when it is unknown.
func ratingOf(global []float32, names []string, who string) float64 {
	sum, weight := 0.0, 0.0
	for i, n := range names {
		if a, ok := strings.CutPrefix(n, who+"_rating_"); ok && a != "unknown" {
			var anchor float64
			if _, err := fmt.Sscan(a, &anchor); err != nil {
				panic(err)
			}
			sum += anchor * float64(global[i])
			weight += float64(global[i])
		}
	}
	if weight == 0 {
		return -1
	}
	return sum / weight
}

// TestOptionsMoveNetInput changes one thing a GUI tells the engine (a
// rating option, a clock, an increment, the time control) from a base
// setting and checks the net's global input: the slots that carry that
// thing move in the stated direction, and no other slot moves. A rating is
// read back as the rating its soft one-hot stands for.
func TestOptionsMoveNetInput(t *testing.T) {
	const (
		white = "position startpos"
		black = "position startpos moves e2e4"
		clock = "go wtime 200000 btime 200000 winc 2000 binc 2000"
	)
	// The engine is white in white, black in black; every case is one
	// change from its base.
	tests := []struct {
		name       string
		base, with []string
		// moves are the slots that must move, +1 up or -1 down; a rating
		// is "mover_rating" or "opp_rating" (its soft one-hot and unknown
		// flag).
		moves map[string]int
	}{
		{"UCI_Elo up raises the mover's rating",
			[]string{"setoption name OpponentElo value 1500", "setoption name UCI_Elo value 1500", white, clock},
			[]string{"setoption name OpponentElo value 1500", "setoption name UCI_Elo value 1900", white, clock},
			map[string]int{"mover_rating": +1}},
		{"UCI_Elo down lowers the mover's rating as black",
			[]string{"setoption name OpponentElo value 1500", "setoption name UCI_Elo value 1500", black, clock},
			[]string{"setoption name OpponentElo value 1500", "setoption name UCI_Elo value 1100", black, clock},
			map[string]int{"mover_rating": -1}},
		{"with no opponent rating given, UCI_Elo is both",
			[]string{"setoption name UCI_Elo value 1500", white, clock},
			[]string{"setoption name UCI_Elo value 1900", white, clock},
			map[string]int{"mover_rating": +1, "opp_rating": +1}},
		{"OpponentElo up raises the opponent's rating",
			[]string{"setoption name OpponentElo value 1500", white, clock},
			[]string{"setoption name OpponentElo value 2300", white, clock},
			map[string]int{"opp_rating": +1}},
		{"OpponentElo down lowers the opponent's rating as black",
			[]string{"setoption name OpponentElo value 1500", black, clock},
			[]string{"setoption name OpponentElo value 900", black, clock},
			map[string]int{"opp_rating": -1}},
		{"UCI_Opponent's rating is the opponent's",
			[]string{"setoption name UCI_Opponent value none 1500 human x", white, clock},
			[]string{"setoption name UCI_Opponent value none 2100 human x", white, clock},
			map[string]int{"opp_rating": +1}},
		{"OpponentElo wins over UCI_Opponent",
			[]string{"setoption name OpponentElo value 1300", "setoption name UCI_Opponent value none 1500 human x", white, clock},
			[]string{"setoption name OpponentElo value 1300", "setoption name UCI_Opponent value none 2100 human x", white, clock},
			map[string]int{}},
		{"wtime lowers the mover's clock as white",
			[]string{white, clock},
			[]string{white, "go wtime 120000 btime 200000 winc 2000 binc 2000"},
			map[string]int{"mover_clock_log": -1, "clock_share": -1, "mover_clock_of_base": -1}},
		{"btime lowers the opponent's clock as white",
			[]string{white, clock},
			[]string{white, "go wtime 200000 btime 120000 winc 2000 binc 2000"},
			map[string]int{"opp_clock_log": -1, "clock_share": +1}},
		{"btime lowers the mover's clock as black",
			[]string{black, clock},
			[]string{black, "go wtime 200000 btime 120000 winc 2000 binc 2000"},
			map[string]int{"mover_clock_log": -1, "clock_share": -1, "mover_clock_of_base": -1}},
		{"wtime lowers the opponent's clock as black",
			[]string{black, clock},
			[]string{black, "go wtime 120000 btime 200000 winc 2000 binc 2000"},
			map[string]int{"opp_clock_log": -1, "clock_share": +1}},
		{"the first go's larger clock is the base",
			[]string{white, clock},
			[]string{white, "go wtime 200000 btime 400000 winc 2000 binc 2000"},
			map[string]int{"tc_base_log": +1, "opp_clock_log": +1, "clock_share": -1, "mover_clock_of_base": -1}},
		{"winc raises the increment as white",
			[]string{white, clock},
			[]string{white, "go wtime 200000 btime 200000 winc 5000 binc 2000"},
			map[string]int{"tc_inc_log": +1}},
		{"binc raises the increment as black",
			[]string{black, clock},
			[]string{black, "go wtime 200000 btime 200000 winc 2000 binc 5000"},
			map[string]int{"tc_inc_log": +1}},
		{"the opponent's increment is not the mover's",
			[]string{white, clock},
			[]string{white, "go wtime 200000 btime 200000 winc 2000 binc 5000"},
			map[string]int{}},
		{"no increment in go is 0",
			[]string{white, clock},
			[]string{white, "go wtime 200000 btime 200000"},
			map[string]int{"tc_inc_log": -1}},
		{"TimeControl over inferred base",
			[]string{white, clock},
			[]string{"setoption name TimeControl value 600", white, clock},
			map[string]int{"tc_base_log": +1, "mover_clock_of_base": -1}},
		{"TimeControl without clocks makes the time control known",
			[]string{white, "go depth 1"},
			[]string{"setoption name TimeControl value 600", white, "go depth 1"},
			map[string]int{"tc_base_log": +1, "tc_unknown": -1}},
		{"Increment with TimeControl and no clocks",
			[]string{"setoption name TimeControl value 600", white, "go depth 1"},
			[]string{"setoption name TimeControl value 600", "setoption name Increment value 10", white, "go depth 1"},
			map[string]int{"tc_inc_log": +1}},
		{"clocks in go make both clocks known",
			[]string{"setoption name TimeControl value 200", "setoption name Increment value 2", white, "go depth 1"},
			[]string{"setoption name TimeControl value 200", "setoption name Increment value 2", white, clock},
			map[string]int{"mover_clock_log": +1, "mover_clock_unknown": -1, "opp_clock_log": +1, "opp_clock_unknown": -1, "mover_clock_of_base": +1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base, names := netInput(t, tc.base)
			with, _ := netInput(t, tc.with)
			checked := map[string]bool{}
			for slot, dir := range tc.moves {
				var from, to float64
				if who, ok := strings.CutSuffix(slot, "_rating"); ok {
					from, to = ratingOf(base, names, who), ratingOf(with, names, who)
					for _, n := range names {
						if strings.HasPrefix(n, slot+"_") {
							checked[n] = true
						}
					}
				} else {
					i := indexOf(t, names, slot)
					from, to = float64(base[i]), float64(with[i])
					checked[slot] = true
				}
				if (dir > 0 && !(to > from)) || (dir < 0 && !(to < from)) {
					t.Errorf("%s: %.4g -> %.4g, want it %s\nbase %q\nwith %q", slot, from, to, map[int]string{1: "up", -1: "down"}[dir], tc.base, tc.with)
				}
			}
			for i, n := range names {
				if !checked[n] && base[i] != with[i] {
					t.Errorf("%s moved %.4g -> %.4g, want it unchanged\nbase %q\nwith %q", n, base[i], with[i], tc.base, tc.with)
				}
			}
		})
	}
}

// indexOf returns the index of the feature name.
func indexOf(t *testing.T, names []string, name string) int {
	t.Helper()
	for i, n := range names {
		if n == name {
			return i
		}
	}
	t.Fatalf("no input named %q in %v", name, names)
	return -1
}
