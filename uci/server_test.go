package uci

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// stub is an Engine for protocol tests: it accepts "startpos"-like input,
// rejects FENs starting with "bad" and moves not of the form [a-h][1-8]x2,
// and returns a fixed result.
type stub struct {
	mu      sync.Mutex
	fen     string
	moves   []string
	opts    Options
	newGame int
	readyE  error
	result  Result
	block   chan struct{} // when non-nil, Think waits for it to close
	panics  bool
	lims    []Limits
}

func (e *stub) NewGame() { e.mu.Lock(); e.newGame++; e.fen, e.moves = "", nil; e.mu.Unlock() }

func (e *stub) SetPosition(fen string, moves []string) error {
	if strings.HasPrefix(fen, "bad") {
		return fmt.Errorf("bad FEN %q", fen)
	}
	for _, m := range moves {
		if len(m) < 4 || m[0] < 'a' || m[0] > 'h' || m[2] < 'a' || m[2] > 'h' || m == "e2e5" {
			return fmt.Errorf("illegal move %q", m)
		}
	}
	e.mu.Lock()
	e.fen, e.moves = fen, moves
	e.mu.Unlock()
	return nil
}

func (e *stub) Configure(o Options) error {
	if o.NetFile == "missing.onnx" {
		return errors.New("NetFile: missing.onnx: no such file")
	}
	e.opts = o
	return nil
}

func (e *stub) Ready() error { return e.readyE }

func (e *stub) Think(ctx context.Context, lim Limits) (Result, error) {
	e.mu.Lock()
	e.lims = append(e.lims, lim)
	e.mu.Unlock()
	if e.panics {
		panic("boom")
	}
	if e.block != nil {
		select {
		case <-e.block:
		case <-ctx.Done():
			return Result{}, ctx.Err()
		}
	}
	return e.result, nil
}

// syncBuffer is a bytes.Buffer safe for the printer and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func newTestServer(e Engine) (*Server, *syncBuffer) {
	out := &syncBuffer{}
	s := NewServer(e, out)
	t0 := time.Unix(0, 0)
	s.Now = func() time.Time { return t0 }
	return s, out
}

func run(s *Server, lines ...string) {
	for _, l := range lines {
		s.Execute(l)
		s.Sync()
	}
}

var e4 = Result{BestMove: "e2e4", Ponder: "e7e5", Nodes: 1,
	Lines: []Line{{Move: "e2e4", Prob: 0.4, WDL: [3]float64{0.4, 0.3, 0.3}, HasWDL: true}}}

