package prep

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/nets"
	"github.com/humchess/humchess/score"
	"github.com/humchess/humchess/train/data/shard"
)

// DefaultTeacherBatch is the default Config.TeacherBatch.
const DefaultTeacherBatch = 64

// teacher labels one worker's kept positions with a net's move distribution.
// The positions of a batch of games are queued while the games are replayed
// (a clone of the game, which Lc0/Maia nets need for their history, and the
// context) and evaluated after the batch, in chunks of Config.TeacherBatch
// positions taken in input order, so the net sees the same chunks whatever
// the number of workers.
//
// A band teacher holds several nets, each for a rating band (a directory of
// maia-1100.pb.gz ... maia-1900.pb.gz): each position goes to the net of
// the mover's band, and a mover between two band centres goes to one of the
// two neighbours, chosen at random (seeded by game and ply) with the
// probability of its closeness, so the labels are the distance-weighted mix
// of the two in expectation, at the cost of one evaluation.
//
// A mean teacher (Config.Teacher "A:W,B:W") is an ensemble of such
// members: every position goes to each, and its label is the weighted mean
// of their move distributions (nets.MeanOutputs), its win/draw/loss the
// first member's.
//
// With Config.WDLEvals, a position whose game gives an evaluation of it (the
// %eval after the move that reached it) gets its win/draw/loss from that
// evaluation instead (EvalWDL), the teacher's draw share kept.
type teacher struct {
	members []*member
	batch   int
	queue   []nets.Input
	evals   []float64 // per queued position, the mover's centipawns from the game, NaN for none
	enc     board.Encoded
	probs   []float32
	data    []byte
	ends    []int32
	// evaluated is the time spent in Evaluate, for the summary.
	evaluated time.Duration
	// fromEvals counts the positions whose win/draw/loss came from an evaluation.
	fromEvals int64
}

// member is one net, or one net per rating band, of a teacher.
type member struct {
	bands  []bandNet // by rating
	weight float64
	which  []int // the band each queued position goes to
}

// bandNet is one net of a teacher and the rating band it stands for.
type bandNet struct {
	net nets.Net
	BandNet
}

// BandNet is a net file and the rating band it stands for.
type BandNet struct {
	File   string
	Rating int // the band's lowest rating (maia-1500: 1500..1599); 0 for a single net
}

// pick returns the band a position whose mover is rated rating goes to; u
// is uniform in [0, 1).
func (t *member) pick(rating float32, u float64) int {
	n := len(t.bands)
	if n == 1 || rating <= 0 {
		if n > 1 { // unknown rating: the middle band
			return n / 2
		}
		return 0
	}
	centre := func(k int) float64 { return float64(t.bands[k].Rating) + board.RatingBandWidth/2 }
	r := float64(rating)
	if r <= centre(0) {
		return 0
	}
	for k := 0; k+1 < n; k++ {
		lo, hi := centre(k), centre(k+1)
		if r < hi {
			if u < (r-lo)/(hi-lo) {
				return k + 1
			}
			return k
		}
	}
	return n - 1
}

// add queues the position g is at (cloned) with ctx; u picks between two
// neighbouring bands (see pick); cp is the game's evaluation of the
// position for the mover, in centipawns, NaN when it has none.
func (t *teacher) add(g *board.Game, ctx board.Context, u, cp float64) {
	t.queue = append(t.queue, nets.Input{Game: g.Clone(), Ctx: ctx})
	t.evals = append(t.evals, cp)
	for _, m := range t.members {
		m.which = append(m.which, m.pick(ctx.MoverRating, u))
	}
}

// unqueue drops the last n queued positions.
func (t *teacher) unqueue(n int) {
	clear(t.queue[len(t.queue)-n:])
	t.queue = t.queue[:len(t.queue)-n]
	t.evals = t.evals[:len(t.evals)-n]
	for _, m := range t.members {
		m.which = m.which[:len(m.which)-n]
	}
}

