package shard

import (
	"fmt"
	"io"
	"math/bits"
)

// ShuffleOptions configures a Shuffler.
type ShuffleOptions struct {
	Buffer int       // records per shuffle window; default 1<<18
	Seed   uint64    // everything random derives from it
	Epochs int       // passes over the split; 0 = endless
	Resume *Position // start from a saved position instead of the beginning
}

// Position is a Shuffler's place in its stream, saved in trainer checkpoints.
// Resuming from it yields exactly the records that would have followed.
type Position struct {
	Epoch   int    `json:"epoch"`   // current epoch, from 0
	Shard   int    `json:"shard"`   // index, in this epoch's shard order, where the current window starts
	Offset  int    `json:"offset"`  // record offset in that shard where the current window starts
	Emitted int    `json:"emitted"` // records already returned from the current window
	Buffer  int    `json:"buffer"`  // window size (checked on resume)
	RNG     uint64 `json:"rng"`     // seed of the current window's permutation (checked on resume)
}

// Shuffler returns the records of one split in a deterministic pseudo-random
// order: per epoch a seeded shard order, cut into windows of Buffer records,
// each window emitted in a seeded random order. It is not safe for concurrent use.
type Shuffler struct {
	set    *Set
	shards []Info
	opts   ShuffleOptions

	epoch int
	perm  []int

	startK, startO int // current window start
	nextK, nextO   int // next window start
	seed           uint64
	window         [][]byte
	order          []int32
	emitted        int
	loaded         bool // a window of this epoch has been filled

	cacheK int // index into shards of the cached shard, -1 none
	cache  [][]byte
}

// Shuffle returns a Shuffler over a split.
func (s *Set) Shuffle(split string, opts ShuffleOptions) (*Shuffler, error) {
	if opts.Buffer <= 0 {
		opts.Buffer = 1 << 18
	}
	if opts.Epochs < 0 {
		return nil, fmt.Errorf("shard: negative epochs %d", opts.Epochs)
	}
	sh := &Shuffler{set: s, shards: s.Shards(split), opts: opts, cacheK: -1}
	sh.setEpoch(0)
	if p := opts.Resume; p != nil {
		if p.Buffer != opts.Buffer || p.Epoch < 0 || (opts.Epochs > 0 && p.Epoch >= opts.Epochs) ||
			p.Shard < 0 || p.Shard > len(sh.shards) || p.Offset < 0 || p.Emitted < 0 {
			return nil, fmt.Errorf("%w: %+v (buffer %d, epochs %d, %d shards)", ErrPosition, *p, opts.Buffer, opts.Epochs, len(sh.shards))
		}
		if p.Shard < len(sh.shards) && int64(p.Offset) >= sh.shards[sh.perm[p.Shard]].Records && p.Offset != 0 {
			return nil, fmt.Errorf("%w: offset %d past shard end", ErrPosition, p.Offset)
		}
		sh.setEpoch(p.Epoch)
		if p.Shard == 0 && p.Offset == 0 && p.Emitted == 0 && p.RNG == 0 {
			return sh, nil // at an epoch start, nothing loaded yet
		}
		if err := sh.fill(p.Shard, p.Offset); err != nil {
			return nil, err
		}
		if sh.seed != p.RNG || p.Emitted > len(sh.window) {
			return nil, fmt.Errorf("%w: window seed %d or size %d does not match (seed or data changed?)", ErrPosition, sh.seed, len(sh.window))
		}
		sh.emitted = p.Emitted
	}
	return sh, nil
}

// Position returns where the Shuffler stands: resuming from it continues with
// the record Next would return now.
func (sh *Shuffler) Position() Position {
	return Position{Epoch: sh.epoch, Shard: sh.startK, Offset: sh.startO, Emitted: sh.emitted, Buffer: sh.opts.Buffer, RNG: sh.seed}
}

// Epoch returns the current epoch (from 0).
func (sh *Shuffler) Epoch() int { return sh.epoch }

