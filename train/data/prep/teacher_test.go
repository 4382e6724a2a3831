package prep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/nets"
	"github.com/humchess/humchess/score"
	"github.com/humchess/humchess/train/data/games"
	"github.com/humchess/humchess/train/data/shard"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeTeacherLogit is the logit the test teacher gives a move: a function of
// its vocabulary index and the mover's rating, both of which the record
// keeps, so the stored distribution can be checked record by record.
func fakeTeacherLogit(idx int, ctx board.Context) float32 {
	return float32(idx%13)/3 + ctx.MoverRating/1000
}

// fakeTeacherWDL is the test teacher's win/draw/loss: a function of the
// mover's rating.
func fakeTeacherWDL(ctx board.Context) [3]float32 {
	w := ctx.MoverRating / 4000
	return [3]float32{w, 0.2, 0.8 - w}
}

// wdlNet is a fake net whose win/draw/loss is fakeTeacherWDL.
type wdlNet struct{ *nets.Fake }

func (n wdlNet) Evaluate(ctx context.Context, in []nets.Input) ([]nets.Output, error) {
	out, err := n.Fake.Evaluate(ctx, in)
	for i := range out {
		w := fakeTeacherWDL(in[i].Ctx)
		out[i].WDL = w[:]
	}
	return out, err
}

func fakeTeacher(string) (nets.Net, error) {
	f := nets.NewFake(1)
	f.Logits = func(in nets.Input, moves []board.Move) []float32 {
		out := make([]float32, len(moves))
		for k, m := range moves {
			idx, _ := board.MoveToIndex(m, in.Game.WhiteToMove())
			out[k] = fakeTeacherLogit(idx, in.Ctx)
		}
		return out
	}
	return wdlNet{f}, nil
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
	var d shard.Distill
	for i, rec := range recs {
		require.NoError(t, shard.DecodeSampleDistill(rec, &e, &tg, &d))
		p := d.Moves
		require.Len(t, p, len(e.Legal), "record %d", i)
		// the record without its teacher sections is the plain run's record
		require.Equal(t, plain[i], rec[:len(rec)-1-2*len(e.Legal)-7], "record %d", i)
		// the teacher's win/draw/loss for this position
		require.True(t, d.HasWDL, "record %d", i)
		want := fakeTeacherWDL(e.Ctx)
		for k := range 3 {
			require.InDelta(t, want[k], d.WDL[k], 2.0/65535, "record %d wdl %d", i, k)
		}
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

	cfg.OpenTeacher = func(string) (nets.Net, error) { return nil, boom }
	_, err = Run(context.Background(), cfg, io.Discard)
	require.ErrorIs(t, err, boom)

	cfg.OpenTeacher = func(string) (nets.Net, error) {
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

// bandLogit is the logit the band test teachers give a move: each band's net
// has its own pattern, so a stored distribution tells which net made it.
func bandLogit(idx, rating int) float32 {
	return float32(int(16*games.Unit(uint64(idx)*0x9e37+uint64(rating), 0, 0, 0))) / 4
}

// TestTeacherBands labels with a directory of band nets and checks that each
// position goes to the net of the mover's band: below the lowest centre and
// above the highest to the end bands, between two centres to one of the two,
// the nearer more often, in the proportion of its closeness.
func TestTeacherBands(t *testing.T) {
	in := dataFile(t, lichessSample)
	dir := t.TempDir()
	ratings := []int{1300, 1500, 1700}
	for _, r := range ratings {
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("t-%d.pb.gz", r)), nil, 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), nil, 0o644)) // not a band net
	cfg := testConfig(t, in)
	cfg.MaxGames = 800
	cfg.Teacher, cfg.TeacherBatch = dir, 16
	cfg.OpenTeacher = func(file string) (nets.Net, error) {
		m := bandFile.FindStringSubmatch(file)
		require.NotNil(t, m, file)
		r, _ := strconv.Atoi(m[1])
		f := nets.NewFake(uint64(r))
		f.Logits = func(in nets.Input, moves []board.Move) []float32 {
			out := make([]float32, len(moves))
			for k, mv := range moves {
				idx, _ := board.MoveToIndex(mv, in.Game.WhiteToMove())
				out[k] = bandLogit(idx, r)
			}
			return out
		}
		return f, nil
	}
	sum, err := Run(context.Background(), cfg, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "fake-1300+fake-1500+fake-1700", sum.Teacher)
	set, recs := readAll(t, cfg.Out)
	require.Equal(t, "bands(fake)", set.Manifest.Teacher.Kind)

	// which returns the band whose distribution a record holds, 0 when
	// several bands' distributions agree (a single legal move, say).
	which := func(e *board.Encoded, p []float32) int {
		found := 0
		for _, r := range ratings {
			var z float64
			for _, l := range e.Legal {
				z += math.Exp(float64(bandLogit(int(l), r)))
			}
			ok := true
			for k, l := range e.Legal {
				if math.Abs(math.Exp(float64(bandLogit(int(l), r)))/z-float64(p[k])) > (1+float64(len(p))/2)/65535 {
					ok = false
					break
				}
			}
			if ok && found != 0 {
				return 0
			}
			if ok {
				found = r
			}
		}
		return found
	}
	var e board.Encoded
	var tg board.Targets
	var d shard.Distill
	var upper, expect float64 // between the 1350 and 1550 centres: picks of 1500, and their expectation
	var between, ambiguous int
	for i, rec := range recs {
		require.NoError(t, shard.DecodeSampleDistill(rec, &e, &tg, &d))
		got, r := which(&e, d.Moves), float64(e.Ctx.MoverRating)
		switch {
		case got == 0: // a few legal moves can make two bands' distributions agree
			require.LessOrEqual(t, len(e.Legal), 3, "record %d: no single band's distribution", i)
			ambiguous++
		case r <= 1350:
			require.Equal(t, 1300, got, "record %d, mover %v", i, r)
		case r >= 1750:
			require.Equal(t, 1700, got, "record %d, mover %v", i, r)
		case r < 1550:
			require.Contains(t, []int{1300, 1500}, got, "record %d, mover %v", i, r)
			between++
			expect += (r - 1350) / 200
			if got == 1500 {
				upper++
			}
		default:
			require.Contains(t, []int{1500, 1700}, got, "record %d, mover %v", i, r)
		}
	}
	require.Less(t, ambiguous, len(recs)/20, "records no single band's distribution matches")
	require.Greater(t, between, 600)
	// picks are per position, but positions of one game share a rating: allow
	// for the games' correlation with a wide margin
	assert.InDelta(t, expect/float64(between), upper/float64(between), 0.05)
	assert.Greater(t, upper, 0.1*float64(between))
	assert.Less(t, upper, 0.9*float64(between))
}

