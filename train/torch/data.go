package torch

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/ts"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/nets/transformer"
	"github.com/humchess/humchess/train/data/shard"
)

// Example is one training position: its encoding, its targets and, for
// distillation, an optional teacher distribution over its legal moves.
type Example struct {
	Enc board.Encoded
	Tgt board.Targets
	// Teacher, when not nil, holds a probability per legal move, in the order
	// of Enc.Legal (it should sum to 1). The move target is then
	// (1-DistillMix)*onehot(Tgt.Move) + DistillMix*Teacher.
	Teacher []float32
	// TeacherWDL, when HasTeacherWDL, is the teacher's win/draw/loss for the
	// mover; the value target is then (1-DistillWDLMix)*onehot(Tgt.Result) +
	// DistillWDLMix*TeacherWDL.
	TeacherWDL    [3]float32
	HasTeacherWDL bool
}

// Source yields examples in a deterministic, resumable order.
type Source interface {
	// Next fills ex with the next example (reusing its slices); io.EOF at the end.
	Next(ex *Example) error
	// Position is where the source stands: a source reopened at it continues
	// with the example Next would return now.
	Position() shard.Position
}

// ShardSource reads examples from a split of a shard set through the
// shuffle reader of train/data/shard. Records labelled by a teacher (humchess
// prep -teacher) give Example.Teacher; others leave it nil.
type ShardSource struct {
	sh *shard.Shuffler
}

// OpenShardSource opens a shuffled, endless source over a split; resume, when
// not nil, is a Position saved from an earlier source with the same options.
func OpenShardSource(set *shard.Set, split string, buffer int, seed uint64, resume *shard.Position) (*ShardSource, error) {
	if set.Records(split) == 0 {
		return nil, fmt.Errorf("%w: split %q of %s has no records", ErrData, split, set.Dir)
	}
	sh, err := set.Shuffle(split, shard.ShuffleOptions{Buffer: buffer, Seed: seed, Resume: resume})
	if err != nil {
		return nil, err
	}
	return &ShardSource{sh: sh}, nil
}

