package eval

import (
	"encoding/csv"
	"fmt"
	"github.com/humchess/humchess/train/tools/internal/format"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/humchess/humchess/train/plot"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/train/data/games"
)

// Protocols, in report order.
const (
	ProtocolAll  = 0 // every position
	ProtocolMaia = 1 // Maia's: plies from 10, mover's clock at least 30 s (or unknown)
)

// ProtocolNames names the protocols.
var ProtocolNames = [2]string{"all", "maia"}

// Dimensions of the breakdown, in report order.
var Dimensions = []string{"all", "source", "rating", "opponent", "gap", "timeclass", "ply", "material", "clock"}

// Bucket is one row of a breakdown: a dimension and a range of it.
type Bucket struct {
	Dim   string
	Order int // sort key within the dimension
	Label string
}

// Cell is one contestant's tally in one bucket.
type Cell struct {
	N    int64   // positions
	Top1 int64   // first choice was the human move
	Top3 int64   // human move among the first three
	LogP float64 // sum of log-probabilities of the human move
	LogN int64   // positions with a log-probability
	// Sums of the value and think-time heads' cross-entropies, and the
	// positions that have them (Prediction.WDLLoss, TimeLoss).
	WDL, Time   float64
	WDLN, TimeN int64
	// Sum of the value head's distances from the games' evaluations
	// (Prediction.EvalLoss) and the positions that have one.
	Ev  float64
	EvN int64
}

// WDLLoss is the value head's mean cross-entropy against the game results,
// nats (NaN when the contestant has no value head).
func (c Cell) WDLLoss() float64 { return format.Ratio(c.WDL, c.WDLN) }

// TimeLoss is the think-time head's mean cross-entropy against the moves'
// think-time classes, nats (NaN when the contestant has no such head).
func (c Cell) TimeLoss() float64 { return format.Ratio(c.Time, c.TimeN) }

// EvalLoss is the value head's mean distance from the games' own
// evaluations, in expected score (NaN without a value head or evaluations).
func (c Cell) EvalLoss() float64 { return format.Ratio(c.Ev, c.EvN) }

// Top1Rate is Top1/N (NaN when empty).
func (c Cell) Top1Rate() float64 { return format.Ratio(float64(c.Top1), c.N) }

// Top3Rate is Top3/N (NaN when empty).
func (c Cell) Top3Rate() float64 { return format.Ratio(float64(c.Top3), c.N) }

// CrossEntropy is the mean negative log-probability of the human move, nats.
func (c Cell) CrossEntropy() float64 { return -format.Ratio(c.LogP, c.LogN) }

// Diff is the paired difference of top-1 hits between two contestants
// (first minus second) over the same positions.
type Diff struct {
	N         int64
	Sum, Sum2 float64
	// Per game: the games with positions in the bucket, and the sums over
	// them of d_g², d_g·n_g and n_g², where d_g is a game's sum of
	// differences and n_g its positions (the cluster-robust interval).
	Games               int64
	GSum2, GSumN, GNum2 float64
}

// z95 is the normal quantile of a two-sided 95% interval.
const z95 = 1.959963984540054

// t95 is the 97.5% quantile of Student's t with df degrees of freedom (the
// half-width factor of a 95% interval from df+1 draws): exact for one and
// two, the Cornish-Fisher expansion in 1/df (Abramowitz and Stegun 26.7.5)
// from three (within 0.2% there, closer beyond).
func t95(df int) float64 {
	switch {
	case df < 1:
		return math.NaN()
	case df == 1:
		return math.Tan(math.Pi * (0.975 - 0.5))
	case df == 2:
		p := 0.975
		return (2*p - 1) / math.Sqrt(2*p*(1-p))
	}
	z, v := z95, float64(df)
	z2 := z * z
	g1 := (z2 + 1) * z / 4
	g2 := ((5*z2+16)*z2 + 3) * z / 96
	g3 := (((3*z2+19)*z2+17)*z2 - 15) * z / 384
	g4 := ((((79*z2+776)*z2+1482)*z2-1920)*z2 - 945) * z / 92160
	return z + (g1+(g2+(g3+g4/v)/v)/v)/v
}