// TestTeacherBandFiles checks the resolution of Config.Teacher.
func TestTeacherBandFiles(t *testing.T) {
	bs, err := teacherFiles("x.pb.gz")
	require.NoError(t, err)
	assert.Equal(t, []BandNet{{File: "x.pb.gz"}}, bs)
	dir := t.TempDir()
	_, err = teacherFiles(dir)
	require.ErrorContains(t, err, "no band nets")
	for _, n := range []string{"maia-1900.pb.gz", "maia-1100.pb.gz", "notes.txt"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), nil, 0o644))
	}
	bs, err = teacherFiles(dir)
	require.NoError(t, err)
	assert.Equal(t, []BandNet{{File: filepath.Join(dir, "maia-1100.pb.gz"), Rating: 1100}, {File: filepath.Join(dir, "maia-1900.pb.gz"), Rating: 1900}}, bs)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "other-1100.onnx"), nil, 0o644))
	_, err = teacherFiles(dir)
	require.ErrorContains(t, err, "two nets for band 1100")
}

// TestTeacherMean labels with a mean of two teachers, weighted 3:1, and checks
// each record's distribution against the weighted mean of the two nets'
// softmaxes, and its win/draw/loss against the first's.
func TestTeacherMean(t *testing.T) {
	in := dataFile(t, lichessSample)
	cfg := testConfig(t, in)
	cfg.MaxGames = 300
	cfg.Teacher, cfg.TeacherBatch = "a.pb.gz:3, b.pb.gz", 16
	cfg.OpenTeacher = func(file string) (nets.Net, error) {
		if file == "a.pb.gz" {
			return fakeTeacher(file)
		}
		require.Equal(t, "b.pb.gz", file)
		f := nets.NewFake(2)
		f.Logits = func(in nets.Input, moves []board.Move) []float32 {
			out := make([]float32, len(moves))
			for k, mv := range moves {
				idx, _ := board.MoveToIndex(mv, in.Game.WhiteToMove())
				out[k] = bandLogit(idx, 1500)
			}
			return out
		}
		return f, nil // no value head: the mean keeps the first member's
	}
	sum, err := Run(context.Background(), cfg, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "fake-1:3,fake-2:1", sum.Teacher)
	set, recs := readAll(t, cfg.Out)
	require.Greater(t, len(recs), 500)
	assert.Equal(t, "mean(fake,fake)", set.Manifest.Teacher.Kind)
	assert.Equal(t, cfg.Teacher, set.Manifest.Teacher.File)
	assert.Len(t, set.Manifest.Teacher.Hash, 64)

	var e board.Encoded
	var tg board.Targets
	var d shard.Distill
	for i, rec := range recs {
		require.NoError(t, shard.DecodeSampleDistill(rec, &e, &tg, &d))
		require.Len(t, d.Moves, len(e.Legal), "record %d", i)
		var za, zb float64
		for _, l := range e.Legal {
			za += math.Exp(float64(fakeTeacherLogit(int(l), e.Ctx)))
			zb += math.Exp(float64(bandLogit(int(l), 1500)))
		}
		for k, l := range e.Legal {
			want := 0.75*math.Exp(float64(fakeTeacherLogit(int(l), e.Ctx)))/za + 0.25*math.Exp(float64(bandLogit(int(l), 1500)))/zb
			require.InDelta(t, want, d.Moves[k], (1+float64(len(e.Legal))/2)/65535, "record %d move %d", i, k)
		}
		require.True(t, d.HasWDL, "record %d", i)
		w := fakeTeacherWDL(e.Ctx)
		require.InDelta(t, w[0], d.WDL[0], 2.0/65535, "record %d", i)
	}
}

