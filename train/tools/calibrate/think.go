package calibrate

import (
	"context"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/humchess/humchess/nets"
	"github.com/humchess/humchess/nets/calib"
	"github.com/humchess/humchess/policy"
	"github.com/humchess/humchess/train/data/games"
	"github.com/humchess/humchess/train/data/pgn"
	"github.com/humchess/humchess/train/tools/stats"
)

// ThinkConfig is what FitThink replays and fits.
type ThinkConfig struct {
	Humans      []string // human games with clocks (PGN)
	Site        string   // keep games whose Site contains this ("" = all)
	ValFraction float64  // train/data/prep's validation fraction: FitThink fits on the other games
	MinMoves    int      // human moves a time control needs to get a point
	Seed        uint64   // the replay's draws
	SkipPlies   int      // each game's first plies left out (as -timing-skip-plies)
}

// training keeps the human games the fit reads: cfg.Site's, of the
// training split.
func (cfg ThinkConfig) training(g *pgn.Game) bool {
	return strings.Contains(g.Site, cfg.Site) && !games.IsValidation(games.ID(g), cfg.ValFraction)
}

// ThinkRow is one time control of a think-time fit.
type ThinkRow struct {
	Control                 string
	Base, Inc               float64
	Moves                   int
	HumanMedian, HumanP90   float64 // one-second resolution
	ReplayMedian, ReplayP90 float64 // the replay as it is
	FittedMedian, FittedP90 float64 // the replay reshaped by the fit
	Scale, Power            float64 // stats.FitThink
	DistanceAt1, Fitted     float64 // stats.ThinkDistance at 1, 1 and at the fit
}

// FitThink replays the training games of cfg.Humans with net's think time
// (stats.NetReplay, not reshaped) and fits, for each time control with at least
// cfg.MinMoves human moves, the think-time scale that brings the replayed
// times closest to the humans' (stats.FitThink: scale x t^power, capped
// by the engine's safety limit). It returns the points, by increasing base then
// increment, and a row per fitted control.
func FitThink(ctx context.Context, net nets.Net, cfg ThinkConfig) ([]calib.ThinkPoint, []ThinkRow, error) {
	if len(net.Info().ThinkBinEdges) == 0 {
		return nil, nil, fmt.Errorf("%w: net %s has no think-time head", ErrConfig, net.Info().Name)
	}
	human, err := stats.RunTimingReplay("humans", cfg.Humans, "", cfg.SkipPlies, cfg.training, nil)
	if err != nil {
		return nil, nil, err
	}
	replay, err := stats.RunTimingReplay("replay", cfg.Humans, "", cfg.SkipPlies, cfg.training, stats.NetReplay(ctx, net, cfg.Seed, nil))
	if err != nil {
		return nil, nil, err
	}
	capAt := func(m stats.ReplayedMove) float64 {
		c := policy.Clock{Remaining: secs(m.Before), Inc: secs(m.Inc)}
		return c.SafeLimit().Seconds()
	}
	var points []calib.ThinkPoint
	var rows []ThinkRow
	for key, h := range human.Controls {
		r := replay.Controls[key]
		if r == nil || h.Think.N() < cfg.MinMoves {
			continue
		}
		var base, inc float64
		if _, err := fmt.Sscanf(key, "%g+%g", &base, &inc); err != nil {
			continue
		}
		scale, power, at1, fitted, ok := stats.FitThink(h, r, capAt)
		if !ok {
			continue
		}
		row := ThinkRow{Control: key, Base: base, Inc: inc, Moves: h.Think.N(), Scale: scale, Power: power, DistanceAt1: at1, Fitted: fitted,
			HumanMedian: h.Think.Quantile(0.5), HumanP90: h.Think.Quantile(0.9),
			ReplayMedian: r.Think.Quantile(0.5), ReplayP90: r.Think.Quantile(0.9)}
		var q stats.Quantiles
		shape := policy.Shape{Scale: scale, Power: power}
		for _, m := range r.Replayed {
			q.Add(m.Second(stats.ReshapeCapped(m.Raw, capAt(m), shape)))
		}
		row.FittedMedian, row.FittedP90 = q.Quantile(0.5), q.Quantile(0.9)
		rows = append(rows, row)
		points = append(points, calib.ThinkPoint{Base: base, Inc: inc, Scale: scale, Power: power, Moves: h.Think.N()})
	}
	sort.Slice(rows, func(i, j int) bool { return controlLess(rows[i].Base, rows[i].Inc, rows[j].Base, rows[j].Inc) })
	sort.Slice(points, func(i, j int) bool {
		return controlLess(points[i].Base, points[i].Inc, points[j].Base, points[j].Inc)
	})
	return points, rows, nil
}

