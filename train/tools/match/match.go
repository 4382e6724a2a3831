package match

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/uci/client"
)

// ErrConfig means a match configuration is invalid.
var ErrConfig = errors.New("match: bad config")

// EngineSpec says how to start one engine.
type EngineSpec struct {
	Name    string          // shown in the PGN and the report; "" = the engine's "id name"
	Path    string          // the program
	Args    []string        // its arguments
	Options []client.Option // setoption lines sent at start
	// Elo is written as the engine's WhiteElo/BlackElo in the PGN (0 = the
	// UCI_Elo option when one is set, else none), so that rating-band
	// statistics can be taken over engine games.
	Elo int
}

// elo returns the rating to write in the PGN, 0 for none.
func (s EngineSpec) elo() int {
	if s.Elo > 0 {
		return s.Elo
	}
	for _, o := range s.Options {
		if strings.EqualFold(o.Name, "UCI_Elo") {
			if v, err := strconv.Atoi(strings.TrimSpace(o.Value)); err == nil && v > 0 {
				return v
			}
		}
	}
	return 0
}

// TimeControl limits each move: a clock (Base, Inc), or a fixed node count,
// depth or move time. With no clock the referee still waits at most
// MoveTime + StallTimeout for a move.
type TimeControl struct {
	Base     time.Duration // clock at the start; 0 = no clock
	Inc      time.Duration // added after each move
	Nodes    int64         // go nodes N
	Depth    int           // go depth N
	MoveTime time.Duration // go movetime N
}

// Clock reports whether moves are played on a clock.
func (tc TimeControl) Clock() bool { return tc.Base > 0 }

// String is the PGN TimeControl value: "base+inc" in seconds, or "-" when
// there is no clock.
func (tc TimeControl) String() string {
	if !tc.Clock() {
		return "-"
	}
	s := strconv.FormatFloat(tc.Base.Seconds(), 'f', -1, 64)
	if tc.Inc > 0 {
		s += "+" + strconv.FormatFloat(tc.Inc.Seconds(), 'f', -1, 64)
	}
	return s
}

// ParseTimeControl parses "base+inc" in seconds ("60+1", "10+0.1", "180").
func ParseTimeControl(s string) (TimeControl, error) {
	base, inc, hasInc := strings.Cut(strings.TrimSpace(s), "+")
	b, err := strconv.ParseFloat(base, 64)
	if err != nil || !(b > 0) || math.IsInf(b, 0) {
		return TimeControl{}, fmt.Errorf("%w: time control %q: want base+inc in seconds", ErrConfig, s)
	}
	tc := TimeControl{Base: time.Duration(b * float64(time.Second))}
	if hasInc {
		i, err := strconv.ParseFloat(inc, 64)
		if err != nil || i < 0 || math.IsInf(i, 0) {
			return TimeControl{}, fmt.Errorf("%w: time control %q: bad increment", ErrConfig, s)
		}
		tc.Inc = time.Duration(i * float64(time.Second))
	}
	return tc, nil
}

// Adjudication ends a game early on a third engine's evaluation: when the
// evaluation after each of the last Plies plies is at least WinCP
// centipawns for the same side (mate scores count), that side wins.
type Adjudication struct {
	Engine EngineSpec
	Limits client.Limits // e.g. Nodes: 20000
	WinCP  int           // threshold, centipawns
	Plies  int           // consecutive plies beyond the threshold
}