// DataID names the records of a split of a shard set: the first 16 hex
// digits of a sha256 over its shards' names, record counts and sha256s, in
// manifest order. A data position (State.Position) is only meaningful on the
// set it was read from.
func DataID(set *shard.Set, split string) string {
	h := sha256.New()
	for _, in := range set.Shards(split) {
		fmt.Fprintf(h, "%s %d %s\n", in.Name, in.Records, in.SHA256)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Next implements Source.
func (s *ShardSource) Next(ex *Example) error {
	rec, err := s.sh.Next()
	if err != nil {
		return err
	}
	return decodeExample(rec, ex)
}

// decodeExample decodes a record into ex, reusing ex.Enc.Legal's and
// ex.Teacher's storage; ex.Teacher is nil when the record has no teacher.
func decodeExample(rec []byte, ex *Example) error {
	d := shard.Distill{Moves: ex.Teacher}
	err := shard.DecodeSampleDistill(rec, &ex.Enc, &ex.Tgt, &d)
	if err != nil {
		ex.Teacher, ex.HasTeacherWDL = nil, false
		return fmt.Errorf("%w: %w", ErrData, err)
	}
	ex.Teacher = d.Moves // nil without a teacher section
	ex.TeacherWDL, ex.HasTeacherWDL = d.WDL, d.HasWDL
	return nil
}

// Position implements Source.
func (s *ShardSource) Position() shard.Position { return s.sh.Position() }

// Close releases the shard files and decoders the source holds open.
func (s *ShardSource) Close() error { return s.sh.Close() }

// ReadExamples returns the first n examples of a split in file order (n <= 0:
// all of them), for validation.
func ReadExamples(set *shard.Set, split string, n int) ([]Example, error) {
	r := set.Reader(split)
	var out []Example
	for n <= 0 || len(out) < n {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		var ex Example
		if err := decodeExample(rec, &ex); err != nil {
			return nil, err
		}
		out = append(out, ex)
	}
	return out, nil
}

// ReadSpread reads n examples spread evenly over a split (every k-th record),
// so that validation covers every source file of a
// set rather than the first one (k = records/n rounded down, so the n come
// from all but less than k records at the end); n <= 0 or n >= the split's
// records reads all.
func ReadSpread(set *shard.Set, split string, n int) ([]Example, error) {
	total := set.Records(split)
	if n <= 0 || int64(n) >= total {
		return ReadExamples(set, split, 0)
	}
	k := total / int64(n)
	r := set.Reader(split)
	var out []Example
	for i := int64(0); len(out) < n; i++ {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if i%k != 0 {
			continue
		}
		var ex Example
		if err := decodeExample(rec, &ex); err != nil {
			return nil, err
		}
		out = append(out, ex)
	}
	return out, nil
}

// maskIllegal is added to the logits of illegal moves.
const maskIllegal = -1e9

// hostBatch is a batch on the host: the net's inputs (board.Contract.Fill)
// and dense targets with a weight per row (0 where a target is unknown).
type hostBatch struct {
	n       int
	pieces  []int64   // [n,64]
	squares []float32 // [n,64,S]
	global  []float32 // [n,G]
	mask    []float32 // [n,1858]: 0 legal, maskIllegal otherwise
	moveT   []float32 // [n,1858] target distribution
	moveW   []float32 // [n]
	wdlT    []float32 // [n,3]
	wdlW    []float32
	timeT   []float32 // [n,8]
	timeW   []float32
	fromT   []float32 // [n,64]
	fromW   []float32
	toT     []float32 // [n,64]
	toW     []float32

	target []int     // move index played, -1 unknown
	legal  []int     // number of legal moves
	rating []float32 // mover rating, negative unknown

	after shard.Position // the source's position after this batch
}

// fillBatch converts examples into a host batch.
func fillBatch(c board.Contract, exs []Example, mix, wdlMix float64) (*hostBatch, error) {
	n := len(exs)
	S, G := c.SquareDim(), c.GlobalDim()
	V := board.NumMoves
	b := &hostBatch{
		n: n, pieces: make([]int64, n*64), squares: make([]float32, n*64*S), global: make([]float32, n*G),
		mask: make([]float32, n*V), moveT: make([]float32, n*V), moveW: make([]float32, n),
		wdlT: make([]float32, n*3), wdlW: make([]float32, n),
		timeT: make([]float32, n*transformer.NumTimeBins), timeW: make([]float32, n),
		fromT: make([]float32, n*64), fromW: make([]float32, n),
		toT: make([]float32, n*64), toW: make([]float32, n),
		target: make([]int, n), legal: make([]int, n), rating: make([]float32, n),
	}
	for i := range exs {
		ex := &exs[i]
		if err := c.Fill(&ex.Enc, b.pieces[i*64:(i+1)*64], b.squares[i*64*S:(i+1)*64*S], b.global[i*G:(i+1)*G]); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrData, err)
		}
		mask := b.mask[i*V : (i+1)*V]
		for j := range mask {
			mask[j] = maskIllegal
		}
		for _, l := range ex.Enc.Legal {
			if int(l) >= V {
				return nil, fmt.Errorf("%w: legal move index %d", ErrData, l)
			}
			mask[l] = 0
		}
		b.legal[i] = len(ex.Enc.Legal)
		b.rating[i] = ex.Enc.Ctx.MoverRating
		t := ex.Tgt
		b.target[i] = int(t.Move)
		mt := b.moveT[i*V : (i+1)*V]
		played := t.Move >= 0 && mask[t.Move] == 0
		if !played {
			b.target[i] = -1
		}
		switch {
		case ex.Teacher != nil && len(ex.Teacher) == len(ex.Enc.Legal):
			w := mix
			if !played {
				w = 1
			}
			for k, l := range ex.Enc.Legal {
				mt[l] = float32(w) * ex.Teacher[k]
			}
			if played {
				mt[t.Move] += float32(1 - w)
			}
			b.moveW[i] = 1
		case ex.Teacher != nil:
			return nil, fmt.Errorf("%w: teacher has %d probabilities for %d legal moves", ErrData, len(ex.Teacher), len(ex.Enc.Legal))
		case played:
			mt[t.Move] = 1
			b.moveW[i] = 1
		}
		wt := b.wdlT[i*3 : i*3+3]
		switch {
		case t.Result >= -1 && t.Result <= 1:
			w := float32(0)
			if ex.HasTeacherWDL {
				w = float32(wdlMix)
				for k := range wt {
					wt[k] = w * ex.TeacherWDL[k]
				}
			}
			wt[1-t.Result] += 1 - w // +1 win -> 0, 0 draw -> 1, -1 loss -> 2
			b.wdlW[i] = 1
		case ex.HasTeacherWDL:
			copy(wt, ex.TeacherWDL[:])
			b.wdlW[i] = 1
		}
		if k := board.ThinkBin(float64(t.Seconds)); k >= 0 {
			b.timeT[i*transformer.NumTimeBins+k] = 1
			b.timeW[i] = 1
		}
		if t.From < 64 {
			b.fromT[i*64+int(t.From)] = 1
			b.fromW[i] = 1
		}
		if t.To < 64 {
			b.toT[i*64+int(t.To)] = 1
			b.toW[i] = 1
		}
	}
	return b, nil
}

// uniformBaseline returns the mean of 1/#legal: the move accuracy of a
// player choosing uniformly among the legal moves.
func uniformBaseline(exs []Example) float64 {
	var s float64
	n := 0
	for i := range exs {
		if k := len(exs[i].Enc.Legal); k > 0 {
			s += 1 / float64(k)
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}

// devBatch is a batch's tensors on the device.
type devBatch struct {
	pieces, squares, global     *ts.Tensor
	mask                        *ts.Tensor
	moveT, wdlT, timeT, fT, tT  *ts.Tensor
	moveW, wdlW, timeW, fW, tWt *ts.Tensor
	sumW                        [5]float64 // total weight per head: move, wdl, time, from, to
}

// upload copies a host batch to the device, keeping the tensors in s.
func (b *hostBatch) upload(s *scope, a transformer.Arch, dev gotch.Device) *devBatch {
	n := int64(b.n)
	S, G, V := int64(a.SquareDim), int64(a.GlobalDim), int64(board.NumMoves)
	f := func(v []float32, shape ...int64) *ts.Tensor { return s.k(floatTensor(v, shape, dev)) }
	d := &devBatch{
		pieces:  s.k(int64Tensor(b.pieces, []int64{n, 64}, dev)),
		squares: f(b.squares, n, 64, S),
		global:  f(b.global, n, G),
		mask:    f(b.mask, n, V),
		moveT:   f(b.moveT, n, V), moveW: f(b.moveW, n),
		wdlT: f(b.wdlT, n, 3), wdlW: f(b.wdlW, n),
		timeT: f(b.timeT, n, transformer.NumTimeBins), timeW: f(b.timeW, n),
		fT: f(b.fromT, n, 64), fW: f(b.fromW, n),
		tT: f(b.toT, n, 64), tWt: f(b.toW, n),
	}
	for k, w := range [][]float32{b.moveW, b.wdlW, b.timeW, b.fromW, b.toW} {
		for _, x := range w {
			d.sumW[k] += float64(x)
		}
	}
	return d
}