// KeepSelfPlay gives each of points the recapture factor and the
// time-trouble pace cap of prev's point of the same time control
// (calib.ThinkPoint.Recapture and PaceTop), where prev has them: FitThink
// fits the scale and power only, and what was corrected from self-play
// (CorrectThinkSelfPlay) would otherwise be lost at each new fit. It
// returns the controls whose factor, and whose cap, it kept.
func KeepSelfPlay(points, prev []calib.ThinkPoint) (recapture, pace []string) {
	for i, p := range points {
		for _, q := range prev {
			if q.Base != p.Base || q.Inc != p.Inc {
				continue
			}
			if q.Recapture != 0 {
				points[i].Recapture = q.Recapture
				recapture = append(recapture, controlKey(p))
			}
			if q.PaceTop != 0 {
				points[i].PaceTop = q.PaceTop
				pace = append(pace, controlKey(p))
			}
			break
		}
	}
	return recapture, pace
}

// controlKey is p's time control as stats.Timing keys it ("60+0").
func controlKey(p calib.ThinkPoint) string { return fmt.Sprintf("%g+%g", p.Base, p.Inc) }

// controlLess orders time controls by base, then increment.
func controlLess(base1, inc1, base2, inc2 float64) bool {
	if base1 != base2 {
		return base1 < base2
	}
	return inc1 < inc2
}

// WriteThinkText prints a think-time fit's rows.
func WriteThinkText(w io.Writer, rows []ThinkRow) error {
	if _, err := fmt.Fprintf(w, "think-time scale by time control (humans' training games replayed with the net's think time; one-second resolution)\n%-8s %7s | %-11s | %-11s | %5s | %-11s | %s\n",
		"control", "moves", "humans", "replay", "scale", "fitted", "distance at 1 -> fitted"); err != nil {
		return err
	}
	for _, r := range rows {
		if _, err := fmt.Fprintf(w, "%-8s %7d | %4.0f / %-4.0f | %4.0f / %-4.0f | %5.2f %5.2f | %4.0f / %-4.0f | %.4f -> %.4f\n",
			r.Control, r.Moves, r.HumanMedian, r.HumanP90, r.ReplayMedian, r.ReplayP90, r.Scale, r.Power, r.FittedMedian, r.FittedP90, r.DistanceAt1, r.Fitted); err != nil {
			return err
		}
	}
	return nil
}

// secs is s seconds as a Duration.
func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// SelfPlayRow is one time control of a self-play correction
// (CorrectThinkSelfPlay).
type SelfPlayRow struct {
	Control                 string
	Base, Inc               float64
	Moves                   int     // the engine's judged moves
	HumanMedian, HumanP90   float64 // one-second resolution
	EngineMedian, EngineP90 float64 // one-second resolution
	RawMedian, RawP90       float64 // the engine's own clocks
	// The 95% intervals of RawMedian and RawP90 over the games drawn again
	// (stats.Timing.GameInterval).
	MedianLo, MedianHi, P90Lo, P90Hi float64
	Scale, Power                     float64 // the point the games were played with
	NewScale, NewPower               float64 // after the correction (the same when on target)
	Corrected                        bool
	// The recapture ratio out of time trouble (stats.Timing.RecaptureCalmRatio)
	// of the humans and the engine, the 95% interval of the engine's over
	// the games drawn again (RecaptureCalmInterval), the point's recapture
	// factor and the corrected one.
	HumanRecapture, EngineRecapture float64
	RecaptureLo, RecaptureHi        float64
	Recapture, NewRecapture         float64
	RecaptureCorrected              bool
	// The time-trouble pace at the same clock (stats.Timing.TroubleEarly's
	// mean, seconds) of the humans and the engine, its moves, the 95%
	// interval of the engine's over the games drawn again
	// (TroubleEarlyInterval), the point's pace cap and the corrected one.
	HumanPace, EnginePace float64
	PaceMoves             int
	PaceLo, PaceHi        float64
	PaceTop, NewPaceTop   float64
	PaceCorrected         bool
}

// Recapture factors a correction may set (calib.ThinkPoint.Recapture).
const (
	RecaptureMin = 0.2
	RecaptureMax = 1.5
)

