package client

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Errors reported by Engine methods; test with errors.Is.
var (
	// ErrStart means the engine program could not be started.
	ErrStart = errors.New("client: cannot start engine")
	// ErrCrashed means the engine process exited (or closed its output).
	ErrCrashed = errors.New("client: engine exited")
	// ErrTimeout means the engine did not answer in time; the process was killed.
	ErrTimeout = errors.New("client: engine did not answer in time")
	// ErrMalformed means the engine printed something unreadable where an
	// answer was due (a bestmove without a move, a move that is not UCI).
	ErrMalformed = errors.New("client: malformed engine output")
	// ErrClosed means the engine was closed (or killed after an earlier failure).
	ErrClosed = errors.New("client: engine closed")
	// ErrBadRequest means the caller asked for something that cannot be sent
	// (an empty command, a newline inside a value).
	ErrBadRequest = errors.New("client: bad request")
	// ErrRefused means the engine refused a configured option: between the
	// setoption and the readyok of the isready sent after it, it printed
	// "info string error: ..." (HumChess and most engines) or
	// "No such option: ..." (Stockfish).
	ErrRefused = errors.New("client: engine refused option")
)

// Option is one setoption sent after the handshake.
type Option struct {
	Name  string
	Value string
}

// Config describes how to start an engine.
type Config struct {
	Path    string   // the program
	Args    []string // its arguments
	Dir     string   // working directory; "" = the caller's
	Env     []string // extra environment variables (KEY=VALUE) added to the caller's
	Options []Option // sent in order after uciok, each followed by isready; a refused one fails Start (ErrRefused)

	InitTimeout  time.Duration // wait for uciok and the first readyok; 0 means 10 s
	ReadyTimeout time.Duration // wait for readyok later; 0 means 5 s
	Stderr       io.Writer     // the engine's stderr; nil discards it
	Log          io.Writer     // when set, every line sent (">") and received ("<") is copied here
}

func (c *Config) initTimeout() time.Duration {
	if c.InitTimeout > 0 {
		return c.InitTimeout
	}
	return 10 * time.Second
}

func (c *Config) readyTimeout() time.Duration {
	if c.ReadyTimeout > 0 {
		return c.ReadyTimeout
	}
	return 5 * time.Second
}

// Engine is a running UCI engine. Its methods block until the answer or the
// deadline; it is safe for one caller at a time. After ErrCrashed or
// ErrTimeout the process is gone and every later call fails with ErrClosed;
// start a new Engine to go on.
type Engine struct {
	cfg     Config
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	lines   chan string   // stdout lines; closed at EOF
	exited  chan struct{} // closed when the process has been waited for
	done    chan struct{} // closed by kill: the reader stops delivering lines
	killed  sync.Once
	exitMu  sync.Mutex
	exitErr error
	name    string
	author  string
	options []string // option names the engine declared
	dead    error    // why the engine is unusable, nil while it runs
	logMu   sync.Mutex
}

// Start launches the engine, performs the handshake (uci, uciok), sends the
// configured options and waits for readyok. On error the process is killed.
func Start(ctx context.Context, cfg Config) (*Engine, error) {
	if cfg.Path == "" {
		return nil, fmt.Errorf("%w: no program", ErrStart)
	}
	cmd := exec.Command(cfg.Path, cfg.Args...)
	cmd.Dir = cfg.Dir
	if len(cfg.Env) > 0 {
		cmd.Env = append(cmd.Environ(), cfg.Env...)
	}
	if cfg.Stderr != nil {
		cmd.Stderr = cfg.Stderr
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrStart, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrStart, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrStart, cfg.Path, err)
	}
	e := &Engine{cfg: cfg, cmd: cmd, stdin: stdin, lines: make(chan string, 256), exited: make(chan struct{}), done: make(chan struct{})}
	go e.readLoop(stdout)
	if err := e.handshake(ctx); err != nil {
		e.kill()
		return nil, err
	}
	return e, nil
}

// readLoop copies stdout lines into e.lines until EOF, then reaps the process.
func (e *Engine) readLoop(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		e.logLine("< ", line)
		select {
		case e.lines <- line:
		case <-e.done: // nobody reads any more: discard until EOF
		}
	}
	close(e.lines)
	err := e.cmd.Wait()
	e.exitMu.Lock()
	e.exitErr = err
	e.exitMu.Unlock()
	close(e.exited)
}

func (e *Engine) logLine(prefix, line string) {
	if e.cfg.Log == nil {
		return
	}
	e.logMu.Lock()
	defer e.logMu.Unlock()
	_, _ = io.WriteString(e.cfg.Log, prefix+line+"\n") // a log that fails must not stop the engine
}

