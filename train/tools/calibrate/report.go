package calibrate

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/humchess/humchess/train/plot"
	"github.com/humchess/humchess/train/tools/internal/profile"
)

// Tolerance is the goal for the error profile: the engine within 20% of
// the humans; Target* the goal for the spread (the Elo formula's score for
// 400 points, ± 5%).
const (
	Tolerance     = 0.20
	TargetSpread  = 0.91
	TargetSpreadT = 0.05
)

// WriteText prints the report's tables: the error profile (humans beside
// the engine in the first and last rounds and in the spread games), the
// settings, the spread, the references, the filter's cost and the time
// each phase took.
func (rep *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	cfg := rep.Config
	fmt.Fprintf(&b, "net %s (sha256 %.12s), %s %s on a virtual human clock (match.HumanCharge), moves judged by Stockfish at %d nodes\n",
		cfg.NetName, cfg.NetHash, rep.Class, cfg.TC, cfg.JudgeNodes)
	fmt.Fprintf(&b, "\nerror profile (band = rating ±%d; blunder: expected-score loss >= %.2f; cpl capped at ±%d cp; engine label = band); humans: %d games\n",
		profile.BandWidth/2, profile.BlunderLoss, profile.CPCap, rep.HumanGames)
	cols := []profile.Column{{Name: "humans", Profile: rep.Humans}}
	for i, r := range rep.Rounds {
		if i == 0 || i == len(rep.Rounds)-1 {
			cols = append(cols, profile.Column{Name: fmt.Sprintf("engine round %d (%d games)", i+1, r.Games), Profile: r.Engine})
		}
	}
	if len(rep.SpreadProf) > 0 {
		cols = append(cols, profile.Column{Name: "engine spread games", Profile: rep.SpreadProf})
	}
	if err := profile.WriteTable(&b, cols, 1); err != nil {
		return err
	}
	if n := len(rep.Rounds); n > 0 {
		fmt.Fprintf(&b, "\nlast round against humans (goal: within %.0f%%): label  blunder%% engine/human  cpl engine/human\n", 100*Tolerance)
		rep.writeVerdict(&b, rep.Rounds[n-1], false)
	}

	fmt.Fprintf(&b, "\nsettings per round (rating input / temperature / blunder scale / focus):\n  label")
	for i := range rep.Rounds {
		fmt.Fprintf(&b, " | round %-22d", i+1)
	}
	b.WriteString(" | final (written)\n")
	if rep.Final != nil {
		for j, p := range rep.Final.Points {
			fmt.Fprintf(&b, "  %5d", p.Elo)
			for _, r := range rep.Rounds {
				q := r.Settings.Points[j]
				fmt.Fprintf(&b, " | %4.0f / %4.2f / %4.2f / %4.2f  ", q.Rating, q.Temperature, q.BlunderScale, q.Focus)
			}
			fmt.Fprintf(&b, " | %4.0f / %4.2f / %4.2f / %4.2f\n", p.Rating, p.Temperature, p.BlunderScale, p.Focus)
		}
		var guided []string
		for _, p := range rep.Final.Points {
			if p.Guidance > 0 {
				guided = append(guided, fmt.Sprintf("%d: %.2f against %.0f", p.Elo, p.Guidance, p.GuidanceRating))
			}
		}
		if len(guided) > 0 {
			fmt.Fprintf(&b, "  rating guidance (final): %s\n", strings.Join(guided, ", "))
		}
	}

	rep.writeSpreads(&b)
	if len(rep.References) > 0 {
		b.WriteString("\nreferences (reported, not gated):\n")
		for _, r := range rep.References {
			p, lo, hi := ScoreInterval(r.Score)
			d, dlo, dhi := r.Score.Elo()
			fmt.Fprintf(&b, "  UCI_Elo %d vs %s: %d games, W-D-L %d-%d-%d, score %.1f%% [%.1f, %.1f], Elo %s [%s, %s]\n",
				r.Label, r.Opponent, r.Score.Games(), r.Score.Wins, r.Score.Draws, r.Score.Losses, 100*p, 100*lo, 100*hi, elo(d), elo(dlo), elo(dhi))
		}
	}
	if len(rep.Filter) > 0 {
		b.WriteString("\nblunder filter cost per move (positions evaluated; median ms from go to bestmove through the pipe, wall clock: inflated on a loaded machine):\n")
		for _, f := range rep.Filter {
			fmt.Fprintf(&b, "  UCI_Elo %d, %d positions: filter on %.1f positions %.1f ms; off %.1f positions %.1f ms\n",
				f.Label, f.Moves, f.NodesOn, f.MillisOn, f.NodesOff, f.MillisOff)
		}
	}
	b.WriteString("\ntime:")
	var phases []string
	for k := range rep.Elapsed {
		phases = append(phases, k)
	}
	sort.Strings(phases)
	for _, k := range phases {
		fmt.Fprintf(&b, " %s %.0f s;", k, rep.Elapsed[k].Seconds())
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// writeVerdict prints, for each label round played, the engine's blunder
// rate and centipawn loss beside the humans' and whether each is within
// Tolerance, then how many labels are within on both; counts adds the
// engine's judged moves and games of each label.
func (rep *Report) writeVerdict(b *strings.Builder, round Round, counts bool) {
	ok, played := 0, 0
	for _, p := range round.Settings.Points {
		k := profile.Key{Band: profile.Band(p.Elo), Class: rep.Class}
		e, h := round.Engine.Get(k), rep.Humans.Get(k)
		if e.Moves == 0 {
			continue // a label this run did not play (-labels)
		}
		played++
		be, _, _ := e.BlunderRate()
		bh, _, _ := h.BlunderRate()
		ce, _, _ := e.MeanCPL()
		ch, _, _ := h.MeanCPL()
		if Within(be, bh, Tolerance) && Within(ce, ch, Tolerance) {
			ok++
		}
		fmt.Fprintf(b, "  %5d  %5.1f / %-5.1f %s  %4.0f / %-4.0f %s", p.Elo, 100*be, 100*bh, mark(Within(be, bh, Tolerance)), ce, ch, mark(Within(ce, ch, Tolerance)))
		if counts {
			fmt.Fprintf(b, "   %d moves, %d games", e.Moves, e.Games)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "  %d of %d labels played within %.0f%% on both\n", ok, played, 100*Tolerance)
}

// WritePoolText prints a pooled report (PoolRun): the error profile of the
// pooled profile games beside the humans', each label's verdict with its
// moves and games, the labels' settings, and the pooled spread.
func (rep *Report) WritePoolText(w io.Writer) error {
	var b strings.Builder
	if len(rep.Rounds) > 0 {
		cfg, r := rep.Config, rep.Rounds[0]
		fmt.Fprintf(&b, "net %s (sha256 %.12s), %s %s on a virtual human clock, moves judged by Stockfish at %d nodes; %d profile files, %d games\n",
			cfg.NetName, cfg.NetHash, rep.Class, cfg.TC, cfg.JudgeNodes, rep.Pooled, r.Games)
		fmt.Fprintf(&b, "\nerror profile (band = rating ±%d; blunder: expected-score loss >= %.2f; cpl capped at ±%d cp; engine label = band); humans: %d games\n",
			profile.BandWidth/2, profile.BlunderLoss, profile.CPCap, rep.HumanGames)
		cols := []profile.Column{{Name: "humans", Profile: rep.Humans}, {Name: fmt.Sprintf("engine pooled (%d games)", r.Games), Profile: r.Engine}}
		if err := profile.WriteTable(&b, cols, 1); err != nil {
			return err
		}
		fmt.Fprintf(&b, "\npooled against humans (goal: within %.0f%%): label  blunder%% engine/human  cpl engine/human\n", 100*Tolerance)
		rep.writeVerdict(&b, r, true)
		b.WriteString("\nsettings (rating input / temperature / blunder scale / focus / guidance):\n")
		for _, p := range r.Settings.Points {
			fmt.Fprintf(&b, "  %5d | %4.0f / %4.2f / %4.2f / %4.2f", p.Elo, p.Rating, p.Temperature, p.BlunderScale, p.Focus)
			if p.Guidance > 0 {
				fmt.Fprintf(&b, " / %.2f against %.0f", p.Guidance, p.GuidanceRating)
			}
			b.WriteString("\n")
		}
	}
	rep.writeSpreads(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

func mark(ok bool) string {
	if ok {
		return "ok"
	}
	return "--"
}

func elo(x float64) string {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return fmt.Sprint(x)
	}
	if math.Abs(x) < 0.5 {
		return "0"
	}
	return fmt.Sprintf("%+.0f", x)
}

// writeSpreads prints the spread table (nothing without spread matches).
func (rep *Report) writeSpreads(b *strings.Builder) {
	if len(rep.Spreads) == 0 {
		return
	}
	fmt.Fprintf(b, "\nspread (goal %.0f%% ± %.0f%% for %d points):\n", 100*TargetSpread, 100*TargetSpreadT, rep.Config.SpreadGap)
	for _, s := range rep.Spreads {
		p, lo, hi := ScoreInterval(s.Score)
		d, dlo, dhi := s.Score.Elo()
		fmt.Fprintf(b, "  UCI_Elo %d vs %d: %d games, W-D-L %d-%d-%d, score %.1f%% [%.1f, %.1f], Elo %s [%s, %s] %s\n",
			s.Top, s.Bottom, s.Score.Games(), s.Score.Wins, s.Score.Draws, s.Score.Losses, 100*p, 100*lo, 100*hi,
			elo(d), elo(dlo), elo(dhi), mark(math.Abs(p-TargetSpread) <= TargetSpreadT))
	}
}

// Ladder sums the spread matches that chain (each one's bottom label the
// previous one's top, from the lowest bottom up) into the strength of each
// label above the lowest: xs the labels, ys the Elo above xs[0], lo and hi
// a 95% interval from the steps' half-widths added in quadrature (NaN
// once a step's interval is unbounded). The chain stops at a gap or
// at a step without a finite Elo (a clean sweep); without spreads it
// returns nothing.
func Ladder(spreads []Spread) (xs, ys, lo, hi []float64) {
	steps := append([]Spread(nil), spreads...)
	sort.Slice(steps, func(i, j int) bool { return steps[i].Bottom < steps[j].Bottom })
	var elo, v float64
	for i, s := range steps {
		d, dlo, dhi := s.Score.Elo()
		if i > 0 && s.Bottom != steps[i-1].Top || math.IsInf(d, 0) || math.IsNaN(d) {
			break // the chain ends: a gap in it, or a step that gives no finite Elo (a clean sweep)
		}
		if i == 0 {
			xs, ys, lo, hi = []float64{float64(s.Bottom)}, []float64{0}, []float64{0}, []float64{0}
		}
		half := (dhi - dlo) / 2
		elo += d
		v += half * half
		xs, ys = append(xs, float64(s.Top)), append(ys, elo)
		if w := math.Sqrt(v); !math.IsNaN(w) && !math.IsInf(w, 0) {
			lo, hi = append(lo, elo-w), append(hi, elo+w)
		} else {
			lo, hi = append(lo, math.NaN()), append(hi, math.NaN())
		}
	}
	return xs, ys, lo, hi
}

// WritePlots writes spread.png (score against the top label, with the
// target), ladder.png (the strength of each label above the lowest, the
// chained spread steps summed, against the label's own gap), blunders.png
// and cpl.png (against the rating, humans and engine on one chart; the
// intervals are in the text tables; none without an error profile) into
// dir, and returns their paths.
func (rep *Report) WritePlots(dir string) ([]string, error) {
	var out []string
	write := func(name string, c plot.Chart) error {
		png, err := plot.Lines(c)
		if err != nil {
			return fmt.Errorf("calibrate: %s: %w", name, err)
		}
		p := filepath.Join(dir, name)
		out = append(out, p)
		return os.WriteFile(p, png, 0o644)
	}
	if len(rep.Spreads) > 0 {
		var x, y, lo, hi, target []float64
		for _, s := range rep.Spreads {
			p, l, h := ScoreInterval(s.Score)
			x = append(x, float64(s.Top))
			y, lo, hi, target = append(y, 100*p), append(lo, 100*l), append(hi, 100*h), append(target, 100*Expected(float64(s.Top-s.Bottom)))
		}
		if err := write("spread.png", plot.Chart{
			Title:  fmt.Sprintf("UCI_Elo X vs X-%d: score of X (target %.0f%%)", rep.Config.SpreadGap, 100*TargetSpread),
			XLabel: "X (UCI_Elo)", YLabel: "score %", YMin: 0, YMax: 100,
			Series: []plot.Series{{Name: "score", X: x, Y: y}, {Name: "95% low", X: x, Y: lo}, {Name: "95% high", X: x, Y: hi},
				{Name: "Elo formula", X: x, Y: target}},
		}); err != nil {
			return out, err
		}
	}
	if xs, ys, lo, hi := Ladder(rep.Spreads); len(xs) > 1 {
		goal := make([]float64, len(xs))
		for i, x := range xs {
			goal[i] = x - xs[0]
		}
		if err := write("ladder.png", plot.Chart{
			Title:  fmt.Sprintf("Elo above UCI_Elo %.0f: the spread steps summed", xs[0]),
			XLabel: "UCI_Elo", YLabel: "Elo",
			Series: []plot.Series{{Name: "measured", X: xs, Y: ys}, {Name: "95% low", X: xs, Y: lo}, {Name: "95% high", X: xs, Y: hi},
				{Name: "the label's gap", X: xs, Y: goal}},
		}); err != nil {
			return out, err
		}
	}
	var labels []int
	if rep.Final != nil {
		for _, p := range rep.Final.Points {
			labels = append(labels, p.Elo)
		}
	}
	if len(labels) == 0 {
		return out, nil // no error profile (a pooled spread)
	}
	type col struct {
		name string
		p    profile.Profile
	}
	cols := []col{{"humans", rep.Humans}}
	for i, r := range rep.Rounds {
		switch {
		case rep.Pooled > 0:
			cols = append(cols, col{"engine pooled", r.Engine})
		case i == 0 || i == len(rep.Rounds)-1:
			cols = append(cols, col{fmt.Sprintf("engine round %d", i+1), r.Engine})
		}
	}
	for _, what := range []string{"blunders", "cpl"} {
		var series []plot.Series
		for _, c := range cols {
			x := make([]float64, len(labels))
			y := make([]float64, len(labels))
			for i, l := range labels {
				x[i] = float64(l)
				cell := c.p.Get(profile.Key{Band: profile.Band(l), Class: rep.Class})
				if what == "blunders" {
					p, _, _ := cell.BlunderRate()
					y[i] = 100 * p
				} else {
					y[i], _, _ = cell.MeanCPL()
				}
			}
			series = append(series, plot.Series{Name: c.name, X: x, Y: y})
		}
		title, ylabel := "blunder rate per move ("+rep.Class.String()+"; 95% intervals in the table)", "blunders %"
		if what == "cpl" {
			title, ylabel = "average centipawn loss per move ("+rep.Class.String()+"; 95% intervals in the table)", "centipawns"
		}
		if err := write(what+".png", plot.Chart{Title: title, XLabel: "rating (humans) / UCI_Elo (engine)", YLabel: ylabel, Series: series}); err != nil {
			return out, err
		}
	}
	return out, nil
}
