package profile

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/train/data/pgn"
	"github.com/humchess/humchess/uci/client"
)

// Job is one game to analyse; Tag is the caller's, returned with it.
type Job struct {
	Game *pgn.Game
	Tag  int
}

// Result is an analysed game: White's centipawns for every position
// 0..len(Game.Moves) (NaN where unknown, ±100000 for mates).
type Result struct {
	Job
	Evals []float64
}

// Analyser evaluates games with engine processes (Workers of them), each
// position with the same Limits: a fixed node count or depth with one
// thread and a hash cleared at each game (ucinewgame) gives the same
// evaluations on every run.
type Analyser struct {
	ctx    context.Context
	engine client.Config
	limits client.Limits
	jobs   chan Job
	mu     sync.Mutex
	res    []Result
	err    error
	wg     sync.WaitGroup
	start  sync.Once
	n      int
	done   atomic.Int64
	again  atomic.Int64
}

// Retries is how many times a game is analysed again, from its start on a
// new engine process, after the engine died or stopped answering during it:
// a stalled or crashed judge costs that game's analysis, not the run's.
// Evaluations at a fixed node count on a fresh hash are the same on the
// retry.
const Retries = 2

// NewAnalyser returns an Analyser; its engines start at the first Submit.
// workers <= 0 means 2.
func NewAnalyser(ctx context.Context, engine client.Config, limits client.Limits, workers int) *Analyser {
	if workers <= 0 {
		workers = 2
	}
	return &Analyser{ctx: ctx, engine: engine, limits: limits, jobs: make(chan Job, 16), n: workers}
}

// Submit queues a game (it blocks while the queue is full).
func (a *Analyser) Submit(g *pgn.Game, tag int) {
	a.start.Do(func() {
		for range a.n {
			a.wg.Add(1)
			go a.run()
		}
	})
	a.jobs <- Job{Game: g, Tag: tag}
}

// Done is the number of games analysed so far.
func (a *Analyser) Done() int64 { return a.done.Load() }

// Retried is the number of game analyses begun again after the engine died
// or stopped answering (Retries).
func (a *Analyser) Retried() int64 { return a.again.Load() }

// Wait waits for every submitted game and returns the results (in the
// order they finished) and the first error. Submit must not be called after.
func (a *Analyser) Wait() ([]Result, error) {
	close(a.jobs)
	a.wg.Wait()
	return a.res, a.err
}

func (a *Analyser) run() {
	defer a.wg.Done()
	var e *client.Engine
	defer func() {
		if e != nil {
			_ = e.Close() // Close always succeeds
		}
	}()
	for job := range a.jobs {
		if a.failed() {
			continue // drain
		}
		ev, err := a.analyse(&e, job.Game)
		if err != nil {
			a.fail(err)
			continue
		}
		a.mu.Lock()
		a.res = append(a.res, Result{Job: job, Evals: ev})
		a.mu.Unlock()
		a.done.Add(1)
	}
}

// analyse evaluates g on *e, starting an engine when there is none or it
// is gone, and begins again on a new one (up to Retries times) when the
// engine dies or stops answering; any other error is returned at once.
func (a *Analyser) analyse(e **client.Engine, g *pgn.Game) ([]float64, error) {
	for try := 0; ; try++ {
		if *e == nil || !(*e).Alive() {
			if *e != nil {
				_ = (*e).Close() // Close always succeeds
			}
			var err error
			if *e, err = client.Start(a.ctx, a.engine); err != nil {
				return nil, err
			}
		}
		ev, err := Analyse(a.ctx, *e, g, a.limits)
		if err == nil || (*e).Alive() || a.ctx.Err() != nil || try == Retries {
			return ev, err
		}
		a.again.Add(1)
	}
}

func (a *Analyser) failed() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err != nil
}

func (a *Analyser) fail(err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err == nil {
		a.err = fmt.Errorf("profile: analysing engine: %w", err)
	}
}

// Analyse evaluates every position of a game with e: White's centipawns
// per position (mate ±100000, a finished game's draw 0). A move that does
// not parse ends the analysis (the rest is NaN).
func Analyse(ctx context.Context, e *client.Engine, g *pgn.Game, lim client.Limits) ([]float64, error) {
	b, err := board.NewGame(g.FEN)
	if err != nil {
		return nil, err
	}
	if err := e.NewGame(ctx); err != nil {
		return nil, err
	}
	ev := make([]float64, 0, len(g.Moves)+1)
	var moves []string
	for i := 0; ; i++ {
		v := math.NaN()
		switch b.Status() {
		case board.Checkmate:
			v = -100000
		case board.Ongoing:
			if err := e.Position(g.FEN, moves); err != nil {
				return nil, err
			}
			res, err := e.Go(ctx, lim, lim.MoveTime+30*time.Second)
			if err != nil {
				return nil, err
			}
			if res.Score.Valid {
				v = float64(res.Score.Value)
				if res.Score.Mate {
					v = 100000 * float64(sign(res.Score.Value))
				}
			}
		default:
			v = 0 // drawn
		}
		if !b.WhiteToMove() {
			v = -v
		}
		ev = append(ev, v)
		if i == len(g.Moves) {
			return ev, nil
		}
		m, err := b.ParseSAN(g.Moves[i])
		if err != nil {
			for len(ev) < len(g.Moves)+1 {
				ev = append(ev, math.NaN())
			}
			return ev, nil
		}
		if err := b.PlayMove(m); err != nil {
			return nil, err
		}
		moves = append(moves, m.String())
	}
}

func sign(x int) int {
	if x < 0 {
		return -1
	}
	return 1
}
