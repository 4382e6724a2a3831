package prep

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/train/data/pgn"
	"github.com/humchess/humchess/train/data/shard"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/internal/testenv"
)

const lichessSample = "../../../testdata/games/lichess-2022-06-2500.pgn.zst"

// dataFile returns the absolute path of a data file, skipping the test when
// it is absent (the shared folder may not sit beside the checkout).
func dataFile(t testing.TB, rel string) string {
	t.Helper()
	p, err := filepath.Abs(rel)
	require.NoError(t, err)
	if _, err := os.Stat(p); err != nil {
		testenv.Missing(t, "data file %s not present: %v", p, err)
	}
	return p
}

// eachSample decodes every record of a split of set in order and calls f
// with it (the same buffers each call).
func eachSample(t *testing.T, set *shard.Set, split string, f func(*board.Encoded, *board.Targets)) {
	t.Helper()
	r := set.Reader(split)
	var e board.Encoded
	var tg board.Targets
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		require.NoError(t, err)
		require.NoError(t, shard.DecodeSample(rec, &e, &tg))
		f(&e, &tg)
	}
}

func testConfig(t testing.TB, inputs ...string) Config {
	cfg := DefaultConfig()
	cfg.Inputs = inputs
	cfg.Out = t.TempDir()
	cfg.Quiet = true
	cfg.Plots = false
	return cfg
}

// TestEndToEnd preps the lichess sample, reads every record back and checks
// the counts against the summary and the manifest, and the records' contents
// against the filters.
func TestEndToEnd(t *testing.T) {
	cfg := testConfig(t, dataFile(t, lichessSample))
	cfg.Plots = true
	cfg.ShardRecords = 5000 // several shards
	sum, err := Run(context.Background(), cfg, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, int64(2500), sum.GamesSeen)
	var skippedGames int64
	for k, v := range sum.Skipped {
		if strings.HasPrefix(k, "game:") || strings.HasPrefix(k, "pgn:") {
			if k != ReasonBadMove {
				skippedGames += v
			}
		}
	}
	assert.Equal(t, sum.GamesSeen, skippedGames+sum.GamesDecoded, "every game is decoded or skipped for one reason: %v", sum.Skipped)
	assert.Greater(t, sum.PositionsKept, int64(5000))

	set, err := shard.Open(cfg.Out)
	require.NoError(t, err)
	require.NoError(t, set.Verify())
	assert.Equal(t, sum.Counts, set.Manifest.Counts)
	assert.Greater(t, len(set.Manifest.Shards), 2)
	var stats manifestStats
	require.NoError(t, json.Unmarshal(set.Manifest.Stats, &stats))
	assert.Equal(t, sum.PositionsKept, stats.Summary.PositionsKept)
	var saved Config
	require.NoError(t, json.Unmarshal(set.Manifest.Config, &saved))
	assert.Equal(t, cfg.MinRating, saved.MinRating)
	assert.Equal(t, cfg.TimeClasses, saved.TimeClasses)

	var total int64
	for _, split := range []string{shard.SplitTrain, shard.SplitValidation} {
		var n int64
		eachSample(t, set, split, func(e *board.Encoded, tg *board.Targets) {
			n++
			c := e.Ctx
			require.GreaterOrEqual(t, c.MoverRating, float32(cfg.MinRating))
			require.GreaterOrEqual(t, c.OppRating, float32(cfg.MinRating))
			require.True(t, c.MoverClock < 0 || c.MoverClock >= float32(cfg.MinClock), "clock %v", c.MoverClock)
			require.True(t, c.Base+40*c.Inc >= 180, "time control %v+%v", c.Base, c.Inc)
			require.Contains(t, e.Legal, uint16(tg.Move), "the target move is legal")
			require.True(t, tg.Seconds >= 0 || tg.Seconds == -1, "seconds %v", tg.Seconds)
		})
		assert.Equal(t, sum.Counts[split].Positions, n, split)
		assert.Equal(t, set.Records(split), n, split)
		total += n
	}
	assert.Equal(t, sum.PositionsKept, total)
	for _, p := range []string{PlotRatings, PlotTimeClasses, PlotClocks} {
		st, err := os.Stat(filepath.Join(cfg.Out, p))
		require.NoError(t, err, p)
		assert.Greater(t, st.Size(), int64(1000), p)
	}

	// a second run into the same directory needs Force
	_, err = Run(context.Background(), cfg, io.Discard)
	assert.ErrorIs(t, err, ErrOutputExists)
}