// Next returns the next record, or io.EOF after the last epoch (never, when
// Epochs is 0, unless the split is empty). The record aliases shard buffers and
// must not be modified.
func (sh *Shuffler) Next() ([]byte, error) {
	for sh.emitted >= len(sh.window) {
		k, o := sh.nextK, sh.nextO
		if sh.loaded && k >= len(sh.shards) {
			if sh.opts.Epochs > 0 && sh.epoch+1 >= sh.opts.Epochs {
				return nil, io.EOF
			}
			sh.setEpoch(sh.epoch + 1)
			k, o = 0, 0
		}
		if err := sh.fill(k, o); err != nil {
			return nil, err
		}
		if len(sh.window) == 0 && k == 0 && o == 0 {
			return nil, io.EOF // the split has no records
		}
	}
	rec := sh.window[sh.order[sh.emitted]]
	sh.emitted++
	return rec, nil
}

func (sh *Shuffler) setEpoch(e int) {
	sh.epoch = e
	sh.perm = permutation(len(sh.shards), mix(sh.opts.Seed, 0x5348415244, uint64(e)))
	sh.startK, sh.startO, sh.nextK, sh.nextO = 0, 0, 0, 0
	sh.window, sh.order, sh.emitted, sh.seed, sh.loaded = nil, nil, 0, 0, false
}

// fill loads the window starting at shard position k, offset o.
func (sh *Shuffler) fill(k, o int) error {
	sh.startK, sh.startO = k, o
	sh.window = sh.window[:0]
	for len(sh.window) < sh.opts.Buffer && k < len(sh.shards) {
		recs, err := sh.load(sh.perm[k])
		if err != nil {
			return err
		}
		if o > len(recs) {
			return fmt.Errorf("%w: offset %d past shard of %d records", ErrPosition, o, len(recs))
		}
		n := min(len(recs)-o, sh.opts.Buffer-len(sh.window))
		sh.window = append(sh.window, recs[o:o+n]...)
		o += n
		if o >= len(recs) {
			k, o = k+1, 0
		}
	}
	sh.nextK, sh.nextO = k, o
	sh.seed = mix(sh.opts.Seed, uint64(sh.epoch), uint64(sh.startK)<<32|uint64(sh.startO))
	sh.order = permutationInto(sh.order, len(sh.window), sh.seed)
	sh.emitted = 0
	sh.loaded = true
	return nil
}

func (sh *Shuffler) load(i int) ([][]byte, error) {
	if sh.cacheK == i {
		return sh.cache, nil
	}
	recs, err := sh.set.readShard(sh.shards[i])
	if err != nil {
		return nil, err
	}
	sh.cacheK, sh.cache = i, recs
	return recs, nil
}

// splitmix64 is the RNG of this package: fixed forever, so a seed means the
// same order in every Go version.
type splitmix64 uint64

func (s *splitmix64) next() uint64 {
	*s += 0x9e3779b97f4a7c15
	z := uint64(*s)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// below returns a value in [0, n) (multiply-shift; the tiny bias is irrelevant here).
func (s *splitmix64) below(n int) int {
	hi, _ := bits.Mul64(s.next(), uint64(n))
	return int(hi)
}

// mix hashes its arguments into one seed.
func mix(vs ...uint64) uint64 {
	s := splitmix64(0x6a09e667f3bcc908)
	var h uint64
	for _, v := range vs {
		s ^= splitmix64(v + h)
		h = s.next()
	}
	return h
}

func permutation(n int, seed uint64) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	r := splitmix64(seed)
	for i := n - 1; i > 0; i-- {
		j := r.below(i + 1)
		p[i], p[j] = p[j], p[i]
	}
	return p
}

func permutationInto(p []int32, n int, seed uint64) []int32 {
	p = p[:0]
	for i := 0; i < n; i++ {
		p = append(p, int32(i))
	}
	r := splitmix64(seed)
	for i := n - 1; i > 0; i-- {
		j := r.below(i + 1)
		p[i], p[j] = p[j], p[i]
	}
	return p
}