// Mean is the mean difference and its 95% half-width. The positions of one
// game are not independent draws (one player, one opening, one kind of
// position), so the interval treats each game as one draw: the
// cluster-robust (sandwich) variance of the ratio of the per-game sums,
// G/(G-1) · Σ_g (d_g - mean·n_g)² / N², with Student's t at G-1 degrees of
// freedom (a bucket of a few games gets the wide interval it deserves). It
// is NaN under two games.
func (d Diff) Mean() (mean, half float64) {
	if d.N == 0 {
		return math.NaN(), math.NaN()
	}
	n := float64(d.N)
	mean = d.Sum / n
	if d.Games < 2 {
		return mean, math.NaN()
	}
	g := float64(d.Games)
	ss := d.GSum2 - 2*mean*d.GSumN + mean*mean*d.GNum2
	v := g / (g - 1) * math.Max(ss, 0) / (n * n)
	return mean, t95(int(d.Games-1)) * math.Sqrt(v)
}

// PositionHalf is the 95% half-width that treats every position as an
// independent draw (the interval of reports before the per-game one);
// narrower than Mean's wherever the positions of a game agree.
func (d Diff) PositionHalf() float64 {
	if d.N < 2 {
		return math.NaN()
	}
	n := float64(d.N)
	mean := d.Sum / n
	v := (d.Sum2 - n*mean*mean) / (n - 1)
	return z95 * math.Sqrt(math.Max(v, 0)/n)
}

// Row is one bucket's tallies: one Cell per contestant and one paired
// difference per compared pair (Report.Compare): of top-1 hits in Diffs,
// and in CEDiffs of the human move's cross-entropy (first minus second, nats;
// negative where the first gives the human move more probability), over
// the positions where both give probabilities; in WDLDiffs and TimeDiffs of
// the value and think-time heads' cross-entropies (first minus second, nats),
// over the positions where both have the head and the target is known; in
// EvalDiffs of the value head's distance from the games' evaluations.
type Row struct {
	Cells     []Cell
	Diffs     []Diff
	CEDiffs   []Diff
	WDLDiffs  []Diff
	TimeDiffs []Diff
	EvalDiffs []Diff
	Games     int64 // games with positions in the bucket
}

// Kinds of paired difference, the index of a row's diff slice (Row.diffs).
const (
	diffTop1 = iota
	diffCE
	diffWDL
	diffTime
	diffEval
	numDiffs
)

// headNames prefix the pair's name on the CSV lines of the heads' differences.
var headNames = map[int]string{diffWDL: "value ", diffTime: "time ", diffEval: "evaluation "}

// diffs returns the row's paired differences of one kind.
func (row *Row) diffs(kind int) []Diff {
	return [numDiffs][]Diff{row.Diffs, row.CEDiffs, row.WDLDiffs, row.TimeDiffs, row.EvalDiffs}[kind]
}

// Report is the result of Run.
type Report struct {
	Names []string // contestants
	Probs []bool   // whether each contestant gives probabilities (top-3, cross-entropy)
	// Scale names the rating map of the tables (Config.RatingMap, "" for
	// the PGN's ratings) and Scales each contestant's inputs' map.
	Scale   string
	Scales  []string
	Compare [][2]int // the contestant pairs of Row.Diffs
	Games   int64
	Skipped map[string]int64 // games skipped, by reason
	// Warnings are problems that did not stop the run, such as an input
	// file that broke off (truncated or corrupt) after some games.
	Warnings []string
	Seconds  float64
	Rows     [2]map[Bucket]*Row // per protocol
	oppBand  int
	// open holds, per row the current game has positions in, the game's
	// positions there and its sum of differences per compared pair, until
	// addGame folds them into the per-game sums.
	open map[*Row]*gameSums
}

