package nets

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/board"
)

func positions(t *testing.T) []Input {
	t.Helper()
	var in []Input
	for _, fen := range []string{
		board.StartFEN,
		"r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
		"8/8/8/8/8/5k2/4p3/4K3 b - - 0 1",
		"7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", // stalemate: no legal moves
	} {
		g, err := board.NewGame(fen)
		require.NoError(t, err, fen)
		in = append(in, Input{Game: g, Ctx: board.UnknownContext()})
	}
	return in
}

func TestFakeDeterministic(t *testing.T) {
	in := positions(t)
	a, err := NewFake(7).Evaluate(context.Background(), in)
	require.NoError(t, err)
	b, err := NewFake(7).Evaluate(context.Background(), in)
	require.NoError(t, err)
	c, err := NewFake(8).Evaluate(context.Background(), in)
	require.NoError(t, err)
	require.Len(t, a, len(in))
	assert.Equal(t, a, b, "same seed, same outputs")
	assert.NotEqual(t, a[0].Logits, c[0].Logits, "another seed changes logits")
	for i, o := range a {
		fen := in[i].Game.FEN()
		assert.Equal(t, in[i].Game.LegalMoves(), o.Moves, "%s: moves in LegalMoves order", fen)
		assert.Len(t, o.Logits, len(o.Moves), fen)
		for _, l := range o.Logits {
			assert.True(t, l >= -4 && l <= 4, "%s: logit %v outside [-4,4]", fen, l)
		}
		assert.Len(t, o.WDL, 3, fen)
		assert.Len(t, o.Time, board.NumThinkBins, fen)
		assert.InDelta(t, 1, sum(o.WDL), 1e-5, fen)
		assert.InDelta(t, 1, sum(o.Time), 1e-5, fen)
	}
	assert.Empty(t, a[3].Moves, "stalemate has no moves")
	// A batch of one gives the same as its place in a batch.
	one, err := NewFake(7).Evaluate(context.Background(), in[1:2])
	require.NoError(t, err)
	assert.Equal(t, a[1], one[0])
}

func sum(v []float32) float64 {
	s := 0.0
	for _, x := range v {
		s += float64(x)
	}
	return s
}

func TestFakeHeads(t *testing.T) {
	tests := []struct {
		name           string
		noWDL, noTime  bool
		hasWDL, hasTim bool
	}{
		{"both", false, false, true, true},
		{"no wdl", true, false, false, true},
		{"no time", false, true, true, false},
		{"policy only", true, true, false, false},
	}
	in := positions(t)[:1]
	for _, tc := range tests {
		f := &Fake{NoWDL: tc.noWDL, NoTime: tc.noTime}
		out, err := f.Evaluate(context.Background(), in)
		require.NoError(t, err, tc.name)
		info := f.Info()
		assert.Equal(t, tc.hasWDL, info.HasWDL, tc.name)
		assert.Equal(t, tc.hasTim, info.HasTime, tc.name)
		assert.Equal(t, tc.hasWDL, out[0].WDL != nil, tc.name)
		assert.Equal(t, tc.hasTim, out[0].Time != nil, tc.name)
		assert.NoError(t, info.Validate(), tc.name)
	}
}

func TestFakeErrors(t *testing.T) {
	in := positions(t)[:2]
	boom := errors.New("boom")
	tests := []struct {
		name  string
		fake  *Fake
		ctx   func() (context.Context, context.CancelFunc)
		calls int   // Evaluate calls made; the last one is checked
		want  error // nil = success
	}{
		{"err every call", &Fake{Err: boom}, nil, 1, boom},
		{"err from call 3, call 2", &Fake{Err: boom, FailFrom: 3}, nil, 2, nil},
		{"err from call 3, call 3", &Fake{Err: boom, FailFrom: 3}, nil, 3, boom},
		{"cancelled", &Fake{}, func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}, 1, context.Canceled},
		{"latency past deadline", &Fake{Latency: time.Second}, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 10*time.Millisecond)
		}, 1, context.DeadlineExceeded},
		{"bad logit func", &Fake{Logits: func(Input, []board.Move) []float32 { return []float32{1} }}, nil, 1, ErrBadInput},
	}
	for _, tc := range tests {
		ctx, cancel := context.Background(), context.CancelFunc(func() {})
		if tc.ctx != nil {
			ctx, cancel = tc.ctx()
		}
		var err error
		for range tc.calls {
			_, err = tc.fake.Evaluate(ctx, in)
		}
		cancel()
		if tc.want == nil {
			assert.NoError(t, err, tc.name)
		} else {
			assert.ErrorIs(t, err, tc.want, "%s: got %v", tc.name, err)
		}
		assert.Equal(t, tc.calls, tc.fake.Calls(), tc.name)
	}
}

func TestFakeInputsAndClose(t *testing.T) {
	f := NewFake(1)
	_, err := f.Evaluate(context.Background(), []Input{{}})
	assert.ErrorIs(t, err, ErrBadInput)
	out, err := f.Evaluate(context.Background(), nil)
	require.NoError(t, err)
	assert.Empty(t, out)
	_, err = f.Evaluate(context.Background(), positions(t))
	require.NoError(t, err)
	assert.Equal(t, 4, f.Positions())
	require.NoError(t, f.Close())
	_, err = f.Evaluate(context.Background(), positions(t))
	assert.ErrorIs(t, err, ErrClosed)
}

func TestFakeLatency(t *testing.T) {
	f := &Fake{Latency: 20 * time.Millisecond}
	start := time.Now()
	_, err := f.Evaluate(context.Background(), positions(t)[:1])
	require.NoError(t, err)
	assert.GreaterOrEqual(t, time.Since(start), 20*time.Millisecond)
}

func TestFakeCustomLogits(t *testing.T) {
	f := &Fake{Logits: func(in Input, moves []board.Move) []float32 {
		l := make([]float32, len(moves))
		for k, m := range moves {
			if m.String() == "e2e4" {
				l[k] = 10
			}
		}
		return l
	}}
	out, err := f.Evaluate(context.Background(), positions(t)[:1])
	require.NoError(t, err)
	for k, m := range out[0].Moves {
		if m.String() == "e2e4" {
			assert.Equal(t, float32(10), out[0].Logits[k])
		}
	}
}
