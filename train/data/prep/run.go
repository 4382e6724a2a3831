package prep

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/train/data/games"
	"github.com/humchess/humchess/train/data/pgn"
	"github.com/humchess/humchess/train/data/shard"
)

// ErrOutputExists reports an output directory that already holds a shard set
// (or shards) when Config.Force is not set.
var ErrOutputExists = errors.New("prep: output directory already holds shards (use -force to replace them)")

// ErrNoPositions reports a run that kept no position (no games in the
// inputs, or every game filtered out): it writes no manifest, as an empty
// set is of no use to the trainer.
var ErrNoPositions = errors.New("prep: no position kept")

// Summary is the outcome of a prep run; it is also saved in the manifest's stats.
type Summary struct {
	GamesSeen     int64                  `json:"games_seen"`     // games in the input, malformed ones included
	GamesDecoded  int64                  `json:"games_decoded"`  // games that passed every game filter and were replayed
	GamesKept     int64                  `json:"games_kept"`     // games with at least one kept position
	PositionsSeen int64                  `json:"positions_seen"` // positions of the replayed games (illegal-move games excluded)
	PositionsKept int64                  `json:"positions_kept"` // records written
	Counts        map[string]shard.Count `json:"counts"`         // kept games and positions per split
	Skipped       map[string]int64       `json:"skipped"`        // games ("game:", "pgn:") and positions ("position:") by reason
	Shards        int                    `json:"shards"`         // shard files written
	Seconds       float64                `json:"seconds"`        // wall time
	Workers       int                    `json:"workers"`        // decoding goroutines used
	// Teacher labelling (Config.Teacher); zero without a teacher.
	Teacher          string  `json:"teacher,omitempty"`           // the teacher net's name (nets.Info.Name)
	TeacherPositions int64   `json:"teacher_positions,omitempty"` // positions labelled (every kept position)
	TeacherSeconds   float64 `json:"teacher_seconds,omitempty"`   // time spent in the net's Evaluate, summed over workers
	TeacherEvalWDL   int64   `json:"teacher_eval_wdl,omitempty"`  // positions whose win/draw/loss came from the game's evaluation (Config.WDLEvals)
}

// GamesPerSecond returns the input games read per second of wall time.
func (s *Summary) GamesPerSecond() float64 { return float64(s.GamesSeen) / max(s.Seconds, 1e-9) }

// PositionsPerSecond returns the positions replayed per second of wall time.
func (s *Summary) PositionsPerSecond() float64 {
	return float64(s.PositionsSeen) / max(s.Seconds, 1e-9)
}

