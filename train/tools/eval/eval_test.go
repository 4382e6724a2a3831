package eval

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/nets"
	scores "github.com/humchess/humchess/score"
	"github.com/humchess/humchess/train/data/games"
	"github.com/humchess/humchess/train/data/pgn"
	"github.com/humchess/humchess/train/tools/match"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// played maps (position hash, ply, mover rating) to the move the synthetic human played.
type played map[[3]uint64]board.Move

// oracle is a net that gives the human move logit +10 when White is to
// move and -10 when Black is (every other move 0): White's moves are always
// its first choice, Black's always its last.
func oracle(pl played) func() (nets.Net, error) {
	return humanLogit(pl, func(in nets.Input) float32 {
		if in.Game.WhiteToMove() {
			return 10
		}
		return -10
	})
}

// humanLogit is a net that gives the human move the logit logit(in) and
// every other move 0.
func humanLogit(pl played, logit func(nets.Input) float32) func() (nets.Net, error) {
	return func() (nets.Net, error) {
		f := nets.NewFake(0)
		f.Logits = func(in nets.Input, moves []board.Move) []float32 {
			h := pl[[3]uint64{in.Game.Hash(), uint64(in.Game.Ply()), uint64(in.Ctx.MoverRating)}]
			out := make([]float32, len(moves))
			for i, m := range moves {
				if m == h {
					out[i] = logit(in)
				}
			}
			return out
		}
		return f, nil
	}
}

// uniform is a net with equal logits: P(human move) = 1/n.
func uniform() (nets.Net, error) {
	f := nets.NewFake(0)
	f.Logits = func(in nets.Input, moves []board.Move) []float32 { return make([]float32, len(moves)) }
	return f, nil
}

// synthGame plays up to plies random moves (seeded) and writes the game
// as PGN with clocks (White's clock is below 30 s from ply 20 on). It
// records the moves in pl and returns, per ply, the number of legal moves.
func synthGame(t *testing.T, pl played, seed uint64, plies, whiteElo, blackElo int) (string, []int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	g := board.MustNewGame("")
	var ucis []string
	var counts []int
	for i := 0; i < plies && g.Status() == board.Ongoing; i++ {
		ms := g.LegalMoves()
		counts = append(counts, len(ms))
		m := ms[rng.IntN(len(ms))]
		if pl != nil {
			r := whiteElo
			if i%2 == 1 {
				r = blackElo
			}
			pl[[3]uint64{g.Hash(), uint64(g.Ply()), uint64(r)}] = m
		}
		ucis = append(ucis, m.String())
		require.NoError(t, g.PlayMove(m))
	}
	sans, err := match.SAN("", ucis)
	require.NoError(t, err)
	var b strings.Builder
	fmt.Fprintf(&b, "[Event \"Rated Blitz game\"]\n[Site \"https://lichess.org/synth%d\"]\n[White \"w\"]\n[Black \"b\"]\n[Result \"1/2-1/2\"]\n[WhiteElo \"%d\"]\n[BlackElo \"%d\"]\n[TimeControl \"300+0\"]\n\n", seed, whiteElo, blackElo)
	for i, s := range sans {
		if i%2 == 0 {
			fmt.Fprintf(&b, "%d. ", i/2+1)
		}
		clock := 200
		if i%2 == 0 && i >= 18 { // White's clock after its move at ply 18 is what it has at ply 20
			clock = 20
		}
		fmt.Fprintf(&b, "%s { [%%clk 0:%02d:%02d] } ", s, clock/60, clock%60)
	}
	b.WriteString("1/2-1/2\n\n")
	return b.String(), counts
}

// TestRunTruncated evaluates a zstd file cut short: the games before the
// cut are evaluated and the report carries a warning naming the file.
func TestRunTruncated(t *testing.T) {
	full, err := os.ReadFile(realPGN)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "cut.pgn.zst")
	require.NoError(t, os.WriteFile(path, full[:len(full)/8], 0o644))
	rep, err := Run(context.Background(), Config{
		Inputs:      []string{path},
		Contestants: []Spec{NetContestantSpec("uniform", uniform)},
		Workers:     1,
	})
	require.NoError(t, err, "a truncated file is a warning, not a failure")
	assert.Positive(t, rep.Games, "the games before the cut are evaluated")
	require.Len(t, rep.Warnings, 1)
	assert.Contains(t, rep.Warnings[0], "cut.pgn.zst")
	assert.Contains(t, rep.Warnings[0], "truncated or corrupt")
	var b strings.Builder
	require.NoError(t, rep.WriteText(&b, []string{"all"}))
	assert.Contains(t, b.String(), "warning: ")
}

