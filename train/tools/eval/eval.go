package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/humchess/humchess/train/data/games"
	"github.com/humchess/humchess/train/data/pgn"
)

// ErrConfig means an eval configuration is invalid.
var ErrConfig = errors.New("eval: bad config")

// Config is one move-matching run.
type Config struct {
	Inputs      []string // PGN files (.pgn, .pgn.zst, .pgn.bz2) or "-"
	Contestants []Spec
	Split       string  // "", "all", "validation" or "train" (train/data/prep's split by game)
	ValFraction float64 // the split's validation fraction; 0 means train/data/prep's default (0.05)
	Workers     int     // goroutines; 0 = GOMAXPROCS
	MaxGames    int64   // stop after this many games evaluated; 0 = all
	// KeepBots and KeepUnrated keep games a BOT plays and games where a rating
	// is missing (by default both are skipped, as train/data/prep does).
	KeepBots, KeepUnrated bool
	OppBand               int       // width of the opponent-relative bands, rating points; 0 means 100
	Compare               [][2]int  // the contestant pairs whose paired differences are reported; default {0, 1} with two contestants or more
	Progress              io.Writer // a progress line every few seconds; nil = none
	// RatingMap moves other sites' ratings onto one scale (as prep's
	// -rating-map) before anything reads them: the nets' inputs, the
	// band maia-auto picks, the rating breakdowns. nil keeps the PGN's.
	RatingMap *games.RatingMap
}

