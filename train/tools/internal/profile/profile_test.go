package profile

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/humchess/humchess/train/data/games"
	"github.com/humchess/humchess/train/data/pgn"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestWilson(t *testing.T) {
	tests := []struct {
		k, n          int64
		p, lo, hi     float64 // expected, 4 decimals
		wantUndefined bool
	}{
		{k: 5, n: 100, p: 0.05, lo: 0.0215, hi: 0.1118}, // textbook values
		{k: 0, n: 20, p: 0, lo: 0, hi: 0.1611},
		{k: 20, n: 20, p: 1, lo: 0.8389, hi: 1},
		{k: 50, n: 100, p: 0.5, lo: 0.4038, hi: 0.5962},
		{k: 0, n: 0, wantUndefined: true},
	}
	for _, tt := range tests {
		p, lo, hi := Wilson(tt.k, tt.n)
		if tt.wantUndefined {
			if !math.IsNaN(p) || !math.IsNaN(lo) || !math.IsNaN(hi) {
				t.Errorf("Wilson(%d, %d) = %v %v %v, want NaN", tt.k, tt.n, p, lo, hi)
			}
			continue
		}
		if !near(p, tt.p, 1e-9) || !near(lo, tt.lo, 1e-4) || !near(hi, tt.hi, 1e-4) {
			t.Errorf("Wilson(%d, %d) = %.4f [%.4f, %.4f], want %.4f [%.4f, %.4f]", tt.k, tt.n, p, lo, hi, tt.p, tt.lo, tt.hi)
		}
	}
}

func TestMeanCPL(t *testing.T) {
	var c Cell
	for _, x := range []float64{0, 10, 20, 30, 40} {
		c.Add(Move{CPL: x})
	}
	m, lo, hi := c.MeanCPL()
	// mean 20, sample sd sqrt(250) = 15.81, se 7.07, half-width 13.86
	if !near(m, 20, 1e-9) || !near(hi-m, 13.859, 1e-3) || !near(m-lo, 13.859, 1e-3) {
		t.Errorf("MeanCPL of 0,10,20,30,40 = %v [%v, %v], want 20 ± 13.859", m, lo, hi)
	}
	if m, _, _ := (Cell{}).MeanCPL(); !math.IsNaN(m) {
		t.Errorf("MeanCPL of no move = %v, want NaN", m)
	}
}

func TestBand(t *testing.T) {
	for r, want := range map[int]int{1500: 1600, 1699: 1600, 1499: 1400, 800: 800, 699: 600, 2400: 2400, 0: -1, -5: -1} {
		if got := Band(r); got != want {
			t.Errorf("Band(%d) = %d, want %d", r, got, want)
		}
	}
}

// TestJudge: losses from the mover's view, capped evaluations, mates,
// unknown evaluations skipped, a game from a FEN with Black to move.
func TestJudge(t *testing.T) {
	g := &pgn.Game{WhiteElo: 1500, BlackElo: 1700, Moves: []string{"e4", "e5", "Qh5", "Ke7", "Qxe5#"}}
	evals := []float64{20, 30, 300, 250, 100000, 100000} // White's view
	moves := Judge(g, evals)
	want := []Move{
		{Ply: 0, White: true, Rating: 1500, CPL: 0},
		{Ply: 1, White: false, Rating: 1700, CPL: 270}, // -30 -> -300
		{Ply: 2, White: true, Rating: 1500, CPL: 50},   // 300 -> 250
		{Ply: 3, White: false, Rating: 1700, CPL: 750}, // -250 -> -1000 (capped mate)
		{Ply: 4, White: true, Rating: 1500, CPL: 0},    // mate kept
	}
	if len(moves) != len(want) {
		t.Fatalf("Judge: %d moves, want %d: %+v", len(moves), len(want), moves)
	}
	for i, w := range want {
		m := moves[i]
		if m.Ply != w.Ply || m.White != w.White || m.Rating != w.Rating || !near(m.CPL, w.CPL, 1e-9) {
			t.Errorf("move %d = %+v, want %+v", i, m, w)
		}
	}
	if moves[0].Blunder() || !moves[1].Blunder() || moves[2].Blunder() || !moves[3].Blunder() {
		t.Errorf("blunders = %v %v %v %v, want false true false true", moves[0].Blunder(), moves[1].Blunder(), moves[2].Blunder(), moves[3].Blunder())
	}

	evals[2] = math.NaN() // moves 1 and 2 not judged
	if got := len(Judge(g, evals)); got != 3 {
		t.Errorf("Judge with one unknown evaluation: %d moves, want 3", got)
	}

	b := &pgn.Game{FEN: "4k3/8/8/8/8/8/8/4K2R b K - 0 1", WhiteElo: 1000, BlackElo: 2000, Moves: []string{"Kd7", "Rh7+"}}
	moves = Judge(b, []float64{500, 600, 700})
	if len(moves) != 2 || moves[0].White || moves[0].Rating != 2000 || moves[0].CPL != 100 || !moves[1].White || moves[1].CPL != 0 {
		t.Errorf("Judge from a FEN with Black to move = %+v, want Black (2000, cpl 100) then White (cpl 0)", moves)
	}
}