// TestComparePairs checks several compared pairs: one paired difference
// each, in the text and the CSV.
func TestComparePairs(t *testing.T) {
	pl := played{}
	g1, _ := synthGame(t, pl, 1, 40, 1520, 1230)
	g2, _ := synthGame(t, pl, 2, 30, 1540, 1210)
	path := filepath.Join(t.TempDir(), "synth.pgn")
	require.NoError(t, os.WriteFile(path, []byte(g1+g2), 0o644))
	rep, err := Run(context.Background(), Config{
		Inputs:      []string{path},
		Contestants: []Spec{NetContestantSpec("oracle", oracle(pl)), NetContestantSpec("uniform", uniform), NetContestantSpec("again", oracle(pl))},
		Compare:     [][2]int{{0, 1}, {1, 0}, {0, 2}},
		Workers:     2,
	})
	require.NoError(t, err)
	all := rep.Row(ProtocolAll, "all", "all")
	require.Len(t, all.Diffs, 3)
	m01, h01 := all.Diffs[0].Mean()
	want := float64(all.Cells[0].Top1-all.Cells[1].Top1) / float64(all.Cells[0].N)
	assert.InDelta(t, want, m01, 1e-12)
	assert.Positive(t, want)
	m10, h10 := all.Diffs[1].Mean()
	assert.InDelta(t, -m01, m10, 1e-12, "the reversed pair")
	assert.InDelta(t, h01, h10, 1e-12)
	m02, h02 := all.Diffs[2].Mean()
	assert.Equal(t, 0.0, m02, "the same net twice")
	assert.Equal(t, 0.0, h02)

	var txt strings.Builder
	require.NoError(t, rep.WriteText(&txt, []string{"all"}))
	for _, name := range []string{"top1 oracle - uniform", "top1 uniform - oracle", "top1 oracle - again"} {
		assert.Equal(t, 2, strings.Count(txt.String(), name), "%s: a column in each protocol's table", name)
	}
	assert.Contains(t, txt.String(), "+0.00 [0.00, 0.00]")
	var csvOut strings.Builder
	require.NoError(t, rep.WriteCSV(&csvOut))
	for _, name := range []string{"oracle - uniform", "uniform - oracle", "oracle - again"} {
		assert.Contains(t, csvOut.String(), "all,all,all,"+name+",", name)
	}

	_, err = Run(context.Background(), Config{
		Inputs:      []string{path},
		Contestants: []Spec{NetContestantSpec("oracle", oracle(pl)), NetContestantSpec("uniform", uniform)},
		Compare:     [][2]int{{0, 1}, {0, 2}},
	})
	assert.ErrorIs(t, err, ErrConfig, "a pair past the contestants")
}

func TestRunSynthetic(t *testing.T) {
	dir := t.TempDir()
	pl := played{}
	g1, c1 := synthGame(t, pl, 1, 40, 1520, 1230)
	g2, c2 := synthGame(t, pl, 2, 30, 1540, 1210)
	require.Len(t, c1, 40, "game 1 lasts")
	require.Len(t, c2, 30, "game 2 lasts")
	path := filepath.Join(dir, "synth.pgn")
	// A BOT game and an unrated game are skipped.
	bot := strings.Replace(g1, "[White \"w\"]", "[White \"w\"]\n[WhiteTitle \"BOT\"]", 1)
	unrated := strings.Replace(g2, "[WhiteElo \"1540\"]", "[WhiteElo \"?\"]", 1)
	require.NoError(t, os.WriteFile(path, []byte(g1+g2+bot+unrated), 0o644))

	rep, err := Run(context.Background(), Config{
		Inputs:      []string{path},
		Contestants: []Spec{NetContestantSpec("oracle", oracle(pl)), NetContestantSpec("uniform", uniform)},
		Workers:     2,
	})
	require.NoError(t, err)
	assert.Equal(t, int64(2), rep.Games)
	assert.Equal(t, map[string]int64{"BOT account": 1, "rating unknown": 1}, rep.Skipped)

	// Expected values, by construction.
	type tally struct {
		n, top1, top3 int64
		ce            float64
		maiaN         int64
	}
	var white, black tally
	for _, counts := range [][]int{c1, c2} {
		for i, n := range counts {
			tl := &white
			if i%2 == 1 {
				tl = &black
			}
			tl.n++
			rank := 0
			if i%2 == 1 {
				rank = n - 1
			}
			if rank == 0 {
				tl.top1++
			}
			if rank < 3 {
				tl.top3++
			}
			// Oracle: the human move has logit +-10, the others 0.
			l := 10.0
			if i%2 == 1 {
				l = -10
			}
			tl.ce -= l - math.Log(math.Exp(l)+float64(n-1))
			moverClockOK := i%2 == 1 || i < 20
			if i >= 10 && moverClockOK {
				tl.maiaN++
			}
		}
	}
	for _, tc := range []struct {
		band string
		want tally
	}{{"1500", white}, {"1200", black}} {
		row := rep.Row(ProtocolAll, "rating", tc.band)
		require.NotNil(t, row, "band %s", tc.band)
		c := row.Cells[0]
		assert.Equal(t, tc.want.n, c.N, "band %s positions", tc.band)
		assert.Equal(t, tc.want.top1, c.Top1, "band %s top1", tc.band)
		assert.Equal(t, tc.want.top3, c.Top3, "band %s top3", tc.band)
		assert.InDelta(t, tc.want.ce/float64(tc.want.n), c.CrossEntropy(), 1e-4, "band %s CE", tc.band)
		maia := rep.Row(ProtocolMaia, "rating", tc.band)
		require.NotNil(t, maia)
		assert.Equal(t, tc.want.maiaN, maia.Cells[0].N, "band %s maia positions", tc.band)
	}
	assert.Equal(t, 1.0, rep.Row(ProtocolAll, "rating", "1500").Cells[0].Top1Rate(), "White always plays the oracle's move")
	assert.Equal(t, int64(len(c1)-10+len(c2)-10-10-5), rep.Row(ProtocolMaia, "all", "all").Cells[0].N,
		"maia protocol: plies 0-9 dropped, White's moves from ply 20 dropped")

	// Uniform: CE is the mean log of the number of legal moves.
	var logn float64
	var n int
	for _, counts := range [][]int{c1, c2} {
		for _, k := range counts {
			logn += math.Log(float64(k))
			n++
		}
	}
	all := rep.Row(ProtocolAll, "all", "all")
	assert.InDelta(t, logn/float64(n), all.Cells[1].CrossEntropy(), 1e-4)
	assert.Equal(t, int64(n), all.Cells[1].N, "same positions for every contestant")

	// Paired difference: oracle minus uniform over the same positions.
	require.Len(t, all.Diffs, 1, "one pair by default: the first two")
	m, h := all.Diffs[0].Mean()
	want := float64(all.Cells[0].Top1-all.Cells[1].Top1) / float64(n)
	assert.InDelta(t, want, m, 1e-12)
	assert.True(t, h > 0 && h < 0.5, "half-width %v", h)

	// Opponent bands: White is ~300 above Black.
	assert.NotNil(t, rep.Row(ProtocolAll, "opponent", "-300..-201"), "white's opponent is 290-330 lower")
	// Gap, both signs pooled: every position of these games is 290-330 apart.
	gap := rep.Row(ProtocolAll, "gap", "200+")
	require.NotNil(t, gap)
	assert.Equal(t, all.Cells[0].N, gap.Cells[0].N, "both movers' positions in 200+")
	assert.Nil(t, rep.Row(ProtocolAll, "gap", "0-99"))

	var text, csvOut strings.Builder
	require.NoError(t, rep.WriteText(&text, nil))
	assert.Contains(t, text.String(), "[maia positions] by rating")
	assert.Contains(t, text.String(), "100.0")
	require.NoError(t, rep.WriteCSV(&csvOut))
	assert.Contains(t, csvOut.String(), "all,rating,1500,oracle,")
	assert.Contains(t, csvOut.String(), "oracle - uniform")
	files, err := rep.WritePlots(dir)
	require.NoError(t, err)
	assert.Len(t, files, 4)
}