func (e *Engine) handshake(ctx context.Context) error {
	if err := e.send("uci"); err != nil {
		return err
	}
	deadline := time.Now().Add(e.cfg.initTimeout())
	for {
		line, err := e.readLine(ctx, deadline, "uciok")
		if err != nil {
			return err
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "uciok":
			for _, o := range e.cfg.Options {
				if err := e.setOptionChecked(ctx, o); err != nil {
					return err
				}
			}
			return e.isReady(ctx, e.cfg.initTimeout())
		case "id":
			if len(f) >= 3 && f[1] == "name" {
				e.name = strings.Join(f[2:], " ")
			} else if len(f) >= 3 && f[1] == "author" {
				e.author = strings.Join(f[2:], " ")
			}
		case "option":
			if n := optionName(f); n != "" {
				e.options = append(e.options, n)
			}
		}
	}
}

// optionName extracts the name of an "option name X type ..." line.
func optionName(f []string) string {
	var name []string
	in := false
	for _, w := range f[1:] {
		switch {
		case w == "name":
			in = true
		case w == "type" && in:
			return strings.Join(name, " ")
		case in:
			name = append(name, w)
		}
	}
	return strings.Join(name, " ")
}

// Name is the engine's "id name", or "" if it sent none.
func (e *Engine) Name() string { return e.name }

// Author is the engine's "id author", or "".
func (e *Engine) Author() string { return e.author }

// HasOption reports whether the engine declared an option of that name
// (case-insensitive).
func (e *Engine) HasOption(name string) bool {
	for _, o := range e.options {
		if strings.EqualFold(o, name) {
			return true
		}
	}
	return false
}

// Pid is the engine's process id.
func (e *Engine) Pid() int { return e.cmd.Process.Pid }

// send writes one command line.
func (e *Engine) send(line string) error {
	if e.dead != nil {
		return fmt.Errorf("%w (%v)", ErrClosed, e.dead)
	}
	if strings.ContainsAny(line, "\r\n") || strings.TrimSpace(line) == "" {
		return fmt.Errorf("%w: %q", ErrBadRequest, line)
	}
	e.logLine("> ", line)
	if _, err := io.WriteString(e.stdin, line+"\n"); err != nil {
		return e.fail(fmt.Errorf("%w: writing %q: %v%s", ErrCrashed, line, err, e.exitStatus()))
	}
	return nil
}

// readLine returns the next stdout line, or an error at the deadline (the
// engine is killed), at EOF (crash) or when ctx ends (the engine is killed:
// it may be mid-answer and cannot be reused).
func (e *Engine) readLine(ctx context.Context, deadline time.Time, waiting string) (string, error) {
	if e.dead != nil {
		return "", fmt.Errorf("%w (%v)", ErrClosed, e.dead)
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case line, ok := <-e.lines:
		if !ok {
			return "", e.fail(fmt.Errorf("%w while waiting for %s%s", ErrCrashed, waiting, e.exitStatus()))
		}
		return line, nil
	case <-t.C:
		return "", e.fail(fmt.Errorf("%w: no %s", ErrTimeout, waiting))
	case <-ctx.Done():
		return "", e.fail(ctx.Err())
	}
}

// exitStatus waits briefly for the process's exit status and describes it.
func (e *Engine) exitStatus() string {
	select {
	case <-e.exited:
	case <-time.After(500 * time.Millisecond):
		return ""
	}
	e.exitMu.Lock()
	defer e.exitMu.Unlock()
	if e.exitErr == nil {
		return " (exit status 0)"
	}
	return " (" + e.exitErr.Error() + ")"
}

// fail kills the engine, marks it unusable and returns err.
func (e *Engine) fail(err error) error {
	if e.dead == nil {
		e.dead = err
	}
	e.kill()
	return err
}

// kill ends the process and waits (briefly) for the reader to finish.
func (e *Engine) kill() {
	e.killed.Do(func() { close(e.done) })
	if e.cmd.Process != nil {
		_ = e.cmd.Process.Kill() // already gone is fine
	}
	_ = e.stdin.Close() // the pipe may already be broken
	select {
	case <-e.exited:
	case <-time.After(2 * time.Second): // a grandchild may hold stdout; do not hang
	}
}

// SetOption sends "setoption name N value V" (no value part when value is "").
func (e *Engine) SetOption(name, value string) error {
	if strings.TrimSpace(name) == "" {
		return fmt.Errorf("%w: empty option name", ErrBadRequest)
	}
	line := "setoption name " + name
	if value != "" {
		line += " value " + value
	}
	return e.send(line)
}