// TestDeterministicAcrossWorkers checks that the shards are byte-identical
// whatever the number of workers.
func TestDeterministicAcrossWorkers(t *testing.T) {
	in := dataFile(t, lichessSample)
	var sums [][]string
	for _, workers := range []int{1, 3} {
		cfg := testConfig(t, in)
		cfg.Workers = workers
		cfg.ShardRecords = 4000
		cfg.MaxGames = 1500
		_, err := Run(context.Background(), cfg, io.Discard)
		require.NoError(t, err)
		set, err := shard.Open(cfg.Out)
		require.NoError(t, err)
		var s []string
		for _, sh := range set.Manifest.Shards {
			s = append(s, sh.Name+" "+sh.SHA256)
		}
		sums = append(sums, s)
	}
	assert.Equal(t, sums[0], sums[1])
}

// syntheticPGN writes n short games whose players' ratings identify the game.
func syntheticPGN(t *testing.T, n int) string {
	var b strings.Builder
	line := "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Nb8 10. d4 Nbd7 " +
		"11. c4 c6 12. cxb5 axb5 13. Nc3 Bb7 14. Bg5 b4 15. Nb1 h6 16. Bh4 c5 17. dxe5 Nxe4 18. Bxe7 Qxe7 1-0"
	for i := range n {
		fmt.Fprintf(&b, "[Event \"Rated Blitz game\"]\n[Site \"https://lichess.org/s%06d\"]\n[Result \"1-0\"]\n"+
			"[WhiteElo \"%d\"]\n[BlackElo \"%d\"]\n[TimeControl \"300+3\"]\n\n%s\n\n", i, 1000+i, 2400+i%7, line)
	}
	p := filepath.Join(t.TempDir(), "synthetic.pgn")
	require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
	return p
}

// TestSplitByGame checks that no game has positions in both splits and that
// the validation fraction is about right.
func TestSplitByGame(t *testing.T) {
	cfg := testConfig(t, syntheticPGN(t, 800))
	cfg.ValFraction = 0.2
	cfg.EarlyFullPly = 0
	sum, err := Run(context.Background(), cfg, io.Discard)
	require.NoError(t, err)
	require.Equal(t, int64(800), sum.GamesKept)
	set, err := shard.Open(cfg.Out)
	require.NoError(t, err)
	games := map[string]map[float32]int{}
	var e board.Encoded
	var tg board.Targets
	for _, split := range []string{shard.SplitTrain, shard.SplitValidation} {
		games[split] = map[float32]int{}
		r := set.Reader(split)
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err)
			require.NoError(t, shard.DecodeSample(rec, &e, &tg))
			white := e.Ctx.MoverRating
			if !e.MoverIsWhite {
				white = e.Ctx.OppRating
			}
			games[split][white]++
		}
	}
	for g := range games[shard.SplitValidation] {
		assert.NotContains(t, games[shard.SplitTrain], g, "game %v in both splits", g)
	}
	for split, m := range games {
		for g, n := range m {
			assert.Equal(t, 36, n, "%s game %v: all 36 positions together", split, g)
		}
	}
	frac := float64(len(games[shard.SplitValidation])) / 800
	assert.InDelta(t, 0.2, frac, 0.05)
	assert.Equal(t, int64(len(games[shard.SplitValidation])), sum.Counts[shard.SplitValidation].Games)

	// the split does not depend on the seed
	cfg2 := cfg
	cfg2.Out = t.TempDir()
	cfg2.Seed = 99
	sum2, err := Run(context.Background(), cfg2, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, sum.Counts, sum2.Counts)
}

