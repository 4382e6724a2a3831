package shard

import (
	"errors"
	"math"
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

func teacherRecord(t *testing.T) ([]byte, board.Encoded, board.Targets, []float32) {
	t.Helper()
	g, err := board.NewGame("")
	require.NoError(t, err)
	require.NoError(t, g.PlaySAN("e4"))
	e := board.Encode(g, board.UnknownContext())
	m, err := g.ParseSAN("c5")
	require.NoError(t, err)
	tg, err := board.NewTargets(m, g.WhiteToMove(), 0, -1)
	require.NoError(t, err)
	p := make([]float32, len(e.Legal))
	for k := range p {
		p[k] = float32(k + 1) // unnormalised on purpose
	}
	p[3] = 0
	rec, err := AppendTeacher(AppendSample(nil, &e, &tg), p)
	require.NoError(t, err)
	return rec, e, tg, p
}

func TestSampleTeacherRoundTrip(t *testing.T) {
	rec, e, tg, p := teacherRecord(t)
	assert.Len(t, rec, e.BinarySize()+board.TargetsSize+1+2*len(e.Legal))
	var sum float64
	for _, x := range p {
		sum += float64(x)
	}

	var e2 board.Encoded
	var t2 board.Targets
	buf := make([]float32, 0, 64)
	got, err := DecodeSampleTeacher(rec, &e2, &t2, buf)
	require.NoError(t, err)
	assert.Equal(t, e, e2)
	assert.Equal(t, tg, t2)
	require.Len(t, got, len(e.Legal))
	assert.Same(t, &buf[:1][0], &got[0], "the teacher reuses the given storage")
	var s float64
	for k, x := range got {
		assert.InDelta(t, float64(p[k])/sum, x, 1.0/65535, "move %d", k)
		s += float64(x)
	}
	assert.InDelta(t, 1, s, 1e-5)
	assert.Zero(t, got[3])

	// DecodeSample accepts (and checks) the teacher section too.
	require.NoError(t, DecodeSample(rec, &e2, &t2))

	// A record without a teacher section has none.
	plain := AppendSample(nil, &e, &tg)
	got, err = DecodeSampleTeacher(plain, &e2, &t2, buf)
	require.NoError(t, err)
	assert.Nil(t, got)
}

// TestSampleTeacherWDL round-trips a teacher value section and feeds
// damaged ones to the decoder.
func TestSampleTeacherWDL(t *testing.T) {
	rec, e, tg, p := teacherRecord(t)
	full, err := AppendTeacherWDL(append([]byte(nil), rec...), [3]float32{0.5, 0.3, 0.2})
	require.NoError(t, err)
	require.Len(t, full, len(rec)+7)

	var e2 board.Encoded
	var t2 board.Targets
	var d Distill
	require.NoError(t, DecodeSampleDistill(full, &e2, &t2, &d))
	assert.Equal(t, e, e2)
	assert.Equal(t, tg, t2)
	require.True(t, d.HasWDL)
	assert.InDeltaSlice(t, []float32{0.5, 0.3, 0.2}, d.WDL[:], 1e-4)
	require.Len(t, d.Moves, len(p))
	moves, err := DecodeSampleTeacher(full, &e2, &t2, nil)
	require.NoError(t, err)
	assert.Equal(t, d.Moves, moves, "the value section leaves the move distribution alone")
	require.NoError(t, DecodeSample(full, &e2, &t2))

	// without the value section, and without any teacher
	require.NoError(t, DecodeSampleDistill(rec, &e2, &t2, &d))
	assert.False(t, d.HasWDL)
	assert.NotNil(t, d.Moves)
	require.NoError(t, DecodeSampleDistill(AppendSample(nil, &e, &tg), &e2, &t2, &d))
	assert.False(t, d.HasWDL)
	assert.Nil(t, d.Moves)

	zeros := append(append([]byte(nil), rec...), TeacherWDLTag, 0, 0, 0, 0, 0, 0)
	badTag := append([]byte(nil), full...)
	badTag[len(rec)] = 'X'
	for name, bad := range map[string][]byte{
		"short by one":   full[:len(full)-1],
		"only the tag":   full[:len(rec)+1],
		"one extra byte": append(append([]byte(nil), full...), 0),
		"all zero":       zeros,
		"unknown tag":    badTag,
	} {
		assert.ErrorIs(t, DecodeSampleDistill(bad, &e2, &t2, &d), ErrCorrupt, name)
		assert.ErrorIs(t, DecodeSample(bad, &e2, &t2), ErrCorrupt, name)
	}
	for name, w := range map[string][3]float32{
		"negative": {0.5, -0.1, 0.6},
		"nan":      {float32(math.NaN()), 1, 0},
		"inf":      {float32(math.Inf(1)), 1, 0},
		"zero":     {0, 0, 0},
	} {
		_, err := AppendTeacherWDL(nil, w)
		assert.ErrorIs(t, err, ErrTeacher, name)
	}
}

// TestSampleTeacherCorrupt feeds damaged teacher sections to the decoder.
func TestSampleTeacherCorrupt(t *testing.T) {
	rec, e, tg, _ := teacherRecord(t)
	plain := AppendSample(nil, &e, &tg)
	n := len(e.Legal)
	zeros := append(append([]byte(nil), plain...), TeacherTag)
	zeros = append(zeros, make([]byte, 2*n)...)
	badTag := append([]byte(nil), rec...)
	badTag[len(plain)] = 'X'
	for name, bad := range map[string][]byte{
		"short by one":     rec[:len(rec)-1],
		"only the tag":     rec[:len(plain)+1],
		"one extra byte":   append(append([]byte(nil), rec...), 0),
		"two extra bytes":  append(append([]byte(nil), rec...), 1, 0),
		"all zero":         zeros,
		"unknown tag":      badTag,
		"trailing garbage": append(append([]byte(nil), plain...), 0),
	} {
		var e2 board.Encoded
		var t2 board.Targets
		_, err := DecodeSampleTeacher(bad, &e2, &t2, nil)
		assert.ErrorIs(t, err, ErrCorrupt, name)
		assert.ErrorIs(t, DecodeSample(bad, &e2, &t2), ErrCorrupt, name)
	}

	for name, p := range map[string][]float32{
		"empty":    {},
		"negative": {0.5, -0.1, 0.6},
		"nan":      {float32(math.NaN()), 1},
		"inf":      {float32(math.Inf(1)), 1},
		"zero":     {0, 0},
	} {
		_, err := AppendTeacher(nil, p)
		assert.ErrorIs(t, err, ErrTeacher, name)
	}
}

// FuzzDecodeSampleTeacher checks that no input makes the decoder panic and
// that whatever it accepts is a distribution over the legal moves.
func FuzzDecodeSampleTeacher(f *testing.F) {
	g, _ := board.NewGame("")
	e := board.Encode(g, board.UnknownContext())
	m, _ := g.ParseSAN("e4")
	tg, _ := board.NewTargets(m, true, 1, 2)
	plain := AppendSample(nil, &e, &tg)
	p := make([]float32, len(e.Legal))
	p[0], p[5] = 0.25, 0.75
	rec, _ := AppendTeacher(append([]byte(nil), plain...), p)
	f.Add(plain)
	f.Add(rec)
	f.Add(rec[:len(rec)-3])
	f.Fuzz(func(t *testing.T, b []byte) {
		var e2 board.Encoded
		var t2 board.Targets
		got, err := DecodeSampleTeacher(b, &e2, &t2, nil)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		if got == nil {
			return
		}
		if len(got) != len(e2.Legal) {
			t.Fatalf("%d probabilities for %d legal moves", len(got), len(e2.Legal))
		}
		var s float64
		for _, x := range got {
			if !(x >= 0 && x <= 1) {
				t.Fatalf("probability %v", x)
			}
			s += float64(x)
		}
		if math.Abs(s-1) > 1e-4 {
			t.Fatalf("probabilities sum to %v", s)
		}
	})
}