func TestTranscripts(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"isready", []string{"isready"}, []string{"readyok"}},
		{"blank lines", []string{"", "   ", "isready"}, []string{"readyok"}},
		{"go", []string{"position startpos moves e2e4", "go wtime 1000 btime 1000"},
			[]string{"info depth 1 seldepth 1 score cp 54 nodes 1 time 0 pv e2e4", "info string e2e4 prob 40.0%", "bestmove e2e4 ponder e7e5"}},
		{"wdl", []string{"setoption name UCI_ShowWDL value true", "go depth 1"},
			[]string{"info depth 1 seldepth 1 score cp 54 wdl 400 300 300 nodes 1 time 0 pv e2e4", "info string e2e4 prob 40.0%", "bestmove e2e4 ponder e7e5"}},
		{"unknown command", []string{"foo"}, []string{`info string error: unknown command "foo"`}},
		{"unknown then known", []string{"joho isready"}, []string{`info string error: unknown command "joho"`, "readyok"}},
		{"bad fen", []string{"position fen bad/8/8 w - - 0 1"}, []string{`info string error: position: bad FEN "bad/8/8 w - - 0 1"`}},
		{"short fen", []string{"position fen 8/8/8 w"}, []string{`info string error: syntax: position: FEN "8/8/8 w" has 2 fields, want 6`}},
		{"long fen", []string{"position fen a b c d e f g"}, []string{`info string error: syntax: position: FEN "a b c d e f g" has 7 fields, want 6`}},
		{"illegal move", []string{"position startpos moves e2e5"}, []string{`info string error: position: illegal move "e2e5"`}},
		{"no position kind", []string{"position"}, []string{`info string error: syntax: position: want "position startpos|fen <fen> [moves ...]"`}},
		{"position junk", []string{"position startpos e2e4"}, []string{`info string error: syntax: position: unexpected "e2e4" (want moves)`}},
		{"option range", []string{"setoption name UCI_Elo value 5000"}, []string{"info string error: setoption: bad option value: UCI_Elo: 5000 is out of range 600..2600"}},
		{"option type", []string{"setoption name Ponder value maybe"}, []string{`info string error: setoption: bad option value: Ponder: "maybe" is neither true nor false`}},
		{"option unknown", []string{"setoption name Hash value 16"}, []string{`info string error: setoption: unknown option "Hash"`}},
		{"option syntax", []string{"setoption UCI_Elo 1500"}, []string{`info string error: syntax: setoption: want "setoption name <id> [value <x>]"`}},
		{"option refused", []string{"setoption name NetFile value missing.onnx"}, []string{"info string error: setoption: NetFile: missing.onnx: no such file"}},
		{"opponent elo gap", []string{"setoption name OpponentElo value 300"}, []string{"info string error: setoption: bad option value: OpponentElo: 300 is neither 0 nor in 600..2600"}},
		{"opponent", []string{"setoption name UCI_Opponent value XX 2000 human Bob"}, []string{`info string error: setoption: bad option value: UCI_Opponent "XX 2000 human Bob": unknown title "XX" (want one of GM IM FM CM NM WGM WIM WFM WCM WNM LM BOT or none)`}},
		{"debug", []string{"debug sideways"}, []string{`info string error: syntax: debug: want "debug on|off", got "sideways"`}},
		{"go bad token", []string{"go depth x wtime 10"}, []string{`info string error: syntax: go: depth: "x" is not an integer`, "info depth 1 seldepth 1 score cp 54 nodes 1 time 0 pv e2e4", "info string e2e4 prob 40.0%", "bestmove e2e4 ponder e7e5"}},
		{"stray ponderhit", []string{"ponderhit"}, []string{"info string error: ponderhit: not pondering"}},
		{"stray stop", []string{"stop"}, nil},
		{"register", []string{"register later", "register name x code y"}, nil},
		{"ponder", []string{"go ponder wtime 100 btime 100", "isready", "ponderhit"},
			[]string{"info depth 1 seldepth 1 score cp 54 nodes 1 time 0 pv e2e4", "info string e2e4 prob 40.0%", "readyok", "bestmove e2e4 ponder e7e5"}},
		{"ponder miss", []string{"go ponder", "stop"},
			[]string{"info depth 1 seldepth 1 score cp 54 nodes 1 time 0 pv e2e4", "info string e2e4 prob 40.0%", "bestmove e2e4 ponder e7e5"}},
		{"infinite", []string{"go infinite", "isready", "ponderhit", "stop", "stop"},
			[]string{"info depth 1 seldepth 1 score cp 54 nodes 1 time 0 pv e2e4", "info string e2e4 prob 40.0%", "readyok", "info string error: ponderhit: not pondering", "bestmove e2e4 ponder e7e5"}},
		{"go twice", []string{"go infinite", "go depth 1"},
			[]string{"info depth 1 seldepth 1 score cp 54 nodes 1 time 0 pv e2e4", "info string e2e4 prob 40.0%", "bestmove e2e4 ponder e7e5",
				"info depth 1 seldepth 1 score cp 54 nodes 1 time 0 pv e2e4", "info string e2e4 prob 40.0%", "bestmove e2e4 ponder e7e5"}},
		{"quit stops", []string{"go infinite", "quit"},
			[]string{"info depth 1 seldepth 1 score cp 54 nodes 1 time 0 pv e2e4", "info string e2e4 prob 40.0%", "bestmove e2e4 ponder e7e5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, out := newTestServer(&stub{result: e4})
			run(s, tt.in...)
			s.Close()
			got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if out.String() == "" {
				got = nil
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("input %q\nwant:\n%s\ngot:\n%s", tt.in, strings.Join(tt.want, "\n"), strings.Join(got, "\n"))
			}
		})
	}
}

func TestUCIListsEveryOption(t *testing.T) {
	s, out := newTestServer(&stub{})
	run(s, "uci")
	got := out.String()
	for _, want := range []string{
		"id name HumChess\n",
		"option name UCI_Elo type spin default 1500 min 600 max 2600\n",
		"option name NetFile type string default <empty>\n",
		"option name UCI_ShowWDL type check default false\n",
		"uciok\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("uci output lacks %q; got:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "option name "); n != len(table) {
		t.Errorf("uci printed %d options, want %d", n, len(table))
	}
}

func TestOptionsKeepLastValidState(t *testing.T) {
	e := &stub{}
	s, _ := newTestServer(e)
	run(s, "setoption name uci_elo value 1900", "setoption name UCI_Elo value 99999", "setoption name multipv value 3",
		"setoption name NetFile value a b.onnx", "setoption name UCI_Opponent value IM 2400 human Magnus C", "debug on")
	o := s.Options()
	if o.Elo != 1900 || o.MultiPV != 3 || o.NetFile != "a b.onnx" || !s.debug ||
		o.Opponent != (Opponent{Title: "IM", Rating: 2400, Name: "Magnus C"}) {
		t.Errorf("options after setoption: %+v", o)
	}
	if e.opts != o {
		t.Errorf("engine configured with %+v, server holds %+v", e.opts, o)
	}
	if got := o.OpponentRating(); got != 2400 {
		t.Errorf("OpponentRating = %d, want 2400", got)
	}
	run(s, "setoption name NetFile value <empty>")
	if s.Options().NetFile != "" {
		t.Errorf("NetFile <empty> gave %q", s.Options().NetFile)
	}
}

