package torch

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/train/pgn"
	"github.com/humchess/humchess/train/shard"
)

// fixturePGN is the committed test input (testdata/train/make-games.sh).
const fixturePGN = "../../testdata/train/games.pgn.zst"

var (
	shardsOnce sync.Once
	shardsDir  string
	shardsErr  error
)

// testShards returns a shard set made once per test binary from the fixture
// games: every 10th game goes to the validation split.
func testShards(t testing.TB) string {
	t.Helper()
	shardsOnce.Do(func() {
		dir, err := os.MkdirTemp("", "humchess-torch-shards")
		if err != nil {
			shardsErr = err
			return
		}
		shardsDir = dir
		shardsErr = prepShards(fixturePGN, dir, 400)
	})
	if shardsErr != nil {
		t.Fatalf("preparing shards from %s: %v", fixturePGN, shardsErr)
	}
	return shardsDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shardsDir != "" {
		os.RemoveAll(shardsDir)
	}
	os.Exit(code)
}

// prepShards writes a small shard set from a PGN file with board and shard
// directly (train/prep does this, with filters and balancing, for real runs).
func prepShards(path, dir string, maxGames int) error {
	f, err := pgn.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := pgn.NewReader(f)
	opts := shard.SplitOptions{WriterOptions: shard.WriterOptions{ContractVersion: board.ContractVersion, Compression: shard.CompressZstd}, MaxRecords: 8192}
	writers := map[string]*shard.SplitWriter{
		"train":      shard.NewSplitWriter(dir, "train", opts),
		"validation": shard.NewSplitWriter(dir, "validation", opts),
	}
	counts := map[string]shard.Count{}
	var rec []byte
	for n := 0; n < maxGames; n++ {
		g, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		split := "train"
		if n%10 == 9 {
			split = "validation"
		}
		game, err := board.NewGame(g.FEN)
		if err != nil {
			continue
		}
		base, inc := float32(g.TimeControl.Base), float32(g.TimeControl.Increment)
		clock := [2]float64{float64(base), float64(base)} // white, black
		positions := int64(0)
		for i, san := range g.Moves {
			white := game.WhiteToMove()
			me, opp := 0, 1
			elo, oppElo := g.WhiteElo, g.BlackElo
			if !white {
				me, opp = 1, 0
				elo, oppElo = g.BlackElo, g.WhiteElo
			}
			ctx := board.Context{MoverRating: float32(elo), OppRating: float32(oppElo), Base: base, Inc: inc,
				MoverClock: float32(clock[me]), OppClock: float32(clock[opp])}
			if !g.TimeControl.Known() {
				ctx.Base, ctx.Inc, ctx.MoverClock, ctx.OppClock = -1, -1, -1, -1
			}
			if elo <= 0 || oppElo <= 0 {
				ctx.MoverRating, ctx.OppRating = -1, -1
			}
			mv, err := game.ParseSAN(san)
			if err != nil {
				break
			}
			res, ok := board.MoverResult(g.Result, white)
			if !ok {
				break
			}
			spent := -1.0
			if i < len(g.Clocks) && g.Clocks[i] >= 0 && clock[me] >= 0 {
				spent = board.ThinkSpent(clock[me], g.Clocks[i], float64(inc))
				clock[me] = g.Clocks[i]
			}
			enc := board.Encode(game, ctx)
			tgt, err := board.NewTargets(mv, white, res, spent)
			if err != nil {
				break
			}
			rec = shard.AppendSample(rec[:0], &enc, &tgt)
			if err := writers[split].Append(rec); err != nil {
				return err
			}
			positions++
			if err := game.PlayMove(mv); err != nil {
				break
			}
		}
		c := counts[split]
		c.Games++
		c.Positions += positions
		counts[split] = c
	}
	var infos []shard.Info
	for _, split := range []string{"train", "validation"} {
		is, err := writers[split].Close()
		if err != nil {
			return err
		}
		infos = append(infos, is...)
	}
	return shard.WriteManifest(dir, &shard.Manifest{ContractVersion: board.ContractVersion, Created: time.Unix(0, 0).UTC(),
		Tool: "train/torch tests", Counts: counts, Shards: infos})
}

// tinyConfig returns the tiny preset over the test shards, writing into a
// fresh directory.
func tinyConfig(t testing.TB) Config {
	t.Helper()
	c, err := Preset("tiny")
	if err != nil {
		t.Fatal(err)
	}
	c.Data = testShards(t)
	c.Out = filepath.Join(t.TempDir(), "run")
	c.Device = "cpu"
	return c
}
