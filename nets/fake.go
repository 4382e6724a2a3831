package nets

import (
	"context"
	"fmt"
	"hash/fnv"
	"sync"
	"time"

	"github.com/humchess/humchess/board"
)

// Fake is a deterministic Net for tests. Its logits are a seeded hash of the
// position (Game.Hash), the move and Seed, scaled to [-Scale, Scale]; WDL and
// time probabilities are softmaxes of hashed values. The zero value works
// (seed 0, both heads, no latency, no errors). Configure the fields before
// the first Evaluate. Safe for concurrent use.
type Fake struct {
	Seed    uint64        // changes every logit
	Scale   float32       // logits lie in [-Scale, Scale]; 0 means 4
	NoWDL   bool          // Output.WDL stays nil and Info().HasWDL is false
	NoTime  bool          // Output.Time stays nil and Info().HasTime is false
	Latency time.Duration // each Evaluate sleeps this long (honouring ctx)
	Err     error         // when set, Evaluate fails with it from call FailFrom on
	// FailFrom is the 1-based Evaluate call from which Err is returned;
	// 0 means every call.
	FailFrom int
	// Logits, when set, replaces the hashed logits: it returns one logit per
	// move for in (moves are in Game.LegalMoves order).
	Logits func(in Input, moves []board.Move) []float32

	mu        sync.Mutex
	calls     int
	positions int
	closed    bool
}

// NewFake returns a Fake with the given seed and both heads.
func NewFake(seed uint64) *Fake { return &Fake{Seed: seed} }

// mix hashes the seed, position and salt into [0,1).
func (f *Fake) mix(pos uint64, salt string) float64 {
	h := fnv.New64a()
	var b [16]byte
	for k := range 8 {
		b[k] = byte(f.Seed >> (8 * k))
		b[8+k] = byte(pos >> (8 * k))
	}
	_, _ = h.Write(b[:])         // hash.Hash.Write never fails
	_, _ = h.Write([]byte(salt)) // hash.Hash.Write never fails
	x := h.Sum64()
	// splitmix64 finaliser, so nearby inputs spread.
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return float64(x>>11) / float64(uint64(1)<<53)
}

func (f *Fake) scale() float32 {
	if f.Scale == 0 {
		return 4
	}
	return f.Scale
}

// Evaluate returns one deterministic Output per Input. It blocks for
// Latency, and fails with ctx's error when ctx ends first, with Err when
// configured, with ErrClosed after Close, with ErrBadInput for a nil Game.
func (f *Fake) Evaluate(ctx context.Context, in []Input) ([]Output, error) {
	f.mu.Lock()
	f.calls++
	call, closed := f.calls, f.closed
	f.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if f.Err != nil && call >= f.FailFrom {
		return nil, f.Err
	}
	if err := ValidateInputs(in); err != nil {
		return nil, err
	}
	if f.Latency > 0 {
		t := time.NewTimer(f.Latency)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
	out := make([]Output, len(in))
	for i, x := range in {
		o, err := f.one(x)
		if err != nil {
			return nil, fmt.Errorf("nets: fake input %d: %w", i, err)
		}
		out[i] = o
	}
	f.mu.Lock()
	f.positions += len(in)
	f.mu.Unlock()
	return out, nil
}

func (f *Fake) one(x Input) (Output, error) {
	moves := x.Game.LegalMoves()
	pos := x.Game.Hash()
	var o Output
	o.Moves = moves
	if f.Logits != nil {
		o.Logits = f.Logits(x, moves)
		if len(o.Logits) != len(moves) {
			return Output{}, fmt.Errorf("%w: Fake.Logits returned %d logits for %d moves", ErrBadInput, len(o.Logits), len(moves))
		}
	} else {
		o.Logits = make([]float32, len(moves))
		s := f.scale()
		for k, m := range moves {
			o.Logits[k] = s * float32(2*f.mix(pos, m.String())-1)
		}
	}
	if !f.NoWDL {
		o.WDL = f.probs(pos, "wdl", 3)
	}
	if !f.NoTime {
		o.Time = f.probs(pos, "time", board.NumThinkBins)
	}
	return o, nil
}

func (f *Fake) probs(pos uint64, salt string, n int) []float32 {
	l := make([]float32, n)
	for k := range l {
		l[k] = float32(4 * f.mix(pos, fmt.Sprint(salt, k)))
	}
	return Softmax(l, l)
}

// Info describes the fake: kind KindFake, this build's contract, the heads
// configured, a hash of the seed.
func (f *Fake) Info() Info {
	i := Info{
		Name:            fmt.Sprintf("fake-%d", f.Seed),
		Kind:            KindFake,
		ContractVersion: board.ContractVersion,
		ContractDerived: board.DefaultContract().Derived,
		HasWDL:          !f.NoWDL,
		HasTime:         !f.NoTime,
		Hash:            HashBytes(fmt.Appendf(nil, "fake %d", f.Seed)),
	}
	if i.HasTime {
		i.ThinkBinEdges = append([]float64{}, board.ThinkBinEdges[:]...)
	}
	return i
}

// Close marks the fake closed; later Evaluate calls fail with ErrClosed.
func (f *Fake) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	return nil
}

// Calls is the number of Evaluate calls so far.
func (f *Fake) Calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// Positions is the number of positions evaluated successfully so far.
func (f *Fake) Positions() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.positions
}

var _ Net = (*Fake)(nil)