func TestSplit(t *testing.T) {
	dir := t.TempDir()
	var all strings.Builder
	for i := range 60 {
		g, _ := synthGame(t, nil, uint64(i), 12, 1500, 1400)
		all.WriteString(g)
	}
	path := filepath.Join(dir, "s.pgn")
	require.NoError(t, os.WriteFile(path, []byte(all.String()), 0o644))
	count := func(split string) int64 {
		rep, err := Run(context.Background(), Config{Inputs: []string{path}, Split: split, ValFraction: 0.3,
			Contestants: []Spec{NetContestantSpec("u", uniform)}})
		require.NoError(t, err)
		return rep.Games
	}
	v, tr, a := count("validation"), count("train"), count("all")
	assert.Equal(t, a, v+tr, "validation and train partition the games")
	assert.Equal(t, int64(60), a)
	assert.True(t, v > 5 && v < 35, "about 30%% in validation: %d", v)
	_, err := Run(context.Background(), Config{Inputs: []string{path}, Split: "nope", Contestants: []Spec{NetContestantSpec("u", uniform)}})
	assert.ErrorIs(t, err, ErrConfig)
}

func TestScore(t *testing.T) {
	moves := []board.Move{{From: 12, To: 28}, {From: 11, To: 27}, {From: 6, To: 21}, {From: 1, To: 18}}
	for _, tc := range []struct {
		logits     []float32
		human      int
		top1, top3 bool
	}{
		{[]float32{3, 2, 1, 0}, 0, true, true},
		{[]float32{3, 2, 1, 0}, 2, false, true},
		{[]float32{3, 2, 1, 0}, 3, false, false},
		{[]float32{1, 1, 1, 1}, 0, true, true},   // ties go to the first listed
		{[]float32{1, 1, 1, 1}, 3, false, false}, // ...and rank the later ones after
	} {
		p := score(nets.Output{Moves: moves, Logits: tc.logits}, moves[tc.human])
		assert.Equal(t, tc.top1, p.Top1, "%v human %d", tc.logits, tc.human)
		assert.Equal(t, tc.top3, p.Top3, "%v human %d", tc.logits, tc.human)
		z := 0.0
		for _, l := range tc.logits {
			z += math.Exp(float64(l))
		}
		assert.InDelta(t, float64(tc.logits[tc.human])-math.Log(z), p.LogP, 1e-9)
	}
	p := score(nets.Output{Moves: moves, Logits: []float32{1, 2, 3, 4}}, board.Move{From: 0, To: 1})
	assert.False(t, p.Top1)
	assert.True(t, math.IsNaN(p.LogP), "a move the net does not list has no probability")
}

func TestMaiaBand(t *testing.T) {
	for r, want := range map[int]int{600: 1100, 1099: 1100, 1100: 1100, 1549: 1500, 1999: 1900, 2800: 1900} {
		assert.Equal(t, want, MaiaBand(r), "rating %d", r)
	}
}

func TestClockBucket(t *testing.T) {
	for c, want := range map[float64]string{-1: "unknown", 0: "<10s", 9.9: "<10s", 10: "10-30s", 29: "10-30s", 30: "30-60s", 100: "1-3min", 300: "3-10min", 900: "10min+"} {
		assert.Equal(t, want, clockBucket(c).Label, "clock %v", c)
	}
}

