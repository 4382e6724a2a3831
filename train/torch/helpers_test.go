package torch

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sugarme/gotch"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/nets/ort"
	"github.com/humchess/humchess/nets/transformer"
	"github.com/humchess/humchess/train/data/pgn"
	"github.com/humchess/humchess/train/data/shard"

	"github.com/humchess/humchess/internal/testenv"
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
// directly (train/data/prep does this, with filters and balancing, for real runs).
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

// exportAndCompare exports a checkpoint to safetensors and ONNX, and checks
// that ONNX Runtime's outputs (legal too, for a net with that head) equal
// gotch's forward pass of the exported weights on the first n validation
// positions (max abs difference under 1e-4). It returns the exported
// architecture and weights.
func exportAndCompare(t *testing.T, c Config, ckpt string, n int) (transformer.Arch, transformer.Weights) {
	t.Helper()
	dir := t.TempDir()
	stPath, onnxPath := filepath.Join(dir, "net.safetensors"), filepath.Join(dir, "net.onnx")
	if _, err := Export(ckpt, stPath, onnxPath); err != nil {
		t.Fatal(err)
	}
	a, w, err := transformer.LoadSafetensors(stPath)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModelFromWeights(a, w, gotch.CPU)
	if err != nil {
		t.Fatal(err)
	}
	exs := validationExamples(t, c, n)
	got := gotchForward(t, m, c, exs)
	loc, err := ort.Resolve("")
	if err != nil {
		testenv.Missing(t, "ONNX Runtime not available (make onnxruntime, or ONNXRUNTIME_SHARED_LIBRARY_PATH): %v", err)
	}
	model, err := transformer.LoadONNX(onnxPath)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := ort.NewSession(model, ort.SessionOptions{LibraryPath: loc.Path, IntraOpThreads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	hb, err := fillBatch(c.Contract(), exs, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	rows := int64(hb.n)
	outs, err := sess.Run(
		ort.Tensor{Name: transformer.InputPieces, Shape: []int64{rows, 64}, Int64: hb.pieces},
		ort.Tensor{Name: transformer.InputSquares, Shape: []int64{rows, 64, int64(a.SquareDim)}, Float32: hb.squares},
		ort.Tensor{Name: transformer.InputGlobal, Shape: []int64{rows, int64(a.GlobalDim)}, Float32: hb.global},
	)
	if err != nil {
		t.Fatal(err)
	}
	get := func(name string) []float32 {
		o, ok := ort.Find(outs, name)
		if !ok {
			t.Fatalf("ONNX output %q missing", name)
		}
		return o.Float32
	}
	onnxRes := transformer.Result{N: hb.n, Move: get(transformer.OutputMove), WDL: get(transformer.OutputWDL),
		Time: get(transformer.OutputTime), From: get(transformer.OutputFrom), To: get(transformer.OutputTo)}
	if a.LegalHead {
		onnxRes.Legal = get(transformer.OutputLegal)
	}
	compareResults(t, got, onnxRes, 1e-4, fmt.Sprintf("gotch vs ONNX Runtime (%d validation positions)", hb.n))
	return a, w
}

// randomModel returns a model with random weights (deterministic in seed)
// on the CPU, its weights, and the first n validation examples of c.Data.
func randomModel(t *testing.T, c Config, seed uint64, n int) (*Model, transformer.Weights, []Example) {
	t.Helper()
	exs := validationExamples(t, c, n)
	w, err := transformer.RandomWeights(c.Arch, seed)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModelFromWeights(c.Arch, w, gotch.CPU)
	if err != nil {
		t.Fatal(err)
	}
	return m, w, exs
}

// validationExamples returns the first n validation examples of c.Data.
func validationExamples(t *testing.T, c Config, n int) []Example {
	t.Helper()
	set, err := shard.Open(c.Data)
	if err != nil {
		t.Fatal(err)
	}
	exs, err := ReadExamples(set, "validation", n)
	if err != nil {
		t.Fatal(err)
	}
	return exs
}

// stopAt returns an Options.AfterStep that stops the run, as a killed
// process would, after step n.
func stopAt(n int) func(StepInfo) error {
	return func(s StepInfo) error {
		if s.Step == n {
			return ErrStopped
		}
		return nil
	}
}
