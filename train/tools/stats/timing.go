package stats

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/train/data/games"
	"github.com/humchess/humchess/train/data/pgn"
	"github.com/humchess/humchess/train/plot"
	"github.com/humchess/humchess/train/tools/internal/format"
)

// TimeTrouble is the mover's clock below which a move counts as played in
// time trouble (Timing.Trouble).
const TimeTrouble = 10.0 // seconds

// troubleFirst is how many of a side's time-trouble moves per game
// Timing.TroubleFirst keeps.
const troubleFirst = 10

// Timing is how one set of games spends one time control's clock, from the
// [%clk] comments (or engine-match think times when a game has no clock).
// Think times are measured twice: as recorded (Raw) and at lichess's
// one-second clock resolution (Think: both clocks truncated to the second
// before taking their difference plus the increment), so that engine games
// with tenths of a second compare with lichess games at the same
// resolution.
type Timing struct {
	Control    string    // "60+0": base+increment, seconds
	Games      int64     // games of the set at this control
	Plies      Quantiles // plies per game
	TimeLosses int64     // games the judged player (or either side) lost on time
	Think, Raw Quantiles // seconds per judged move
	Recapture  Quantiles // Think of recaptures (taking back on the square where the opponent just captured)
	Only       Quantiles // Think of moves that were the only legal move
	// Calm and RecaptureCalm are Think and Recapture over the moves begun
	// with at least TimeTrouble on the clock: an engine that plays its last
	// seconds at a few milliseconds a move pulls the mean of all its moves
	// down, and with it the recapture ratio's denominator.
	Calm, RecaptureCalm Quantiles
	Trouble             Quantiles // Think of moves begun with less than TimeTrouble on the clock
	TroubleFirst        Quantiles // the same, the first troubleFirst such moves of each side in each game
	// TroubleFirstKept is TroubleFirst over the sides that did not lose
	// the game on time: humans who flag spend the clock they needed to
	// finish, which an engine that must never lose on time cannot copy.
	TroubleFirstKept Quantiles
	// TroubleEarly is Trouble over the moves begun with TimeTrouble/2 to
	// TimeTrouble on the clock: the pace at the same clock, which
	// TroubleFirst mixes with how many moves the games last once in
	// trouble.
	TroubleEarly Quantiles
	OverOldCap   int64 // moves longer than remaining/20 + 0.8*increment (the former cap)
	// GameRaw holds each game's Raw times (the judged moves), for
	// resampling by game: a game's moves are alike, so a set of a few tens
	// of games is noisier than its moves' number says.
	GameRaw [][]float64
	// GameCalm holds each game's sums over Calm, RecaptureCalm and
	// TroubleEarly, for RecaptureCalmInterval and TroubleEarlyInterval.
	GameCalm []CalmSums
	// Replayed holds a replay's judged moves (RunTimingReplay), for
	// FitThinkScale.
	Replayed []ReplayedMove
}

// CalmSums is one game's Calm, RecaptureCalm and TroubleEarly: their
// moves' number and total think time.
type CalmSums struct {
	Moves, Recaptures int
	Sum, RecaptureSum float64
	Early             int     // moves of TroubleEarly
	EarlySum          float64 // their think time
}

// ReplayedMove is one move of a replay: the clock before it, its
// sub-second part drawn for the one-second resolution, the replayed time
// and the increment, seconds.
type ReplayedMove struct {
	Before, Frac, Raw, Inc float64
}

// Second is the move's think time at one-second resolution when it takes
// raw seconds: the difference of the whole seconds of the clock before
// (Before+Frac) and after, plus the increment.
func (m ReplayedMove) Second(raw float64) float64 {
	b := m.Before + m.Frac
	return max(math.Floor(b)-math.Floor(b-raw+m.Inc)+m.Inc, 0)
}

// RecaptureRatio is the mean think time of a recapture over the mean of all
// moves; NaN without recaptures.
func (t *Timing) RecaptureRatio() float64 { return t.Recapture.Mean() / t.Think.Mean() }

// RecaptureCalmRatio is RecaptureRatio over the moves begun out of time
// trouble; NaN without such recaptures.
func (t *Timing) RecaptureCalmRatio() float64 { return t.RecaptureCalm.Mean() / t.Calm.Mean() }

// OnlyRatio is the mean think time of an only move over the mean of all
// moves; NaN without only moves.
func (t *Timing) OnlyRatio() float64 { return t.Only.Mean() / t.Think.Mean() }

// TimingSet is one set's Timing by time control.
type TimingSet struct {
	Name     string
	Player   string
	Controls map[string]*Timing
}

