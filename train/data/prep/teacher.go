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
type teacher struct {
	bands []bandNet // one net, or one per rating band, by rating
	batch int
	queue []nets.Input
	which []int // the band each queued position goes to
	enc   board.Encoded
	probs []float32
	data  []byte
	ends  []int32
	// evaluated is the time spent in Evaluate, for the summary.
	evaluated time.Duration
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
func (t *teacher) pick(rating float32, u float64) int {
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
// neighbouring bands (see pick).
func (t *teacher) add(g *board.Game, ctx board.Context, u float64) {
	t.queue = append(t.queue, nets.Input{Game: g.Clone(), Ctx: ctx})
	t.which = append(t.which, t.pick(ctx.MoverRating, u))
}

// unqueue drops the last n queued positions.
func (t *teacher) unqueue(n int) {
	clear(t.queue[len(t.queue)-n:])
	t.queue = t.queue[:len(t.queue)-n]
	t.which = t.which[:len(t.which)-n]
}

// name is the teacher's name for logs and the manifest: the net's own name,
// or the bands' names joined by "+".
func (t *teacher) name() string {
	names := make([]string, len(t.bands))
	for k, b := range t.bands {
		names[k] = b.net.Info().Name
	}
	return strings.Join(names, "+")
}

// info describes the teacher for the manifest; a band teacher's hash is the
// sha256 of its nets' hashes in band order.
func (t *teacher) info(file string, positions int64) *shard.Teacher {
	if len(t.bands) == 1 {
		i := t.bands[0].net.Info()
		return &shard.Teacher{File: file, Name: i.Name, Kind: i.Kind, Hash: i.Hash, Positions: positions}
	}
	h := sha256.New()
	for _, b := range t.bands {
		h.Write([]byte(b.net.Info().Hash))
	}
	return &shard.Teacher{File: file, Name: t.name(), Kind: "bands(" + t.bands[0].net.Info().Kind + ")",
		Hash: hex.EncodeToString(h.Sum(nil)), Positions: positions}
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
		t.which = t.which[:0]
	}()
	k := 0 // next queued position
	outs := make([]nets.Output, len(t.queue))
	start := time.Now()
	for bi, bn := range t.bands {
		var idx []int
		var in []nets.Input
		for i, w := range t.which {
			if w == bi {
				idx = append(idx, i)
				in = append(in, t.queue[i])
			}
		}
		for lo := 0; lo < len(in); lo += t.batch {
			hi := min(lo+t.batch, len(in))
			o, err := bn.net.Evaluate(ctx, in[lo:hi])
			if err != nil {
				return 0, fmt.Errorf("prep: teacher %s: %w", bn.net.Info().Name, err)
			}
			if len(o) != hi-lo {
				return 0, fmt.Errorf("prep: teacher %s returned %d outputs for %d positions", bn.net.Info().Name, len(o), hi-lo)
			}
			for j := range o {
				outs[idx[lo+j]] = o[j]
			}
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
			if w := outs[k-1].WDL; len(w) == 3 {
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