// Config is a whole match.
type Config struct {
	Engines     [2]EngineSpec
	TC          TimeControl
	Games       int           // games to play
	Concurrency int           // games at once; 0 means 1
	Openings    []Opening     // played in order, each twice (colours swapped); none = the initial position
	MaxPlies    int           // a game reaching this many plies (after the opening) is a draw; 0 = no limit
	Margin      time.Duration // time an engine may overstep its clock before forfeiting
	// StallTimeout is how long to wait for an answer beyond what the time
	// control allows (the only limit with Nodes or Depth); 0 means 10 s.
	StallTimeout time.Duration
	Adjudicate   *Adjudication // nil = none
	Event        string        // the PGN Event tag; "" = "HumChess match"
	PGN          io.Writer     // finished games, in the order they finish; nil = none
	Progress     io.Writer     // a progress line per finished game; nil = none
	EngineStderr io.Writer     // the engines' stderr; nil discards it
	// Charge, when set with a clock, is what each move costs on the clock
	// instead of the time the engine took (a virtual clock), given the
	// mover's remaining time and the increment: engines see clocks that
	// run down like a human's (HumanCharge) while they move at their own
	// speed. A move may then take at most MoveTime + Margin + StallTimeout
	// of real time, and nobody loses on time.
	Charge func(remaining, inc time.Duration) time.Duration
	// ThinkClock, with a clock, charges each move the think time the
	// engine reports (ReportedThink: "think D" in an info string, as
	// HumChess prints in debug mode, which the match turns on) plus Lag,
	// instead of the wall time the move took: a loaded machine then slows
	// the match, not the clocks. A move without a reported think is
	// charged its wall time; a clock run below -Margin loses on time.
	ThinkClock bool
	Lag        time.Duration // ThinkClock's charge per move on top of the think
	// ReadyTimeout is how long an engine may take to start and to answer
	// isready (ucinewgame); 0 = the client's defaults (10 s, 5 s).
	ReadyTimeout time.Duration
	// Now is the clock used for PGN dates; nil = time.Now.
	Now func() time.Time
}

func (c *Config) stall() time.Duration {
	if c.StallTimeout > 0 {
		return c.StallTimeout
	}
	return 10 * time.Second
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	bad := func(format string, a ...any) error { return fmt.Errorf("%w: %s", ErrConfig, fmt.Sprintf(format, a...)) }
	switch {
	case c.Engines[0].Path == "" || c.Engines[1].Path == "":
		return bad("both engines need a program")
	case c.Games <= 0:
		return bad("games %d <= 0", c.Games)
	case c.Concurrency < 0:
		return bad("concurrency %d < 0", c.Concurrency)
	case !c.TC.Clock() && c.TC.Nodes <= 0 && c.TC.Depth <= 0 && c.TC.MoveTime <= 0:
		return bad("no time control: set a clock, nodes, depth or movetime")
	case c.TC.Base < 0 || c.TC.Inc < 0 || c.TC.MoveTime < 0 || c.TC.Nodes < 0 || c.TC.Depth < 0:
		return bad("negative time control %+v", c.TC)
	case c.MaxPlies < 0 || c.Margin < 0:
		return bad("max plies %d, margin %v", c.MaxPlies, c.Margin)
	}
	if a := c.Adjudicate; a != nil {
		switch {
		case a.Engine.Path == "":
			return bad("adjudication needs an engine")
		case a.WinCP <= 0 || a.Plies <= 0:
			return bad("adjudication threshold %d cp for %d plies", a.WinCP, a.Plies)
		case a.Limits.Command() == "go infinite":
			return bad("adjudication needs a limit (nodes, depth or movetime)")
		}
	}
	for i, o := range c.Openings {
		if _, err := o.Game(); err != nil {
			return bad("opening %d: %v", i, err)
		}
	}
	return nil
}

// Failure kinds, counted per engine (Summary.Failures); each loses the game.
const (
	FailCrash     = "crash"
	FailStall     = "stall"
	FailTime      = "time forfeit"
	FailIllegal   = "illegal move"
	FailMalformed = "malformed output"
	FailStart     = "restart failed"
)

// GameResult is one finished game.
type GameResult struct {
	Round       int      // 1-based game number
	White       int      // the engine (0 or 1) playing White
	Result      string   // "1-0", "0-1", "1/2-1/2"
	Reason      string   // how it ended: "checkmate", "time forfeit", ...
	Failure     string   // a Fail* kind when an engine failed, else ""
	Culprit     int      // the failing engine (0 or 1), -1 when none
	Detail      string   // the failure's error text
	Plies       int      // plies played after the opening
	Opening     Opening  // where it started
	Moves       []string // every move, UCI, opening included
	Clocks      []time.Duration
	OpeningLen  int // len(Opening.Moves)
	EngineNames [2]string
}