func TestProfileJSONRoundTrip(t *testing.T) {
	p := Profile{}
	p.Add(games.Blitz, Move{Rating: 1550, CPL: 40, Loss: 0.2})
	p.Add(games.Blitz, Move{Rating: 1620, CPL: 10})
	p.Add(games.Rapid, Move{Rating: 900, CPL: 5})
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var q Profile
	if err := json.Unmarshal(b, &q); err != nil {
		t.Fatalf("unmarshal %s: %v", b, err)
	}
	if len(q) != len(p) {
		t.Fatalf("round trip: %d cells, want %d (%s)", len(q), len(p), b)
	}
	for k, c := range p {
		if got := q.Get(k); got != *c {
			t.Errorf("round trip %+v: %+v, want %+v", k, got, *c)
		}
	}
	if c := q.Get(Key{Band: 1600, Class: games.Blitz}); c.Moves != 2 || c.Blunders != 1 {
		t.Errorf("band 1600 blitz = %+v, want 2 moves, 1 blunder", c)
	}
}

// TestClusteredIntervals: the same moves grouped into games differently
// give different intervals; blunders spread one to a game give Wilson's on
// the moves, blunders concentrated in a few games a wider one.
func TestClusteredIntervals(t *testing.T) {
	game := func(n, blunders int, cpl float64) []Move {
		ms := make([]Move, n)
		for i := range ms {
			ms[i] = Move{Rating: 1500, CPL: cpl}
			if i < blunders {
				ms[i].Loss = 0.5
			}
		}
		return ms
	}
	spread, packed := Profile{}, Profile{}
	for g := range 100 {
		spread.AddGame(games.Blitz, game(10, 1, 0)) // one blunder in every game
		k := 0
		if g < 10 {
			k = 10 // ten games of blunders only
		}
		packed.AddGame(games.Blitz, game(10, k, 0))
	}
	key := Key{Band: 1600, Class: games.Blitz}
	s, p := spread.Get(key), packed.Get(key)
	if s.Moves != 1000 || s.Blunders != 100 || p.Moves != 1000 || p.Blunders != 100 || s.Games != 100 || p.Games != 100 {
		t.Fatalf("cells %+v and %+v, want 1000 moves, 100 blunders, 100 games each", s, p)
	}
	_, wlo, whi := Wilson(100, 1000)
	if _, lo, hi := s.BlunderRate(); !near(lo, wlo, 1e-12) || !near(hi, whi, 1e-12) {
		t.Errorf("one blunder a game: [%.4f, %.4f], want Wilson's on the moves [%.4f, %.4f]", lo, hi, wlo, whi)
	}
	// Design effect: cluster variance 100/99 * 900 / 1000^2 against the
	// binomial 0.09/1000, 10.10; Wilson's on 1000/10.10 = 99 moves.
	if r, lo, hi := p.BlunderRate(); !near(r, 0.1, 1e-12) || !near(lo, 0.0551, 1e-4) || !near(hi, 0.1748, 1e-4) {
		t.Errorf("blunders in ten games: %.4f [%.4f, %.4f], want 0.1 [0.0551, 0.1748]", r, lo, hi)
	}

	// Centipawn loss: two games of two moves, 0 0 and 40 40: mean 20, the
	// cluster variance 2/1 * (40^2 + 40^2) / 4^2 = 400, half-width 1.96*20;
	// as four single-move games, the moves' sd 23.09 over sqrt(4).
	two := Profile{}
	two.AddGame(games.Blitz, game(2, 0, 0))
	two.AddGame(games.Blitz, game(2, 0, 40))
	if m, lo, hi := two.Get(key).MeanCPL(); !near(m, 20, 1e-9) || !near(hi-m, Z*20, 1e-9) || !near(m-lo, Z*20, 1e-9) {
		t.Errorf("MeanCPL of games 0,0 and 40,40 = %v [%v, %v], want 20 ± %.3f", m, lo, hi, Z*20)
	}
	four := Profile{}
	for _, x := range []float64{0, 0, 40, 40} {
		four.Add(games.Blitz, Move{Rating: 1500, CPL: x})
	}
	if m, lo, hi := four.Get(key).MeanCPL(); !near(m, 20, 1e-9) || !near(hi-m, Z*math.Sqrt(1600.0/3/4), 1e-9) || !near(m-lo, hi-m, 1e-9) {
		t.Errorf("MeanCPL of single moves 0,0,40,40 = %v [%v, %v], want 20 ± %.3f", m, lo, hi, Z*math.Sqrt(1600.0/3/4))
	}
}

// TestProfileWithoutGames: a profile written before games were counted
// still reads, with the intervals taken over its moves.
func TestProfileWithoutGames(t *testing.T) {
	var p Profile
	if err := json.Unmarshal([]byte(`[{"band":1600,"class":"blitz","moves":4,"blunders":1,"cpl_sum":80,"cpl_sq_sum":3200}]`), &p); err != nil {
		t.Fatal(err)
	}
	c := p.Get(Key{Band: 1600, Class: games.Blitz})
	if r, lo, hi := c.BlunderRate(); r != 0.25 || !near(lo, 0.0456, 1e-4) || !near(hi, 0.6994, 1e-4) {
		t.Errorf("blunder rate 1 of 4 = %.4f [%.4f, %.4f], want Wilson's 0.25 [0.0456, 0.6994]", r, lo, hi)
	}
	if m, lo, hi := c.MeanCPL(); m != 20 || !near(hi-m, Z*math.Sqrt(1600.0/3/4), 1e-9) || !near(m-lo, hi-m, 1e-9) {
		t.Errorf("MeanCPL = %v [%v, %v], want 20 ± %.3f over the moves", m, lo, hi, Z*math.Sqrt(1600.0/3/4))
	}
}
