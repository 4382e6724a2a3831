package selfplay

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/humchess/humchess/nets"
	"github.com/humchess/humchess/train/data/pgn"
)

// ErrExists means the output file exists and Config.Force is not set.
var ErrExists = errors.New("selfplay: output file exists (use -force to replace it)")

// Summary is what a run did.
type Summary struct {
	Out          string         `json:"out"`           // the PGN written
	Games        int            `json:"games"`         // games written
	Plies        int64          `json:"plies"`         // moves the nets played, openings excluded
	OpeningPlies int64          `json:"opening_plies"` // moves of the openings
	Results      map[string]int `json:"results"`       // games by Result tag
	Ends         map[string]int `json:"ends"`          // games by how they ended: checkmate, threefold repetition, ..., adjudication win/draw, unterminated
	Nets         []string       `json:"nets"`          // the nets' names, by band
	Openings     int            `json:"openings"`      // openings read (real games long enough)
	Seconds      float64        `json:"seconds"`       // wall time of the play
}

// PliesPerSecond is the moves the nets played per second of wall time.
func (s *Summary) PliesPerSecond() float64 { return float64(s.Plies) / max(s.Seconds, 1e-9) }

// WriteText writes the summary for a person.
func (s *Summary) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "selfplay: %d games to %s in %.1fs: %d plies by the nets (%.1f/s), %d opening plies, %.1f plies a game\n",
		s.Games, s.Out, s.Seconds, s.Plies, s.PliesPerSecond(), s.OpeningPlies,
		float64(s.Plies+s.OpeningPlies)/max(float64(s.Games), 1))
	fmt.Fprintf(&b, "  results: %s\n", counts(s.Results))
	fmt.Fprintf(&b, "  ends: %s\n", counts(s.Ends))
	_, err := io.WriteString(w, b.String())
	return err
}

// counts writes a map as "k n, k n" by key.
func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// endKind is how a finished game ended, for Summary.Ends.
func endKind(gm *game) string {
	switch gm.termination {
	case TermAdjudication:
		if gm.result == Draw {
			return "adjudication draw"
		}
		return "adjudication win"
	case TermUnterminated:
		return "unterminated"
	}
	return gm.g.Status().String()
}

// block is the PGN of one block of games, for the writer.
type block struct {
	n     int // block number
	pgn   []byte
	games []*game
}

// Run plays cfg.Games self-play games and writes them to cfg.Out, in the
// order of their index, through a temporary file in the same directory
// renamed at the end. It logs the configuration, and a progress line when
// cfg.Quiet is false, to log. When play fails or ctx is cancelled, the
// games written so far (whole games, the first ones in index order) are
// still renamed to cfg.Out, and the error says so; with none, no file is
// left.
func Run(ctx context.Context, cfg Config, log io.Writer) (*Summary, error) {
	if log == nil {
		log = io.Discard
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	bands, err := Bands(cfg.Net)
	if err != nil {
		return nil, err
	}
	if !cfg.Force {
		if _, err := os.Stat(cfg.Out); err == nil {
			return nil, fmt.Errorf("%w: %s", ErrExists, cfg.Out)
		} else if !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("selfplay: %w", err)
		}
	}
	openings, err := LoadOpenings(cfg.Openings, cfg.OpeningPlies, cfg.ValFraction)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "selfplay: config %s\n", cfg.JSON())
	byWorker, err := openNets(&cfg, bands)
	if err != nil {
		return nil, err
	}
	defer closeNets(byWorker)
	names := make([]string, len(bands))
	var used []string
	for k, n := range byWorker[0] {
		if n == nil {
			continue
		}
		i := n.Info()
		names[k] = i.Name
		used = append(used, i.Name)
		if !i.HasWDL && cfg.AdjudicatePlies > 0 {
			fmt.Fprintf(log, "selfplay: %s has no win/draw/loss head: its games are never adjudicated\n", i.Name)
		}
	}
	fmt.Fprintf(log, "selfplay: %d openings of %d plies; nets %s\n", len(openings), cfg.OpeningPlies, strings.Join(used, ", "))

	f, err := os.CreateTemp(filepath.Dir(cfg.Out), filepath.Base(cfg.Out)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("selfplay: %w", err)
	}
	sum := &Summary{Out: cfg.Out, Results: map[string]int{}, Ends: map[string]int{}, Nets: used, Openings: len(openings)}
	start := time.Now()
	var prog progress
	prog.total = int64(cfg.Games)
	stopProgress := startProgress(log, cfg.Quiet, &prog, start)
	out := bufio.NewWriterSize(f, 1<<20)
	var ioErr error // a failed write: the file cannot be trusted
	playErr := play(ctx, &cfg, byWorker, openings, bands, names, &prog, func(b *block) error {
		if _, err := out.Write(b.pgn); err != nil {
			ioErr = err
			return fmt.Errorf("selfplay: %w", err)
		}
		for _, gm := range b.games {
			sum.Games++
			sum.Plies += int64(gm.g.Ply() - gm.opening)
			sum.OpeningPlies += int64(gm.opening)
			sum.Results[gm.result]++
			sum.Ends[endKind(gm)]++
		}
		return nil
	})
	stopProgress()
	sum.Seconds = time.Since(start).Seconds()
	if err := out.Flush(); err != nil && ioErr == nil {
		ioErr = err
	}
	if ioErr != nil || (playErr != nil && sum.Games == 0) {
		_ = f.Close()           // the write or play error is the one to report
		_ = os.Remove(f.Name()) // nothing worth keeping
		if ioErr != nil {
			return sum, fmt.Errorf("selfplay: writing %s: %w", f.Name(), ioErr)
		}
		return sum, playErr
	}
	if err := commit(f, &cfg); err != nil {
		return sum, err
	}
	if playErr != nil {
		return sum, fmt.Errorf("%w (the first %d games, whole, are in %s)", playErr, sum.Games, cfg.Out)
	}
	return sum, nil
}