// name is the teacher's name for logs and the manifest: the net's own name,
// or the bands' names joined by "+"; a mean's members' names with their
// weights, "A:W,B:W".
func (t *teacher) name() string {
	if len(t.members) == 1 {
		return t.members[0].name()
	}
	names := make([]string, len(t.members))
	for k, m := range t.members {
		names[k] = m.name() + ":" + strconv.FormatFloat(m.weight, 'g', -1, 64)
	}
	return strings.Join(names, ",")
}

func (t *member) name() string {
	names := make([]string, len(t.bands))
	for k, b := range t.bands {
		names[k] = b.net.Info().Name
	}
	return strings.Join(names, "+")
}

// info describes the teacher for the manifest; a band teacher's hash is the
// sha256 of its nets' hashes in band order, a mean's that of its members'
// hashes and weights.
func (t *teacher) info(file string, positions int64) *shard.Teacher {
	if len(t.members) == 1 {
		ti := t.members[0].info()
		ti.File, ti.Positions = file, positions
		return &ti
	}
	h := sha256.New()
	kinds := make([]string, len(t.members))
	for k, m := range t.members {
		mi := m.info()
		fmt.Fprintf(h, "%s:%g\n", mi.Hash, m.weight)
		kinds[k] = mi.Kind
	}
	return &shard.Teacher{File: file, Name: t.name(), Kind: "mean(" + strings.Join(kinds, ",") + ")",
		Hash: hex.EncodeToString(h.Sum(nil)), Positions: positions}
}

func (t *member) info() shard.Teacher {
	if len(t.bands) == 1 {
		i := t.bands[0].net.Info()
		return shard.Teacher{Name: i.Name, Kind: i.Kind, Hash: i.Hash}
	}
	h := sha256.New()
	for _, b := range t.bands {
		h.Write([]byte(b.net.Info().Hash))
	}
	return shard.Teacher{Name: t.name(), Kind: "bands(" + t.bands[0].net.Info().Kind + ")", Hash: hex.EncodeToString(h.Sum(nil))}
}

// bandFile matches a band net's file name: maia-1500.pb.gz, my-1500.onnx.
var bandFile = regexp.MustCompile(`-(\d{3,4})\.(pb\.gz|onnx|safetensors)$`)

// teacherFiles resolves Config.Teacher: a net file (or "default") is one
// teacher; a directory holds one net per rating band (BandNets).
func teacherFiles(spec string) ([]BandNet, error) {
	st, err := os.Stat(spec)
	if err != nil || !st.IsDir() {
		return []BandNet{{File: spec}}, nil // a file, or "default": the opener reports a missing one
	}
	return BandNets(spec)
}

// TeacherMember is one member of a mean teacher: a net file, "default" or a
// directory of band nets, and its weight.
type TeacherMember struct {
	Spec   string
	Weight float64
}

// TeacherMembers parses Config.Teacher: one net (a file, "default" or a
// directory of band nets), or a mean of several, "A:W,B:W" (weights
// positive; ":W" may be left out for 1). A single spec is read whole, so a
// file name with a comma or colon still works as a single teacher when it
// exists.
func TeacherMembers(spec string) ([]TeacherMember, error) {
	if _, err := os.Stat(spec); err == nil || !strings.Contains(spec, ",") {
		return []TeacherMember{{Spec: spec, Weight: 1}}, nil
	}
	var ms []TeacherMember
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		file, w := part, 1.0
		if i := strings.LastIndex(part, ":"); i >= 0 {
			v, err := strconv.ParseFloat(part[i+1:], 64)
			if err != nil {
				return nil, fmt.Errorf("teacher member %q: want FILE or FILE:WEIGHT", part)
			}
			file, w = part[:i], v
		}
		if file == "" || !(w > 0) || math.IsInf(w, 1) {
			return nil, fmt.Errorf("teacher member %q: want FILE or FILE:WEIGHT, the weight positive", part)
		}
		ms = append(ms, TeacherMember{Spec: file, Weight: w})
	}
	return ms, nil
}