// PaceTopMin is the smallest time-trouble pace cap a correction may set
// (calib.ThinkPoint.PaceTop, seconds; the largest is calib.PaceTopMax).
const PaceTopMin = 0.3

// PaceMinMoves is how many engine moves begun with 5 to 10 s on the clock
// a control needs before CorrectThinkSelfPlay corrects its pace cap.
const PaceMinMoves = 30

// CorrectThinkSelfPlay corrects the think-time points of c from the engine's
// own games played with them (selfPlay: PGN of humchess match with
// HumanTiming on): the replay fits the humans' positions, and the engine's
// games, longer and its own, can draw a little longer or shorter there.
// For each point whose exact control has at least cfg.MinMoves/10 engine
// moves in the games, and whose one-second median or p90 there is more than
// stats.QuantileTolerance off the humans' (cfg's humans, as FitThink reads
// them) by more than the games' own noise (the humans' value outside the
// 95% interval of the engine's raw quantile over the games drawn again),
// the point becomes stats.CorrectThink's solution from the engine's raw
// median and p90; other points stay. The point's recapture factor is
// corrected the same way, from the recapture ratio out of time trouble
// (the humans' outside the 95% interval of the engine's over the games
// drawn again, and more than stats.QuantileTolerance off): the factor
// times the humans' ratio over the engine's, to the power 1/power, within
// RecaptureMin..RecaptureMax. The point's time-trouble pace cap is
// corrected likewise from the mean think time of the moves begun with 5 to
// 10 s on the clock (stats.Timing.TroubleEarly; at least PaceMinMoves of
// the engine's): the cap times the humans' mean over the engine's, within
// PaceTopMin..calib.PaceTopMax. Most of those moves are played at the cap
// (policy.Clock.Pace), the rest at half the clock beyond the reserve,
// which the cap does not move, and an increment adds to both: the
// correction moves the pace less than the ratio says, so it approaches
// the humans' from the side it starts. It returns the new points and a
// row per control with games.
func CorrectThinkSelfPlay(c *calib.Calibration, selfPlay []string, cfg ThinkConfig) ([]calib.ThinkPoint, []SelfPlayRow, error) {
	human, err := stats.RunTimingReplay("humans", cfg.Humans, "", cfg.SkipPlies, cfg.training, nil)
	if err != nil {
		return nil, nil, err
	}
	engine, err := stats.RunTiming("engine", selfPlay, "", cfg.SkipPlies)
	if err != nil {
		return nil, nil, err
	}
	points := append([]calib.ThinkPoint(nil), c.Think...)
	var rows []SelfPlayRow
	for i, p := range points {
		key := controlKey(p)
		h, e := human.Controls[key], engine.Controls[key]
		if h == nil || e == nil || h.Think.N() == 0 || e.Think.N() < max(cfg.MinMoves/10, 1) {
			continue
		}
		scale, power := c.ThinkAt(p.Base, p.Inc)
		row := SelfPlayRow{Control: key, Base: p.Base, Inc: p.Inc, Moves: e.Think.N(),
			HumanMedian: h.Think.Quantile(0.5), HumanP90: h.Think.Quantile(0.9),
			EngineMedian: e.Think.Quantile(0.5), EngineP90: e.Think.Quantile(0.9),
			RawMedian: e.Raw.Quantile(0.5), RawP90: e.Raw.Quantile(0.9),
			Scale: scale, Power: power, NewScale: scale, NewPower: power}
		row.MedianLo, row.MedianHi = e.GameInterval(0.5, resamples, cfg.Seed)
		row.P90Lo, row.P90Hi = e.GameInterval(0.9, resamples, cfg.Seed)
		off := func(got, want, lo, hi float64) bool {
			return math.Abs(got-want) > stats.QuantileTolerance*want && (want < lo || want > hi)
		}
		if off(row.EngineMedian, row.HumanMedian, row.MedianLo, row.MedianHi) || off(row.EngineP90, row.HumanP90, row.P90Lo, row.P90Hi) {
			if s, pw, ok := stats.CorrectThink(scale, power, row.RawMedian, row.RawP90, row.HumanMedian, row.HumanP90); ok {
				row.NewScale, row.NewPower, row.Corrected = s, pw, true
				points[i].Scale, points[i].Power = s, pw
			}
		}
		// A recapture's time is its draw times the factor, reshaped to the
		// power: the ratio moves as the factor to the power.
		row.Recapture = c.RecaptureAt(p.Base, p.Inc, policy.RecaptureFactor)
		row.NewRecapture = row.Recapture
		row.HumanRecapture, row.EngineRecapture = h.RecaptureCalmRatio(), e.RecaptureCalmRatio()
		row.RecaptureLo, row.RecaptureHi = e.RecaptureCalmInterval(resamples, cfg.Seed)
		if row.HumanRecapture > 0 && row.EngineRecapture > 0 && off(row.EngineRecapture, row.HumanRecapture, row.RecaptureLo, row.RecaptureHi) {
			f := row.Recapture * math.Pow(row.HumanRecapture/row.EngineRecapture, 1/power)
			row.NewRecapture, row.RecaptureCorrected = min(max(f, RecaptureMin), RecaptureMax), true
			points[i].Recapture = row.NewRecapture
		}
		row.PaceTop = c.PaceTopAt(p.Base, p.Inc, policy.PaceTop.Seconds())
		row.NewPaceTop = row.PaceTop
		row.HumanPace, row.EnginePace, row.PaceMoves = h.TroubleEarly.Mean(), e.TroubleEarly.Mean(), e.TroubleEarly.N()
		row.PaceLo, row.PaceHi = e.TroubleEarlyInterval(resamples, cfg.Seed)
		if row.PaceMoves >= PaceMinMoves && row.HumanPace > 0 && row.EnginePace > 0 && off(row.EnginePace, row.HumanPace, row.PaceLo, row.PaceHi) {
			f := row.PaceTop * row.HumanPace / row.EnginePace
			row.NewPaceTop, row.PaceCorrected = min(max(f, PaceTopMin), calib.PaceTopMax), true
			points[i].PaceTop = row.NewPaceTop
		}
		rows = append(rows, row)
	}
	sort.Slice(rows, func(i, j int) bool { return controlLess(rows[i].Base, rows[i].Inc, rows[j].Base, rows[j].Inc) })
	return points, rows, nil
}