// setOptionChecked sends one setoption, then isready, and reads what the
// engine prints up to readyok: UCI has no acknowledgement for setoption, so
// an error line in between is the engine refusing it.
func (e *Engine) setOptionChecked(ctx context.Context, o Option) error {
	if err := e.SetOption(o.Name, o.Value); err != nil {
		return err
	}
	if err := e.send("isready"); err != nil {
		return err
	}
	deadline := time.Now().Add(e.cfg.initTimeout())
	var refused []string
	for {
		line, err := e.readLine(ctx, deadline, "readyok")
		if err != nil {
			return err
		}
		if strings.TrimSpace(line) == "readyok" {
			break
		}
		if msg, ok := refusal(line); ok {
			refused = append(refused, msg)
		}
	}
	if len(refused) == 0 {
		return nil
	}
	v := o.Value
	if v == "" {
		v = "(no value)"
	}
	hint := ""
	if !e.HasOption(o.Name) {
		hint = " (the engine declares no such option)"
	}
	return fmt.Errorf("%w %s = %s: %s%s", ErrRefused, o.Name, v, strings.Join(refused, "; "), hint)
}

// refusal reports whether an engine line answers a setoption with an error,
// and returns the engine's message.
func refusal(line string) (string, bool) {
	t := strings.TrimSpace(line)
	lower := strings.ToLower(t)
	switch {
	case strings.HasPrefix(lower, "info string "):
		msg := strings.TrimSpace(t[len("info string "):])
		if strings.HasPrefix(strings.ToLower(msg), "error") {
			return msg, true
		}
	case strings.HasPrefix(lower, "no such option"), strings.HasPrefix(lower, "unknown option"):
		return t, true
	}
	return "", false
}

// Debug sends "debug on" (or "debug off"): engines then print details,
// HumChess its notes, as info strings (Result.Strings).
func (e *Engine) Debug(on bool) error {
	if on {
		return e.send("debug on")
	}
	return e.send("debug off")
}

// IsReady sends isready and waits for readyok (ReadyTimeout).
func (e *Engine) IsReady(ctx context.Context) error {
	return e.isReady(ctx, e.cfg.readyTimeout())
}

func (e *Engine) isReady(ctx context.Context, timeout time.Duration) error {
	if err := e.send("isready"); err != nil {
		return err
	}
	deadline := time.Now().Add(timeout)
	for {
		line, err := e.readLine(ctx, deadline, "readyok")
		if err != nil {
			return err
		}
		if strings.TrimSpace(line) == "readyok" {
			return nil
		}
	}
}

// NewGame sends ucinewgame and waits for readyok.
func (e *Engine) NewGame(ctx context.Context) error {
	if err := e.send("ucinewgame"); err != nil {
		return err
	}
	return e.IsReady(ctx)
}

// Position sends "position fen F moves ..." ("position startpos" when fen
// is "" or "startpos").
func (e *Engine) Position(fen string, moves []string) error {
	var b strings.Builder
	if fen == "" || fen == "startpos" {
		b.WriteString("position startpos")
	} else {
		b.WriteString("position fen ")
		b.WriteString(fen)
	}
	if len(moves) > 0 {
		b.WriteString(" moves")
		for _, m := range moves {
			b.WriteByte(' ')
			b.WriteString(m)
		}
	}
	return e.send(b.String())
}

// Limits are the parameters of one "go".
type Limits struct {
	WTime, BTime time.Duration // remaining clocks; sent when either is positive
	WInc, BInc   time.Duration // increments
	MovesToGo    int           // 0 = not sent
	Nodes        int64         // 0 = not sent
	Depth        int           // 0 = not sent
	MoveTime     time.Duration // 0 = not sent
	Raw          string        // when set, sent verbatim after "go " instead of the fields
}

// Command returns the go command line for l.
func (l Limits) Command() string {
	if strings.TrimSpace(l.Raw) != "" {
		return "go " + strings.TrimSpace(l.Raw)
	}
	parts := []string{"go"}
	ms := func(d time.Duration) string { return strconv.FormatInt(max(d.Milliseconds(), 0), 10) }
	if l.WTime > 0 || l.BTime > 0 {
		parts = append(parts, "wtime", ms(l.WTime), "btime", ms(l.BTime), "winc", ms(l.WInc), "binc", ms(l.BInc))
		if l.MovesToGo > 0 {
			parts = append(parts, "movestogo", strconv.Itoa(l.MovesToGo))
		}
	}
	if l.Nodes > 0 {
		parts = append(parts, "nodes", strconv.FormatInt(l.Nodes, 10))
	}
	if l.Depth > 0 {
		parts = append(parts, "depth", strconv.Itoa(l.Depth))
	}
	if l.MoveTime > 0 {
		parts = append(parts, "movetime", ms(l.MoveTime))
	}
	if len(parts) == 1 {
		parts = append(parts, "infinite") // never sent by the callers here: they always set a limit
	}
	return strings.Join(parts, " ")
}

