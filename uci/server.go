package uci

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// ErrQuit is returned by Execute after the quit command.
var ErrQuit = errors.New("quit")

// ErrUnknownCommand is wrapped by the error for a command not in the protocol.
var ErrUnknownCommand = errors.New("unknown command")

// Server runs the protocol for one Engine. Use NewServer, then Run (or
// Execute line by line). Its fields may be set before Run.
type Server struct {
	Name   string           // "id name"; default "HumChess"
	Author string           // "id author"; default "the HumChess authors"
	Log    io.Writer        // details of errors for humans (stderr); nil = none
	Now    func() time.Time // clock for info time and the human delay; default time.Now

	engine Engine
	out    *printer
	opts   Options
	cur    *search // the last search; nil before the first go
	debug  bool    // debug on: print the Engine's notes

	ctx    context.Context // cancelled on quit
	cancel context.CancelFunc
}

// search is one go command in flight.
type search struct {
	lim       Limits
	start     time.Time
	stop      chan struct{} // closed by stop (or by anything that ends the search)
	ponderhit chan struct{} // closed by ponderhit
	computed  chan struct{} // closed once the info lines are printed
	done      chan struct{} // closed once bestmove is printed
	stopOnce  sync.Once
	hitOnce   sync.Once
}

func (s *search) finish() { s.stopOnce.Do(func() { close(s.stop) }) }
func (s *search) hit()    { s.hitOnce.Do(func() { close(s.ponderhit) }) }
func (s *search) running() bool {
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}
func (s *search) wasHit() bool {
	select {
	case <-s.ponderhit:
		return true
	default:
		return false
	}
}

// NewServer returns a Server that drives e and writes replies to w. Options
// start at DefaultOptions; e is not configured until the first setoption or
// debug (it should start with the same defaults).
func NewServer(e Engine, w io.Writer) *Server {
	ctx, cancel := context.WithCancel(context.Background())
	return &Server{
		Name: "HumChess", Author: "the HumChess authors", Now: time.Now,
		engine: e, out: &printer{w: w}, opts: DefaultOptions(),
		ctx: ctx, cancel: cancel,
	}
}

// Run speaks UCI on r and w to e until quit or the end of r. It returns nil
// after quit or EOF, or the read or write error that stopped it.
func Run(r io.Reader, w io.Writer, e Engine) error {
	return NewServer(e, w).Run(r)
}

// Run reads commands from r until quit or EOF; see the package function Run.
// A search still running at EOF is stopped (its bestmove is printed).
func (s *Server) Run(r io.Reader) error {
	br := bufio.NewReader(r)
	for {
		line, rerr := br.ReadString('\n')
		if line != "" {
			if err := s.Execute(line); errors.Is(err, ErrQuit) {
				return s.out.err
			}
		}
		if rerr != nil {
			s.Close()
			if rerr == io.EOF {
				return s.out.err
			}
			return rerr
		}
	}
}

// Close stops any search (printing its bestmove) and cancels the context
// given to Think.
func (s *Server) Close() {
	s.stopSearch()
	s.cancel()
}

// Options returns the current options.
func (s *Server) Options() Options { return s.opts }

// Sync blocks until the current search, if any, has printed its info lines
// and, unless it is holding for stop or ponderhit (go infinite, go ponder),
// its bestmove. Tests use it to make transcripts deterministic.
func (s *Server) Sync() {
	c := s.cur
	if c == nil {
		return
	}
	<-c.computed
	if c.lim.Infinite || (c.lim.Ponder && !c.wasHit()) {
		select {
		case <-c.done: // stopped meanwhile
		default:
			return
		}
	}
	<-c.done
}

type handler func(s *Server, args []string) error

var commands map[string]handler

func init() {
	commands = map[string]handler{
		"uci":        (*Server).cmdUCI,
		"debug":      (*Server).cmdDebug,
		"isready":    (*Server).cmdIsReady,
		"setoption":  (*Server).cmdSetOption,
		"register":   func(*Server, []string) error { return nil }, // no registration needed
		"ucinewgame": (*Server).cmdNewGame,
		"position":   (*Server).cmdPosition,
		"go":         (*Server).cmdGo,
		"stop":       (*Server).cmdStop,
		"ponderhit":  (*Server).cmdPonderHit,
		"quit":       func(s *Server, _ []string) error { s.Close(); return ErrQuit },
	}
}

// Execute runs one command line. Problems are reported to the GUI as
// "info string error: ..." (and to Log) and returned; after quit it returns
// ErrQuit. Following the UCI specification, an unknown leading token is
// reported and the rest of the line is tried from the next known command.
func (s *Server) Execute(line string) (err error) {
	defer func() {
		if p := recover(); p != nil { // an Engine bug must not kill the loop
			err = fmt.Errorf("internal error on %s: %v", quote(oneLine(line)), p)
			s.report(err)
		}
	}()
	f := strings.Fields(line)
	if len(f) == 0 {
		return nil
	}
	h, ok := commands[f[0]]
	if !ok {
		err := fmt.Errorf("%w %s", ErrUnknownCommand, quote(f[0]))
		s.report(err)
		for i := 1; i < len(f); i++ {
			if _, ok := commands[f[i]]; ok {
				return errors.Join(err, s.Execute(strings.Join(f[i:], " ")))
			}
		}
		return err
	}
	err = h(s, f[1:])
	var r reported
	switch {
	case errors.As(err, &r):
		return r.error
	case err != nil && !errors.Is(err, ErrQuit):
		s.report(err)
	}
	return err
}

