package prep

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/nets"
	"github.com/humchess/humchess/train/shard"
)

// DefaultTeacherBatch is the default Config.TeacherBatch.
const DefaultTeacherBatch = 64

// teacher labels one worker's kept positions with a net's move distribution.
// The positions of a batch of games are queued while the games are replayed
// (a clone of the game, which Lc0/Maia nets need for their history, and the
// context) and evaluated after the batch, in chunks of Config.TeacherBatch
// positions taken in input order, so the net sees the same chunks whatever
// the number of workers.
type teacher struct {
	net   nets.Net
	batch int
	queue []nets.Input
	enc   board.Encoded
	probs []float32
	data  []byte
	ends  []int32
	// evaluated is the time spent in Evaluate, for the summary.
	evaluated time.Duration
}

// add queues the position g is at (cloned) with ctx.
func (t *teacher) add(g *board.Game, ctx board.Context) {
	t.queue = append(t.queue, nets.Input{Game: g.Clone(), Ctx: ctx})
}

// label evaluates the queued positions of batch b and appends a teacher
// section to each of b's records; it returns the number of positions labelled.
func (t *teacher) label(ctx context.Context, b *batch) (int64, error) {
	defer func() {
		clear(t.queue) // drop the game clones
		t.queue = t.queue[:0]
	}()
	k := 0 // next queued position
	outs := make([]nets.Output, 0, len(t.queue))
	start := time.Now()
	for lo := 0; lo < len(t.queue); lo += t.batch {
		o, err := t.net.Evaluate(ctx, t.queue[lo:min(lo+t.batch, len(t.queue))])
		if err != nil {
			return 0, fmt.Errorf("prep: teacher %s: %w", t.net.Info().Name, err)
		}
		if len(o) != min(t.batch, len(t.queue)-lo) {
			return 0, fmt.Errorf("prep: teacher %s returned %d outputs for %d positions", t.net.Info().Name, len(o), min(t.batch, len(t.queue)-lo))
		}
		outs = append(outs, o...)
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
				return 0, fmt.Errorf("prep: teacher %s: %w", t.net.Info().Name, err)
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
			t.net.Info().Name, len(out.Moves), len(out.Logits), len(legal))
	}
	t.probs = slices.Grow(t.probs[:0], len(legal))[:len(legal)]
	for k := range t.probs {
		t.probs[k] = -1
	}
	hi := float32(math.Inf(-1))
	for _, l := range out.Logits {
		if l != l || math.IsInf(float64(l), 1) {
			return fmt.Errorf("prep: teacher %s gave logit %v", t.net.Info().Name, l)
		}
		hi = max(hi, l)
	}
	white := g.WhiteToMove()
	var sum float64
	for k, m := range out.Moves {
		idx, ok := board.MoveToIndex(m, white)
		if !ok {
			return fmt.Errorf("prep: teacher %s gave move %s, which has no vocabulary index", t.net.Info().Name, m)
		}
		j, found := slices.BinarySearch(legal, uint16(idx))
		if !found || t.probs[j] >= 0 {
			return fmt.Errorf("prep: teacher %s gave move %s, not a legal move of the position or given twice", t.net.Info().Name, m)
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