// TestHeadLosses scores the value head against the game's result and the
// think-time head against the think-time class of the move, from the
// positions a PGN with clocks gives.
func TestHeadLosses(t *testing.T) {
	g, _ := synthGame(t, nil, 3, 24, 1500, 1500)
	ps, ok := Positions(readPGN(t, strings.Replace(g, "1/2-1/2", "0-1", -1)))
	require.True(t, ok)
	require.Len(t, ps, 24)
	// White (to move at even plies) lost; Black won.
	assert.Equal(t, []int{-1, 1}, []int{ps[4].Result, ps[5].Result})
	assert.True(t, ps[4].HasResult)
	// Clocks stay at 3:20 except White's after ply 18 (0:20): 180 s spent there.
	assert.InDelta(t, 0, ps[4].Seconds, 1e-9)
	assert.InDelta(t, 180, ps[18].Seconds, 1e-9)

	wdl := []float32{0.5, 0.3, 0.2}
	tm := []float32{0.4, 0.1, 0.1, 0.1, 0.1, 0.1, 0.05, 0.05}
	o := nets.Output{WDL: wdl, Time: tm}
	w, th, _ := headLosses(o, &ps[4])
	assert.InDelta(t, -math.Log(0.2), w, 1e-6, "the mover lost: P(loss) scores")
	assert.InDelta(t, -math.Log(0.4), th, 1e-6, "0 s is class 0")
	w, th, _ = headLosses(o, &ps[18])
	assert.InDelta(t, -math.Log(0.2), w, 1e-6)
	assert.InDelta(t, -math.Log(0.05), th, 1e-6, "180 s is the last class")
	w, _, _ = headLosses(o, &ps[5])
	assert.InDelta(t, -math.Log(0.5), w, 1e-6, "the mover won: P(win) scores")

	// A net without the heads, an unknown result or time: NaN, not counted.
	w, th, _ = headLosses(nets.Output{}, &ps[4])
	assert.True(t, math.IsNaN(w) && math.IsNaN(th))
	p := ps[4]
	p.HasResult, p.Seconds = false, -1
	w, th, _ = headLosses(o, &p)
	assert.True(t, math.IsNaN(w) && math.IsNaN(th))
}

// TestEvalLoss reads the games' own evaluations into the positions (the
// %eval after the previous move, for the mover; none for the first
// position or after a move without one), scores the value head's expected
// score against them, and reports the distance per contestant and paired,
// in the text and the CSV.
func TestEvalLoss(t *testing.T) {
	g, _ := synthGame(t, nil, 7, 12, 1500, 1500)
	// %eval before every %clk but the sixth move's; the eighth is a mate for Black.
	parts := strings.Split(g, "{ [%clk")
	require.Len(t, parts, 13)
	evals := make([]float64, 12)
	var b strings.Builder
	b.WriteString(parts[0])
	for i, p := range parts[1:] {
		switch i {
		case 5:
			evals[i] = math.NaN()
			b.WriteString("{ [%clk")
		case 7:
			evals[i] = -(1000 - 2)
			b.WriteString("{ [%eval #-2] [%clk")
		default:
			evals[i] = float64(i-4) * 0.35
			fmt.Fprintf(&b, "{ [%%eval %.2f] [%%clk", evals[i])
		}
		b.WriteString(p)
	}
	ps, ok := Positions(readPGN(t, b.String()))
	require.True(t, ok)
	require.Len(t, ps, 12)
	o := nets.Output{WDL: []float32{0.5, 0.3, 0.2}}
	with := 0
	for i, p := range ps {
		if i == 0 || i == 6 {
			assert.True(t, math.IsNaN(p.Eval), "ply %d: no evaluation", i)
			_, _, ev := headLosses(o, &p)
			assert.True(t, math.IsNaN(ev), "ply %d", i)
			continue
		}
		want := 100 * evals[i-1]
		if i%2 == 1 {
			want = -want // Black to move
		}
		assert.InDelta(t, want, p.Eval, 1e-9, "ply %d", i)
		_, _, ev := headLosses(o, &p)
		assert.InDelta(t, math.Abs(0.65-scores.Expected(want)), ev, 1e-6, "ply %d", i)
		with++
	}
	_, _, ev := headLosses(nets.Output{}, &ps[3])
	assert.True(t, math.IsNaN(ev), "no value head")

	rep, all := runTwoFakes(t, b.String(), 1)
	for _, c := range all.Cells {
		assert.Equal(t, int64(with), c.EvN)
		assert.Greater(t, c.EvalLoss(), 0.0)
	}
	d := all.EvalDiffs[0]
	assert.Equal(t, int64(with), d.N)
	m, _ := d.Mean()
	assert.InDelta(t, all.Cells[0].EvalLoss()-all.Cells[1].EvalLoss(), m, 1e-9)
	var txt strings.Builder
	require.NoError(t, rep.WriteText(&txt, []string{"all"}))
	assert.Contains(t, txt.String(), fmt.Sprintf("evaluation %.4f (%d)", all.Cells[0].EvalLoss(), with))
	assert.Contains(t, txt.String(), fmt.Sprintf("evaluation %+.4f", m))
	var csvOut strings.Builder
	require.NoError(t, rep.WriteCSV(&csvOut))
	assert.Contains(t, csvOut.String(), ",games,eval_loss\n")
	assert.Contains(t, csvOut.String(), "all,all,all,evaluation a - b,")
}

// readPGN parses the first game of a PGN text.
func readPGN(t *testing.T, text string) *pgn.Game {
	t.Helper()
	g, err := pgn.NewReader(strings.NewReader(text)).Next()
	require.NoError(t, err)
	return g
}