// gameSums is one game's tally in one row: per kind of difference and
// compared pair, n_g (the positions where both contestants of the pair have
// the difference) and d_g.
type gameSums struct {
	n, d [numDiffs][]float64
}

func newGameSums(pairs int) *gameSums {
	g := &gameSums{}
	for k := range numDiffs {
		g.n[k], g.d[k] = make([]float64, pairs), make([]float64, pairs)
	}
	return g
}

// addPair tallies one position's difference d of a kind for pair j in row
// and in the game's sums.
func (g *gameSums) addPair(row *Row, kind, j int, d float64) {
	if math.IsNaN(d) {
		return
	}
	row.diffs(kind)[j].add(d)
	g.n[kind][j]++
	g.d[kind][j] += d
}

// add tallies one position's difference d.
func (x *Diff) add(d float64) {
	x.N++
	x.Sum += d
	x.Sum2 += d * d
}

// fold tallies one game's sum of differences d over its n positions.
func (x *Diff) fold(d, n float64) {
	if n == 0 {
		return
	}
	x.Games++
	x.GSum2 += d * d
	x.GSumN += d * n
	x.GNum2 += n * n
}

// merge adds o's tallies.
func (x *Diff) merge(o Diff) {
	x.N += o.N
	x.Sum += o.Sum
	x.Sum2 += o.Sum2
	x.Games += o.Games
	x.GSum2 += o.GSum2
	x.GSumN += o.GSumN
	x.GNum2 += o.GNum2
}

func newReport(cfg *Config) *Report {
	r := &Report{Compare: cfg.Compare, oppBand: cfg.OppBand, Rows: [2]map[Bucket]*Row{{}, {}}, open: map[*Row]*gameSums{}}
	r.Scale = mapName(cfg.RatingMap)
	for _, s := range cfg.Contestants {
		r.Names = append(r.Names, s.Name)
		r.Probs = append(r.Probs, s.Probabilities)
		sc := r.Scale
		if s.OwnScale {
			sc = mapName(s.RatingMap)
		}
		r.Scales = append(r.Scales, sc)
	}
	return r
}

// Positions returns the number of positions of a protocol.
func (r *Report) Positions(protocol int) int64 {
	if row := r.Rows[protocol][Bucket{Dim: "all", Label: "all"}]; row != nil && len(row.Cells) > 0 {
		return row.Cells[0].N
	}
	return 0
}

// Row returns the row of a bucket by dimension and label (nil if none).
func (r *Report) Row(protocol int, dim, label string) *Row {
	for b, row := range r.Rows[protocol] {
		if b.Dim == dim && b.Label == label {
			return row
		}
	}
	return nil
}

func (r *Report) row(protocol int, b Bucket) *Row {
	row := r.Rows[protocol][b]
	if row == nil {
		n := len(r.Compare)
		row = &Row{Cells: make([]Cell, len(r.Names)), Diffs: make([]Diff, n), CEDiffs: make([]Diff, n), WDLDiffs: make([]Diff, n), TimeDiffs: make([]Diff, n), EvalDiffs: make([]Diff, n)}
		r.Rows[protocol][b] = row
	}
	return row
}