// Summary is the outcome of a match.
type Summary struct {
	Names    [2]string
	Score    Score             // from engine 0's point of view
	Failures [2]map[string]int // per engine, Fail* kind -> count
	Reasons  map[string]int    // how games ended
	Games    int
	Elapsed  time.Duration
}

func newSummary() *Summary {
	return &Summary{Failures: [2]map[string]int{{}, {}}, Reasons: map[string]int{}}
}

func (s *Summary) add(r *GameResult) {
	s.Games++
	s.Reasons[r.Reason]++
	if r.Failure != "" && r.Culprit >= 0 {
		s.Failures[r.Culprit][r.Failure]++
	}
	switch {
	case r.Result == "1/2-1/2":
		s.Score.Draws++
	case (r.Result == "1-0") == (r.White == 0):
		s.Score.Wins++
	default:
		s.Score.Losses++
	}
}

// fmtElo prints an Elo value, "inf"/"-inf" for unbounded ones.
func fmtElo(x float64) string {
	switch {
	case math.IsNaN(x):
		return "n/a"
	case math.IsInf(x, 1):
		return "+inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	return fmt.Sprintf("%+.1f", x)
}

// ResultLine is the one-line result: names, W-D-L, score, Elo with its 95%
// interval and LOS.
func (s *Summary) ResultLine() string {
	d, lo, hi := s.Score.Elo()
	return fmt.Sprintf("%s vs %s: %d games, W-D-L %d-%d-%d, score %.1f%%, Elo %s [%s, %s] (95%%), LOS %.1f%%",
		s.Names[0], s.Names[1], s.Games, s.Score.Wins, s.Score.Draws, s.Score.Losses,
		100*s.Score.Fraction(), fmtElo(d), fmtElo(lo), fmtElo(hi), 100*s.Score.LOS())
}

// WriteText writes the result line, how games ended and each engine's failures.
func (s *Summary) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString(s.ResultLine() + "\n")
	fmt.Fprintf(&b, "  ended by:")
	for _, k := range sortedKeys(s.Reasons) {
		fmt.Fprintf(&b, " %s %d;", k, s.Reasons[k])
	}
	b.WriteString("\n")
	for i := range 2 {
		fmt.Fprintf(&b, "  failures of %s:", s.Names[i])
		if len(s.Failures[i]) == 0 {
			b.WriteString(" none")
		}
		for _, k := range sortedKeys(s.Failures[i]) {
			fmt.Fprintf(&b, " %s %d;", k, s.Failures[i][k])
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "  time %.1f s\n", s.Elapsed.Seconds())
	_, err := io.WriteString(w, b.String())
	return err
}

// Run plays the match. It returns when every game is played or ctx ends
// (then with ctx's error and the games finished so far). Engines that fail
// to start at the beginning of the match are an error; later failures are
// losses for the failing engine.
func Run(ctx context.Context, cfg Config) (*Summary, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	workers := max(cfg.Concurrency, 1)
	workers = min(workers, cfg.Games)
	start := time.Now()
	sum := newSummary()

	// Start every worker's engines first: a misconfigured engine fails the match at once.
	ws := make([]*worker, workers)
	var firstErr error
	for i := range ws {
		ws[i] = &worker{cfg: &cfg}
		if err := ws[i].startAll(ctx); err != nil {
			firstErr = err
			break
		}
	}
	defer func() {
		for _, w := range ws {
			if w != nil {
				w.close()
			}
		}
	}()
	if firstErr != nil {
		return nil, firstErr
	}
	sum.Names = ws[0].names

	jobs := make(chan int)
	results := make(chan *GameResult)
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range jobs {
				r := w.play(ctx, round)
				if r == nil { // ctx ended mid-game
					continue
				}
				results <- r
			}
		}()
	}
	go func() {
		defer close(jobs)
		for round := 1; round <= cfg.Games; round++ {
			select {
			case jobs <- round:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()

	var outErr error
	for r := range results {
		sum.add(r)
		if cfg.PGN != nil && outErr == nil {
			outErr = writePGN(cfg.PGN, &cfg, r)
		}
		if cfg.Progress != nil {
			d, lo, hi := sum.Score.Elo()
			fmt.Fprintf(cfg.Progress, "game %d/%d: %s (%s)  W-D-L %d-%d-%d  Elo %s [%s, %s]\n", sum.Games, cfg.Games,
				r.Result, r.Reason, sum.Score.Wins, sum.Score.Draws, sum.Score.Losses, fmtElo(d), fmtElo(lo), fmtElo(hi))
		}
	}
	sum.Elapsed = time.Since(start)
	if err := ctx.Err(); err != nil {
		return sum, err
	}
	if outErr != nil {
		return sum, fmt.Errorf("match: writing PGN: %w", outErr)
	}
	return sum, nil
}

// worker plays games one after another with its own engine processes.
type worker struct {
	cfg   *Config
	eng   [2]*client.Engine
	adj   *client.Engine
	names [2]string
}

func (w *worker) startEngine(ctx context.Context, s EngineSpec) (*client.Engine, error) {
	return client.Start(ctx, client.Config{Path: s.Path, Args: s.Args, Options: s.Options, Stderr: w.cfg.EngineStderr,
		InitTimeout: w.cfg.ReadyTimeout, ReadyTimeout: w.cfg.ReadyTimeout})
}

func (w *worker) startAll(ctx context.Context) error {
	for i := range 2 {
		e, err := w.startEngine(ctx, w.cfg.Engines[i])
		if err != nil {
			return fmt.Errorf("match: engine %d (%s): %w", i+1, w.cfg.Engines[i].Path, err)
		}
		w.eng[i] = e
		w.names[i] = w.cfg.Engines[i].Name
		if w.names[i] == "" {
			w.names[i] = e.Name()
		}
		if w.names[i] == "" {
			w.names[i] = fmt.Sprintf("engine%d", i+1)
		}
	}
	if w.names[0] == w.names[1] {
		w.names[0] += " (1)"
		w.names[1] += " (2)"
	}
	if a := w.cfg.Adjudicate; a != nil {
		e, err := w.startEngine(ctx, a.Engine)
		if err != nil {
			return fmt.Errorf("match: adjudicator (%s): %w", a.Engine.Path, err)
		}
		w.adj = e
	}
	return nil
}

func (w *worker) close() {
	for _, e := range append(w.eng[:], w.adj) {
		if e != nil {
			_ = e.Close() // Close always succeeds: it kills what does not quit
		}
	}
}

// ensure restarts engine i if it died in an earlier game.
func (w *worker) ensure(ctx context.Context, i int) error {
	if w.eng[i] != nil && w.eng[i].Alive() {
		return nil
	}
	if w.eng[i] != nil {
		_ = w.eng[i].Close() // already dead; Close only reaps it
	}
	e, err := w.startEngine(ctx, w.cfg.Engines[i])
	w.eng[i] = e
	return err
}

// failKind maps a client error to a failure kind.
func failKind(err error, clock bool) string {
	switch {
	case errors.Is(err, client.ErrTimeout) && clock:
		return FailTime
	case errors.Is(err, client.ErrTimeout):
		return FailStall
	case errors.Is(err, client.ErrMalformed):
		return FailMalformed
	case errors.Is(err, client.ErrStart):
		return FailStart
	}
	return FailCrash
}

// play plays game number round (1-based); nil when ctx ended.
func (w *worker) play(ctx context.Context, round int) *GameResult {
	cfg := w.cfg
	white := (round - 1) % 2 // engine 0 is White in odd rounds
	r := &GameResult{Round: round, White: white, Culprit: -1, EngineNames: w.names}
	if len(cfg.Openings) > 0 {
		r.Opening = cfg.Openings[((round-1)/2)%len(cfg.Openings)]
	}
	r.OpeningLen = len(r.Opening.Moves)
	r.Moves = append(r.Moves, r.Opening.Moves...)
	g, err := r.Opening.Game()
	if err != nil { // Validate checked every opening
		return w.lose(r, white, FailStart, err)
	}
	// engineOf[c] is the engine playing colour c.
	engineOf := [2]int{white, 1 - white}
	for c := range 2 {
		i := engineOf[c]
		if err := w.ensure(ctx, i); err != nil {
			return w.lose(r, i, FailStart, err)
		}
		if err := w.eng[i].NewGame(ctx); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return w.lose(r, i, failKind(err, false), err)
		}
		if cfg.ThinkClock {
			if err := w.eng[i].Debug(true); err != nil {
				return w.lose(r, i, FailCrash, err)
			}
		}
	}
	adj := cfg.Adjudicate
	if adj != nil && (w.adj == nil || !w.adj.Alive()) {
		if w.adj != nil {
			_ = w.adj.Close() // already dead; Close only reaps it
		}
		w.adj, err = w.startEngine(ctx, adj.Engine)
		if err != nil {
			w.adj = nil // play on without adjudication
		}
	}
	clocks := [2]time.Duration{cfg.TC.Base, cfg.TC.Base}
	adjSide, adjCount := 0, 0
	for {
		if st := g.Status(); st != board.Ongoing {
			r.Reason = st.String()
			r.Result = "1/2-1/2"
			if st == board.Checkmate {
				r.Result = map[board.Color]string{board.White: "0-1", board.Black: "1-0"}[g.SideToMove()]
			}
			return r
		}
		if cfg.MaxPlies > 0 && r.Plies >= cfg.MaxPlies {
			r.Reason, r.Result = "max plies", "1/2-1/2"
			return r
		}
		side := 0
		if g.SideToMove() == board.Black {
			side = 1
		}
		i := engineOf[side]
		e := w.eng[i]
		if err := e.Position(r.Opening.FEN, r.Moves); err != nil {
			return w.lose(r, i, failKind(err, false), err)
		}
		lim := client.Limits{Nodes: cfg.TC.Nodes, Depth: cfg.TC.Depth, MoveTime: cfg.TC.MoveTime}
		timeout := cfg.TC.MoveTime + cfg.Margin + cfg.stall()
		if cfg.TC.Clock() {
			lim.WTime, lim.BTime, lim.WInc, lim.BInc = clocks[0], clocks[1], cfg.TC.Inc, cfg.TC.Inc
			timeout = clocks[side] + cfg.Margin
			switch {
			case cfg.Charge != nil: // the wall time is not charged, however short the clock
				timeout = cfg.TC.MoveTime + cfg.Margin + cfg.stall()
			case cfg.TC.MoveTime > 0 || cfg.TC.Nodes > 0 || cfg.TC.Depth > 0:
				timeout = min(timeout, cfg.TC.MoveTime+cfg.Margin+cfg.stall())
			case cfg.ThinkClock:
				timeout += cfg.stall() // only the reported think is charged
			}
		}
		res, err := e.Go(ctx, lim, timeout)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			kind := failKind(err, cfg.TC.Clock() && !cfg.ThinkClock && timeout == clocks[side]+cfg.Margin)
			return w.lose(r, i, kind, err)
		}
		if cfg.TC.Clock() && cfg.Charge != nil {
			clocks[side] = max(clocks[side]-cfg.Charge(clocks[side], cfg.TC.Inc), 0) + cfg.TC.Inc
		} else if cfg.TC.Clock() {
			used := res.Elapsed
			if d, ok := ReportedThink(res.Strings); ok && cfg.ThinkClock {
				used = d + cfg.Lag
			}
			left := clocks[side] - used
			if left < -cfg.Margin {
				return w.lose(r, i, FailTime, fmt.Errorf("used %v with %v on the clock", used.Round(time.Millisecond), clocks[side]))
			}
			clocks[side] = max(left, 0) + cfg.TC.Inc
		}
		if err := g.Play(res.BestMove); err != nil {
			return w.lose(r, i, FailIllegal, fmt.Errorf("%s: %v", res.BestMove, err))
		}
		r.Moves = append(r.Moves, res.BestMove)
		r.Clocks = append(r.Clocks, clocks[side])
		r.Plies++
		if adj != nil && w.adj != nil && g.Status() == board.Ongoing {
			winner, ok := w.evaluate(ctx, r, g)
			switch {
			case !ok:
				adjCount = 0
			case winner == adjSide && adjCount > 0:
				adjCount++
			default:
				adjSide, adjCount = winner, 1
			}
			if ok && adjCount >= adj.Plies {
				r.Reason = "adjudication"
				r.Result = map[int]string{0: "1-0", 1: "0-1"}[adjSide]
				return r
			}
		}
	}
}