func TestGapBucket(t *testing.T) {
	for _, tc := range []struct {
		d    int
		want string
	}{{0, "0-99"}, {99, "0-99"}, {-99, "0-99"}, {100, "100-199"}, {-199, "100-199"}, {200, "200+"}, {-200, "200+"}, {-900, "200+"}, {1500, "200+"}} {
		b := gapBucket(tc.d)
		assert.Equal(t, "gap", b.Dim)
		assert.Equal(t, tc.want, b.Label, "gap %d", tc.d)
	}
}

// TestRatingMap checks that a rating map moves a chess.com game's ratings
// before the report reads them (its positions fall in the mapped bands)
// and leaves a lichess game's alone.
func TestRatingMap(t *testing.T) {
	dir := t.TempDir()
	lich, _ := synthGame(t, nil, 1, 12, 1500, 1400)
	cc, _ := synthGame(t, nil, 2, 12, 1500, 1400)
	cc = strings.Replace(cc, "https://lichess.org/synth2", "Chess.com", 1)
	path := filepath.Join(dir, "two.pgn")
	require.NoError(t, os.WriteFile(path, []byte(lich+cc), 0o644))
	m := &games.RatingMap{Name: "t", Maps: []games.MapEntries{{Platform: "chess.com", Points: [][2]float64{{1000, 1300}, {2000, 2300}}}}}
	require.NoError(t, m.Validate())
	count := func(m *games.RatingMap) map[string]int64 {
		rep, err := Run(context.Background(), Config{Inputs: []string{path}, RatingMap: m,
			Contestants: []Spec{NetContestantSpec("u", uniform)}})
		require.NoError(t, err)
		got := map[string]int64{}
		for _, b := range rep.Buckets(ProtocolAll, "rating") {
			got[b.Label] = rep.Row(ProtocolAll, "rating", b.Label).Cells[0].N
		}
		return got
	}
	assert.Equal(t, map[string]int64{"1400": 12, "1500": 12}, count(nil))
	assert.Equal(t, map[string]int64{"1400": 6, "1500": 6, "1700": 6, "1800": 6}, count(m))
}

// ratingSpy is a contestant that records the mover ratings it is given.
type ratingSpy struct {
	mu   *sync.Mutex
	seen map[int]int
}

func (s ratingSpy) Predict(_ context.Context, ps []*Position, out []Prediction) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, p := range ps {
		if int(p.Ctx.MoverRating) != p.MoverRating {
			return fmt.Errorf("position %d: context rating %v, mover rating %d", i, p.Ctx.MoverRating, p.MoverRating)
		}
		s.seen[p.MoverRating]++
		out[i] = Prediction{LogP: math.Log(0.5), WDLLoss: math.NaN(), TimeLoss: math.NaN()}
	}
	return nil
}

func (ratingSpy) Close() error { return nil }

// TestOwnScale checks that a contestant with its own rating scale reads
// ratings mapped by it (here none: the PGN's) while the others and the
// tables read the report's map.
func TestOwnScale(t *testing.T) {
	dir := t.TempDir()
	cc, _ := synthGame(t, nil, 2, 12, 1500, 1400)
	cc = strings.Replace(cc, "https://lichess.org/synth2", "Chess.com", 1)
	path := filepath.Join(dir, "cc.pgn")
	require.NoError(t, os.WriteFile(path, []byte(cc), 0o644))
	m := &games.RatingMap{Name: "t", Maps: []games.MapEntries{{Platform: "chess.com", Points: [][2]float64{{1000, 1300}, {2000, 2300}}}}}
	spy := func(name string, own bool) (Spec, map[int]int) {
		seen := map[int]int{}
		mu := &sync.Mutex{}
		return Spec{Name: name, Probabilities: true, OwnScale: own, Open: func() (Contestant, error) {
			return ratingSpy{mu: mu, seen: seen}, nil
		}}, seen
	}
	report, seenReport := spy("report", false)
	own, seenOwn := spy("own", true)
	rep, err := Run(context.Background(), Config{Inputs: []string{path}, RatingMap: m, Contestants: []Spec{report, own}})
	require.NoError(t, err)
	assert.Equal(t, map[int]int{1800: 6, 1700: 6}, seenReport)
	assert.Equal(t, map[int]int{1500: 6, 1400: 6}, seenOwn)
	assert.Equal(t, []string{"t", ""}, rep.Scales)
	for _, b := range rep.Buckets(ProtocolAll, "rating") {
		assert.Contains(t, []string{"1700", "1800"}, b.Label)
	}
	var text strings.Builder
	require.NoError(t, rep.WriteText(&text, []string{"all"}))
	assert.Contains(t, text.String(), "own reads ratings as the PGN gives them")
}

