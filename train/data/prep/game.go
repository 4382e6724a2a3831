package prep

import (
	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/train/data/games"
	"github.com/humchess/humchess/train/data/pgn"
	"github.com/humchess/humchess/train/data/shard"
)

// gameJob is what a worker needs of one game (copied out of the reader's
// reused pgn.Game).
type gameJob struct {
	id       uint64
	val      bool
	whiteElo int
	blackElo int
	rec      board.Record // ratings, time control and clocks: the positions' Context
	class    games.TimeClass
	result   string
	moves    []string
	evals    []float64 // with Config.WDLEvals, the game's [%eval] after each move (pgn.Game.Evals); nil otherwise
}

func newJob(g *pgn.Game, id uint64, val bool) gameJob {
	return gameJob{
		id: id, val: val, whiteElo: g.WhiteElo, blackElo: g.BlackElo,
		rec: games.RecordOf(g), class: games.ClassOf(g.TimeControl), result: g.Result,
		moves: append([]string(nil), g.Moves...),
	}
}

// gameOut is what a worker made of one game.
type gameOut struct {
	data    []byte  // the kept records, back to back
	ends    []int32 // end offset of each record in data
	badMove bool    // the game had an illegal or unreadable move: nothing kept
	seen    int64   // positions considered
	skipped [3]int64
}

// Indices of gameOut.skipped.
const (
	skipLowClock = iota
	skipEarly
	skipNoTargets
)

var positionReasons = [3]string{ReasonLowClock, ReasonEarlyPly, ReasonNoTargets}

// worker holds one decoding goroutine's scratch state.
type worker struct {
	cfg   *Config
	enc   board.Encoded
	start *board.Game // the initial position, cloned for each game
	// per-batch clock histograms
	clockBefore, clockAfter Hist
	teach                   *teacher // nil without a teacher net
}

func newWorker(cfg *Config) *worker {
	return &worker{cfg: cfg, clockBefore: newClockHist(""), clockAfter: newClockHist("")}
}

// process replays a game and encodes the positions it keeps.
func (w *worker) process(j *gameJob, out *gameOut) {
	cfg := w.cfg
	*out = gameOut{data: out.data[:0], ends: out.ends[:0]}
	if need := len(j.moves) * (board.EncodedFixedSize + 2*40 + board.TargetsSize); cap(out.data) < need {
		out.data = make([]byte, 0, need)
	}
	if w.start == nil {
		start, err := board.NewGame("")
		if err != nil { // the start position always parses
			out.badMove = true
			return
		}
		w.start = start
	}
	g := w.start.Clone()
	for i, san := range j.moves {
		m, err := g.ParseSAN(san)
		if err != nil {
			w.dropGame(out)
			*out = gameOut{data: out.data[:0], ends: out.ends[:0], badMove: true}
			return
		}
		white := g.WhiteToMove()
		moverClock := j.rec.ClockAfter(i - 2)
		out.seen++
		keep := true
		if moverClock >= 0 {
			w.clockBefore.Add(moverClock)
		}
		switch {
		case cfg.MinClock > 0 && moverClock >= 0 && moverClock < cfg.MinClock:
			out.skipped[skipLowClock]++
			keep = false
		case cfg.EarlyFullPly > 0 && i < cfg.EarlyFullPly && games.Unit(j.id, cfg.Seed, saltEarly, i) >= earlyRate(cfg, i):
			out.skipped[skipEarly]++
			keep = false
		}
		if keep {
			res, _ := board.MoverResult(j.result, white) // the header filter admits decided results only
			t, err := board.NewTargets(m, white, res, board.ThinkSpent(moverClock, j.rec.ClockAfter(i), max(j.rec.Inc, 0)))
			if err != nil {
				out.skipped[skipNoTargets]++
			} else {
				ctx := j.rec.Context(g)
				board.EncodeTo(&w.enc, g, ctx)
				out.data = shard.AppendSample(out.data, &w.enc, &t)
				out.ends = append(out.ends, int32(len(out.data)))
				if w.teach != nil {
					w.teach.add(g, ctx, games.Unit(j.id, cfg.Seed, saltTeacher, i), pgn.MoverEval(j.evals, i, white))
				}
				if moverClock >= 0 {
					w.clockAfter.Add(moverClock)
				}
			}
		}
		if err := g.PlayMove(m); err != nil {
			w.dropGame(out)
			*out = gameOut{data: out.data[:0], ends: out.ends[:0], badMove: true}
			return
		}
	}
}

// dropGame unqueues the teacher positions of a game whose records are
// dropped (an illegal move after some kept positions).
func (w *worker) dropGame(out *gameOut) {
	if w.teach != nil && len(out.ends) > 0 {
		w.teach.unqueue(len(out.ends))
	}
}