func TestIsReadyAnswersWhileThinkBlocks(t *testing.T) {
	e := &stub{result: e4, block: make(chan struct{})}
	s, out := newTestServer(e)
	s.Execute("go wtime 1000 btime 1000")
	s.Execute("isready")
	if got := out.String(); got != "readyok\n" {
		t.Fatalf("while Think blocks, isready gave %q, want readyok only", got)
	}
	close(e.block)
	s.Sync()
	if !strings.HasSuffix(out.String(), "bestmove e2e4 ponder e7e5\n") {
		t.Errorf("after Think returned, output %q lacks bestmove", out.String())
	}
}

func TestStopCutsHumanDelay(t *testing.T) {
	r := e4
	r.Think = time.Hour
	s := NewServer(&stub{result: r}, &syncBuffer{})
	s.Execute("go wtime 100000 btime 100000")
	<-s.cur.computed
	if !s.cur.running() {
		t.Fatal("search with a 1 h think time finished at once")
	}
	start := time.Now()
	s.Execute("stop")
	if s.cur.running() || time.Since(start) > time.Second {
		t.Errorf("stop did not return the move at once (%v)", time.Since(start))
	}
}

func TestMoveTimeCapsDelay(t *testing.T) {
	r := e4
	r.Think = time.Hour
	s := NewServer(&stub{result: r}, &syncBuffer{})
	start := time.Now()
	run(s, "go movetime 30")
	if d := time.Since(start); d > 5*time.Second || d < 30*time.Millisecond {
		t.Errorf("go movetime 30 answered after %v", d)
	}
}

func TestThinkErrors(t *testing.T) {
	s, out := newTestServer(&stub{panics: true})
	run(s, "go depth 1")
	want := "info string error: go: engine panic: boom\nbestmove 0000\n"
	if out.String() != want {
		t.Errorf("panicking engine: got %q, want %q", out.String(), want)
	}
	s, out = newTestServer(&stub{readyE: errors.New("net: no file")})
	run(s, "isready")
	want = "info string error: isready: net: no file\nreadyok\n"
	if out.String() != want {
		t.Errorf("failing Ready: got %q, want %q", out.String(), want)
	}
	s, out = newTestServer(&stub{result: Result{}})
	run(s, "go")
	if out.String() != "bestmove 0000\n" {
		t.Errorf("no legal move: got %q, want bestmove 0000", out.String())
	}
}

func TestMultiPVLines(t *testing.T) {
	r := Result{BestMove: "d2d4", Nodes: 4, Lines: []Line{
		{Move: "e2e4", Prob: 0.5, WDL: [3]float64{0.5, 0.2, 0.3}, HasWDL: true},
		{Move: "d2d4", Prob: 0.25},
	}}
	s, out := newTestServer(&stub{result: r})
	run(s, "setoption name MultiPV value 2", "go")
	want := "info depth 1 seldepth 1 multipv 1 score cp 110 nodes 4 time 0 pv e2e4\n" +
		"info string multipv 1 e2e4 prob 50.0%\n" +
		"info depth 1 seldepth 1 multipv 2 nodes 4 time 0 pv d2d4\n" +
		"info string multipv 2 d2d4 prob 25.0%\n" +
		"bestmove d2d4\n"
	if out.String() != want {
		t.Errorf("MultiPV 2: got\n%swant\n%s", out.String(), want)
	}
}