// TestMean evaluates the mean of the oracle and the uniform net: it keeps the
// oracle's first choice for White (probability about 1/2 + 1/2n) and its
// last place for Black (about 1/2n), so its log-probability of the human
// move is the log of the two nets' mean, position by position.
func TestMean(t *testing.T) {
	pl := played{}
	g1, counts := synthGame(t, pl, 1, 40, 1520, 1230)
	path := filepath.Join(t.TempDir(), "synth.pgn")
	require.NoError(t, os.WriteFile(path, []byte(g1), 0o644))
	oracleSpec, uniformSpec := NetContestantSpec("oracle", oracle(pl)), NetContestantSpec("uniform", uniform)
	mean, err := MeanSpec("mean", []Spec{oracleSpec, uniformSpec}, []float64{1, 1})
	require.NoError(t, err)
	rep, err := Run(context.Background(), Config{Inputs: []string{path}, Workers: 1,
		Contestants: []Spec{oracleSpec, uniformSpec, mean}})
	require.NoError(t, err)
	all := rep.Row(ProtocolAll, "all", "all")
	o, m := all.Cells[0], all.Cells[2]
	require.Equal(t, int64(len(counts)), m.N)
	assert.Equal(t, o.Top1, m.Top1, "White's moves first, Black's last")
	var want float64
	for ply, n := range counts {
		po := math.Exp(10) / (math.Exp(10) + float64(n-1)) // White: the human move's logit is +10
		if ply%2 == 1 {
			po = math.Exp(-10) / (math.Exp(-10) + float64(n-1))
		}
		want += math.Log(0.5*po + 0.5/float64(n))
	}
	assert.InDelta(t, want, m.LogP, 1e-3)

	_, err = MeanSpec("one", []Spec{oracleSpec}, []float64{1})
	assert.ErrorIs(t, err, ErrSpec, "one member")
	_, err = MeanSpec("w", []Spec{oracleSpec, uniformSpec}, []float64{1, 0})
	assert.ErrorIs(t, err, ErrSpec, "a zero weight")
	engine := UCISpec("engine", EngineSpec{Path: "nonexistent"})
	_, err = MeanSpec("e", []Spec{oracleSpec, engine}, []float64{1, 1})
	assert.ErrorIs(t, err, ErrSpec, "an engine gives no probabilities")
	mapped := uniformSpec
	mapped.OwnScale = true
	_, err = MeanSpec("s", []Spec{oracleSpec, mapped}, []float64{1, 1})
	assert.ErrorIs(t, err, ErrSpec, "members on two rating scales")
}

// knows is a net sure of the human move in games whose players' ratings
// are even and sure against it where they are odd: its hits come a whole
// game at a time.
func knows(pl played) func() (nets.Net, error) {
	return humanLogit(pl, func(in nets.Input) float32 {
		if int(in.Ctx.MoverRating)%2 == 0 {
			return 10
		}
		return -10
	})
}

// TestIntervalByGame checks that the paired interval counts games, not
// positions: when a contestant is right on every position of half the
// games and wrong on every position of the others, the interval is the
// textbook one of the mean of the per-game hit rates (equal game lengths),
// several times wider than one that took the positions as independent.
func TestIntervalByGame(t *testing.T) {
	const nGames, plies = 8, 20
	pl := played{}
	var pgnText strings.Builder
	for i := range nGames {
		elo := 1500 + 2*i + i%2 // even ratings: the games the contestant knows; one rating per game keeps their moves apart
		g, counts := synthGame(t, pl, uint64(100+i), plies, elo, elo)
		require.Len(t, counts, plies, "every game runs its full length")
		pgnText.WriteString(g)
	}
	path := filepath.Join(t.TempDir(), "games.pgn")
	require.NoError(t, os.WriteFile(path, []byte(pgnText.String()), 0o644))
	rep, err := Run(context.Background(), Config{
		Inputs:      []string{path},
		Contestants: []Spec{NetContestantSpec("knows", knows(pl)), NetContestantSpec("uniform", uniform)},
		Workers:     2,
	})
	require.NoError(t, err)
	all := rep.Row(ProtocolAll, "all", "all")
	require.NotNil(t, all)
	d := all.Diffs[0]
	assert.Equal(t, int64(nGames), d.Games)
	assert.Equal(t, int64(nGames), all.Games)
	assert.Equal(t, int64(nGames*plies), d.N)

	// The textbook interval from the per-game means of the differences,
	// recomputed from the hits: knows is right on every position of the
	// even games and on none of the odd ones; uniform's first choice is
	// the first legal move, a hit or not per position.
	require.Equal(t, int64(nGames/2*plies), all.Cells[0].Top1)
	m, half := d.Mean()
	assert.InDelta(t, float64(all.Cells[0].Top1-all.Cells[1].Top1)/float64(d.N), m, 1e-12)
	// Per-game means: 1 - u_g for even games, -u_g for odd ones, u_g being
	// uniform's hit rate in game g; with equal lengths the cluster-robust
	// variance is the variance of these means over G.
	var elos []int
	for i := range nGames {
		elos = append(elos, 1500+2*i+i%2)
	}
	mean, want := textbook95(t, perGame(t, pl, 100, elos, plies, func(c []Cell) float64 {
		return float64(c[0].Top1-c[1].Top1) / float64(c[0].N)
	}))
	assert.InDelta(t, mean, m, 1e-12)
	assert.InDelta(t, want, half, 1e-3*want)
	assert.Greater(t, half, 3*d.PositionHalf(), "games of 20 agreeing positions: the per-position interval is too narrow")

	var txt strings.Builder
	require.NoError(t, rep.WriteText(&txt, []string{"all"}))
	assert.Contains(t, txt.String(), "counts each game as one draw")
}

// TestT95 checks the t quantiles against printed tables (97.5%, two-sided
// 95%): 12.706, 4.303, 3.182, 2.228, 2.042, 1.984 at 1, 2, 3, 10, 30, 100
// degrees of freedom, and the normal 1.960 far out.
func TestT95(t *testing.T) {
	for df, want := range map[int]float64{1: 12.706, 2: 4.303, 3: 3.182, 10: 2.228, 30: 2.042, 100: 1.984, 100000: 1.960} {
		assert.InDelta(t, want, t95(df), 0.002*want, "df %d", df)
	}
	assert.True(t, math.IsNaN(t95(0)))
}

