package policy

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/nets"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestDistribution(t *testing.T) {
	logits := []float32{1, 3, 2, float32(math.Inf(-1))}
	tests := []struct {
		name string
		keep []bool
		temp float64
		want []float64
	}{
		{"argmax", nil, 0, []float64{0, 1, 0, 0}},
		{"argmax kept", []bool{true, false, true, true}, 0, []float64{0, 0, 1, 0}},
		{"softmax", nil, 1, softmax([]float64{1, 3, 2})},
		{"hot", nil, 2, softmax([]float64{0.5, 1.5, 1})},
		{"none kept", []bool{false, false, false, false}, 1, []float64{0, 0, 0, 0}},
	}
	for _, tt := range tests {
		got := Distribution(logits, tt.keep, tt.temp)
		for i := range tt.want {
			if !near(got[i], tt.want[i]) {
				t.Errorf("%s: Distribution(%v, %v, %v) = %v, want %v", tt.name, logits, tt.keep, tt.temp, got, tt.want)
				break
			}
		}
	}
	// ties at temperature 0: the first.
	if got := Distribution([]float32{2, 2}, nil, 0); got[0] != 1 {
		t.Errorf("tie at temperature 0: %v, want the first", got)
	}
}

func softmax(x []float64) []float64 {
	out := make([]float64, len(x)+1)
	s := 0.0
	for i, v := range x {
		out[i] = math.Exp(v)
		s += out[i]
	}
	for i := range x {
		out[i] /= s
	}
	return out
}

func TestTopP(t *testing.T) {
	tests := []struct {
		p    []float64
		topP float64
		want []float64
	}{
		{[]float64{0.15, 0.5, 0.3, 0.05}, 0.8, []float64{0, 0.625, 0.375, 0}},
		{[]float64{0.15, 0.5, 0.3, 0.05}, 0.81, []float64{0.15 / 0.95, 0.5 / 0.95, 0.3 / 0.95, 0}},
		{[]float64{0.15, 0.5, 0.3, 0.05}, 0.01, []float64{0, 1, 0, 0}},
		{[]float64{0.15, 0.5, 0.3, 0.05}, 1, []float64{0.15, 0.5, 0.3, 0.05}},
	}
	for _, tt := range tests {
		in := append([]float64(nil), tt.p...)
		got := TopP(in, tt.topP)
		for i := range tt.want {
			if !near(got[i], tt.want[i]) {
				t.Errorf("TopP(%v, %v) = %v, want %v", tt.p, tt.topP, got, tt.want)
				break
			}
		}
	}
}

func TestSample(t *testing.T) {
	p := []float64{0.1, 0, 0.6, 0.3}
	a, b := rand.New(rand.NewPCG(7, 7)), rand.New(rand.NewPCG(7, 7))
	counts := make([]int, len(p))
	const n = 20000
	for range n {
		x, y := Sample(p, a), Sample(p, b)
		if x != y {
			t.Fatalf("same seed drew %d and %d", x, y)
		}
		counts[x]++
	}
	for i, c := range counts {
		if f := float64(c) / n; math.Abs(f-p[i]) > 0.02 {
			t.Errorf("Sample frequency of %d = %.3f, want %.3f", i, f, p[i])
		}
	}
	if got := Sample([]float64{0, 0}, a); got != -1 {
		t.Errorf("Sample of all zeros = %d, want -1", got)
	}
}

func TestThreshold(t *testing.T) {
	for _, tt := range []struct{ r, want float64 }{{600, 0.30}, {800, 0.30}, {1600, 0.20}, {2400, 0.10}, {3000, 0.10}, {-1, 0.30}} {
		if got := Threshold(tt.r); !near(got, tt.want) {
			t.Errorf("Threshold(%v) = %v, want %v", tt.r, got, tt.want)
		}
	}
}

func ctx1500() board.Context {
	c := board.UnknownContext()
	c.MoverRating, c.OppRating = 1500, 1500
	return c
}