// RunTiming reads the games of inputs (PGN) and measures their think times
// by exact time control. player, when set, keeps the games that player
// played and judges only its moves (as Config.Player). Games with a BOT
// player are kept only when player names one (engine matches name their
// engines without titles). The first skip plies of every game are left
// out: engine games that start from the first 8 plies of human games
// (humchess match -openings) have no clocks there, and humans play those
// plies fastest, so comparing the two needs skip 8 on the humans too.
func RunTiming(name string, inputs []string, player string, skip int) (*TimingSet, error) {
	return RunTimingReplay(name, inputs, player, skip, nil, nil)
}

// RunTimingReplay is RunTiming on the games keep accepts (nil: all), and,
// when replay is not nil, with the think times replay gives instead of
// the recorded ones: each judged move with a known clock before it takes
// the replayed time, at one-second resolution as the clocks before it and
// after it (the clock before, minus the time, plus the increment) would
// show it. A replay loses no game on time.
func RunTimingReplay(name string, inputs []string, player string, skip int, keep func(*pgn.Game) bool, replay Replay) (*TimingSet, error) {
	s := &TimingSet{Name: name, Player: player, Controls: map[string]*Timing{}}
	var rerr error
	err := readGames(inputs, func(g *pgn.Game) bool {
		if !standardRules(g) || !g.TimeControl.Known() || g.TimeControl.Moves > 0 {
			return true
		}
		if keep != nil && !keep(g) {
			return true
		}
		if player == "" && (g.WhiteTitle == "BOT" || g.BlackTitle == "BOT") {
			return true
		}
		side := playerSide(g, player)
		if side == sideNone {
			return true
		}
		key := fmt.Sprintf("%g+%g", g.TimeControl.Base, g.TimeControl.Increment)
		t := s.Controls[key]
		if t == nil {
			t = &Timing{Control: key}
			s.Controls[key] = t
		}
		var times []float64
		if replay != nil {
			if times, rerr = replay(g); rerr != nil {
				return false
			}
			if times == nil {
				return true
			}
		}
		t.add(g, side, skip, times)
		return true
	})
	if err == nil {
		err = rerr
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// add measures one game's moves of sides from ply skip on; with times (a
// replay), those think times instead of the recorded ones.
func (t *Timing) add(g *pgn.Game, sides, skip int, times []float64) {
	t.Games++
	t.Plies.Add(float64(len(g.Moves)))
	var flagged [2]bool // White, Black lost (or drew) the game on time
	if times == nil && strings.EqualFold(strings.TrimSpace(g.Termination), "time forfeit") {
		switch {
		case g.Result == "1-0" && sides&sideBlack != 0, g.Result == "0-1" && sides&sideWhite != 0:
			t.TimeLosses++
		}
		// A draw on time (the flag fell against a lone king) leaves
		// unsaid who flagged: neither side counts as kept.
		flagged = [2]bool{g.Result != "1-0", g.Result != "0-1"}
	}
	b, err := board.NewGame(g.FEN)
	if err != nil {
		return
	}
	base, inc := g.TimeControl.Base, g.TimeControl.Increment
	var frac *rand.Rand
	if times != nil {
		// Lichess's clocks show whole seconds of clocks that run in
		// centiseconds: a human's one-second think time is rounded up or
		// down by where the clock stood within its second. A replay's clock
		// before the move is the human's whole second, so it draws that
		// part, or every replayed time would round up.
		frac = rand.New(rand.NewPCG(uint64(len(g.Moves)), games.ID(g)))
	}
	var troubles [2]int
	var raws []float64
	var calm CalmSums
	defer func() {
		if len(raws) > 0 {
			t.GameRaw = append(t.GameRaw, raws)
		}
		if calm.Moves > 0 || calm.Early > 0 {
			t.GameCalm = append(t.GameCalm, calm)
		}
	}()
	lastTo, lastCaptured := board.NoSquare, false
	for i, san := range g.Moves {
		m, err := b.ParseSAN(san)
		if err != nil {
			return
		}
		captures := b.PieceAt(m.To) != board.NoPiece
		enPassant := b.PieceAt(m.From).Type() == board.Pawn && m.From.File() != m.To.File() && !captures
		recapture := captures && lastCaptured && m.To == lastTo
		only := b.NumLegalMoves() == 1
		white := b.WhiteToMove()
		if i >= skip && counts(g, i, sides) {
			before := base // the mover's clock before the move
			if i >= 2 {
				before = clockAt(g, i-2)
			}
			after := clockAt(g, i)
			raw, sec := -1.0, -1.0
			switch {
			case times != nil:
				if before >= 0 && i < len(times) && times[i] >= 0 {
					m := ReplayedMove{Before: before, Frac: frac.Float64(), Raw: times[i], Inc: inc}
					raw, sec = m.Raw, m.Second(m.Raw)
					t.Replayed = append(t.Replayed, m)
				}
			case before >= 0 && after >= 0:
				raw = max(before-after+inc, 0)
				sec = max(math.Floor(before)-math.Floor(after)+inc, 0)
			case i < len(g.Spent) && g.Spent[i] >= 0:
				raw = g.Spent[i]
				sec = math.Round(raw)
			}
			if raw >= 0 {
				raws = append(raws, raw)
				t.Raw.Add(raw)
				t.Think.Add(sec)
				if recapture {
					t.Recapture.Add(sec)
				}
				if only {
					t.Only.Add(sec)
				}
				if before >= TimeTrouble {
					t.Calm.Add(sec)
					calm.Moves++
					calm.Sum += sec
					if recapture {
						t.RecaptureCalm.Add(sec)
						calm.Recaptures++
						calm.RecaptureSum += sec
					}
				}
				if before >= 0 && raw > before/20+0.8*inc {
					t.OverOldCap++
				}
				if before >= 0 && before < TimeTrouble {
					t.Trouble.Add(sec)
					if before >= TimeTrouble/2 {
						t.TroubleEarly.Add(sec)
						calm.Early++
						calm.EarlySum += sec
					}
					k := 0
					if !white {
						k = 1
					}
					if troubles[k] < troubleFirst {
						t.TroubleFirst.Add(sec)
						if !flagged[k] {
							t.TroubleFirstKept.Add(sec)
						}
					}
					troubles[k]++
				}
			}
		}
		lastTo, lastCaptured = m.To, captures || enPassant
		if err := b.PlayMove(m); err != nil {
			return
		}
	}
}

// clockAt is the mover's clock after move i; -1 when unknown.
func clockAt(g *pgn.Game, i int) float64 {
	if i < 0 || i >= len(g.Clocks) {
		return -1
	}
	return g.Clocks[i]
}

// sortedControls returns the time controls of the sets, by base then
// increment.
func sortedControls(sets []*TimingSet) []string {
	seen := map[string][2]float64{}
	for _, s := range sets {
		for k := range s.Controls {
			var b, i float64
			if _, err := fmt.Sscanf(k, "%g+%g", &b, &i); err == nil {
				seen[k] = [2]float64{b, i}
			}
		}
	}
	var out []string
	for k := range seen {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := seen[out[i]], seen[out[j]]
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		return a[1] < b[1]
	})
	return out
}

// WriteTimingText prints, for each time control with at least minMoves
// judged moves in some set, one row per set: games, judged moves, mean
// plies, median and 90th percentile at one-second resolution (and as
// recorded), the recapture ratio (of all moves, and of the moves begun out
// of time trouble), the only-move ratio, the mean think time in time
// trouble (all such moves, those begun with 5-10 s, the first 10 per side
// and game, and those first 10 of the sides that did not lose on time),
// the share of moves over the former cap (remaining/20 + 0.8*increment)
// and the games lost on time.
func WriteTimingText(w io.Writer, sets []*TimingSet, minMoves int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%-8s %-22s %6s %7s %6s | %-9s %-11s | %5s %5s %5s | %5s %6s %6s %6s | %5s %5s\n",
		"control", "set", "games", "moves", "plies", "med/p90", "raw med/p90", "recap", "calm", "only", "tt<10", "5-10s", "first", "kept", ">cap%", "flags")
	for _, c := range sortedControls(sets) {
		enough := false
		for _, s := range sets {
			if t := s.Controls[c]; t != nil && t.Think.N() >= minMoves {
				enough = true
			}
		}
		if !enough {
			continue
		}
		for _, s := range sets {
			t := s.Controls[c]
			if t == nil || t.Think.N() == 0 {
				continue
			}
			fmt.Fprintf(&b, "%-8s %-22s %6d %7d %6.0f | %3.0f / %-3.0f %4.2f / %-5.2f | %5.2f %5.2f %5.2f | %5.2f %6.2f %6.2f %6.2f | %5.1f %5d\n",
				c, format.Trunc(s.Name, 22), t.Games, t.Think.N(), t.Plies.Mean(),
				t.Think.Quantile(0.5), t.Think.Quantile(0.9), t.Raw.Quantile(0.5), t.Raw.Quantile(0.9),
				t.RecaptureRatio(), t.RecaptureCalmRatio(), t.OnlyRatio(), t.Trouble.Mean(), t.TroubleEarly.Mean(), t.TroubleFirst.Mean(), t.TroubleFirstKept.Mean(),
				100*float64(t.OverOldCap)/float64(t.Think.N()), t.TimeLosses)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// TimingPNG draws, for each time control with at least minMoves judged
// moves in every set, each set's share of moves that took at most x
// seconds (one-second resolution, x from 0 to 30 s): a line per set and
// control.
func TimingPNG(sets []*TimingSet, minMoves int) ([]byte, error) {
	var series []plot.Series
	for _, c := range sortedControls(sets) {
		all := true
		for _, s := range sets {
			if t := s.Controls[c]; t == nil || t.Think.N() < minMoves {
				all = false
			}
		}
		if !all {
			continue
		}
		for _, s := range sets {
			q := &s.Controls[c].Think
			var xs, ys []float64
			for x := 0; x <= 30; x++ {
				xs = append(xs, float64(x))
				ys = append(ys, q.CDF(float64(x)))
			}
			series = append(series, plot.Series{Name: c + " " + s.Name, X: xs, Y: ys})
		}
	}
	return plot.Lines(plot.Chart{Title: "share of moves taking at most x s (1 s clocks)",
		XLabel: "seconds", YLabel: "share of moves", Series: series, YMin: 0, YMax: 1})
}

// CDF returns the share of values at most x; NaN when empty.
func (q *Quantiles) CDF(x float64) float64 {
	if len(q.v) == 0 {
		return math.NaN()
	}
	if !q.sorted {
		sort.Float64s(q.v)
		q.sorted = true
	}
	return float64(sort.SearchFloat64s(q.v, math.Nextafter(x, math.Inf(1)))) / float64(len(q.v))
}

// GameInterval is the 95% interval of the p-quantile of the set's raw think
// times when its games (GameRaw) are drawn again with replacement, resamples
// times (seeded): how far the quantile moves from one set of as many games
// to the next. NaN, NaN without games.
func (t *Timing) GameInterval(p float64, resamples int, seed uint64) (lo, hi float64) {
	return gameBootstrap(len(t.GameRaw), resamples, rand.NewPCG(seed, 0x6a6d), func(draw []int) (float64, bool) {
		var q Quantiles
		for _, g := range draw {
			q.v = append(q.v, t.GameRaw[g]...)
		}
		return q.Quantile(p), true
	})
}

// RecaptureCalmInterval is the 95% interval of RecaptureCalmRatio when the
// set's games (GameCalm) are drawn again with replacement, resamples times
// (seeded). NaN, NaN without games; draws without a recapture or a
// positive mean are left out.
func (t *Timing) RecaptureCalmInterval(resamples int, seed uint64) (lo, hi float64) {
	return gameBootstrap(len(t.GameCalm), resamples, rand.NewPCG(seed, 0x7263), func(draw []int) (float64, bool) {
		var c CalmSums
		for _, g := range draw {
			c.Moves += t.GameCalm[g].Moves
			c.Recaptures += t.GameCalm[g].Recaptures
			c.Sum += t.GameCalm[g].Sum
			c.RecaptureSum += t.GameCalm[g].RecaptureSum
		}
		if c.Recaptures == 0 || !(c.Sum > 0) {
			return 0, false
		}
		return c.RecaptureSum / float64(c.Recaptures) / (c.Sum / float64(c.Moves)), true
	})
}

// TroubleEarlyInterval is the 95% interval of TroubleEarly's mean when the
// set's games (GameCalm) are drawn again with replacement, resamples times
// (seeded). NaN, NaN without games; draws without such a move are left
// out.
func (t *Timing) TroubleEarlyInterval(resamples int, seed uint64) (lo, hi float64) {
	return gameBootstrap(len(t.GameCalm), resamples, rand.NewPCG(seed, 0x7465), func(draw []int) (float64, bool) {
		var n int
		var sum float64
		for _, g := range draw {
			n += t.GameCalm[g].Early
			sum += t.GameCalm[g].EarlySum
		}
		if n == 0 {
			return 0, false
		}
		return sum / float64(n), true
	})
}

// gameBootstrap is the 95% interval of stat over resamples draws of n games
// with replacement (indices); draws stat refuses are left out. NaN, NaN
// without games or kept draws.
func gameBootstrap(n, resamples int, src rand.Source, stat func(draw []int) (float64, bool)) (lo, hi float64) {
	if n == 0 || resamples < 1 {
		return math.NaN(), math.NaN()
	}
	rng := rand.New(src)
	var at Quantiles
	draw := make([]int, n)
	for range resamples {
		for i := range draw {
			draw[i] = rng.IntN(n)
		}
		if x, ok := stat(draw); ok {
			at.Add(x)
		}
	}
	if at.N() == 0 {
		return math.NaN(), math.NaN()
	}
	return at.Quantile(0.025), at.Quantile(0.975)
}