func TestRunReadsUntilQuit(t *testing.T) {
	in := strings.NewReader("uci\r\nisready\nquit\nisready\n")
	out := &syncBuffer{}
	if err := Run(in, out, &stub{}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if strings.Count(out.String(), "readyok") != 1 || !strings.Contains(out.String(), "uciok") {
		t.Errorf("Run output %q: want uciok and one readyok (nothing after quit)", out.String())
	}
	// EOF while thinking: the search is stopped and answered.
	out = &syncBuffer{}
	if err := Run(strings.NewReader("go infinite"), out, &stub{result: e4}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !strings.HasSuffix(out.String(), "bestmove e2e4 ponder e7e5\n") {
		t.Errorf("EOF during go infinite: output %q lacks bestmove", out.String())
	}
}

func TestParseGo(t *testing.T) {
	lim, errs := parseGo(strings.Fields("searchmoves e2e4 d2d4 ponder wtime 300000 btime -5 winc 2000 binc 0 movestogo 40 depth 3 nodes 100 mate 2 movetime 500 infinite"))
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	want := Limits{SearchMoves: []string{"e2e4", "d2d4"}, Ponder: true, WTime: 300 * time.Second, BTime: 0,
		WInc: 2 * time.Second, BInc: 0, MovesToGo: 40, Depth: 3, Nodes: 100, Mate: 2, MoveTime: 500 * time.Millisecond, Infinite: true}
	if fmt.Sprint(lim) != fmt.Sprint(want) {
		t.Errorf("parseGo = %+v, want %+v", lim, want)
	}
	lim, errs = parseGo(nil)
	if len(errs) != 0 || lim.HasClock() || fmt.Sprint(lim) != fmt.Sprint(NoLimits()) {
		t.Errorf("parseGo(nil) = %+v, %v", lim, errs)
	}
	for _, in := range []string{"wtime", "depth 0", "movetime -1", "wtime btime 5", "searchmoves", "frobnicate", "nodes 1e6"} {
		if _, errs := parseGo(strings.Fields(in)); len(errs) == 0 {
			t.Errorf("parseGo(%q): no error", in)
		}
	}
}

func TestParsePosition(t *testing.T) {
	tests := []struct {
		in, fen string
		moves   []string
		bad     bool
	}{
		{"startpos", "", nil, false},
		{"startpos moves", "", []string{}, false},
		{"startpos moves e2e4 e7e5", "", []string{"e2e4", "e7e5"}, false},
		{"fen 8/8/8/8/8/8/8/K6k w - - 3 9 moves a1a2", "8/8/8/8/8/8/8/K6k w - - 3 9", []string{"a1a2"}, false},
		{"fen 8/8/8/8/8/8/8/K6k w - -", "8/8/8/8/8/8/8/K6k w - - 0 1", nil, false},
		{"fen 8/8/8/8/8/8/8/K6k w - - 7", "8/8/8/8/8/8/8/K6k w - - 7 1", nil, false},
		{"fen", "", nil, true},
		{"fen moves e2e4", "", nil, true},
		{"startpos fen", "", nil, true},
		{"kiwipete", "", nil, true},
	}
	for _, tt := range tests {
		fen, moves, err := parsePosition(strings.Fields(tt.in))
		if (err != nil) != tt.bad || fen != tt.fen || len(moves) != len(tt.moves) || strings.Join(moves, " ") != strings.Join(tt.moves, " ") {
			t.Errorf("parsePosition(%q) = %q, %q, %v; want %q, %q, error %v", tt.in, fen, moves, err, tt.fen, tt.moves, tt.bad)
		}
	}
}

func TestParseOpponent(t *testing.T) {
	tests := []struct {
		in   string
		want Opponent
		bad  bool
	}{
		{"GM 2800 human Gary Kasparov", Opponent{"GM", 2800, false, "Gary Kasparov"}, false},
		{"none none computer Shredder", Opponent{"", 0, true, "Shredder"}, false},
		{"bot 3000 computer some-bot", Opponent{"BOT", 3000, true, "some-bot"}, false},
		{"", Opponent{}, false},
		{"<empty>", Opponent{}, false},
		{"GM 2800", Opponent{}, true},
		{"GM x human A", Opponent{}, true},
		{"GM 2800 alien A", Opponent{}, true},
	}
	for _, tt := range tests {
		got, err := ParseOpponent(tt.in)
		if (err != nil) != tt.bad || got != tt.want {
			t.Errorf("ParseOpponent(%q) = %+v, %v; want %+v, error %v", tt.in, got, err, tt.want, tt.bad)
		}
		if !tt.bad {
			if back, err := ParseOpponent(got.String()); err != nil || back != got {
				t.Errorf("ParseOpponent(%q).String() = %q does not parse back: %+v, %v", tt.in, got.String(), back, err)
			}
		}
	}
}

func TestCentipawnsFromWDL(t *testing.T) {
	for _, tt := range []struct {
		wdl  [3]float64
		want int
	}{{[3]float64{0, 1, 0}, 0}, {[3]float64{0.5, 0, 0.5}, 0}, {[3]float64{1, 0, 0}, 2501}, {[3]float64{0, 0, 1}, -2501}, {[3]float64{0.6, 0.2, 0.2}, 230}} {
		if got := CentipawnsFromWDL(tt.wdl); got != tt.want {
			t.Errorf("CentipawnsFromWDL(%v) = %d, want %d", tt.wdl, got, tt.want)
		}
	}
}

func FuzzExecute(f *testing.F) {
	for _, s := range []string{"uci", "go wtime 1 btime 2 winc x", "position fen 8/8/8/8/8/8/8/8 w - - 0 1 moves e2e4",
		"setoption name UCI_Opponent value GM 1 human x", "setoption name", "debug", "go searchmoves", "joho go ponder", "ponderhit"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		s := NewServer(&stub{result: e4}, &syncBuffer{})
		s.Execute(line)
		s.Execute("ponderhit")
		s.Close()
	})
}