// TestCEIntervalByGame checks the paired cross-entropy difference: its mean
// is the difference of the two contestants' cross-entropies over the same
// positions, its interval the textbook one of the per-game mean
// differences (equal game lengths), and it is printed and written only for
// pairs where both contestants give probabilities.
func TestCEIntervalByGame(t *testing.T) {
	const nGames, plies = 8, 20
	pl := played{}
	var pgnText strings.Builder
	var elos []int
	for i := range nGames {
		elo := 1500 + 2*i + i%2
		elos = append(elos, elo)
		g, _ := synthGame(t, pl, uint64(300+i), plies, elo, elo)
		pgnText.WriteString(g)
	}
	path := filepath.Join(t.TempDir(), "games.pgn")
	require.NoError(t, os.WriteFile(path, []byte(pgnText.String()), 0o644))
	topOnly := NetContestantSpec("toponly", uniform)
	topOnly.Probabilities = false
	rep, err := Run(context.Background(), Config{
		Inputs:      []string{path},
		Contestants: []Spec{NetContestantSpec("knows", knows(pl)), NetContestantSpec("uniform", uniform), topOnly},
		Compare:     [][2]int{{0, 1}, {0, 2}},
		Workers:     2,
	})
	require.NoError(t, err)
	all := rep.Row(ProtocolAll, "all", "all")
	require.NotNil(t, all)
	d := all.CEDiffs[0]
	assert.Equal(t, int64(nGames), d.Games)
	assert.Equal(t, int64(nGames*plies), d.N)
	m, half := d.Mean()
	assert.InDelta(t, all.Cells[0].CrossEntropy()-all.Cells[1].CrossEntropy(), m, 1e-9)

	// Per game: the same difference over that game alone.
	mean, want := textbook95(t, perGame(t, pl, 300, elos, plies, func(c []Cell) float64 {
		return c[0].CrossEntropy() - c[1].CrossEntropy()
	}))
	assert.InDelta(t, mean, m, 1e-9)
	assert.InDelta(t, want, half, 1e-3*want)
	assert.Greater(t, half, 0.0)

	var txt strings.Builder
	require.NoError(t, rep.WriteText(&txt, []string{"all"}))
	assert.Equal(t, 2, strings.Count(txt.String(), "CE knows - uniform"), "a column in each protocol's table")
	assert.NotContains(t, txt.String(), "CE knows - toponly", "no cross-entropy for a top-1-only contestant")
	assert.Contains(t, txt.String(), fmt.Sprintf("%+.4f [", m))
	var csvOut strings.Builder
	require.NoError(t, rep.WriteCSV(&csvOut))
	assert.Contains(t, csvOut.String(), "all,all,all,CE knows - uniform,")
	assert.NotContains(t, csvOut.String(), "CE knows - toponly")
}

// twoFakes are two fake net contestants, a and b, whose heads differ: their
// value and think-time outputs are hashes of the position and the seed.
func twoFakes() []Spec {
	seeded := func(seed uint64) func() (nets.Net, error) {
		return func() (nets.Net, error) { return nets.NewFake(seed), nil }
	}
	return []Spec{NetContestantSpec("a", seeded(1)), NetContestantSpec("b", seeded(2))}
}

// runTwoFakes evaluates the games of a PGN text with twoFakes, a - b
// compared, and returns the report and its all-positions row.
func runTwoFakes(t *testing.T, games string, workers int) (*Report, *Row) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "games.pgn")
	require.NoError(t, os.WriteFile(path, []byte(games), 0o644))
	rep, err := Run(context.Background(), Config{Inputs: []string{path}, Contestants: twoFakes(), Workers: workers})
	require.NoError(t, err)
	all := rep.Row(ProtocolAll, "all", "all")
	require.NotNil(t, all)
	return rep, all
}

// TestHeadIntervalByGame checks the paired value and think-time head
// differences: each mean is the difference of the two contestants' head
// losses over the same positions, its interval the textbook one of the
// per-game mean differences (equal game lengths), and both are printed and
// written for the compared pair.
func TestHeadIntervalByGame(t *testing.T) {
	const nGames, plies = 8, 20
	var pgnText strings.Builder
	var elos []int
	for i := range nGames {
		elos = append(elos, 1500+i)
		g, counts := synthGame(t, nil, uint64(500+i), plies, elos[i], elos[i])
		require.Len(t, counts, plies)
		pgnText.WriteString(g)
	}
	rep, all := runTwoFakes(t, pgnText.String(), 2)
	specs := twoFakes()
	for _, h := range []struct {
		name string
		d    Diff
		loss func(Cell) float64
		n    func(Cell) int64
	}{
		{"value", all.WDLDiffs[0], Cell.WDLLoss, func(c Cell) int64 { return c.WDLN }},
		{"think time", all.TimeDiffs[0], Cell.TimeLoss, func(c Cell) int64 { return c.TimeN }},
	} {
		require.Positive(t, h.d.N, h.name)
		assert.Equal(t, h.n(all.Cells[0]), h.d.N, h.name)
		assert.Equal(t, int64(nGames), h.d.Games, h.name)
		m, half := h.d.Mean()
		assert.InDelta(t, h.loss(all.Cells[0])-h.loss(all.Cells[1]), m, 1e-9, h.name)
		counts := perGame(t, nil, 500, elos, plies, func(c []Cell) float64 { return float64(h.n(c[0])) }, specs...)
		for _, c := range counts {
			require.Equal(t, counts[0], c, "%s: equal positions per game", h.name)
		}
		mean, want := textbook95(t, perGame(t, nil, 500, elos, plies, func(c []Cell) float64 {
			return h.loss(c[0]) - h.loss(c[1])
		}, specs...))
		assert.InDelta(t, mean, m, 1e-9, h.name)
		assert.InDelta(t, want, half, 1e-3*want, h.name)
		assert.Greater(t, half, 0.0, h.name)
	}

	var txt strings.Builder
	require.NoError(t, rep.WriteText(&txt, []string{"all"}))
	m, _ := all.WDLDiffs[0].Mean()
	assert.Contains(t, txt.String(), fmt.Sprintf("a - b                value %+.4f [", m))
	assert.NotContains(t, txt.String(), "evaluation", "games without %eval: no evaluation column")
	var csvOut strings.Builder
	require.NoError(t, rep.WriteCSV(&csvOut))
	assert.Contains(t, csvOut.String(), "all,all,all,value a - b,")
	assert.Contains(t, csvOut.String(), "all,all,all,time a - b,")
}

