package prep

import (
	"context"
	"errors"
	"io"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/nets"
	"github.com/humchess/humchess/train/shard"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeTeacherLogit is the logit the test teacher gives a move: a function of
// its vocabulary index and the mover's rating, both of which the record
// keeps, so the stored distribution can be checked record by record.
func fakeTeacherLogit(idx int, ctx board.Context) float32 {
	return float32(idx%13)/3 + ctx.MoverRating/1000
}

func fakeTeacher() (nets.Net, error) {
	f := nets.NewFake(1)
	f.Logits = func(in nets.Input, moves []board.Move) []float32 {
		out := make([]float32, len(moves))
		for k, m := range moves {
			idx, _ := board.MoveToIndex(m, in.Game.WhiteToMove())
			out[k] = fakeTeacherLogit(idx, in.Ctx)
		}
		return out
	}
	return f, nil
}

// readAll returns every record of a set, split by split.
func readAll(t *testing.T, dir string) (*shard.Set, [][]byte) {
	t.Helper()
	set, err := shard.Open(dir)
	require.NoError(t, err)
	var recs [][]byte
	for _, split := range []string{shard.SplitTrain, shard.SplitValidation} {
		r := set.Reader(split)
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err)
			recs = append(recs, append([]byte(nil), rec...))
		}
	}
	return set, recs
}

// TestTeacherLabels preps with a fake teacher and checks that every record
// carries softmax(teacher logits) over its legal moves in Encoded.Legal
// order, that the records are otherwise those of a run without a teacher,
// that the output does not depend on the number of workers or the teacher
// batch, and that the manifest names the teacher.
func TestTeacherLabels(t *testing.T) {
	in := dataFile(t, lichessSample)
	run := func(workers, batch int, teach bool) (*Summary, *shard.Set, [][]byte) {
		cfg := testConfig(t, in)
		cfg.MaxGames = 600
		cfg.Workers = workers
		if teach {
			cfg.Teacher, cfg.OpenTeacher, cfg.TeacherBatch = "fake.pb.gz", fakeTeacher, batch
		}
		sum, err := Run(context.Background(), cfg, io.Discard)
		require.NoError(t, err)
		set, recs := readAll(t, cfg.Out)
		return sum, set, recs
	}
	_, plainSet, plain := run(2, 0, false)
	assert.Nil(t, plainSet.Manifest.Teacher)
	sum, set, recs := run(1, 64, true)
	require.Greater(t, len(recs), 1000)
	require.Len(t, recs, len(plain))
	assert.Equal(t, "fake-1", sum.Teacher)
	assert.Equal(t, sum.PositionsKept, sum.TeacherPositions)
	require.NotNil(t, set.Manifest.Teacher)
	assert.Equal(t, shard.Teacher{File: "fake.pb.gz", Name: "fake-1", Kind: nets.KindFake, Hash: set.Manifest.Teacher.Hash,
		Positions: sum.PositionsKept}, *set.Manifest.Teacher)

	var e board.Encoded
	var tg board.Targets
	var p []float32
	for i, rec := range recs {
		var err error
		p, err = shard.DecodeSampleTeacher(rec, &e, &tg, p)
		require.NoError(t, err)
		require.Len(t, p, len(e.Legal), "record %d", i)
		// the record without its teacher section is the plain run's record
		require.Equal(t, plain[i], rec[:len(rec)-1-2*len(e.Legal)], "record %d", i)
		var z float64
		for _, l := range e.Legal {
			z += math.Exp(float64(fakeTeacherLogit(int(l), e.Ctx)))
		}
		for k, l := range e.Legal {
			want := math.Exp(float64(fakeTeacherLogit(int(l), e.Ctx))) / z
			// quantisation: 0.5/65535 per value, and up to n/2 steps in the sum
			require.InDelta(t, want, p[k], (1+float64(len(p))/2)/65535, "record %d move %d", i, k)
		}
	}

	// other worker counts and teacher batches write the same bytes
	_, set3, _ := run(3, 7, true)
	require.Equal(t, len(set.Manifest.Shards), len(set3.Manifest.Shards))
	for k, sh := range set.Manifest.Shards {
		assert.Equal(t, sh.SHA256, set3.Manifest.Shards[k].SHA256, sh.Name)
	}
}

// TestTeacherFails checks that a teacher that fails (to open or to
// evaluate) fails the run and leaves no manifest.
func TestTeacherFails(t *testing.T) {
	in := dataFile(t, lichessSample)
	boom := errors.New("boom")
	cfg := testConfig(t, in)
	cfg.MaxGames = 300
	cfg.Teacher = "x"
	_, err := Run(context.Background(), cfg, io.Discard)
	require.ErrorIs(t, err, ErrConfig, "a teacher without OpenTeacher")

	cfg.OpenTeacher = func() (nets.Net, error) { return nil, boom }
	_, err = Run(context.Background(), cfg, io.Discard)
	require.ErrorIs(t, err, boom)

	cfg.OpenTeacher = func() (nets.Net, error) {
		f := nets.NewFake(1)
		f.Err, f.FailFrom = boom, 3
		return f, nil
	}
	cfg.Workers, cfg.TeacherBatch = 2, 16
	_, err = Run(context.Background(), cfg, io.Discard)
	require.ErrorIs(t, err, boom)
	_, err = shard.Open(cfg.Out)
	require.ErrorIs(t, err, shard.ErrNoManifest)
}

// TestTeacherBadMoveGame checks that the positions of a game dropped for an
// illegal move after some kept positions leave the teacher's queue too.
func TestTeacherBadMoveGame(t *testing.T) {
	good := syntheticPGN(t, 40)
	data, err := os.ReadFile(good)
	require.NoError(t, err)
	// the 3rd game turns illegal at White's 17th move
	games := strings.SplitAfter(string(data), "1-0\n\n")
	games[2] = strings.Replace(games[2], "17. dxe5", "17. Qh8", 1)
	require.NoError(t, os.WriteFile(good, []byte(strings.Join(games, "")), 0o644))
	cfg := testConfig(t, good)
	cfg.EarlyFullPly = 0
	cfg.Teacher, cfg.OpenTeacher, cfg.TeacherBatch = "fake", fakeTeacher, 10
	sum, err := Run(context.Background(), cfg, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, int64(1), sum.Skipped[ReasonBadMove])
	assert.Equal(t, int64(39*36), sum.PositionsKept)
	assert.Equal(t, sum.PositionsKept, sum.TeacherPositions)
	_, recs := readAll(t, cfg.Out)
	var e board.Encoded
	var tg board.Targets
	for i, rec := range recs {
		p, err := shard.DecodeSampleTeacher(rec, &e, &tg, nil)
		require.NoError(t, err)
		require.Len(t, p, len(e.Legal), "record %d", i)
	}
}
