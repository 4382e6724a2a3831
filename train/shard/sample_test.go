package shard

import (
	"testing"

	"github.com/humchess/humchess/board"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSampleRoundTrip(t *testing.T) {
	g, err := board.NewGame("")
	require.NoError(t, err)
	for _, san := range []string{"e4", "c5", "Nf3", "d6"} {
		require.NoError(t, g.PlaySAN(san))
	}
	ctx := board.Context{MoverRating: 1500, OppRating: 1620, Base: 180, Inc: 2, MoverClock: 171.5, OppClock: -1}
	e := board.Encode(g, ctx)
	m, err := g.ParseSAN("d4")
	require.NoError(t, err)
	tg, err := board.NewTargets(m, g.WhiteToMove(), 1, 3.5)
	require.NoError(t, err)
	rec := AppendSample(nil, &e, &tg)

	var e2 board.Encoded
	var t2 board.Targets
	require.NoError(t, DecodeSample(rec, &e2, &t2))
	assert.Equal(t, e, e2)
	assert.Equal(t, tg, t2)

	for _, bad := range [][]byte{nil, rec[:len(rec)-1], append(append([]byte(nil), rec...), 0)} {
		assert.ErrorIs(t, DecodeSample(bad, &e2, &t2), ErrCorrupt, "%d bytes", len(bad))
	}
}