// add tallies position p with every contestant's prediction preds[k][i].
func (r *Report) add(p *Position, preds [][]Prediction, i int) {
	buckets := bucketsOf(p, r.oppBand)
	for proto := range 2 {
		if proto == ProtocolMaia && !p.Maia {
			continue
		}
		for _, b := range buckets {
			row := r.row(proto, b)
			g := r.open[row]
			if g == nil {
				g = newGameSums(len(r.Compare))
				r.open[row] = g
			}
			for k := range preds {
				pr := preds[k][i]
				c := &row.Cells[k]
				c.N++
				if pr.Top1 {
					c.Top1++
				}
				if pr.Top3 {
					c.Top3++
				}
				if !math.IsNaN(pr.LogP) {
					c.LogP += pr.LogP
					c.LogN++
				}
				if !math.IsNaN(pr.WDLLoss) {
					c.WDL += pr.WDLLoss
					c.WDLN++
				}
				if !math.IsNaN(pr.TimeLoss) {
					c.Time += pr.TimeLoss
					c.TimeN++
				}
				if !math.IsNaN(pr.EvalLoss) {
					c.Ev += pr.EvalLoss
					c.EvN++
				}
			}
			for j, pair := range r.Compare {
				a, c := preds[pair[0]][i], preds[pair[1]][i]
				g.addPair(row, diffTop1, j, b2f(a.Top1)-b2f(c.Top1))
				g.addPair(row, diffCE, j, c.LogP-a.LogP) // -log p_a - (-log p_c); NaN unless both give probabilities
				g.addPair(row, diffWDL, j, a.WDLLoss-c.WDLLoss)
				g.addPair(row, diffTime, j, a.TimeLoss-c.TimeLoss)
				g.addPair(row, diffEval, j, a.EvalLoss-c.EvalLoss)
			}
		}
	}
}