// BandNets reads a directory of band nets, one per rating band, named
// NAME-RATING.EXT (maia-1500.pb.gz, my-1500.onnx), sorted by rating; other
// files are left out. Two nets for one band, or none, are an error.
func BandNets(dir string) ([]BandNet, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var bs []BandNet
	for _, e := range ents {
		m := bandFile.FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() {
			continue
		}
		r, _ := strconv.Atoi(m[1]) // three or four digits always parse
		for _, b := range bs {
			if b.Rating == r {
				return nil, fmt.Errorf("two nets for band %d in %s: %s and %s", r, dir, filepath.Base(b.File), e.Name())
			}
		}
		bs = append(bs, BandNet{File: filepath.Join(dir, e.Name()), Rating: r})
	}
	if len(bs) == 0 {
		return nil, fmt.Errorf("directory %s holds no band nets (NAME-RATING.pb.gz or .onnx, e.g. maia-1500.pb.gz)", dir)
	}
	sort.Slice(bs, func(i, j int) bool { return bs[i].Rating < bs[j].Rating })
	return bs, nil
}

// label evaluates the queued positions of batch b and appends a teacher
// section to each of b's records; it returns the number of positions labelled.
func (t *teacher) label(ctx context.Context, b *batch) (int64, error) {
	defer func() {
		clear(t.queue) // drop the game clones
		t.queue = t.queue[:0]
		t.evals = t.evals[:0]
		for _, m := range t.members {
			m.which = m.which[:0]
		}
	}()
	k := 0 // next queued position
	start := time.Now()
	var outs []nets.Output
	all := make([][]nets.Output, len(t.members))
	for mi, m := range t.members {
		o, err := m.evaluate(ctx, t.queue, t.batch)
		if err != nil {
			return 0, err
		}
		all[mi] = o
	}
	if len(t.members) == 1 {
		outs = all[0]
	} else {
		outs = make([]nets.Output, len(t.queue))
		ws := make([]float64, len(t.members))
		for mi, m := range t.members {
			ws[mi] = m.weight
		}
		one := make([]nets.Output, len(t.members))
		for i := range outs {
			for mi := range t.members {
				one[mi] = all[mi][i]
			}
			o, err := nets.MeanOutputs(one, ws)
			if err != nil {
				return 0, fmt.Errorf("prep: teacher %s: %w", t.name(), err)
			}
			outs[i] = o
		}
	}
	t.evaluated += time.Since(start)
	for i := range b.outs {
		o := &b.outs[i]
		if len(o.ends) == 0 {
			continue
		}
		t.data = slices.Grow(t.data[:0], len(o.data)+len(o.ends)*(1+2*48))
		t.ends = t.ends[:0]
		start := int32(0)
		for _, end := range o.ends {
			rec := o.data[start:end]
			start = end
			if k >= len(outs) {
				return 0, fmt.Errorf("prep: teacher: %d positions queued, more records kept", len(outs))
			}
			if _, err := t.enc.DecodeBinary(rec); err != nil {
				return 0, fmt.Errorf("prep: teacher: %w", err)
			}
			if err := t.distribution(t.queue[k].Game, &outs[k]); err != nil {
				return 0, err
			}
			k++
			t.data = append(t.data, rec...)
			var err error
			if t.data, err = shard.AppendTeacher(t.data, t.probs); err != nil {
				return 0, fmt.Errorf("prep: teacher %s: %w", t.name(), err)
			}
			if cp := t.evals[k-1]; !math.IsNaN(cp) {
				t.fromEvals++
				if t.data, err = shard.AppendTeacherWDL(t.data, EvalWDL(cp, outs[k-1].WDL)); err != nil {
					return 0, fmt.Errorf("prep: teacher %s: %w", t.name(), err)
				}
			} else if w := outs[k-1].WDL; len(w) == 3 {
				if t.data, err = shard.AppendTeacherWDL(t.data, [3]float32(w)); err != nil {
					return 0, fmt.Errorf("prep: teacher %s: %w", t.name(), err)
				}
			}
			t.ends = append(t.ends, int32(len(t.data)))
		}
		// o.data is the batch's own buffer: swap it with the scratch one.
		o.data, t.data = t.data, o.data
		o.ends = append(o.ends[:0], t.ends...)
	}
	if k != len(outs) {
		return 0, fmt.Errorf("prep: teacher: %d positions queued, %d records kept", len(outs), k)
	}
	return int64(k), nil
}