// evaluate asks the adjudicator for the position; it returns the colour
// (0 White, 1 Black) that is winning beyond the threshold and true, or false
// when nobody is (or the adjudicator failed: it is then dropped).
func (w *worker) evaluate(ctx context.Context, r *GameResult, g *board.Game) (int, bool) {
	a := w.cfg.Adjudicate
	if err := w.adj.Position(r.Opening.FEN, r.Moves); err != nil {
		w.adj = nil
		return 0, false
	}
	res, err := w.adj.Go(ctx, a.Limits, a.Limits.MoveTime+w.cfg.stall())
	if err != nil || !res.Score.Valid {
		if err != nil {
			_ = w.adj.Close() // dead already; reap it
			w.adj = nil
		}
		return 0, false
	}
	cp := res.Score.Value
	if res.Score.Mate {
		cp = 100000 * sign(res.Score.Value)
		if res.Score.Value == 0 { // mated: the side to move lost
			cp = -100000
		}
	}
	if g.SideToMove() == board.Black {
		cp = -cp
	}
	switch {
	case cp >= a.WinCP:
		return 0, true
	case cp <= -a.WinCP:
		return 1, true
	}
	return 0, false
}

func sign(x int) int {
	if x < 0 {
		return -1
	}
	return 1
}

// lose ends the game as a loss for engine i after a failure.
func (w *worker) lose(r *GameResult, i int, kind string, err error) *GameResult {
	r.Failure, r.Culprit, r.Reason = kind, i, kind
	if err != nil {
		r.Detail = err.Error()
	}
	if i == r.White {
		r.Result = "0-1"
	} else {
		r.Result = "1-0"
	}
	if e := w.eng[i]; e != nil && kind == FailIllegal {
		// An engine that played an illegal move may be confused; start afresh.
		_ = e.Close() // Close always succeeds
	}
	return r
}