// TestTeacherMembers checks the parsing of a mean teacher's specification.
func TestTeacherMembers(t *testing.T) {
	ms, err := TeacherMembers("x.onnx")
	require.NoError(t, err)
	assert.Equal(t, []TeacherMember{{Spec: "x.onnx", Weight: 1}}, ms)
	ms, err = TeacherMembers("default:2, ../shared/maia:0.5,c.onnx")
	require.NoError(t, err)
	assert.Equal(t, []TeacherMember{{"default", 2}, {"../shared/maia", 0.5}, {"c.onnx", 1}}, ms)
	// an existing file whose name holds a comma is one teacher
	odd := filepath.Join(t.TempDir(), "a,b.onnx")
	require.NoError(t, os.WriteFile(odd, nil, 0o644))
	ms, err = TeacherMembers(odd)
	require.NoError(t, err)
	assert.Equal(t, []TeacherMember{{odd, 1}}, ms)
	good := DefaultConfig()
	good.Inputs, good.Out, good.Teacher, good.OpenTeacher = []string{"x.pgn"}, "out", "a:1,b:2", fakeTeacher
	require.NoError(t, good.Validate())
	for _, bad := range []string{"a:0,b", "a:-1,b", "a:x,b", ",b", "a,:2", "a:NaN,b", "a:Inf,b"} {
		_, err := TeacherMembers(bad)
		assert.Error(t, err, bad)
		cfg := DefaultConfig()
		cfg.Inputs, cfg.Out, cfg.Teacher, cfg.OpenTeacher = []string{"x.pgn"}, "out", bad, fakeTeacher
		assert.Error(t, cfg.Validate(), bad)
	}
}

// TestEvalWDL checks the win/draw/loss made from an evaluation: it sums to
// one, its expected score is the evaluation's, it keeps the teacher's draw
// share where there is room and gives none to a decided position, and it
// mirrors with the evaluation's sign.
func TestEvalWDL(t *testing.T) {
	for _, cp := range []float64{-99700, -600, -150, -20, 0, 35, 300, 1200, 99700} {
		for _, teacher := range [][]float32{nil, {0.3, 0.4, 0.3}, {0.1, 0.05, 0.85}} {
			w := EvalWDL(cp, teacher)
			assert.InDelta(t, 1, float64(w[0]+w[1]+w[2]), 1e-6, "cp %v", cp)
			assert.InDelta(t, score.Expected(cp), float64(w[0]+w[1]/2), 1e-6, "cp %v", cp)
			for k := range 3 {
				assert.GreaterOrEqual(t, w[k], float32(0), "cp %v", cp)
			}
			want := 0.0
			if teacher != nil {
				want = math.Min(float64(teacher[1]), 2*math.Min(score.Expected(cp), 1-score.Expected(cp)))
			}
			assert.InDelta(t, want, float64(w[1]), 1e-6, "cp %v", cp)
			m := EvalWDL(-cp, teacher)
			assert.InDelta(t, float64(w[0]), float64(m[2]), 1e-6, "cp %v", cp)
		}
	}
	// level and the teacher's draw share fits: kept
	assert.InDelta(t, 0.4, float64(EvalWDL(0, []float32{0.3, 0.4, 0.3})[1]), 1e-6)
	// mate: all win, no draw
	w := EvalWDL(99700, []float32{0.3, 0.4, 0.3})
	assert.InDelta(t, 1, float64(w[0]), 1e-6)
	assert.InDelta(t, 0, float64(w[1]), 1e-6)
}