// WriteText writes a human-readable summary.
func (s *Summary) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "games: %d read, %d decoded, %d kept\n", s.GamesSeen, s.GamesDecoded, s.GamesKept)
	fmt.Fprintf(&b, "positions: %d seen, %d kept\n", s.PositionsSeen, s.PositionsKept)
	for _, split := range []string{shard.SplitTrain, shard.SplitValidation} {
		c := s.Counts[split]
		fmt.Fprintf(&b, "  %-10s %9d games %11d positions\n", split, c.Games, c.Positions)
	}
	keys := slicesSorted(s.Skipped)
	if len(keys) > 0 {
		fmt.Fprintf(&b, "skipped:\n")
	}
	for _, k := range keys {
		fmt.Fprintf(&b, "  %-40s %10d\n", k, s.Skipped[k])
	}
	fmt.Fprintf(&b, "%d shards, %.1f s, %.0f games/s, %.0f positions/s (%d workers)\n",
		s.Shards, s.Seconds, s.GamesPerSecond(), s.PositionsPerSecond(), s.Workers)
	if s.Teacher != "" {
		fmt.Fprintf(&b, "teacher %s: %d positions labelled, %.0f labelled/s, %.3f ms per position in the net (per worker)\n",
			s.Teacher, s.TeacherPositions, float64(s.TeacherPositions)/max(s.Seconds, 1e-9),
			1000*s.TeacherSeconds/max(float64(s.TeacherPositions), 1))
		if s.TeacherEvalWDL > 0 {
			fmt.Fprintf(&b, "win/draw/loss from the games' evaluations: %d positions (%.1f%%)\n",
				s.TeacherEvalWDL, 100*float64(s.TeacherEvalWDL)/float64(max(s.TeacherPositions, 1)))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func slicesSorted(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// manifestStats is what prep stores in Manifest.Stats.
type manifestStats struct {
	Summary       *Summary       `json:"summary"`
	Distributions *Distributions `json:"distributions"`
}

// batch is a run of consecutive games, the unit of work and of ordering.
type batch struct {
	seq   int64
	jobs  []gameJob
	outs  []gameOut
	clock [2]Hist // before, after (from the worker)
}

const batchGames = 32 // games per batch

// counters are read by the progress bar while the run goes on.
type counters struct {
	gamesSeen, gamesDecoded, posSeen, posKept, gamesSkipped atomic.Int64
	labelled                                                atomic.Int64 // positions labelled by the teacher
	teacher                                                 bool         // a teacher labels positions (set before the run)
}

// Run reads the configured PGN inputs and writes a shard set to cfg.Out. The
// output is the same, shard for shard, whatever the number of workers: games
// are numbered in input order and written in that order. Progress goes to log
// when it is a terminal and cfg.Quiet is false. On error or cancellation no
// manifest is written, so the partial output never opens as a shard set.
// With cfg.Teacher every record also carries the teacher net's move
// distribution (see the package doc).
func Run(ctx context.Context, cfg Config, log io.Writer) (*Summary, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rmap, err := games.LoadRatingMap(cfg.RatingMap)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	start := time.Now()
	if cfg.Workers == 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	teachers, err := openTeachers(&cfg)
	if err != nil {
		return nil, err
	}
	defer closeTeachers(teachers)
	if err := checkInputs(cfg.Inputs); err != nil {
		return nil, err
	}
	created, err := prepareOut(&cfg)
	if err != nil {
		return nil, err
	}
	sum, err := run(ctx, cfg, rmap, log, start, teachers)
	if err != nil && created {
		_ = os.Remove(cfg.Out) // removes the directory this run made only if nothing is left in it
	}
	return sum, err
}

// checkInputs opens every input file (not stdin) before anything is
// written, so that a missing or unreadable file leaves no output behind. A
// named pipe or other non-regular file is only checked to exist: opening it
// here would consume what its writer sends (prep <(zstd -dc ...)).
func checkInputs(inputs []string) error {
	for _, path := range inputs {
		if path == "-" {
			continue
		}
		fi, err := os.Stat(path)
		if err != nil {
			return fmt.Errorf("prep: input %s: %w", path, err)
		}
		if !fi.Mode().IsRegular() {
			continue
		}
		rc, err := pgn.Open(path)
		if err != nil {
			return fmt.Errorf("prep: input %s: %w", path, err)
		}
		_ = rc.Close() // opened only to check it; read-only
	}
	return nil
}

// run is Run once the inputs are checked and the output prepared.
func run(ctx context.Context, cfg Config, rmap *games.RatingMap, log io.Writer, start time.Time, teachers []*teacher) (*Summary, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	var cnt counters
	cnt.teacher = teachers != nil
	dist := newDistributions()
	skipped := map[string]int64{}
	f := newFilter(&cfg)

	jobs := make(chan *batch, cfg.Workers*2)
	done := make(chan *batch, cfg.Workers*2)
	tokens := make(chan struct{}, cfg.Workers*4) // batches in flight, bounds the reorder buffer

	// reader
	var readErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(jobs)
		readErr = readInputs(ctx, &cfg, rmap, f, dist, skipped, &cnt, jobs, tokens)
		if readErr != nil {
			cancel(readErr)
		}
	}()
	// workers
	var wwg sync.WaitGroup
	for k := range cfg.Workers {
		wwg.Add(1)
		go func() {
			defer wwg.Done()
			w := newWorker(&cfg)
			if teachers != nil {
				w.teach = teachers[k]
			}
			for b := range jobs {
				w.clockBefore, w.clockAfter = newClockHist(""), newClockHist("")
				b.outs = make([]gameOut, len(b.jobs))
				for i := range b.jobs {
					w.process(&b.jobs[i], &b.outs[i])
					cnt.posSeen.Add(b.outs[i].seen)
					cnt.posKept.Add(int64(len(b.outs[i].ends)))
				}
				b.clock = [2]Hist{w.clockBefore, w.clockAfter}
				if w.teach != nil {
					n, err := w.teach.label(ctx, b)
					if err != nil {
						cancel(err)
						return
					}
					cnt.labelled.Add(n)
				}
				select {
				case done <- b:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() { wwg.Wait(); close(done) }()

	stopProgress := startProgress(log, cfg.Quiet, &cnt, start)
	sum, infos, werr := writeBatches(ctx, &cfg, done, tokens, dist)
	if werr != nil {
		cancel(werr)
	}
	// drain so that the goroutines finish
	for range done {
	}
	wg.Wait()
	stopProgress()
	if werr == nil {
		werr = readErr
	}
	if werr == nil && ctx.Err() != nil {
		werr = context.Cause(ctx)
	}
	if werr != nil {
		return nil, werr
	}

	sum.GamesSeen = cnt.gamesSeen.Load()
	sum.GamesDecoded = cnt.gamesDecoded.Load()
	sum.Workers = cfg.Workers
	for k, v := range skipped {
		sum.Skipped[k] += v
	}
	sum.Shards = len(infos)
	sum.Seconds = time.Since(start).Seconds()
	if sum.PositionsKept == 0 {
		var why []string
		for _, k := range slicesSorted(sum.Skipped) {
			why = append(why, fmt.Sprintf("%s %d", k, sum.Skipped[k]))
		}
		reasons := ""
		if len(why) > 0 {
			reasons = "; skipped: " + strings.Join(why, ", ")
		}
		return nil, fmt.Errorf("%w: %d games read from %s%s; no manifest written", ErrNoPositions, sum.GamesSeen, strings.Join(cfg.Inputs, " "), reasons)
	}
	var teacherInfo *shard.Teacher
	if teachers != nil {
		sum.Teacher = teachers[0].name()
		sum.TeacherPositions = cnt.labelled.Load()
		for _, t := range teachers {
			sum.TeacherSeconds += t.evaluated.Seconds()
			sum.TeacherEvalWDL += t.fromEvals
		}
		if sum.TeacherPositions != sum.PositionsKept {
			return nil, fmt.Errorf("prep: teacher labelled %d positions, %d kept", sum.TeacherPositions, sum.PositionsKept)
		}
		teacherInfo = teachers[0].info(cfg.Teacher, sum.TeacherPositions)
	}

	if cfg.Plots {
		if err := writePlots(cfg.Out, dist); err != nil {
			return nil, err
		}
	}
	cfgJSON, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("prep: %w", err)
	}
	stats, err := json.Marshal(manifestStats{Summary: sum, Distributions: dist})
	if err != nil {
		return nil, fmt.Errorf("prep: %w", err)
	}
	m := &shard.Manifest{
		ContractVersion: board.ContractVersion,
		Created:         time.Now().UTC(),
		Tool:            "humchess prep",
		Config:          cfgJSON,
		Counts:          sum.Counts,
		Skipped:         sum.Skipped,
		Stats:           stats,
		Teacher:         teacherInfo,
		Shards:          infos,
	}
	if err := shard.WriteManifest(cfg.Out, m); err != nil {
		return nil, err
	}
	return sum, nil
}

// openTeachers opens one teacher per worker (nil without Config.Teacher).
func openTeachers(cfg *Config) ([]*teacher, error) {
	if cfg.Teacher == "" {
		return nil, nil
	}
	batch := cfg.TeacherBatch
	if batch == 0 {
		batch = DefaultTeacherBatch
	}
	members, err := TeacherMembers(cfg.Teacher)
	if err != nil {
		return nil, fmt.Errorf("prep: teacher: %w", err)
	}
	files := make([][]BandNet, len(members))
	for k, m := range members {
		if files[k], err = teacherFiles(m.Spec); err != nil {
			return nil, fmt.Errorf("prep: teacher: %w", err)
		}
	}
	ts := make([]*teacher, 0, cfg.Workers)
	for range cfg.Workers {
		t := &teacher{batch: batch}
		ts = append(ts, t)
		for k, m := range members {
			mem := &member{weight: m.Weight}
			t.members = append(t.members, mem)
			for _, f := range files[k] {
				n, err := cfg.OpenTeacher(f.File)
				if err != nil {
					closeTeachers(ts)
					return nil, fmt.Errorf("prep: teacher %s: %w", f.File, err)
				}
				mem.bands = append(mem.bands, bandNet{net: n, BandNet: f})
			}
		}
	}
	return ts, nil
}

func closeTeachers(ts []*teacher) {
	for _, t := range ts {
		for _, m := range t.members {
			for _, b := range m.bands {
				_ = b.net.Close() // nothing to do about a failed close of a read-only net
			}
		}
	}
}

// prepareOut creates the output directory, refusing (without Force) one that
// holds shards, and with Force removing the old manifest first and then the
// old shards, so a killed rerun can never leave an old manifest over new shards.
// created says the directory did not exist before.
func prepareOut(cfg *Config) (created bool, err error) {
	if _, err := os.Stat(cfg.Out); errors.Is(err, os.ErrNotExist) {
		created = true
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return false, fmt.Errorf("prep: %w", err)
	}
	entries, err := os.ReadDir(cfg.Out)
	if err != nil {
		return created, fmt.Errorf("prep: %w", err)
	}
	var old []string
	for _, e := range entries {
		n := e.Name()
		if n == shard.ManifestName || strings.HasSuffix(n, ".shard") || strings.HasSuffix(n, ".shard.tmp") || strings.HasSuffix(n, ".json.tmp") {
			old = append(old, n)
		}
	}
	if len(old) == 0 {
		return created, nil
	}
	if !cfg.Force {
		return false, fmt.Errorf("%w: %s", ErrOutputExists, cfg.Out)
	}
	if err := shard.RemoveManifest(cfg.Out); err != nil {
		return false, err
	}
	for _, n := range old {
		if err := os.Remove(filepath.Join(cfg.Out, n)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return false, fmt.Errorf("prep: %w", err)
		}
	}
	return false, nil
}

// readInputs is the reader goroutine: it reads every input in turn, applies
// the game filters (headers first, so that rejected games cost no movetext
// parsing and no SAN decoding) and sends batches of games in order.
func readInputs(ctx context.Context, cfg *Config, rmap *games.RatingMap, f *filter, dist *Distributions, skipped map[string]int64,
	cnt *counters, jobs chan<- *batch, tokens chan<- struct{}) error {
	var seq int64
	cur := &batch{}
	send := func() error {
		if len(cur.jobs) == 0 {
			return nil
		}
		cur.seq = seq
		seq++
		select {
		case tokens <- struct{}{}:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
		select {
		case jobs <- cur:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
		cur = &batch{}
		return nil
	}
	skip := func(reason string) {
		skipped[reason]++
		cnt.gamesSkipped.Add(1)
	}
	var seen int64
	for _, path := range cfg.Inputs {
		rc, err := pgn.Open(path)
		if err != nil {
			return err
		}
		f.setSource(path)
		r := pgn.NewReader(rc)
		var parseFails int64
		for {
			if cfg.MaxGames > 0 && seen >= cfg.MaxGames {
				break
			}
			if seen%64 == 0 && ctx.Err() != nil {
				rc.Close()
				return context.Cause(ctx)
			}
			g, err := r.NextHeaders()
			if errors.Is(err, io.EOF) {
				break
			}
			if errors.Is(err, pgn.ErrCorrupt) {
				rc.Close()
				return fmt.Errorf("prep: %w; no manifest written, the output is not a complete set", err)
			}
			if err != nil {
				rc.Close()
				return fmt.Errorf("prep: %s: %w", path, err)
			}
			seen++
			cnt.gamesSeen.Add(1)
			for _, e := range [2]int{g.WhiteElo, g.BlackElo} {
				if e >= 0 {
					dist.RatingBefore.Add(float64(e))
				}
			}
			dist.ClassBefore.AddBin(int(games.ClassOf(g.TimeControl)), 1)
			id := games.ID(g)
			if reason := f.headerReason(g, id); reason != "" {
				skip(reason)
				continue
			}
			if err := g.ParseMoves(); err != nil {
				parseFails++ // counted in the reader's stats, added below
				continue
			}
			if len(g.Moves) < cfg.MinPlies {
				skip(ReasonFewPlies)
				continue
			}
			if reason := f.capReason(g.WhiteElo, g.BlackElo); reason != "" {
				skip(reason)
				continue
			}
			cnt.gamesDecoded.Add(1)
			rmap.ApplyGame(g) // after the rating filters, which read the PGN's ratings
			job := newJob(g, id, games.IsValidation(id, cfg.ValFraction))
			if cfg.WDLEvals {
				job.evals = slices.Clone(g.Evals)
			}
			cur.jobs = append(cur.jobs, job)
			if len(cur.jobs) == batchGames {
				if err := send(); err != nil {
					rc.Close()
					return err
				}
			}
		}
		st := r.Stats()
		for k, v := range st.Skipped {
			skipped[ReasonPGN+k] += v
		}
		// games skipped before NextHeaders returned them (bad tags, too large)
		cnt.gamesSeen.Add(st.SkippedTotal() - parseFails)
		cnt.gamesSkipped.Add(st.SkippedTotal())
		if err := rc.Close(); err != nil {
			return fmt.Errorf("prep: %s: %w", path, err)
		}
		if cfg.MaxGames > 0 && seen >= cfg.MaxGames {
			break
		}
	}
	return send()
}

// writeBatches is the writer: it puts batches back in input order and appends
// their records to the split writers.
func writeBatches(ctx context.Context, cfg *Config, done <-chan *batch, tokens <-chan struct{}, dist *Distributions) (*Summary, []shard.Info, error) {
	comp := shard.CompressZstd
	if cfg.Compression == "none" {
		comp = shard.CompressNone
	}
	opts := shard.SplitOptions{
		WriterOptions: shard.WriterOptions{ContractVersion: board.ContractVersion, Compression: comp},
		MaxBytes:      int64(cfg.ShardMB) << 20,
		MaxRecords:    cfg.ShardRecords,
	}
	writers := map[bool]*shard.SplitWriter{
		false: shard.NewSplitWriter(cfg.Out, shard.SplitTrain, opts),
		true:  shard.NewSplitWriter(cfg.Out, shard.SplitValidation, opts),
	}
	abort := func() {
		for _, w := range writers {
			w.Abort()
		}
	}
	sum := &Summary{Counts: map[string]shard.Count{shard.SplitTrain: {}, shard.SplitValidation: {}}, Skipped: map[string]int64{}}
	pending := map[int64]*batch{}
	var next int64
	for b := range done {
		pending[b.seq] = b
		for {
			b, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			<-tokens
			dist.ClockBefore.Merge(&b.clock[0])
			dist.ClockAfter.Merge(&b.clock[1])
			for i := range b.jobs {
				j, o := &b.jobs[i], &b.outs[i]
				if o.badMove {
					sum.Skipped[ReasonBadMove]++
					continue
				}
				sum.PositionsSeen += o.seen
				for k, n := range o.skipped {
					if n > 0 {
						sum.Skipped[positionReasons[k]] += n
					}
				}
				if len(o.ends) == 0 {
					continue
				}
				w := writers[j.val]
				start := int32(0)
				for _, end := range o.ends {
					if err := w.Append(o.data[start:end]); err != nil {
						abort()
						return nil, nil, err
					}
					start = end
				}
				split := shard.SplitTrain
				if j.val {
					split = shard.SplitValidation
				}
				c := sum.Counts[split]
				c.Games++
				c.Positions += int64(len(o.ends))
				sum.Counts[split] = c
				sum.GamesKept++
				sum.PositionsKept += int64(len(o.ends))
				dist.RatingAfter.Add(float64(j.whiteElo))
				dist.RatingAfter.Add(float64(j.blackElo))
				dist.ClassAfter.AddBin(int(j.class), 1)
			}
		}
		if ctx.Err() != nil {
			abort()
			return nil, nil, context.Cause(ctx)
		}
	}
	if ctx.Err() != nil {
		abort()
		return nil, nil, context.Cause(ctx)
	}
	var infos []shard.Info
	for _, val := range []bool{false, true} {
		in, err := writers[val].Close()
		if err != nil {
			abort()
			return nil, nil, err
		}
		infos = append(infos, in...)
	}
	return sum, infos, nil
}