// resamples is how many times CorrectThinkSelfPlay draws the games again.
const resamples = 1000

// WriteSelfPlayText prints a self-play correction's rows.
func WriteSelfPlayText(w io.Writer, rows []SelfPlayRow) error {
	if _, err := fmt.Fprintf(w, "think-time points corrected from self-play (one-second resolution; raw: the engine's clocks; recapture: the recapture ratio out of time trouble; pace: the mean think time of the moves begun with 5-10 s; 95%% intervals over the games drawn again)\n%-8s %6s | %-11s | %-11s | %-27s | %-29s | %-11s | %-11s | %-11s | %-23s | %-12s | %-9s | %-28s | %s\n",
		"control", "moves", "humans", "self-play", "raw median [interval]", "raw p90 [interval]", "point", "corrected", "recap hum", "recap self-play", "factor", "pace hum", "pace self-play (moves)", "pace top"); err != nil {
		return err
	}
	for _, r := range rows {
		corr := "-"
		if r.Corrected {
			corr = fmt.Sprintf("%.2f %.2f", r.NewScale, r.NewPower)
		}
		factor := fmt.Sprintf("%.2f", r.Recapture)
		if r.RecaptureCorrected {
			factor += fmt.Sprintf(" -> %.2f", r.NewRecapture)
		}
		top := fmt.Sprintf("%.2f", r.PaceTop)
		if r.PaceCorrected {
			top += fmt.Sprintf(" -> %.2f", r.NewPaceTop)
		}
		if _, err := fmt.Fprintf(w, "%-8s %6d | %4.0f / %-4.0f | %4.0f / %-4.0f | %6.2f [%6.2f, %6.2f] | %6.2f [%6.2f, %6.2f] | %5.2f %5.2f | %-11s | %11.2f | %5.2f [%5.2f, %5.2f] | %-12s | %9.2f | %5.2f [%5.2f, %5.2f] (%4d) | %s\n",
			r.Control, r.Moves, r.HumanMedian, r.HumanP90, r.EngineMedian, r.EngineP90, r.RawMedian, r.MedianLo, r.MedianHi,
			r.RawP90, r.P90Lo, r.P90Hi, r.Scale, r.Power, corr, r.HumanRecapture, r.EngineRecapture, r.RecaptureLo, r.RecaptureHi, factor,
			r.HumanPace, r.EnginePace, r.PaceLo, r.PaceHi, r.PaceMoves, top); err != nil {
			return err
		}
	}
	return nil
}