// TestKilledRun cancels a run in the middle, while shards are being written,
// and checks that the output does not open as a shard set and that no
// unfinished shard parses as complete.
func TestKilledRun(t *testing.T) {
	src := dataFile(t, lichessSample)
	if _, err := exec.LookPath("zstd"); err != nil {
		testenv.Missing(t, "the zstd command is not installed (apt-get install zstd): %v", err)
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "in.pgn")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	cfg := testConfig(t, fifo)
	cfg.ShardRecords = 1000
	cfg.Workers = 2

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		sum *Summary
		err error
	}
	res := make(chan result, 1)
	go func() {
		s, err := Run(ctx, cfg, io.Discard)
		res <- result{s, err}
	}()
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	require.NoError(t, err)
	data, err := exec.Command("zstd", "-dc", src).Output()
	require.NoError(t, err)
	// feed about half of the games, wait for a finished shard, then "kill"
	_, err = w.Write(data[:len(data)/2])
	require.NoError(t, err)
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(cfg.Out, shard.ShardName(shard.SplitTrain, 1))); err == nil {
			break
		}
		require.True(t, time.Now().Before(deadline), "no shard finished in time")
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	_, _ = w.Write(data[len(data)/2 : len(data)/2+4096]) // unblock a reader waiting for input
	w.Close()
	r := <-res
	require.ErrorIs(t, r.err, context.Canceled)
	assert.Nil(t, r.sum)

	_, err = shard.Open(cfg.Out)
	assert.ErrorIs(t, err, shard.ErrNoManifest, "a killed run must not look complete")
	entries, err := os.ReadDir(cfg.Out)
	require.NoError(t, err)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			_, _, err := shard.ReadFile(filepath.Join(cfg.Out, e.Name()), board.ContractVersion)
			assert.Error(t, err, "unfinished %s parses", e.Name())
		}
	}
	// a forced rerun over the debris succeeds
	cfg.Inputs = []string{src}
	cfg.Force = true
	_, err = Run(context.Background(), cfg, io.Discard)
	require.NoError(t, err)
	_, err = shard.Open(cfg.Out)
	assert.NoError(t, err)
}

func TestRunBadInput(t *testing.T) {
	dir := t.TempDir()
	notPGN := filepath.Join(dir, "x.pgn.zst")
	require.NoError(t, os.WriteFile(notPGN, []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 0o644))
	garbage := filepath.Join(dir, "g.pgn")
	require.NoError(t, os.WriteFile(garbage, []byte("[Event \"Rated Blitz game\"]\n[WhiteElo \"1500\"]\n\n1. e4 Zz9 *\n\n[oops\n"), 0o644))
	empty := filepath.Join(dir, "empty.pgn")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	full, err := os.ReadFile(lichessSample)
	require.NoError(t, err)
	cut := filepath.Join(dir, "cut.pgn.zst")
	require.NoError(t, os.WriteFile(cut, full[:len(full)/2], 0o644))
	tests := []struct {
		name    string
		inputs  []string
		wantErr error  // nil: any error
		msg     string // in the error
	}{
		{"missing file", []string{filepath.Join(dir, "nope.pgn")}, os.ErrNotExist, "nope.pgn"},
		{"missing second file", []string{empty, filepath.Join(dir, "nope.pgn")}, os.ErrNotExist, "nope.pgn"},
		{"not pgn", []string{notPGN}, pgn.ErrFormat, "x.pgn.zst"},
		{"garbage games only", []string{garbage}, ErrNoPositions, "skipped: "},
		{"no games", []string{empty}, ErrNoPositions, "0 games read"},
		{"truncated", []string{cut}, pgn.ErrCorrupt, fmt.Sprintf("cut.pgn.zst: zst stream broke off at byte %d", len(full)/2)},
	}
	for _, tc := range tests {
		for _, fresh := range []bool{false, true} {
			cfg := testConfig(t, tc.inputs...)
			if fresh { // an output directory that does not exist yet
				cfg.Out = filepath.Join(t.TempDir(), "out")
			}
			_, err := Run(context.Background(), cfg, io.Discard)
			require.ErrorIs(t, err, tc.wantErr, tc.name)
			assert.Contains(t, err.Error(), tc.msg, tc.name)
			_, oerr := shard.Open(cfg.Out)
			if fresh && tc.name != "truncated" {
				assert.NoDirExists(t, cfg.Out, "%s: a failed run leaves no empty output directory", tc.name)
			} else {
				assert.ErrorIs(t, oerr, shard.ErrNoManifest, "%s: no manifest", tc.name)
			}
		}
	}
}