// evaluate runs the queued positions in through the member's nets, each
// position through the net of its band, batch positions at a time.
func (t *member) evaluate(ctx context.Context, queue []nets.Input, batch int) ([]nets.Output, error) {
	outs := make([]nets.Output, len(queue))
	for bi, bn := range t.bands {
		var idx []int
		var in []nets.Input
		for i, w := range t.which {
			if w == bi {
				idx = append(idx, i)
				in = append(in, queue[i])
			}
		}
		for lo := 0; lo < len(in); lo += batch {
			hi := min(lo+batch, len(in))
			o, err := bn.net.Evaluate(ctx, in[lo:hi])
			if err != nil {
				return nil, fmt.Errorf("prep: teacher %s: %w", bn.net.Info().Name, err)
			}
			if len(o) != hi-lo {
				return nil, fmt.Errorf("prep: teacher %s returned %d outputs for %d positions", bn.net.Info().Name, len(o), hi-lo)
			}
			for j := range o {
				outs[idx[lo+j]] = o[j]
			}
		}
	}
	return outs, nil
}

// distribution sets t.probs to softmax(out.Logits) in the order of
// t.enc.Legal, checking that the net's moves are the position's legal moves.
func (t *teacher) distribution(g *board.Game, out *nets.Output) error {
	legal := t.enc.Legal
	if len(out.Moves) != len(legal) || len(out.Logits) != len(legal) {
		return fmt.Errorf("prep: teacher %s gave %d moves and %d logits for a position with %d legal moves",
			t.name(), len(out.Moves), len(out.Logits), len(legal))
	}
	t.probs = slices.Grow(t.probs[:0], len(legal))[:len(legal)]
	for k := range t.probs {
		t.probs[k] = -1
	}
	hi := float32(math.Inf(-1))
	for _, l := range out.Logits {
		if l != l || math.IsInf(float64(l), 1) {
			return fmt.Errorf("prep: teacher %s gave logit %v", t.name(), l)
		}
		hi = max(hi, l)
	}
	white := g.WhiteToMove()
	var sum float64
	for k, m := range out.Moves {
		idx, ok := board.MoveToIndex(m, white)
		if !ok {
			return fmt.Errorf("prep: teacher %s gave move %s, which has no vocabulary index", t.name(), m)
		}
		j, found := slices.BinarySearch(legal, uint16(idx))
		if !found || t.probs[j] >= 0 {
			return fmt.Errorf("prep: teacher %s gave move %s, not a legal move of the position or given twice", t.name(), m)
		}
		p := math.Exp(float64(out.Logits[k] - hi))
		t.probs[j] = float32(p)
		sum += p
	}
	for k := range t.probs {
		t.probs[k] = float32(float64(t.probs[k]) / sum)
	}
	return nil
}

// EvalWDL is the win/draw/loss of a mover whose position is evaluated at cp
// centipawns (its own view): the expected score score.Expected(cp), with the
// draw share of teacher (a win/draw/loss, or nil for none) where the
// expected score leaves room for it (at most twice the smaller of win and
// loss), the rest split so that win + draw/2 is the expected score.
func EvalWDL(cp float64, teacher []float32) [3]float32 {
	e := score.Expected(cp)
	d := 0.0
	if len(teacher) == 3 && teacher[1] > 0 {
		d = float64(teacher[1])
	}
	d = min(d, 2*min(e, 1-e))
	return [3]float32{float32(e - d/2), float32(d), float32(1 - e - d/2)}
}