// commit closes the temporary file f and renames it to cfg.Out.
func commit(f *os.File, cfg *Config) error {
	fail := func(err error) error {
		_ = f.Close()           // the first error is the one to report
		_ = os.Remove(f.Name()) // a half-written temporary file is of no use
		return fmt.Errorf("selfplay: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Chmod(0o644); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		_ = os.Remove(f.Name()) // as in fail
		return fmt.Errorf("selfplay: %w", err)
	}
	if !cfg.Force {
		if _, err := os.Stat(cfg.Out); err == nil { // made while the games were played
			return fmt.Errorf("%w: %s (the games are in %s)", ErrExists, cfg.Out, f.Name())
		}
	}
	if err := os.Rename(f.Name(), cfg.Out); err != nil {
		return fmt.Errorf("selfplay: %w (the games are in %s)", err, f.Name())
	}
	return nil
}

// openNets opens, for each worker, the net of every band a rating of
// cfg.Ratings picks (nil for the others).
func openNets(cfg *Config, bands []Band) ([][]nets.Net, error) {
	need := make([]bool, len(bands))
	// PickBand is monotone in the rating: the bands between the ends' are
	// the ones picked.
	for k := PickBand(bands, cfg.Ratings.Lo); k <= PickBand(bands, cfg.Ratings.Hi); k++ {
		need[k] = true
	}
	out := make([][]nets.Net, 0, cfg.Workers)
	for range cfg.Workers {
		ns := make([]nets.Net, len(bands))
		out = append(out, ns)
		for k, b := range bands {
			if !need[k] {
				continue
			}
			n, err := cfg.OpenNet(b.File)
			if err != nil {
				closeNets(out)
				return nil, fmt.Errorf("%w: %s: %v", ErrNets, b.File, err)
			}
			ns[k] = n
		}
	}
	return out, nil
}

func closeNets(byWorker [][]nets.Net) {
	for _, ns := range byWorker {
		for _, n := range ns {
			if n != nil {
				_ = n.Close() // nothing to do about a failed close of a read-only net
			}
		}
	}
}

// play plays the games, a block of cfg.Batch consecutive games at a time
// per worker, and hands the blocks to write in block order until write
// fails. It returns the first error, or ctx's when it is cancelled first.
func play(ctx context.Context, cfg *Config, byWorker [][]nets.Net, openings []Opening, bands []Band, names []string,
	prog *progress, write func(*block) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	tc := pgn.ParseTimeControl(cfg.TimeControl)
	blocks := (cfg.Games + cfg.Batch - 1) / cfg.Batch
	jobs := make(chan int)
	results := make(chan *block, len(byWorker))
	go func() {
		defer close(jobs)
		for n := range blocks {
			select {
			case jobs <- n:
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for _, ns := range byWorker {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range jobs {
				b, err := playOne(ctx, cfg, n, ns, openings, bands, names, tc, prog)
				if err != nil {
					cancel(err)
					return
				}
				select {
				case results <- b:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()

	pending := map[int]*block{}
	next := 0
	failed := false
	for b := range results { // drained to the end, so that no worker blocks
		pending[b.n] = b
		for !failed && pending[next] != nil {
			if err := write(pending[next]); err != nil {
				cancel(err)
				failed = true
				break
			}
			delete(pending, next)
			next++
		}
	}
	if next == blocks {
		return nil
	}
	if err := context.Cause(ctx); err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("selfplay: interrupted: %w", err)
		}
		return err
	}
	return fmt.Errorf("selfplay: %d of %d blocks written", next, blocks) // every block is written or an error is set: cannot happen
}

// playOne plays block n with the worker's nets and returns its PGN.
func playOne(ctx context.Context, cfg *Config, n int, ns []nets.Net, openings []Opening, bands []Band, names []string,
	tc pgn.TimeControl, prog *progress) (*block, error) {
	lo, hi := n*cfg.Batch, min((n+1)*cfg.Batch, cfg.Games)
	b := &block{n: n, games: make([]*game, 0, hi-lo)}
	for i := lo; i < hi; i++ {
		gm, err := newGame(cfg, i, openings, bands, tc)
		if err != nil {
			return nil, err
		}
		b.games = append(b.games, gm)
	}
	err := playBlock(ctx, cfg, ns, b.games, func(k int) { prog.plies.Add(int64(k)) }, func(*game) { prog.games.Add(1) })
	if err != nil {
		return nil, err
	}
	for _, gm := range b.games {
		if b.pgn, err = appendPGN(b.pgn, cfg, gm, names); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// progress counts what the workers have done, for the progress line.
type progress struct {
	total        int64 // games to play
	games, plies atomic.Int64
}