func TestChooseSeedReproducible(t *testing.T) {
	g := board.MustNewGame("")
	net := nets.NewFake(3)
	p := DefaultParams()
	p.Lines = 3
	var first []board.Move
	for run := range 2 {
		rng := rand.New(rand.NewPCG(42, 0))
		var got []board.Move
		for range 20 {
			ch, err := Choose(context.Background(), net, g, ctx1500(), p, rng)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, ch.Move)
		}
		if run == 0 {
			first = got
			continue
		}
		for i := range got {
			if got[i] != first[i] {
				t.Fatalf("seed 42 draw %d: %v then %v", i, first[i], got[i])
			}
		}
	}
	distinct := map[board.Move]bool{}
	for _, m := range first {
		distinct[m] = true
	}
	if len(distinct) < 2 {
		t.Errorf("20 draws at temperature 1 all gave %v; sampling looks stuck", first[0])
	}
}

func TestChooseTemperatureZeroIsArgmax(t *testing.T) {
	g := board.MustNewGame("")
	net := nets.NewFake(5)
	out, err := net.Evaluate(context.Background(), []nets.Input{{Game: g, Ctx: ctx1500()}})
	if err != nil {
		t.Fatal(err)
	}
	best := 0
	for i, l := range out[0].Logits {
		if l > out[0].Logits[best] {
			best = i
		}
	}
	p := DefaultParams()
	p.Temperature, p.BlunderFilter = 0, false
	for seed := range uint64(10) {
		ch, err := Choose(context.Background(), net, g, ctx1500(), p, rand.New(rand.NewPCG(seed, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if ch.Move != out[0].Moves[best] {
			t.Errorf("seed %d at temperature 0: %v, want argmax %v", seed, ch.Move, out[0].Moves[best])
		}
		// The think time's normalisation is the human distribution's,
		// whatever the sampling temperature.
		if want := MoveFactorMean(Distribution(out[0].Logits, nil, 1)); math.Abs(ch.FactorMean-want) > 1e-12 {
			t.Errorf("seed %d at temperature 0: FactorMean %v, want %v (temperature 1)", seed, ch.FactorMean, want)
		}
	}
}

// valueNet is the Fake with a chosen value for some positions.
type valueNet struct {
	*nets.Fake
	wdl func(g *board.Game) []float32 // nil = the Fake's
}

func (v valueNet) Evaluate(ctx context.Context, in []nets.Input) ([]nets.Output, error) {
	outs, err := v.Fake.Evaluate(ctx, in)
	for i := range outs {
		if w := v.wdl(in[i].Game); w != nil {
			outs[i].WDL = w
		}
	}
	return outs, err
}

func TestBlunderFilterChangesChoice(t *testing.T) {
	// The net loves e2e4 (probability ~1), but after it the opponent wins
	// nearly always; after any other move the game is even.
	g := board.MustNewGame("")
	fake := nets.NewFake(1)
	fake.Logits = func(in nets.Input, moves []board.Move) []float32 {
		l := make([]float32, len(moves))
		for i, m := range moves {
			if m.String() == "e2e4" {
				l[i] = 10
			}
		}
		return l
	}
	net := valueNet{fake, func(g *board.Game) []float32 {
		if last, ok := g.LastMove(); ok && last.String() == "e2e4" {
			return []float32{0.9, 0.1, 0} // the opponent's view
		}
		return []float32{0.3, 0.4, 0.3}
	}}
	p := DefaultParams()
	p.BlunderFilter = false
	ch, err := Choose(context.Background(), net, g, ctx1500(), p, rand.New(rand.NewPCG(1, 1)))
	if err != nil || ch.Move.String() != "e2e4" {
		t.Fatalf("without the filter: %v, %v; want e2e4", ch.Move, err)
	}
	p.BlunderFilter = true
	ch, err = Choose(context.Background(), net, g, ctx1500(), p, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if ch.Move.String() == "e2e4" || len(ch.Rejected) != 1 || ch.Rejected[0].String() != "e2e4" {
		t.Errorf("with the filter: played %v, rejected %v; want e2e4 rejected and another move", ch.Move, ch.Rejected)
	}
	if !near(ch.Threshold, 0.2125) || ch.Evaluated != 1+DefaultCandidates {
		t.Errorf("threshold %v (want 0.2125 at 1500), evaluated %d (want %d)", ch.Threshold, ch.Evaluated, 1+DefaultCandidates)
	}
	if !ch.Played.HasWDL || math.Abs(ch.Played.Expected()-0.5) > 1e-6 {
		t.Errorf("played candidate %+v: want expected score 0.5", ch.Played)
	}
	// A loss within the threshold is kept: the opponent only slightly better.
	net.wdl = func(g *board.Game) []float32 {
		if last, ok := g.LastMove(); ok && last.String() == "e2e4" {
			return []float32{0.4, 0.4, 0.2}
		}
		return []float32{0.3, 0.4, 0.3}
	}
	ch, err = Choose(context.Background(), net, g, ctx1500(), p, rand.New(rand.NewPCG(1, 1)))
	if err != nil || ch.Move.String() != "e2e4" || len(ch.Rejected) != 0 {
		t.Errorf("small loss: played %v, rejected %v, %v; want e2e4 kept", ch.Move, ch.Rejected, err)
	}
	// Without a value head the filter is skipped and only the root is evaluated.
	fake.NoWDL = true
	ch, err = Choose(context.Background(), fake, g, ctx1500(), p, rand.New(rand.NewPCG(1, 1)))
	if err != nil || ch.Move.String() != "e2e4" || ch.Evaluated != 1 || ch.HasWDL {
		t.Errorf("no value head: %v evaluated %d hasWDL %v, %v; want e2e4, 1, false", ch.Move, ch.Evaluated, ch.HasWDL, err)
	}
}

func TestChooseEdgeCases(t *testing.T) {
	net := nets.NewFake(2)
	// Checkmated: no legal move.
	mated := board.MustNewGame("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
	ch, err := Choose(context.Background(), net, mated, ctx1500(), DefaultParams(), rand.New(rand.NewPCG(1, 1)))
	if err != nil || ch.Move != board.NullMove {
		t.Errorf("mated: %v, %v; want NullMove, nil", ch.Move, err)
	}
	// searchmoves restricts.
	g := board.MustNewGame("")
	p := DefaultParams()
	only, _ := board.ParseMove("g1f3")
	p.SearchMoves = []board.Move{only}
	p.Lines = 5
	for seed := range uint64(5) {
		ch, err := Choose(context.Background(), net, g, ctx1500(), p, rand.New(rand.NewPCG(seed, 0)))
		if err != nil || ch.Move != only || len(ch.Lines) != 1 || !near(ch.Prob, 1) {
			t.Errorf("searchmoves g1f3: %v lines %v prob %v, %v", ch.Move, ch.Lines, ch.Prob, err)
		}
	}
	// A mate in one is scored as won without asking the net.
	mateIn1 := board.MustNewGame("rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2")
	ch, err = Choose(context.Background(), net, mateIn1, ctx1500(), Params{Temperature: 0, TopP: 1, BlunderFilter: true, BlunderScale: 0, Candidates: 64}, rand.New(rand.NewPCG(1, 1)))
	if err != nil || ch.Move.String() != "d8h4" {
		t.Errorf("mate in one with threshold 0: %v, %v; want d8h4", ch.Move, err)
	}
	// Net failures are errors, never panics.
	bad := nets.NewFake(1)
	bad.Err = errors.New("broken")
	if _, err := Choose(context.Background(), bad, g, ctx1500(), DefaultParams(), rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("failing net: no error")
	}
	if _, err := Choose(context.Background(), nil, g, ctx1500(), DefaultParams(), rand.New(rand.NewPCG(1, 1))); !errors.Is(err, ErrNoNet) {
		t.Errorf("nil net: %v, want ErrNoNet", err)
	}
	// Reply predicts the opponent's most likely answer.
	p = DefaultParams()
	p.Reply = true
	ch, err = Choose(context.Background(), net, g, ctx1500(), p, rand.New(rand.NewPCG(1, 1)))
	if err != nil || ch.Reply == board.NullMove {
		t.Errorf("Reply: %v, %v; want a move", ch.Reply, err)
	}
}

func TestThinkTimeNeverExceedsSafeShare(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	edges := board.ThinkBinEdges[:]
	heavyTail := []float32{0, 0, 0, 0, 0, 0, 0.2, 0.8}
	for _, c := range []Clock{
		{Remaining: 60 * time.Second, Inc: 0},
		{Remaining: 3 * time.Second, Inc: 2 * time.Second, Overhead: 100 * time.Millisecond},
		{Remaining: 100 * time.Millisecond, Inc: -1, Overhead: 500 * time.Millisecond},
		{Remaining: 600 * time.Second, Inc: 5 * time.Second, MovesToGo: 1},
		{Remaining: 0, Inc: 0},
	} {
		limit := c.SafeLimit()
		for range 2000 {
			for _, probs := range [][]float32{heavyTail, nil} {
				d := ThinkTime(probs, edges, c, Shape{Top: 0.2}, rng)
				if d < 0 || d > limit {
					t.Fatalf("ThinkTime(%v, clock %+v) = %v, outside 0..%v", probs, c, d, limit)
				}
			}
		}
	}
	// 0.2 * (60 s - Reserve) + 0.8 * 2 s - 100 ms.
	if got := (Clock{Remaining: 60 * time.Second, Inc: 2 * time.Second, Overhead: 100 * time.Millisecond}).SafeLimit(); got != 13100*time.Millisecond {
		t.Errorf("SafeLimit(60s+2s, 100ms overhead) = %v, want 13.1s", got)
	}
	// With an unknown clock the time head's bins are respected.
	for range 1000 {
		d := ThinkTime([]float32{0, 0, 0, 1, 0, 0, 0, 0}, edges, Clock{Remaining: -1, Inc: -1}, Shape{Top: 0.5}, rng)
		if d < 2500*time.Millisecond || d > 4500*time.Millisecond {
			t.Fatalf("bin 3 drew %v, want 2.5s..4.5s", d)
		}
	}
}

// TestGameClock plays sequences of go commands through one GameClock: the
// Context of each, and the first clocks of a game standing for its time
// control until Reset.
func TestGameClock(t *testing.T) {
	ms := time.Millisecond
	none := GUIClocks{WTime: -1, BTime: -1, WInc: -1, BInc: -1}
	elo := Setting{MoverElo: 1500, OppElo: 1700}
	tc := Setting{MoverElo: 1500, OppElo: 1700, Base: 300 * time.Second, Inc: 3 * time.Second}
	type step struct {
		clocks GUIClocks
		white  bool
		s      Setting
		want   board.Context
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"clocks, then a go without them", []step{
			{GUIClocks{WTime: 180000 * ms, BTime: 178500 * ms, WInc: 2000 * ms, BInc: -1}, false, elo,
				board.Context{MoverRating: 1500, OppRating: 1700, Base: 180, Inc: 0, MoverClock: 178.5, OppClock: 180}},
			{GUIClocks{WTime: 90000 * ms, BTime: 100000 * ms, WInc: 2000 * ms, BInc: 2000 * ms}, true, elo,
				board.Context{MoverRating: 1500, OppRating: 1700, Base: 180, Inc: 2, MoverClock: 90, OppClock: 100}},
			// The first go's time control stays: base 180, White's increment 2.
			{none, true, elo, board.Context{MoverRating: 1500, OppRating: 1700, Base: 180, Inc: 2, MoverClock: -1, OppClock: -1}},
		}},
		{"TimeControl set, no clocks", []step{
			{none, true, tc, board.Context{MoverRating: 1500, OppRating: 1700, Base: 300, Inc: 3, MoverClock: -1, OppClock: -1}},
		}},
		{"TimeControl set, the GUI's increment wins", []step{
			{GUIClocks{WTime: 250000 * ms, BTime: 260000 * ms, WInc: 1000 * ms, BInc: 1000 * ms}, false, tc,
				board.Context{MoverRating: 1500, OppRating: 1700, Base: 300, Inc: 1, MoverClock: 260, OppClock: 250}},
		}},
		{"nothing known", []step{
			{none, false, elo, board.Context{MoverRating: 1500, OppRating: 1700, Base: -1, Inc: -1, MoverClock: -1, OppClock: -1}},
		}},
		{"one clock only; the first go's clocks are 0", []step{
			{GUIClocks{WTime: 0, BTime: -1, WInc: 1000 * ms, BInc: 1000 * ms}, true, elo,
				board.Context{MoverRating: 1500, OppRating: 1700, Base: 0, Inc: 1, MoverClock: 0, OppClock: -1}},
			{GUIClocks{WTime: 1000 * ms, BTime: 900 * ms, WInc: 1000 * ms, BInc: 1000 * ms}, false, elo,
				board.Context{MoverRating: 1500, OppRating: 1700, Base: 0, Inc: 1, MoverClock: 0.9, OppClock: 1}},
		}},
	}
	for _, tc := range tests {
		var gc GameClock
		for i, st := range tc.steps {
			assert.Equal(t, st.want, gc.Context(st.clocks, st.white, st.s), "%s: go %d %+v white to move %v", tc.name, i+1, st.clocks, st.white)
		}
		gc.Reset()
		assert.Equal(t, board.Context{MoverRating: 1500, OppRating: 1700, Base: -1, Inc: -1, MoverClock: -1, OppClock: -1},
			gc.Context(none, true, elo), "%s: after Reset the game's clocks are forgotten", tc.name)
	}
}

// TestContextClock checks the think-time clock taken from a Context.
func TestContextClock(t *testing.T) {
	tests := []struct {
		ctx            board.Context
		rem, inc, base time.Duration
	}{
		{board.Context{MoverClock: 2, Inc: 0.5, Base: 60}, 2 * time.Second, 500 * time.Millisecond, time.Minute},
		{board.Context{MoverClock: -1, Inc: -1, Base: -1}, -1, -1, -1},
		{board.Context{MoverClock: 1e10, Inc: 3e38, Base: 1e10}, math.MaxInt64, math.MaxInt64, math.MaxInt64},
		{board.Context{MoverClock: float32(math.NaN()), Inc: 0, Base: 15}, -1, 0, 15 * time.Second},
	}
	for _, tc := range tests {
		c := ContextClock(tc.ctx, 20, time.Second)
		assert.Equal(t, Clock{Remaining: tc.rem, Inc: tc.inc, MovesToGo: 20, Overhead: time.Second, Base: tc.base}, c, "context %+v", tc.ctx)
	}
}

func BenchmarkChoose(b *testing.B) {
	g := board.MustNewGame("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
	net := nets.NewFake(1)
	rng := rand.New(rand.NewPCG(1, 2))
	p := DefaultParams()
	for b.Loop() {
		if _, err := Choose(context.Background(), net, g, ctx1500(), p, rng); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFocusThreshold: the tolerance narrows with the human probability of
// the moves near the best (an easy position), never below FocusFloor (half
// of a stricter threshold), and
// is the threshold itself without focus, in a hard position, or without
// evaluated candidates.
func TestFocusThreshold(t *testing.T) {
	cand := func(prob, expected float64) *Candidate {
		return &Candidate{Prob: prob, WDL: [3]float64{expected, 0, 1 - expected}, HasWDL: true}
	}
	// Easy: 85% of the players find a move within the floor of the best.
	easy := map[int]*Candidate{0: cand(0.80, 0.50), 1: cand(0.10, 0.10), 2: cand(0.05, 0.47)}
	// Hard: the best move is found by 10%; a blunder draws 60%.
	hard := map[int]*Candidate{0: cand(0.10, 0.50), 1: cand(0.60, 0.10), 2: cand(0.30, 0.30)}
	idx := []int{0, 1, 2}
	tests := []struct {
		name  string
		focus float64
		cands map[int]*Candidate
		want  float64
	}{
		{"no focus", 0, easy, 0.4},
		{"negative focus", -1, easy, 0.4},
		{"easy, focus 1", 1, easy, 0.4 * 0.15},
		{"easy, focus 2: the floor", 2, easy, FocusFloor},
		{"hard, focus 1", 1, hard, 0.4 * 0.9},
		{"hard, focus 2", 2, hard, 0.4 * 0.81},
		{"no value", 1, map[int]*Candidate{0: {Prob: 1}}, 0.4},
	}
	for _, tt := range tests {
		if got := FocusThreshold(0.4, tt.focus, idx, tt.cands); !near(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	// A strict threshold narrows to half of itself at most; its good moves
	// are those within that half of the best (0.47 is not, within 0.015).
	if got := FocusThreshold(0.03, 1, idx, easy); !near(got, 0.015) {
		t.Errorf("strict threshold: %v, want 0.015 (the floor; good = 0.8)", got)
	}
	if got := FocusThreshold(0.03, 0.1, idx, easy); !near(got, 0.03*math.Pow(0.2, 0.1)) {
		t.Errorf("strict threshold, focus 0.1: %v, want %v", got, 0.03*math.Pow(0.2, 0.1))
	}
	if got := FocusThreshold(0, 2, idx, easy); got != 0 {
		t.Errorf("threshold 0: %v, want 0", got)
	}
}

// TestFocusVetoesInEasyPositions: a move losing 0.1 passes the 1500
// tolerance (0.2125), but with focus it is thrown out where nearly every
// player finds a good move; where the good move is the unlikely one, the
// same loss passes with focus too.
func TestFocusVetoesInEasyPositions(t *testing.T) {
	g := board.MustNewGame("")
	fake := nets.NewFake(1)
	// e2e4 holds 70% of the human probability, d2d4 30%; the rest ~0.
	fake.Logits = func(in nets.Input, moves []board.Move) []float32 {
		l := make([]float32, len(moves))
		for i, m := range moves {
			switch m.String() {
			case "e2e4":
				l[i] = 20 + float32(math.Log(0.7))
			case "d2d4":
				l[i] = 20 + float32(math.Log(0.3))
			}
		}
		return l
	}
	// loser's expected score for the mover is 0.4 after it, 0.5 after anything else.
	wdlAfter := func(loser string) func(g *board.Game) []float32 {
		return func(g *board.Game) []float32 {
			if last, ok := g.LastMove(); ok && last.String() == loser {
				return []float32{0.4, 0.4, 0.2} // the opponent's view
			}
			return []float32{0.3, 0.4, 0.3}
		}
	}
	p := DefaultParams()
	played := func(loser string, focus float64) map[string]int {
		p.Focus = focus
		net := valueNet{fake, wdlAfter(loser)}
		count := map[string]int{}
		for seed := range uint64(200) {
			ch, err := Choose(context.Background(), net, g, ctx1500(), p, rand.New(rand.NewPCG(seed, 2)))
			if err != nil {
				t.Fatal(err)
			}
			count[ch.Move.String()]++
		}
		return count
	}
	// Easy: d2d4 (30%) loses 0.1 and the good e2e4 holds 70%.
	if c := played("d2d4", 0); c["d2d4"] < 40 {
		t.Errorf("easy, no focus: d2d4 played %d of 200, want about 60 (within the tolerance)", c["d2d4"])
	}
	if c := played("d2d4", 2); c["d2d4"] != 0 {
		t.Errorf("easy, focus 2: d2d4 played %d of 200, want 0 (tolerance %v)", c["d2d4"], 0.2125*0.09)
	}
	// Hard: e2e4 (70%) loses 0.1; the good move d2d4 is the unlikely one.
	if c := played("e2e4", 2); c["e2e4"] < 100 {
		t.Errorf("hard, focus 2: e2e4 played %d of 200, want about 140 (tolerance %v)", c["e2e4"], 0.2125*0.49)
	}
}

func TestGuide(t *testing.T) {
	l := []float32{1, -2, 0.5, 3}
	c := []float32{2, -2, -0.5, float32(math.Inf(-1))}
	assert.Equal(t, l, Guide(l, c, 0), "guidance 0 leaves the logits")
	got := Guide(l, c, 1.5)
	want := []float32{1 + 1.5*(1-2), -2, 0.5 + 1.5*(0.5+0.5), 3}
	for i := range want {
		assert.InDelta(t, want[i], got[i], 1e-6, "entry %d", i)
	}
	assert.Equal(t, []float32{1, -2, 0.5, 3}, l, "the input is not modified")
}

// TestChooseGuidance: with guidance the root batch holds the position twice,
// the second at the contrast's rating, and the choice follows the guided
// logits; without it the net sees the position once.
func TestChooseGuidance(t *testing.T) {
	g := board.MustNewGame("")
	// Each move's logit moves with the mover's rating at its own rate.
	logits := func(in nets.Input, moves []board.Move) []float32 {
		out := make([]float32, len(moves))
		for i := range moves {
			base := float32(i % 5)
			slope := float32(i%7-3) / 1000
			out[i] = base + slope*(in.Ctx.MoverRating-1500)
		}
		return out
	}
	seen := map[float32]int{}
	net := &nets.Fake{Logits: func(in nets.Input, moves []board.Move) []float32 {
		seen[in.Ctx.MoverRating]++
		return logits(in, moves)
	}, NoWDL: true}
	c := ctx1500()
	c.MoverRating = 2000
	p := DefaultParams()
	p.Temperature, p.BlunderFilter = 0, false
	p.Guidance, p.GuidanceRating = 2, 600

	ch, err := Choose(context.Background(), net, g, c, p, rand.New(rand.NewPCG(1, 2)))
	assert.NoError(t, err)
	assert.Equal(t, map[float32]int{2000: 1, 600: 1}, seen, "one batch of the position at both ratings")
	assert.Equal(t, 1, net.Calls())
	assert.Equal(t, 2, ch.Evaluated, "both rows count as evaluated positions")

	moves := g.LegalMoves()
	contrast := c
	contrast.MoverRating = 600
	at, lo := logits(nets.Input{Game: g, Ctx: c}, moves), logits(nets.Input{Game: g, Ctx: contrast}, moves)
	best, plain := 0, 0
	for i := range moves {
		if at[i]+2*(at[i]-lo[i]) > at[best]+2*(at[best]-lo[best]) {
			best = i
		}
		if at[i] > at[plain] {
			plain = i
		}
	}
	assert.NotEqual(t, moves[plain], moves[best], "the test's logits must make guidance matter")
	assert.Equal(t, moves[best], ch.Move, "argmax of the guided logits")

	clear(seen)
	p.Guidance = 0
	ch, err = Choose(context.Background(), net, g, c, p, rand.New(rand.NewPCG(1, 2)))
	assert.NoError(t, err)
	assert.Equal(t, map[float32]int{2000: 1}, seen)
	assert.Equal(t, 1, ch.Evaluated)
	assert.Equal(t, moves[plain], ch.Move)
}