// TestRatingMapRecords preps a lichess and a chess.com game with the same
// ratings under a rating map: the chess.com game's positions carry the
// mapped ratings, the lichess game's the PGN's, and the manifest names the
// map. Without a map both keep the PGN's.
func TestRatingMapRecords(t *testing.T) {
	line := "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Nb8 10. d4 Nbd7 " +
		"11. c4 c6 12. cxb5 axb5 13. Nc3 Bb7 14. Bg5 b4 15. Nb1 h6 16. Bh4 c5 17. dxe5 Nxe4 18. Bxe7 Qxe7 1-0"
	text := "[Event \"Rated Blitz game\"]\n[Site \"https://lichess.org/abcdefgh\"]\n[Result \"1-0\"]\n" +
		"[WhiteElo \"1500\"]\n[BlackElo \"1400\"]\n[TimeControl \"180+0\"]\n\n" + line + "\n\n" +
		"[Event \"Live Chess\"]\n[Site \"Chess.com\"]\n[Link \"https://www.chess.com/game/live/1\"]\n[Result \"1-0\"]\n" +
		"[WhiteElo \"1500\"]\n[BlackElo \"1400\"]\n[TimeControl \"180\"]\n\n" + line + "\n\n"
	dir := t.TempDir()
	games := filepath.Join(dir, "two.pgn")
	require.NoError(t, os.WriteFile(games, []byte(text), 0o644))
	mapFile := filepath.Join(dir, "map.json")
	require.NoError(t, os.WriteFile(mapFile, []byte(`{"name":"t","maps":[{"platform":"chess.com","points":[[1000,1300],[2000,2300]]}]}`), 0o644))

	ratings := func(ratingMap string) map[[2]float32]int {
		cfg := testConfig(t, games)
		cfg.RatingMap = ratingMap
		cfg.MinRating, cfg.MinClock, cfg.EarlyFullPly, cfg.ValFraction = 600, 0, 0, 0
		cfg.SameBandKeep, cfg.AdjacentBandKeep = 1, 1
		_, err := Run(context.Background(), cfg, io.Discard)
		require.NoError(t, err)
		set, err := shard.Open(cfg.Out)
		require.NoError(t, err)
		var saved Config
		require.NoError(t, json.Unmarshal(set.Manifest.Config, &saved))
		assert.Equal(t, ratingMap, saved.RatingMap)
		got := map[[2]float32]int{}
		eachSample(t, set, shard.SplitTrain, func(e *board.Encoded, _ *board.Targets) {
			got[[2]float32{e.Ctx.MoverRating, e.Ctx.OppRating}]++
		})
		return got
	}
	plain := ratings("")
	assert.Equal(t, map[[2]float32]int{{1500, 1400}: 36, {1400, 1500}: 36}, plain)
	mapped := ratings(mapFile)
	assert.Equal(t, map[[2]float32]int{{1500, 1400}: 18, {1400, 1500}: 18, {1800, 1700}: 18, {1700, 1800}: 18}, mapped)

	cfg := testConfig(t, games)
	cfg.RatingMap = filepath.Join(dir, "missing.json")
	_, err := Run(context.Background(), cfg, io.Discard)
	assert.ErrorIs(t, err, ErrConfig)
}

// TestRunSourceKeep preps the lichess sample whole and with its training
// games kept at half rate: the validation split is the same, the training
// split about half, and the manifest records the rate.
func TestRunSourceKeep(t *testing.T) {
	full := testConfig(t, dataFile(t, lichessSample))
	full.MaxGames = 1000
	half := full
	half.Out = t.TempDir()
	half.SourceKeep = map[string]float64{"lichess-2022-06-2500": 0.5}
	a, err := Run(context.Background(), full, io.Discard)
	require.NoError(t, err)
	b, err := Run(context.Background(), half, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, a.Counts[shard.SplitValidation], b.Counts[shard.SplitValidation], "validation games are always kept")
	ratio := float64(b.Counts[shard.SplitTrain].Games) / float64(a.Counts[shard.SplitTrain].Games)
	assert.InDelta(t, 0.5, ratio, 0.06, "training games: %d of %d", b.Counts[shard.SplitTrain].Games, a.Counts[shard.SplitTrain].Games)
	// the rate is decided from the headers, before later filters (too few plies) would have skipped some of them
	assert.GreaterOrEqual(t, b.Skipped[ReasonSourceKeep], a.Counts[shard.SplitTrain].Games-b.Counts[shard.SplitTrain].Games)
	set, err := shard.Open(half.Out)
	require.NoError(t, err)
	var saved Config
	require.NoError(t, json.Unmarshal(set.Manifest.Config, &saved))
	assert.Equal(t, half.SourceKeep, saved.SourceKeep)
}
