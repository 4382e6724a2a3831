package transformer

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/board"
)

// TestFoldedRatingExperts runs a net with rating experts through ONNX
// Runtime on batches of one mover rating (the folded sessions) and of mixed
// ratings (the net's own session): both match the pure-Go reference, and
// the folded sessions are made once per rating and capped.
func TestFoldedRatingExperts(t *testing.T) {
	a := Tiny(board.DefaultContract())
	a.RatingExperts = 2
	ref, w, n := openRandom(t, a, 9)
	defer n.Close()
	require.Equal(t, BackendORT, n.Backend())

	setRating := func(b Batch, i int, rating float32) {
		g := b.Global[i*a.GlobalDim : i*a.GlobalDim+NumRatingExperts]
		g[NumRatingExperts-1] = 0
		if !board.RatingOneHot(rating, g) {
			g[NumRatingExperts-1] = 1
		}
	}
	check := func(b Batch, what string) {
		t.Helper()
		want, err := ref.Forward(b)
		require.NoError(t, err)
		got, err := n.Run(b)
		require.NoError(t, err)
		want.From, want.To = nil, nil // Net.Run leaves them out
		requireClose(t, want, got, 1e-4, what)
	}

	b := randomBatch(a, 4, 11)
	for i := range b.N {
		setRating(b, i, 1530)
	}
	check(b, "one rating")
	require.Len(t, n.folded, 1)
	check(b, "one rating again")
	require.Len(t, n.folded, 1, "the folded session is reused")

	setRating(b, 2, 2250)
	check(b, "mixed ratings")
	require.Len(t, n.folded, 1, "a batch of mixed ratings runs the net's own session")

	for _, r := range []float32{700, 1100, 1900, -1, 3100} { // -1: unknown
		one := randomBatch(a, 1, uint64(r+2000))
		setRating(one, 0, r)
		check(one, "rating")
	}
	assert.Len(t, n.folded, maxFolded)
	assert.Equal(t, float32(1), n.folded[0].mix[NumRatingExperts-2], "most recent first: 3100 is past the last anchor")

	_, _, err := FoldRatingExperts(a, w, make([]float32, 3))
	assert.ErrorIs(t, err, ErrInput)
}