// Run evaluates every contestant on the same positions and returns the tallies.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if len(cfg.Inputs) == 0 {
		return nil, fmt.Errorf("%w: no input", ErrConfig)
	}
	if len(cfg.Contestants) == 0 {
		return nil, fmt.Errorf("%w: no contestant", ErrConfig)
	}
	for _, pair := range cfg.Compare {
		for _, i := range pair {
			if i < 0 || i >= len(cfg.Contestants) {
				return nil, fmt.Errorf("%w: compare index %d out of range", ErrConfig, i)
			}
		}
	}
	if len(cfg.Compare) == 0 && len(cfg.Contestants) > 1 {
		cfg.Compare = [][2]int{{0, 1}}
	}
	switch cfg.Split {
	case "", "all", "validation", "train":
	default:
		return nil, fmt.Errorf("%w: split %q (want all, validation or train)", ErrConfig, cfg.Split)
	}
	if cfg.ValFraction <= 0 {
		cfg.ValFraction = 0.05
	}
	if cfg.OppBand <= 0 {
		cfg.OppBand = 100
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()

	// Open every worker's contestants first: a bad spec fails at once.
	type worker struct {
		cs  []Contestant
		acc *Report
	}
	ws := make([]*worker, workers)
	closeAll := func() {
		for _, w := range ws {
			if w == nil {
				continue
			}
			for _, c := range w.cs {
				if c != nil {
					_ = c.Close() // nothing to do about a failing close at the end of a run
				}
			}
		}
	}
	defer closeAll()
	for i := range ws {
		ws[i] = &worker{acc: newReport(&cfg)}
		for _, s := range cfg.Contestants {
			c, err := s.Open()
			if err != nil {
				return nil, fmt.Errorf("eval: contestant %s: %w", s.Name, err)
			}
			ws[i].cs = append(ws[i].cs, c)
		}
	}

	jobs := make(chan job, workers*2)
	sources := make([]string, len(cfg.Inputs)) // the "source" rows' labels
	for i, path := range cfg.Inputs {
		sources[i] = pgn.SourceName(path)
	}
	var readErr error
	var skipped skipCounts
	var warnings []string
	go func() {
		defer close(jobs)
		warnings, readErr = readGames(ctx, &cfg, jobs, &skipped)
	}()
	var (
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
		progMu   sync.Mutex
		nGames   int64
		poss     int64
		lastProg = time.Now()
	)
	for _, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			preds := make([][]Prediction, len(w.cs))
			for j := range jobs {
				g := j.g
				raw, _ := Positions(g) // a game cut at an unreadable move keeps its readable part
				if len(raw) == 0 {
					continue
				}
				for i := range raw {
					raw[i].Source, raw[i].SourceName = j.src, sources[j.src]
				}
				site := games.PlatformOf(g)
				ps := onScale(raw, cfg.RatingMap, site) // the tables' positions
				own := map[*games.RatingMap][]*Position{cfg.RatingMap: ps}
				for k, c := range w.cs {
					if cap(preds[k]) < len(ps) {
						preds[k] = make([]Prediction, len(ps))
					}
					preds[k] = preds[k][:len(ps)]
					in := ps
					if s := cfg.Contestants[k]; s.OwnScale {
						if own[s.RatingMap] == nil {
							own[s.RatingMap] = onScale(raw, s.RatingMap, site)
						}
						in = own[s.RatingMap]
					}
					if err := c.Predict(ctx, in, preds[k]); err != nil {
						errOnce.Do(func() {
							firstErr = fmt.Errorf("eval: contestant %s: %w", cfg.Contestants[k].Name, err)
							cancel()
						})
						return
					}
				}
				w.acc.addGame(ps, preds)
				progMu.Lock()
				nGames++
				poss += int64(len(ps))
				if cfg.Progress != nil && time.Since(lastProg) > 3*time.Second {
					lastProg = time.Now()
					el := time.Since(start).Seconds()
					fmt.Fprintf(cfg.Progress, "eval: %d games, %d positions, %.0f positions/s\n", nGames, poss, float64(poss)/el)
				}
				progMu.Unlock()
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if readErr != nil {
		return nil, readErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rep := newReport(&cfg)
	for _, w := range ws {
		rep.merge(w.acc)
	}
	rep.Skipped = skipped.m
	rep.Warnings = warnings
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

// onScale returns copies of a game's positions (played on site) with the
// players' ratings on m's scale (nil = as the PGN gives them); the copies
// share the boards.
func onScale(raw []Position, m *games.RatingMap, site games.Platform) []*Position {
	ps := make([]*Position, len(raw))
	for i := range raw {
		p := raw[i]
		if m != nil {
			p.MoverRating, p.OppRating = m.Whole(site, p.Class, p.MoverRating), m.Whole(site, p.Class, p.OppRating)
			if p.MoverRating >= 0 {
				p.Ctx.MoverRating = float32(p.MoverRating)
			}
			if p.OppRating >= 0 {
				p.Ctx.OppRating = float32(p.OppRating)
			}
		}
		ps[i] = &p
	}
	return ps
}

type skipCounts struct {
	m map[string]int64
}

func (s *skipCounts) add(reason string) {
	if s.m == nil {
		s.m = map[string]int64{}
	}
	s.m[reason]++
}

// job is one game to score and the input it came from.
type job struct {
	g   *pgn.Game
	src int // index of the input in Config.Inputs
}

// readGames streams the inputs, filters games and sends copies to jobs. A
// file that breaks off (truncated or corrupt) keeps the games read before
// the break and gives a warning; reading goes on with the next file.
func readGames(ctx context.Context, cfg *Config, jobs chan<- job, skipped *skipCounts) (warnings []string, err error) {
	var n int64
	for src, path := range cfg.Inputs {
		rc, err := pgn.Open(path)
		if err != nil {
			return warnings, fmt.Errorf("eval: %w", err)
		}
		r := pgn.NewReader(rc)
		for {
			g, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if errors.Is(err, pgn.ErrCorrupt) {
				warnings = append(warnings, fmt.Sprintf("%v; the %d games read before the break are kept", err, r.Stats().Games))
				break
			}
			if err != nil {
				_ = rc.Close() // the read error is the one to report
				return warnings, fmt.Errorf("eval: %s: %w", path, err)
			}
			switch {
			case !InSplit(g, cfg.Split, cfg.ValFraction):
				skipped.add("other split")
				continue
			case !g.Standard():
				skipped.add("variant or set-up position")
				continue
			case !cfg.KeepBots && isBot(g):
				skipped.add("BOT account")
				continue
			case !cfg.KeepUnrated && (g.WhiteElo < 0 || g.BlackElo < 0):
				skipped.add("rating unknown")
				continue
			case len(g.Moves) == 0:
				skipped.add("no moves")
				continue
			}
			c := g.Clone() // the PGN's ratings: each scale maps copies of its positions (onScale)
			select {
			case jobs <- job{g: c, src: src}:
			case <-ctx.Done():
				_ = rc.Close() // cancelled: nothing more to read
				return warnings, nil
			}
			n++
			if cfg.MaxGames > 0 && n >= cfg.MaxGames {
				return warnings, rc.Close()
			}
		}
		if err := rc.Close(); err != nil {
			return warnings, fmt.Errorf("eval: %s: %w", path, err)
		}
	}
	return warnings, nil
}

// nan is a NaN for "no value".
var nan = math.NaN()