// addGame tallies the positions of one game (preds[k][i] is contestant k's
// prediction of ps[i]) and then the game's per-bucket sums as one cluster.
func (r *Report) addGame(ps []*Position, preds [][]Prediction) {
	for i := range ps {
		r.add(ps[i], preds, i)
	}
	for row, g := range r.open {
		row.Games++
		for kind := range numDiffs {
			ds := row.diffs(kind)
			for j := range ds {
				ds[j].fold(g.d[kind][j], g.n[kind][j])
			}
		}
		delete(r.open, row)
	}
	r.Games++
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func (r *Report) merge(o *Report) {
	r.Games += o.Games
	for proto := range 2 {
		for b, orow := range o.Rows[proto] {
			row := r.row(proto, b)
			row.Games += orow.Games
			for k, c := range orow.Cells {
				x := &row.Cells[k]
				x.N += c.N
				x.Top1 += c.Top1
				x.Top3 += c.Top3
				x.LogP += c.LogP
				x.LogN += c.LogN
				x.WDL += c.WDL
				x.WDLN += c.WDLN
				x.Time += c.Time
				x.TimeN += c.TimeN
				x.Ev += c.Ev
				x.EvN += c.EvN
			}
			for kind := range numDiffs {
				ds, od := row.diffs(kind), orow.diffs(kind)
				for j := range ds {
					ds[j].merge(od[j])
				}
			}
		}
	}
}

const unknownOrder = math.MaxInt32

// bucketsOf returns the position's bucket in every dimension.
func bucketsOf(p *Position, oppBand int) []Bucket {
	out := make([]Bucket, 0, len(Dimensions))
	out = append(out, Bucket{Dim: "all", Label: "all"})
	out = append(out, Bucket{Dim: "source", Order: p.Source, Label: p.SourceName})
	if b := board.RatingBand(p.MoverRating); b >= 0 {
		out = append(out, Bucket{Dim: "rating", Order: b, Label: board.RatingBandName(b)})
	} else {
		out = append(out, Bucket{Dim: "rating", Order: unknownOrder, Label: board.RatingBandName(b)})
	}
	if p.MoverRating >= 0 && p.OppRating >= 0 {
		d := p.OppRating - p.MoverRating
		lo := int(math.Floor(float64(d)/float64(oppBand))) * oppBand
		lo = min(max(lo, -5*oppBand), 4*oppBand)
		label := fmt.Sprintf("%+d..%+d", lo, lo+oppBand-1)
		switch lo {
		case -5 * oppBand:
			label = fmt.Sprintf("<%+d", -4*oppBand)
		case 4 * oppBand:
			label = fmt.Sprintf(">=%+d", 4*oppBand)
		}
		out = append(out, Bucket{Dim: "opponent", Order: lo, Label: label}, gapBucket(d))
	} else {
		out = append(out, Bucket{Dim: "opponent", Order: unknownOrder, Label: "unknown"},
			Bucket{Dim: "gap", Order: unknownOrder, Label: "unknown"})
	}
	out = append(out, Bucket{Dim: "timeclass", Order: int(p.Class), Label: p.Class.String()})
	plyEdges := []int{0, 10, 20, 30, 40, 60, 80, 120}
	for k := len(plyEdges) - 1; k >= 0; k-- {
		if p.Ply >= plyEdges[k] {
			label := fmt.Sprintf("%d+", plyEdges[k])
			if k+1 < len(plyEdges) {
				label = fmt.Sprintf("%d-%d", plyEdges[k], plyEdges[k+1]-1)
			}
			out = append(out, Bucket{Dim: "ply", Order: plyEdges[k], Label: label})
			break
		}
	}
	m := min(p.Material/10*10, 70)
	ml := fmt.Sprintf("%d-%d", m, m+9)
	if m == 70 {
		ml = "70-78"
	}
	out = append(out, Bucket{Dim: "material", Order: -m, Label: ml})
	out = append(out, clockBucket(p.MoverClock))
	return out
}

// gapBucket pools the rating gap d (opponent minus mover) over both signs:
// the large gaps, where Maia (one net per band, blind to the opponent) has
// no input to go on, are few in each signed opponent band.
func gapBucket(d int) Bucket {
	switch g := max(d, -d); {
	case g < 100:
		return Bucket{Dim: "gap", Order: 0, Label: "0-99"}
	case g < 200:
		return Bucket{Dim: "gap", Order: 100, Label: "100-199"}
	}
	return Bucket{Dim: "gap", Order: 200, Label: "200+"}
}

func clockBucket(c float64) Bucket {
	if c < 0 {
		return Bucket{Dim: "clock", Order: unknownOrder, Label: "unknown"}
	}
	edges := []float64{0, 10, 30, 60, 180, 600}
	labels := []string{"<10s", "10-30s", "30-60s", "1-3min", "3-10min", "10min+"}
	k := sort.SearchFloat64s(edges, c+1e-9) - 1
	k = max(k, 0)
	return Bucket{Dim: "clock", Order: k, Label: labels[k]}
}

// writeHeads writes, for the contestants that have them, the value and
// think-time heads' cross-entropies over all positions of a protocol, and
// where the games carry evaluations, the value head's distance from them.
func (r *Report) writeHeads(b *strings.Builder, proto int) {
	row := r.Rows[proto][Bucket{Dim: "all", Label: "all"}]
	if row == nil {
		return
	}
	evals := false
	for _, c := range row.Cells {
		evals = evals || c.EvN > 0
	}
	head := false
	for k, c := range row.Cells {
		if c.WDLN == 0 && c.TimeN == 0 {
			continue
		}
		if !head {
			fmt.Fprintf(b, "\n[%s positions] heads: cross-entropy of the game's result (value head) and of the move's think-time class (think-time head), nats (positions)", ProtocolNames[proto])
			if evals {
				b.WriteString("; evaluation: the value head's mean distance from the expected score of the game's own %eval of the position (positions)")
			}
			b.WriteString("\n")
			head = true
		}
		fmt.Fprintf(b, "  %-20s value %s (%d)  think time %s (%d)", format.Trunc(r.Names[k], 20), format.Num(c.WDLLoss(), 4), c.WDLN, format.Num(c.TimeLoss(), 4), c.TimeN)
		if evals {
			fmt.Fprintf(b, "  evaluation %s (%d)", format.Num(c.EvalLoss(), 4), c.EvN)
		}
		b.WriteString("\n")
	}
	for j := range r.Compare {
		w, t, e := row.WDLDiffs[j], row.TimeDiffs[j], row.EvalDiffs[j]
		if w.N == 0 && t.N == 0 {
			continue
		}
		fmt.Fprintf(b, "  %-20s value %s  think time %s", r.pairName(j, 0), headDiff(w), headDiff(t))
		if evals {
			fmt.Fprintf(b, "  evaluation %s", headDiff(e))
		}
		b.WriteString(" (paired, first minus second, 95% CI by game)\n")
	}
}

// headDiff formats a paired head-loss difference, "-" where no position has
// it.
func headDiff(d Diff) string {
	if d.N == 0 {
		return "-"
	}
	return natsCI(d)
}

// natsCI formats a paired difference in nats: mean [95% CI].
func natsCI(d Diff) string {
	m, h := d.Mean()
	return fmt.Sprintf("%+.4f [%s, %s]", m, format.Num(m-h, 4), format.Num(m+h, 4))
}

// Buckets returns a protocol's buckets of one dimension in order.
func (r *Report) Buckets(protocol int, dim string) []Bucket {
	var out []Bucket
	for b := range r.Rows[protocol] {
		if b.Dim == dim {
			out = append(out, b)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Order != out[j].Order {
			return out[i].Order < out[j].Order
		}
		return out[i].Label < out[j].Label
	})
	return out
}

// WriteText writes the tables: per protocol and dimension, each bucket's
// position count and each contestant's top-1 %, top-3 % and cross-entropy,
// then the paired top-1 difference of the compared contestants with its 95%
// interval, in percentage points. dims selects dimensions (nil = all).
func (r *Report) WriteText(w io.Writer, dims []string) error {
	if dims == nil {
		dims = Dimensions
	}
	var b strings.Builder
	fmt.Fprintf(&b, "eval: %d games, %d positions (maia protocol %d) in %.1f s\n", r.Games, r.Positions(ProtocolAll), r.Positions(ProtocolMaia), r.Seconds)
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "  warning: %s\n", w)
	}
	if len(r.Skipped) > 0 {
		b.WriteString("  games skipped:")
		for _, k := range sortedKeys(r.Skipped) {
			fmt.Fprintf(&b, " %s %d;", k, r.Skipped[k])
		}
		b.WriteString("\n")
	}
	if r.Scale != "" {
		fmt.Fprintf(&b, "  ratings mapped by %s\n", r.Scale)
	}
	for i, sc := range r.Scales {
		if sc != r.Scale {
			fmt.Fprintf(&b, "  %s reads ratings %s\n", r.Names[i], scaleText(sc))
		}
	}
	b.WriteString("  top1/top3: % of positions where the human move is the contestant's first / among its first three; CE: cross-entropy of the human move, nats\n")
	b.WriteString("  points [95% CI]: paired top-1 difference; the interval counts each game as one draw (a game's positions are not independent); games: games with positions in the row\n")
	ce := r.cePairs()
	if len(ce) > 0 {
		b.WriteString("  nats [95% CI]: paired cross-entropy difference of the human move where both give probabilities (negative: the first gives it more), the interval by game\n")
	}
	for proto := range 2 {
		r.writeHeads(&b, proto)
		for _, dim := range dims {
			buckets := r.Buckets(proto, dim)
			if len(buckets) == 0 {
				continue
			}
			fmt.Fprintf(&b, "\n[%s positions] by %s\n", ProtocolNames[proto], dim)
			lw := 12 // the label column, wide enough for a source's file name
			for _, bk := range buckets {
				lw = max(lw, len(bk.Label))
			}
			fmt.Fprintf(&b, "%-*s %9s %6s", lw, dim, "n", "games")
			for k, n := range r.Names {
				if r.Probs[k] {
					fmt.Fprintf(&b, " | %-20s", format.Trunc(n, 20))
				} else {
					fmt.Fprintf(&b, " | %-6s", format.Trunc(n, 6))
				}
			}
			for j := range r.Compare {
				fmt.Fprintf(&b, " | %-26s", "top1 "+r.pairName(j, 10))
			}
			for _, j := range ce {
				fmt.Fprintf(&b, " | %-26s", "CE "+r.pairName(j, 10))
			}
			fmt.Fprintf(&b, "\n%-*s %9s %6s", lw, "", "", "")
			for k := range r.Names {
				if r.Probs[k] {
					fmt.Fprintf(&b, " | %6s %6s %6s", "top1", "top3", "CE")
				} else {
					fmt.Fprintf(&b, " | %6s", "top1")
				}
			}
			for range r.Compare {
				fmt.Fprintf(&b, " | %-26s", "points [95% CI]")
			}
			for range ce {
				fmt.Fprintf(&b, " | %-26s", "nats [95% CI]")
			}
			b.WriteString("\n")
			for _, bk := range buckets {
				row := r.Rows[proto][bk]
				fmt.Fprintf(&b, "%-*s %9d %6d", lw, bk.Label, row.Cells[0].N, row.Games)
				for k, c := range row.Cells {
					if r.Probs[k] {
						fmt.Fprintf(&b, " | %6s %6s %6s", format.Pct(c.Top1Rate()), format.Pct(c.Top3Rate()), format.Num(c.CrossEntropy(), 3))
					} else {
						fmt.Fprintf(&b, " | %6s", format.Pct(c.Top1Rate()))
					}
				}
				for _, d := range row.Diffs {
					m, h := d.Mean()
					fmt.Fprintf(&b, " | %-26s", fmt.Sprintf("%+.2f [%s, %s]", 100*m, format.Num(100*(m-h), 2), format.Num(100*(m+h), 2)))
				}
				for _, j := range ce {
					fmt.Fprintf(&b, " | %-26s", natsCI(row.CEDiffs[j]))
				}
				b.WriteString("\n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cePairs returns the indexes in Compare of the pairs that have a
// cross-entropy difference (both contestants give probabilities).
func (r *Report) cePairs() []int {
	var out []int
	for j, pair := range r.Compare {
		if r.Probs[pair[0]] && r.Probs[pair[1]] {
			out = append(out, j)
		}
	}
	return out
}

// pairName names compared pair j, each name cut to width (0: whole).
func (r *Report) pairName(j, width int) string {
	a, b := r.Names[r.Compare[j][0]], r.Names[r.Compare[j][1]]
	if width > 0 {
		a, b = format.Trunc(a, width), format.Trunc(b, width)
	}
	return a + " - " + b
}

func sortedKeys(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// WriteCSV writes one line per protocol, dimension, bucket and contestant
// (protocol,dimension,bucket,contestant,n,top1,top3,cross_entropy), and per
// bucket and compared pair one line for the paired difference (contestant "A - B"; top1 holds
// the mean difference, top3 and cross_entropy the 95% interval's ends, by game as Diff.Mean)
// and, where both give probabilities, one for the paired cross-entropy difference in nats
// (contestant "CE A - B", n its positions, the same columns), and where both have them, one
// each for the value and think-time heads' paired cross-entropy differences ("value A - B",
// "time A - B"); games is the bucket's game count.
func (r *Report) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	ce := r.cePairs()
	if err := cw.Write([]string{"protocol", "dimension", "bucket", "contestant", "n", "top1", "top3", "cross_entropy", "wdl_loss", "time_loss", "games", "eval_loss"}); err != nil {
		return err
	}
	f := func(x float64) string {
		if math.IsNaN(x) {
			return ""
		}
		return strconv.FormatFloat(x, 'f', 6, 64)
	}
	for proto := range 2 {
		for _, dim := range Dimensions {
			for _, bk := range r.Buckets(proto, dim) {
				row := r.Rows[proto][bk]
				for k, c := range row.Cells {
					top3, ce := c.Top3Rate(), c.CrossEntropy()
					if !r.Probs[k] {
						top3, ce = math.NaN(), math.NaN()
					}
					if err := cw.Write([]string{ProtocolNames[proto], dim, bk.Label, r.Names[k], strconv.FormatInt(c.N, 10), f(c.Top1Rate()), f(top3), f(ce), f(c.WDLLoss()), f(c.TimeLoss()), strconv.FormatInt(row.Games, 10), f(c.EvalLoss())}); err != nil {
						return err
					}
				}
				diff := func(name string, d Diff) error {
					m, h := d.Mean()
					return cw.Write([]string{ProtocolNames[proto], dim, bk.Label, name, strconv.FormatInt(d.N, 10), f(m), f(m - h), f(m + h), "", "", strconv.FormatInt(d.Games, 10), ""})
				}
				for j := range r.Compare {
					if err := diff(r.pairName(j, 0), row.Diffs[j]); err != nil {
						return err
					}
				}
				for _, j := range ce {
					if err := diff("CE "+r.pairName(j, 0), row.CEDiffs[j]); err != nil {
						return err
					}
				}
				for j := range r.Compare {
					for _, kind := range []int{diffWDL, diffTime, diffEval} {
						d := row.diffs(kind)[j]
						if d.N == 0 {
							continue
						}
						if err := diff(headNames[kind]+r.pairName(j, 0), d); err != nil {
							return err
						}
					}
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// Plot file names.
const (
	PlotTop1 = "eval-top1-%s.png" // by protocol name
	PlotCE   = "eval-ce-%s.png"
)

// WritePlots writes, per protocol, top-1 accuracy by mover rating band (one
// line per contestant) and, when any contestant gives probabilities, the
// cross-entropy by band, as PNGs into dir. It returns the files written.
func (r *Report) WritePlots(dir string) ([]string, error) {
	var files []string
	for proto := range 2 {
		buckets := r.Buckets(proto, "rating")
		var xs []float64
		var rows []*Row
		for _, b := range buckets {
			if b.Order == unknownOrder {
				continue
			}
			xs = append(xs, float64(b.Order))
			rows = append(rows, r.Rows[proto][b])
		}
		if len(xs) == 0 {
			continue
		}
		for _, what := range []string{"top1", "ce"} {
			var series []plot.Series
			for k, name := range r.Names {
				if what == "ce" && !r.Probs[k] {
					continue
				}
				s := plot.Series{Name: name, X: xs}
				for _, row := range rows {
					y := 100 * row.Cells[k].Top1Rate()
					if what == "ce" {
						y = row.Cells[k].CrossEntropy()
					}
					s.Y = append(s.Y, y)
				}
				series = append(series, s)
			}
			if len(series) == 0 {
				continue
			}
			c := plot.Chart{Title: fmt.Sprintf("move matching, %s positions: top-1 accuracy by rating band", ProtocolNames[proto]),
				XLabel: "mover rating band", YLabel: "top-1 %", Series: series}
			name := fmt.Sprintf(PlotTop1, ProtocolNames[proto])
			if what == "ce" {
				c.Title = fmt.Sprintf("move matching, %s positions: cross-entropy by rating band", ProtocolNames[proto])
				c.YLabel = "nats"
				name = fmt.Sprintf(PlotCE, ProtocolNames[proto])
			}
			data, err := plot.Lines(c)
			if err != nil {
				return files, err
			}
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				return files, fmt.Errorf("eval: %w", err)
			}
			files = append(files, path)
		}
	}
	return files, nil
}

// mapName is a rating map's name, "" for none.
func mapName(m *games.RatingMap) string {
	if m == nil {
		return ""
	}
	return m.Name
}

// scaleText says what ratings a contestant reads.
func scaleText(name string) string {
	if name == "" {
		return "as the PGN gives them"
	}
	return "mapped by " + name
}