// thinkNote is how HumChess reports a move's think time in an info string:
// "... think 1.234s" at the end of its "played" note.
var thinkNote = regexp.MustCompile(`(?:^|\s)think (\S+)$`)

// ReportedThink returns the think time the last of an engine's info
// strings that ends in "think D" (a Go duration: 1.234s, 850ms, 0s) gives;
// ok is false when none does.
func ReportedThink(infos []string) (d time.Duration, ok bool) {
	for i := len(infos) - 1; i >= 0; i-- {
		m := thinkNote.FindStringSubmatch(strings.TrimSpace(infos[i]))
		if m == nil {
			continue
		}
		if d, err := time.ParseDuration(m[1]); err == nil && d >= 0 {
			return d, true
		}
	}
	return 0, false
}

// HumanCharge is a virtual clock's charge (Config.Charge) shaped like a
// human's use of a blitz or rapid clock: a 25th of the remaining time plus
// 80% of the increment, at most half the remaining time. At 180+2 the
// clock falls to about 45 s by move 40.
func HumanCharge(remaining, inc time.Duration) time.Duration {
	return min(remaining/25+inc*4/5, remaining/2)
}

// DefaultConcurrency is a sensible number of simultaneous games: half the
// CPUs (each game runs two engines), at least 1.
func DefaultConcurrency() int { return max(runtime.NumCPU()/2, 1) }