func (s *Server) report(err error) {
	s.out.line(errorLine(err))
	if s.Log != nil {
		fmt.Fprintf(s.Log, "uci: %s\n", clip(err.Error(), maxMessage))
	}
}

func (s *Server) debugf(format string, a ...any) {
	if s.debug {
		s.out.line("info string " + oneLine(fmt.Sprintf(format, a...)))
	}
}

func (s *Server) cmdUCI([]string) error {
	s.out.line("id name " + s.Name)
	s.out.line("id author " + s.Author)
	for _, o := range table {
		s.out.line(optionLine(o))
	}
	s.out.line("uciok")
	return nil
}

func (s *Server) cmdDebug(args []string) error {
	on := !s.debug
	switch {
	case len(args) == 0:
	case len(args) == 1 && args[0] == "on":
		on = true
	case len(args) == 1 && args[0] == "off":
		on = false
	default:
		return fmt.Errorf("%w: debug: want \"debug on|off\", got %s", ErrSyntax, quote(strings.Join(args, " ")))
	}
	s.debug = on // the server's alone: no Engine call, so it is safe while thinking
	return nil
}

func (s *Server) cmdIsReady([]string) error {
	if s.cur != nil && s.cur.running() {
		s.out.line("readyok") // never stop or wait for a search
		return nil
	}
	err := s.engine.Ready()
	if err != nil {
		err = fmt.Errorf("isready: %w", err)
		s.report(err) // before readyok, so the GUI sees it before going on
		err = reported{err}
	}
	s.out.line("readyok")
	return err
}

// reported marks an error a handler has already reported.
type reported struct{ error }

func (r reported) Unwrap() error { return r.error }

func (s *Server) cmdSetOption(args []string) error {
	name, value, err := parseSetOption(args)
	if err != nil {
		return err
	}
	s.stopSearch()
	if err := s.configure(func(o *Options) error { return o.Set(name, value) }); err != nil {
		return fmt.Errorf("setoption: %w", err)
	}
	return nil
}

// configure changes a copy of the options and keeps it only if the Engine
// accepts it.
func (s *Server) configure(change func(*Options) error) error {
	next := s.opts
	if err := change(&next); err != nil {
		return err
	}
	if err := s.engine.Configure(next); err != nil {
		return err
	}
	s.opts = next
	return nil
}

func (s *Server) cmdNewGame([]string) error {
	s.stopSearch()
	s.engine.NewGame()
	return nil
}

func (s *Server) cmdPosition(args []string) error {
	fen, moves, err := parsePosition(args)
	if err != nil {
		return err
	}
	s.stopSearch()
	if err := s.engine.SetPosition(fen, moves); err != nil {
		return fmt.Errorf("position: %w", err)
	}
	return nil
}

func (s *Server) cmdGo(args []string) error {
	lim, errs := parseGo(args)
	for _, err := range errs {
		s.report(err) // reported here; the search still runs
	}
	s.stopSearch()
	c := &search{
		lim: lim, start: s.Now(),
		stop: make(chan struct{}), ponderhit: make(chan struct{}),
		computed: make(chan struct{}), done: make(chan struct{}),
	}
	s.cur = c
	go s.think(c, s.opts, s.debug)
	return nil
}

// think runs one search: compute, print info, hold as the limits say,
// print bestmove. Exactly one bestmove per go.
func (s *Server) think(c *search, o Options, debug bool) {
	var res Result
	defer func() {
		s.out.line(bestMoveLine(res))
		close(c.done)
	}()
	res, err := s.safeThink(c.lim)
	if err != nil {
		res = Result{}
		s.report(fmt.Errorf("go: %w", err))
	}
	for _, e := range res.Errors {
		s.report(fmt.Errorf("go: %w", e))
	}
	if debug {
		for _, n := range res.Notes {
			s.out.line("info string " + oneLine(n))
		}
	}
	for _, l := range infoLines(res, o, s.Now().Sub(c.start)) {
		s.out.line(l)
	}
	close(c.computed)

	if c.lim.Ponder {
		select {
		case <-c.stop:
			return
		case <-c.ponderhit:
		}
	}
	if c.lim.Infinite {
		<-c.stop
		return
	}
	wait := res.Think
	if c.lim.MoveTime > 0 {
		wait = min(wait, c.lim.MoveTime)
	}
	wait -= s.Now().Sub(c.start)
	if wait <= 0 {
		return
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-c.stop:
	case <-t.C:
	}
}

// safeThink calls Think and turns a panic into an error, so that a bug in
// an Engine never kills the protocol loop without a bestmove.
func (s *Server) safeThink(lim Limits) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = Result{}, fmt.Errorf("engine panic: %v", p)
		}
	}()
	return s.engine.Think(s.ctx, lim)
}

func (s *Server) cmdStop([]string) error {
	if s.cur == nil || !s.cur.running() {
		s.debugf("stop: not thinking")
		return nil
	}
	s.stopSearch()
	return nil
}

func (s *Server) cmdPonderHit([]string) error {
	c := s.cur
	if c == nil || !c.running() || !c.lim.Ponder {
		return errors.New("ponderhit: not pondering")
	}
	c.hit()
	return nil
}

// stopSearch ends the current search and waits for its bestmove.
func (s *Server) stopSearch() {
	if c := s.cur; c != nil {
		c.finish()
		<-c.done
	}
}