// evalGame is one rated blitz game of 32 plies (knights out and back) whose
// moves carry [%eval] comments, some missing and one a mate.
func evalGame(t *testing.T) (string, []float64) {
	moves := []string{"Nf3", "Nf6", "Ng1", "Ng8", "Nc3", "Nc6", "Nb1", "Nb8"}
	evals := make([]float64, 32)
	var b strings.Builder
	b.WriteString("[Event \"Rated blitz game\"]\n[Site \"https://lichess.org/evalgame\"]\n[White \"a\"]\n[Black \"b\"]\n" +
		"[Result \"1-0\"]\n[WhiteElo \"1500\"]\n[BlackElo \"1510\"]\n[TimeControl \"300+0\"]\n[Termination \"Normal\"]\n\n")
	for i := range 32 {
		if i%2 == 0 {
			fmt.Fprintf(&b, "%d. ", i/2+1)
		}
		b.WriteString(moves[i%len(moves)] + " ")
		switch {
		case i%5 == 3:
			evals[i] = math.NaN()
		case i == 20:
			evals[i] = 1000 - 3
			b.WriteString("{ [%eval #3] } ")
		default:
			evals[i] = float64(i%7-3) * 0.45
			fmt.Fprintf(&b, "{ [%%eval %.2f] } ", evals[i])
		}
	}
	b.WriteString("1-0\n\n")
	p := filepath.Join(t.TempDir(), "evals.pgn")
	require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
	return p, evals
}

// TestTeacherEvalWDL preps a game with evaluations with and without
// -wdl-evals: with it, each position the game evaluates (the %eval after
// the move that reached it) has that evaluation's EvalWDL for the mover with
// the teacher's draw share, the others (the first position, a move without
// a comment) the teacher's; without it, every position has the teacher's;
// the records are otherwise the same.
func TestTeacherEvalWDL(t *testing.T) {
	in, evals := evalGame(t)
	run := func(fromEvals bool) (*Summary, [][]byte) {
		cfg := testConfig(t, in)
		cfg.Workers, cfg.ValFraction, cfg.SameBandKeep, cfg.MinClock, cfg.EarlyFullPly = 1, 0, 1, 0, 0
		cfg.Teacher, cfg.OpenTeacher, cfg.TeacherBatch, cfg.WDLEvals = "fake.pb.gz", fakeTeacher, 5, fromEvals
		sum, err := Run(context.Background(), cfg, io.Discard)
		require.NoError(t, err)
		set, recs := readAll(t, cfg.Out)
		if fromEvals {
			assert.Contains(t, string(set.Manifest.Config), `"wdl_evals": true`)
		}
		return sum, recs
	}
	plainSum, plain := run(false)
	sum, recs := run(true)
	require.Len(t, recs, 32)
	require.Len(t, plain, 32)
	assert.Zero(t, plainSum.TeacherEvalWDL)

	var e board.Encoded
	var tg board.Targets
	var d, pd shard.Distill
	fromEvals := 0
	for i, rec := range recs {
		require.NoError(t, shard.DecodeSampleDistill(rec, &e, &tg, &d))
		teacher := fakeTeacherWDL(e.Ctx)
		want := teacher
		if i > 0 && !math.IsNaN(evals[i-1]) {
			cp := 100 * evals[i-1]
			if i%2 == 1 { // Black to move
				cp = -cp
			}
			want = EvalWDL(cp, teacher[:])
			fromEvals++
		}
		require.True(t, d.HasWDL, "ply %d", i)
		for k := range 3 {
			require.InDelta(t, want[k], d.WDL[k], 2.0/65535, "ply %d wdl %d", i, k)
		}
		require.NoError(t, shard.DecodeSampleDistill(plain[i], &e, &tg, &pd))
		for k := range 3 {
			require.InDelta(t, teacher[k], pd.WDL[k], 2.0/65535, "ply %d plain wdl %d", i, k)
		}
		require.Equal(t, plain[i][:len(plain[i])-7], rec[:len(rec)-7], "ply %d: only the win/draw/loss differs", i)
	}
	assert.Equal(t, int64(fromEvals), sum.TeacherEvalWDL)
	assert.Equal(t, 31-6, fromEvals) // 31 positions after a move, 6 of those moves without a comment

	cfg := testConfig(t, in)
	cfg.WDLEvals = true
	require.ErrorIs(t, cfg.Validate(), ErrConfig)
}