// Score is an engine's evaluation from the side to move's view.
type Score struct {
	Valid bool // a score was reported
	Mate  bool // Value is moves to mate (negative: being mated)
	Value int  // centipawns, or moves to mate
}

// Result is the answer to one go.
type Result struct {
	BestMove string        // UCI move as sent; "(none)" or "0000" when the engine had no move
	Ponder   string        // the ponder move, "" if none
	Elapsed  time.Duration // from sending go to receiving bestmove
	Score    Score         // the last score of the last info line that had one
	Depth    int           // the last reported depth
	Nodes    int64         // the last reported node count
	Strings  []string      // the engine's "info string" messages, in order
}

// Go sends the limits and waits for bestmove until timeout has passed since
// go was sent; past it the engine is killed and ErrTimeout returned (with
// the elapsed time in the Result). A bestmove whose move is not in UCI form
// is ErrMalformed.
func (e *Engine) Go(ctx context.Context, l Limits, timeout time.Duration) (Result, error) {
	var r Result
	cmd := l.Command()
	if cmd == "go infinite" {
		return r, fmt.Errorf("%w: go without a limit", ErrBadRequest)
	}
	if err := e.send(cmd); err != nil {
		return r, err
	}
	start := time.Now()
	deadline := start.Add(timeout)
	for {
		line, err := e.readLine(ctx, deadline, "bestmove")
		r.Elapsed = time.Since(start)
		if err != nil {
			return r, err
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "info":
			parseInfo(f, &r)
			if len(f) >= 2 && f[1] == "string" {
				msg := strings.TrimSpace(line)
				msg = strings.TrimSpace(msg[strings.Index(msg, "string")+len("string"):])
				r.Strings = append(r.Strings, msg)
			}
		case "bestmove":
			if len(f) < 2 {
				return r, e.fail(fmt.Errorf("%w: %q", ErrMalformed, line))
			}
			r.BestMove = f[1]
			if r.BestMove != "(none)" && r.BestMove != "0000" && !LooksLikeMove(r.BestMove) {
				return r, e.fail(fmt.Errorf("%w: bestmove %q", ErrMalformed, line))
			}
			if len(f) >= 4 && f[2] == "ponder" {
				r.Ponder = f[3]
			}
			return r, nil
		}
	}
}

// LooksLikeMove reports whether s has the UCI move form: from and to
// squares and an optional promotion letter (legality is not checked).
func LooksLikeMove(s string) bool {
	if len(s) != 4 && len(s) != 5 {
		return false
	}
	sq := func(f, r byte) bool { return f >= 'a' && f <= 'h' && r >= '1' && r <= '8' }
	if !sq(s[0], s[1]) || !sq(s[2], s[3]) {
		return false
	}
	return len(s) == 4 || strings.IndexByte("qrbn", s[4]) >= 0
}

// parseInfo reads depth, nodes and score from an info line.
func parseInfo(f []string, r *Result) {
	for i := 1; i < len(f)-1; i++ {
		switch f[i] {
		case "depth":
			if v, err := strconv.Atoi(f[i+1]); err == nil {
				r.Depth = v
			}
		case "nodes":
			if v, err := strconv.ParseInt(f[i+1], 10, 64); err == nil {
				r.Nodes = v
			}
		case "score":
			if i+2 >= len(f) {
				continue
			}
			v, err := strconv.Atoi(f[i+2])
			if err != nil {
				continue
			}
			switch f[i+1] {
			case "cp":
				r.Score = Score{Valid: true, Value: v}
			case "mate":
				r.Score = Score{Valid: true, Mate: true, Value: v}
			}
		case "pv", "string":
			return // the rest is moves or free text
		}
	}
}

// Close asks the engine to quit, waits up to a second, then kills it. It is
// safe to call more than once.
func (e *Engine) Close() error {
	if e.dead == nil {
		e.logLine("> ", "quit")
		_, _ = io.WriteString(e.stdin, "quit\n") // the engine may already be gone
		select {
		case <-e.exited:
		case <-time.After(time.Second):
		}
		e.dead = ErrClosed
	}
	e.kill()
	return nil
}

// Alive reports whether the engine is still usable (no crash, timeout or Close).
func (e *Engine) Alive() bool { return e.dead == nil }