// perGame evaluates knows against uniform (or the contestants specs, when
// given) on each synthetic game alone (seed seed0+i, both players rated
// elos[i]) and returns f of each game's cells.
func perGame(t *testing.T, pl played, seed0 uint64, elos []int, plies int, f func(c []Cell) float64, specs ...Spec) []float64 {
	t.Helper()
	out := make([]float64, 0, len(elos))
	for i, elo := range elos {
		g, _ := synthGame(t, played{}, seed0+uint64(i), plies, elo, elo)
		one := filepath.Join(t.TempDir(), "one.pgn")
		require.NoError(t, os.WriteFile(one, []byte(g), 0o644))
		if specs == nil {
			specs = []Spec{NetContestantSpec("knows", knows(pl)), NetContestantSpec("uniform", uniform)}
		}
		r1, err := Run(context.Background(), Config{Inputs: []string{one}, Contestants: specs, Workers: 1})
		require.NoError(t, err)
		out = append(out, f(r1.Row(ProtocolAll, "all", "all").Cells))
	}
	return out
}

// textbook95 is the mean of eight draws and the half-width of its 95%
// interval (Student's t at 7 degrees of freedom).
func textbook95(t *testing.T, xs []float64) (mean, half float64) {
	t.Helper()
	require.Len(t, xs, 8)
	var ss float64
	for _, x := range xs {
		mean += x / 8
	}
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, 2.364624 * math.Sqrt(ss/7/8)
}

// TestSourceBreakdown evaluates two files: the "source" rows split the
// positions by the file their game came from, named without folder and
// extension, and the table's columns stay aligned for long file names.
func TestSourceBreakdown(t *testing.T) {
	dir := t.TempDir()
	pl := played{}
	g1, c1 := synthGame(t, pl, 11, 40, 1520, 1230)
	g2, c2 := synthGame(t, pl, 12, 30, 1540, 1210)
	g3, c3 := synthGame(t, pl, 13, 24, 1500, 1250)
	long := filepath.Join(dir, "one-player-archive-2017-2025.pgn")
	short := filepath.Join(dir, "pop.pgn")
	require.NoError(t, os.WriteFile(long, []byte(g1+g3), 0o644))
	require.NoError(t, os.WriteFile(short, []byte(g2), 0o644))

	rep, err := Run(context.Background(), Config{
		Inputs:      []string{short, long},
		Contestants: []Spec{NetContestantSpec("oracle", oracle(pl)), NetContestantSpec("uniform", uniform)},
		Workers:     2,
	})
	require.NoError(t, err)
	whites := func(counts ...[]int) (n, w int64) {
		for _, c := range counts {
			n += int64(len(c))
			w += int64((len(c) + 1) / 2)
		}
		return n, w
	}
	for _, tc := range []struct {
		label  string
		counts [][]int
		games  int64
	}{{"pop", [][]int{c2}, 1}, {"one-player-archive-2017-2025", [][]int{c1, c3}, 2}} {
		row := rep.Row(ProtocolAll, "source", tc.label)
		require.NotNil(t, row, "source %s", tc.label)
		n, w := whites(tc.counts...)
		assert.Equal(t, n, row.Cells[0].N, "source %s positions", tc.label)
		assert.Equal(t, w, row.Cells[0].Top1, "source %s: the oracle's first choice is the human move on White's moves only", tc.label)
		assert.Equal(t, tc.games, row.Games, "source %s games", tc.label)
	}
	bks := rep.Buckets(ProtocolAll, "source")
	require.Len(t, bks, 2)
	assert.Equal(t, "pop", bks[0].Label, "sources in the order of the inputs")

	var text strings.Builder
	require.NoError(t, rep.WriteText(&text, []string{"source"}))
	lines := strings.Split(text.String(), "\n")
	var bars []int
	for i, l := range lines {
		if strings.HasPrefix(l, "[all positions] by source") {
			for _, row := range lines[i+1 : i+5] { // two header lines, two sources
				bars = append(bars, strings.Index(row, "|"))
			}
			break
		}
	}
	require.Len(t, bars, 4, "the source table:\n%s", text.String())
	for _, b := range bars {
		assert.Equal(t, bars[0], b, "the first column bar lines up in every row:\n%s", text.String())
	}
	assert.Greater(t, bars[0], len("one-player-archive-2017-2025"))
}
