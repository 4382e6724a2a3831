package engine

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/uci"
)

// Bench settings: the choice is made at temperature 0 with a fixed seed and
// no human delay, so that the signature depends only on the net.
const (
	BenchSeed        = 1                // UCI Seed for every bench run
	benchGoTimeout   = 60 * time.Second // a go that takes longer is reported as hung
	benchStartupWait = 5 * time.Minute  // opening a large net may take a while
)

// BenchPosition is one line of the bench positions.
type BenchPosition struct {
	Name   string   // label
	Elo    int      // UCI_Elo
	OppElo int      // OpponentElo
	Clock  string   // go arguments ("" = a bare go)
	FEN    string   // "" = the start position
	Moves  []string // UCI moves from FEN
}

// command returns the position command for p.
func (p BenchPosition) command() string {
	var b strings.Builder
	b.WriteString("position ")
	if p.FEN == "" {
		b.WriteString("startpos")
	} else {
		b.WriteString("fen " + p.FEN)
	}
	if len(p.Moves) > 0 {
		b.WriteString(" moves " + strings.Join(p.Moves, " "))
	}
	return b.String()
}

// game returns the position p stands for.
func (p BenchPosition) game() (*board.Game, error) {
	g, err := board.NewGame(p.FEN)
	if err != nil {
		return nil, err
	}
	for i, m := range p.Moves {
		if err := g.Play(m); err != nil {
			return nil, fmt.Errorf("move %d (%s): %w", i+1, m, err)
		}
	}
	return g, nil
}

// ParseBenchPositions reads the positions format (see
// testdata/bench/make-positions.py): "name | elo opp | clock | fen | moves",
// "#" comments. Every position is checked to be legal.
func ParseBenchPositions(text string) ([]BenchPosition, error) {
	var ps []BenchPosition
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for ln := 1; sc.Scan(); ln++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "|")
		if len(f) != 5 {
			return nil, fmt.Errorf("positions line %d: %d fields, want 5 (name | elo opp | clock | fen | moves)", ln, len(f))
		}
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		p := BenchPosition{Name: f[0]}
		elos := strings.Fields(f[1])
		if len(elos) != 2 {
			return nil, fmt.Errorf("positions line %d (%s): ratings %q, want \"elo opponent-elo\"", ln, p.Name, f[1])
		}
		for i, dst := range []*int{&p.Elo, &p.OppElo} {
			v, err := strconv.Atoi(elos[i])
			if err != nil || v < uci.MinElo || v > uci.MaxElo {
				return nil, fmt.Errorf("positions line %d (%s): rating %q, want %d..%d", ln, p.Name, elos[i], uci.MinElo, uci.MaxElo)
			}
			*dst = v
		}
		if f[2] != "-" {
			p.Clock = f[2]
		}
		if f[3] != "startpos" {
			p.FEN = f[3]
		}
		if f[4] != "-" {
			p.Moves = strings.Fields(f[4])
		}
		if _, err := p.game(); err != nil {
			return nil, fmt.Errorf("positions line %d (%s): %w", ln, p.Name, err)
		}
		ps = append(ps, p)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(ps) == 0 {
		return nil, errors.New("positions: none given")
	}
	return ps, nil
}

// BenchConfig says how to run the bench.
type BenchConfig struct {
	Name    string    // the engine's UCI id name; "" = HumChess
	NetFile string    // UCI NetFile; "" = the engine's default net
	Threads int       // UCI Threads
	N       int       // positions to play; 0 = each once
	Log     io.Writer // the server's error details; nil = none
	Each    io.Writer // one line per position played (time, bestmove); nil = none
}

// BenchReport is what one bench run measured.
type BenchReport struct {
	Net       string          // the net's Info
	Threads   int             // UCI Threads
	Startup   time.Duration   // from starting the server to readyok (uci, options, opening the net)
	Go        []time.Duration // go to bestmove, per position played
	Signature uint64          // FNV-1a over the positions' chosen moves and rounded probabilities
	HWM       int64           // VmHWM (peak resident set) in bytes; -1 when unknown
	HeapPeak  uint64          // largest Go HeapInuse seen after a position, bytes
	GoSys     uint64          // Go runtime memory obtained from the OS at the end, bytes
}

// percentile returns the nearest-rank q-th percentile (0 < q <= 1) of d.
func percentile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	k := int(math.Ceil(q*float64(len(s)))) - 1
	return s[min(max(k, 0), len(s)-1)]
}

func ms(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 2, 64) + " ms" }

func mib(b uint64) string { return strconv.FormatFloat(float64(b)/(1<<20), 'f', 1, 64) + " MiB" }

// Write prints the report; the signature line comes last.
func (r BenchReport) Write(w io.Writer) {
	var total time.Duration
	for _, d := range r.Go {
		total += d
	}
	pps := 0.0
	if total > 0 {
		pps = float64(len(r.Go)) / total.Seconds()
	}
	hwm := "unknown"
	if r.HWM >= 0 {
		hwm = mib(uint64(r.HWM))
	}
	fmt.Fprintf(w, "net                 %s\n", r.Net)
	fmt.Fprintf(w, "threads             %d\n", r.Threads)
	fmt.Fprintf(w, "positions           %d\n", len(r.Go))
	fmt.Fprintf(w, "startup to readyok  %s\n", ms(r.Startup))
	if len(r.Go) > 0 {
		fmt.Fprintf(w, "go to bestmove      p50 %s  p99 %s  max %s  first %s\n",
			ms(percentile(r.Go, 0.50)), ms(percentile(r.Go, 0.99)), ms(slices.Max(r.Go)), ms(r.Go[0]))
	}
	fmt.Fprintf(w, "positions/s         %.1f\n", pps)
	fmt.Fprintf(w, "peak memory         VmHWM %s  Go heap in use %s  Go sys %s\n", hwm, mib(r.HeapPeak), mib(r.GoSys))
	fmt.Fprintf(w, "Bench: %016x\n", r.Signature)
}

// Bench plays the bench positions ps on e through the UCI server (a
// Session) and measures it.
func Bench(e *Engine, ps []BenchPosition, cfg BenchConfig) (BenchReport, error) {
	rep := BenchReport{Threads: max(cfg.Threads, 1), HWM: -1}
	n := cfg.N
	if n <= 0 {
		n = len(ps)
	}
	t0 := time.Now()
	s := StartSession(e, cmp.Or(cfg.Name, "HumChess"), cfg.Log)
	defer s.Close()
	// Threads before NetFile: setting a NetFile opens it with the threads set.
	setup := []string{"uci", fmt.Sprintf("setoption name Threads value %d", rep.Threads)}
	if cfg.NetFile != "" {
		setup = append(setup, "setoption name NetFile value "+cfg.NetFile)
	}
	setup = append(setup,
		"setoption name Temperature value 0",
		fmt.Sprintf("setoption name Seed value %d", BenchSeed),
		"setoption name HumanTiming value false",
		"isready")
	for _, l := range setup {
		if err := s.Send(l); err != nil {
			return rep, err
		}
	}
	if _, at, err := s.Expect("readyok", benchStartupWait); err != nil {
		return rep, fmt.Errorf("startup: %w", err)
	} else {
		rep.Startup = at.Sub(t0)
	}
	if e.net != nil { // set by Ready, which happened before readyok
		rep.Net = e.net.Info().String()
	}

	h := fnv.New64a()
	var mem runtime.MemStats
	for i := range n {
		p := ps[i%len(ps)]
		for _, l := range []string{
			fmt.Sprintf("setoption name UCI_Elo value %d", p.Elo),
			fmt.Sprintf("setoption name OpponentElo value %d", p.OppElo),
			p.command(),
		} {
			if err := s.Send(l); err != nil {
				return rep, err
			}
		}
		start := time.Now()
		if err := s.Send(strings.TrimSpace("go " + p.Clock)); err != nil {
			return rep, err
		}
		lines, at, err := s.Expect("bestmove", benchGoTimeout)
		if err != nil {
			return rep, fmt.Errorf("position %d (%s): %w", i+1, p.Name, err)
		}
		rep.Go = append(rep.Go, at.Sub(start))
		if cfg.Each != nil {
			fmt.Fprintf(cfg.Each, "%4d %-60s %9s  %s\n", i+1, p.Name, ms(at.Sub(start)), lines[len(lines)-1])
		}
		fmt.Fprintf(h, "%d %s\n", i, p.Name)
		for _, l := range signatureLines(lines) {
			io.WriteString(h, l+"\n")
		}
		runtime.ReadMemStats(&mem)
		rep.HeapPeak = max(rep.HeapPeak, mem.HeapInuse)
	}
	rep.Signature = h.Sum64()
	runtime.ReadMemStats(&mem)
	rep.GoSys = mem.Sys
	rep.HeapPeak = max(rep.HeapPeak, mem.HeapInuse)
	rep.HWM = vmHWM()
	return rep, nil
}

// signatureLines keeps what a go printed that depends only on the net and
// the position: the probability lines, the score, and bestmove (not nodes
// or time).
func signatureLines(lines []string) []string {
	var out []string
	for _, l := range lines {
		f := strings.Fields(l)
		switch {
		case strings.HasPrefix(l, "info string") || strings.HasPrefix(l, "bestmove"):
			out = append(out, l)
		case strings.HasPrefix(l, "info depth"):
			if i := slices.Index(f, "score"); i >= 0 && i+2 < len(f) {
				out = append(out, strings.Join(f[i:i+3], " "))
			}
		}
	}
	return out
}

// vmHWM returns the process's peak resident set size (VmHWM in
// /proc/self/status) in bytes, or -1 where it is not available.
func vmHWM() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) == 2 && f[1] == "kB" {
				if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					return kb << 10
				}
			}
		}
	}
	return -1
}

// BenchPositions is the built-in bench set, a copy of
// testdata/bench/positions.txt (go:embed cannot reach testdata from here;
// TestBenchPositionsFixture keeps the two equal).
const BenchPositions = `# humchess bench positions; made by testdata/bench/make-positions.py (see there). Do not edit by hand.
# name | elo opponent-elo | go clock arguments | fen or startpos | moves
0oIYMwEZ-startpos | 1100 1150 | wtime 60000 btime 60000 | startpos | -
tiwVsgjX-endgame-promotion_legal | 1500 1500 | wtime 180000 btime 175000 winc 2000 binc 2000 | startpos | e2e4 e7e5 g1f3 d8f6 d2d4 e5d4 d1d4 b7b6 d4f6 g8f6 e4e5 f6d5 f1c4 c8b7 c4d5 b7d5 b1d2 b8c6 e1g1 e8c8 c2c4 d5f3 d2f3 f8c5 b2b3 h8e8 c1g5 f7f6 e5f6 h7h6 g5h4 g7g5 h4g3 e8e6 f6f7 d8f8 a1d1 f8f7 f1e1 e6e1 d1e1 c8b7 e1e8 c6b4 a2a3 b4c2 b3b4 c5e7 f3e5 f7g7 e5d7 c2a3 c4c5 b6c5 d7c5 e7c5 b4c5 g7g6 e8e7 g6c6 e7h7 a3b5 h2h3 a7a5 g3e5 a5a4 e5a1 a4a3 g1f1 a3a2 f1e2 b5d4 e2d2 d4b3 d2c2 b3a1 c2b2 a1c2 b2a2 c2b4 a2b3 b4d5 b3c4 d5f4 g2g3 f4h3 f2f4 g5f4 g3f4 h3f4 h7f7 f4e6 c4d5 e6c5 d5c4 c5d7 c4d4 d7b6 f7f1 h6h5 f1h1 c6h6 d4e5 h5h4 e5f5 h4h3 f5g4 h3h2 g4g5 h6h8 g5g6 b6d5 g6g7 h8h3 g7g6 c7c5 g6g5 c5c4 g5g4 c4c3 g4h3 c3c2 h1c1
qFIocc7t-endgame-promotion_legal | 1900 1850 | wtime 600000 btime 590000 | startpos | e2e4 b8c6 d2d3 c6b4 g1f3 b4a6 c1d2 a6b8 f1e2 e7e6 e1g1 d7d5 h2h3 g8f6 e4d5 f8e7 d5e6 c8e6 c2c3 e8g8 d3d4 b8c6 e2d3 e6d5 d3c2 d5f3 d1f3 d8d5 f3d3 f6e4 d3e4 d5e4 c2e4 a8e8 e4c6 b7c6 d2e3 e7d6 b1d2 e8e6 d2c4 f8e8 c4a5 c6c5 d4c5 d6e5 e3d4 e5d4 c3d4 e6e2 a5c4 e2c2 c4e5 f7f6 e5d7 c2b2 a1c1 b2a2 c5c6 e8e6 d4d5 e6d6 f1d1 a2a5 d7b8 a5d5 d1d5 d6d5 c1a1 d5d6 a1a7 d6d1 g1h2 d1d6 a7c7 g8f8 c7d7 d6e6 d7d8 e6e8 c6c7 e8d8
39fCXEPs-endgame-promotion_legal | 800 900 | - | startpos | d2d4 d7d6 c2c4 c7c6 g1f3 g8f6 b1c3 c8g4 c1g5 b8d7 g5f6 d7f6 e2e3 d8c7 f1e2 e7e5 h2h3 g4h5 d4e5 d6e5 d1b3 f8e7 e1g1 e8g8 a1c1 a7a6 f3d2 h5g6 f1d1 f8d8 d2f3 g6h5 g2g4 h5g6 c3a4 f6e4 g1g2 f7f6 a4b6 a8b8 d1d8 b8d8 c4c5 g6f7 b3b4 e4c5 c1c5 e7c5 b4c5 c7d6 c5d6 d8d6 e2c4 c6c5 c4f7 g8f7 b6c4 d6d1 b2b3 b7b5 c4b6 d1a1 a2a4 a1b1 a4b5 a6b5 f3d2 b1b2 d2e4 b2b3 e4d6 f7e6 d6c8 c5c4 g2f3 c4c3 e3e4 c3c2 f3e2
mRzOlPJW-endgame-promotion_legal | 1300 1200 | wtime 12000 btime 9000 | startpos | d2d4 g8f6 g1f3 g7g6 c2c4 f8g7 b1c3 e8g8 g2g3 d7d6 f1g2 c7c6 e1g1 c8f5 d1b3 d8c8 f1e1 f6e4 c3e4 f5e4 c1d2 d6d5 d2c3 b8d7 c4c5 b7b5 a2a4 a7a6 a1d1 a8b8 f3g5 e4g2 g1g2 h7h6 g5h3 e7e5 e2e3 f8e8 b3c2 b5b4 c3d2 f7f5 b2b3 a6a5 d4e5 d7e5 h3f4 g8h7 h2h4 h6h5 d2c1 b8b7 c1b2 b7e7 b2e5 e7e5 f4h3 g7h6 d1d4 e5e4 h3f4 h6f4 d4e4 e8e4 g3f4 c8e6 c2e2 d5d4 e2f3 d4e3 e1e3 e4e3 f2e3 e6b3 g2g3 b3d5 f3d5 c6d5 c5c6 b4b3 c6c7 b3b2
bNAvPJIb-endgame-promotion_legal | 2200 2250 | wtime 300000 btime 300000 winc 3000 binc 3000 movestogo 20 | startpos | d2d4 e7e6 g1f3 g8e7 c1f4 d7d6 e2e3 b8d7 f1d3 a7a6 b1d2 b7b5 f4g3 c8b7 e1g1 h7h6 d3e4 g7g5 e4b7 c7c6 b7a8 d8a8 c2c4 e7f5 a1c1 f5g3 h2g3 b5b4 b2b3 c6c5 d4c5 d7c5 d1c2 f7f5 f3d4 f8g7 d4e6 c5e6 c2f5 e6f8 d2e4 a8d8 c1d1 g7e5 d1d5 d8e7 f1d1 f8e6 e4d6 e5d6 d5d6 e6f8 f5c8 e8f7 d6d7 f8d7 d1d7 h8c8 d7e7 f7e7 g1f1 c8d8 f1e2 e7d6 f2f4 g5g4 e3e4 d6c5 e4e5 h6h5 e2e3 d8d1 e3e4 d1d2 e4f5 d2g2 f5g5 g2g3 g5h5 g3g1 e5e6 c5d6 f4f5 g4g3 h5g6 g3g2 f5f6 d6e6 f6f7 g1f1 f7f8q
DB5GifCc-middlegame-en_passant_legal | 1700 1600 | wtime 60000 btime 60000 | startpos | g1f3 g8f6 d2d4 d7d5 e2e3 e7e6 f1d3 f8d6 b1d2 b8d7 c2c3 c7c6 d1e2 d8e7 e3e4 e6e5 d4e5 d7e5 f3e5 d6e5 d2f3 d5e4 f3e5 e7e5 e1g1 e8g8 f2f4
vPWJ97mO-middlegame-en_passant_legal-castling_legal-partial_castling_rights | 600 650 | wtime 180000 btime 175000 winc 2000 binc 2000 | startpos | e2e3 e7e6 c2c4 g8e7 g1f3 b7b6 d2d4 c8b7 e3e4 d7d5 c4d5 e6d5 e4e5 b8c6 f1d3 d8d7 a2a3 e8c8 d1e2 c8b8 c1g5 h7h6 g5d2 f7f5
PsZ42ssf-opening-en_passant_legal | 1100 1150 | wtime 600000 btime 590000 | startpos | e2e4 e7e6 f1c4 h7h6 d1f3 a7a6 e4e5 d7d5 b1c3 d5c4 d2d4
1nzt3RbS-opening-en_passant_legal | 1500 1500 | - | startpos | e2e4 e7e5 f1c4 g8f6 d2d4 e5d4 e4e5 d7d5
uYFoSzKd-middlegame-en_passant_legal-partial_castling_rights | 1900 1850 | wtime 12000 btime 9000 | startpos | e2e3 e7e5 f1c4 g7g6 d1f3 g8h6 g1h3 f8g7 h3g5 e8g8 g5h7 g8h7 g2g4 c7c6 h2h4 d7d5 c4e2 e5e4 f3g2 f7f6 f2f4
5lNEKEgS-endgame-few_legal_moves-in_check | 800 900 | wtime 300000 btime 300000 winc 3000 binc 3000 movestogo 20 | startpos | e2e4 c7c6 d2d4 d7d5 e4e5 c8f5 h2h4 h7h5 f1d3 f5d3 d1d3 e7e6 c1g5 d8b6 g1e2 b8d7 b1d2 b6b2 e1g1 b2b6 f1b1 b6c7 f2f4 c6c5 c2c3 c5c4 d3c2 f7f6 c2g6 e8d8 e5f6 g7f6 f4f5 f6g5 f5e6 d7b6 g6g5 c7e7 g5e5 f8g7 e5g5 e7g5 h4g5 d8e7 e2f4 a8f8 b1f1 e7d6 a1e1 g8e7 g2g3 f8f5 f4h3 f5f1 g1f1 h5h4 g3g4 h8f8 f1g2 b6a4 e1e3 a4b2 d2f3 b2d3 f3h4 d3f4 h3f4 f8f4 h4f5 e7f5 g4f5 g7f8 f5f6 f4g4 g2h3 g4g5 e6e7 f8e7 f6e7 g5h5 h3g4 h5h8 e7e8q h8e8 e3e8 d6c6 e8a8 a7a6 g4f5 c6b5 a8b8 b7b6 f5e5 b5c6 b8c8 c6d7 c8h8 d7c6 h8h6 c6b5 e5d5 a6a5 h6h5 b5a4 d5c6 b6b5 h5b5 a4a3 b5a5 a3b2 a5a4 b2a1 c6c5 a1b2 d4d5 b2a1 d5d6 a1b1 d6d7 b1a1 d7d8q a1b1 d8d1 b1b2 a4b4
B7uK2DgY-middlegame-few_legal_moves-in_check | 1300 1200 | wtime 60000 btime 60000 | startpos | e2e4 d7d5 e4d5 d8d5 g1f3 d5d8 f1e2 c7c6 e1g1 c8g4 d2d4 e8d7 c2c4 d7e8 b1c3 d8c7 c1f4 c7f4 d1d3 g4f3 e2f3 b8d7 g2g3 f4h6 a1e1 e7e6 d4d5 c6d5 c4d5 e6e5 d3b5 a8b8 f3g4 h6d6 c3e4 d6c7 e1c1 c7d8 d5d6 a7a6 b5d5 g8f6 e4f6 g7f6 c1e1 h7h5 g4f5 h5h4 f2f4 h4g3 f4e5 g3h2
6fYAGSFw-opening-partial_castling_rights-in_check | 2200 2250 | wtime 180000 btime 175000 winc 2000 binc 2000 | startpos | e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 f3g5 d7d5 e4d5 f6d5 g5f7 e8f7 d1f3
TJlIGJlA-middlegame-castling_legal-partial_castling_rights | 1700 1600 | wtime 600000 btime 590000 | startpos | e2e4 d7d6 g1f3 g8f6 b1c3 c8g4 f1e2 g4f3 e2f3 c7c6 d2d4 b8d7 h2h3 d8a5 e1g1 e7e5 d4e5 d6e5 c1d2 a5c7 b2b3 f8d6 f1e1
7jL95djI-middlegame-castling_legal-partial_castling_rights | 600 650 | - | startpos | d2d4 f7f5 g1f3 g8f6 c1f4 d7d6 b1c3 b7b6 d1d3 g7g6 e2e4 c8a6 d3d2 a6f1 h1f1 f5e4 f3g5 d8d7 g5e4 f8g7
EWdZ7wrr-middlegame-partial_castling_rights | 1100 1150 | wtime 12000 btime 9000 | startpos | d2d4 d7d6 c2c4 g7g6 b1c3 f8g7 e2e4 g8f6 g1f3 e8g8 f1d3 c8g4 h2h3 g4f3 d1f3 b8d7 c1e3 c7c5 d4d5 d7e5 f3e2 f6d7 a1c1
izfFjQtx-middlegame-castling_legal | 1500 1500 | wtime 300000 btime 300000 winc 3000 binc 3000 movestogo 20 | startpos | g2g3 c7c5 f1g2 e7e6 d2d3 g8f6 c2c3 d7d5 c1d2 b8c6 d1c1 d8b6 a2a3 f8e7 h2h3 a7a6 b2b4
SVt1dGNb-opening-castling_legal | 1900 1850 | wtime 60000 btime 60000 | startpos | d2d4 d7d5 c2c4 c7c6 e2e3 g7g6 c4d5 c6d5 f1b5 b8c6 g1f3 f8g7
7yhOhUaN-opening-castling_legal | 800 900 | wtime 180000 btime 175000 winc 2000 binc 2000 | startpos | d2d4 g8f6 c2c4 e7e5 d4e5 f6g4 g1f3 f8c5 e2e3 b8c6 f1e2
3TZCl2ts-opening-castling_legal | 1300 1200 | wtime 600000 btime 590000 | startpos | d2d4 d7d5 g1f3 c7c5 d4c5 b8c6 c1f4 g8f6 e2e3 c8g4 f1b5 g7g6
bnKkqpq2-middlegame-few_legal_moves-in_check | 2200 2250 | - | startpos | c2c4 d7d6 g1f3 g8f6 g2g3 e7e5 d2d3 f8e7 f1g2 c8d7 b1c3 c7c6 e1g1 d8c8 b2b4 d7h3 b4b5 h3g2 g1g2 e8g8 b5c6 b8c6 c1b2 h7h6 b2a3 a7a6 a1c1 f6h7 c3d5 e7g5 f3g5 h7g5 d5e7
RkerKLdw-middlegame-few_legal_moves-in_check | 1700 1600 | wtime 12000 btime 9000 | startpos | e2e4 e7e6 b1c3 d7d6 g1f3 g8e7 f1e2 b8d7 d2d3 b7b6 e1g1 c8b7 c1d2 g7g6 d1c1 f8g7 e2d1 e8g8 c3e2 d8b8 e2g3 c7c6 h2h3 b8c7 f1e1 f7f6 a2a3 e6e5 b2b4 f6f5 c2c4 f5f4 g3e2 g6g5 e2c3 h7h6 e1f1 d7f6 d2e1 g5g4 f3d2 g4h3 g2h3 g8h8 g1h2 f8g8 f1g1 a8f8 d1f3 f8f7 d2b3 e7g6 e1d2 g6h4 c1d1 g7f8 f3e2 f7g7 d1c2 g7g2 g1g2 g8g2
jAasZBOn-endgame | 600 650 | wtime 300000 btime 300000 winc 3000 binc 3000 movestogo 20 | startpos | e2e4 e7e5 b1c3 g8f6 d2d4 e5d4 d1d4 b8c6 d4d1 f8b4 c1d2 e8g8 c3d5 f6d5 e4d5 b4d2 d1d2 c6e5 e1c1 d7d6 c1b1 c8f5 d1c1 e5c4 f1c4 c7c6 g1e2 b7b5 c4b3 a7a5 d5c6 a5a4 b3d5 a8c8 e2d4 f5g6 d4b5 d8f6 b5c3 a4a3 b2a3 c8b8 b1a1 b8b6 c1b1 f8b8 b1b6 b8b6 h1e1 f6d8 c3a4 b6b8 c2c3 h7h6 d2d4 g8h7 g2g3 d8e7 d4d2 e7a7 d5e4 a7a4 e4g6 f7g6 d2d6 b8c8 e1e2 c8c6 d6e5 a4d1 a1b2 c6b6 e5b5
RlrxM3wo-endgame | 1100 1150 | wtime 60000 btime 60000 | startpos | d2d4 e7e5 d4e5 f8c5 g1f3 d7d6 e5d6 g8e7 g2g3 c5d6 f1g2 c8e6 f3g5 e8g8 g5e6 f7e6 g2b7 b8c6 b7a8 d8a8 e1g1 a8b7 b1c3 c6e5 f2f3 e5g6 e2e4 b7b6 g1g2 b6b8 d1e2 b8b7 c1e3 a7a6 a1d1 b7b2 c3a4 b2a3 d1d4 a3a2 a4c3 a2a3 d4d3 a3a5 e3d2 a5b6 e4e5 d6c5 c3a4 b6a7 a4c5 a7c5 f3f4 c5b6 f4f5 e7f5 g3g4 f5e7 f1f8 g8f8 e2f2 b6f2 g2f2 g6e5 d3d8 f8f7 d8d7 e5c6 d7c7 f7f6 c7b7 h7h6 b7b1 g7g5 b1f1 f6e5
hsSL9uf5-endgame | 1500 1500 | wtime 180000 btime 175000 winc 2000 binc 2000 | startpos | e2e4 c7c5 g1f3 b8c6 b1c3 e7e6 d2d4 c5d4 f3d4 c6d4 d1d4 d8c7 d4d1 g8f6 f1d3 f8b4 c1d2 d7d6 a2a3 b4c5 e1f1 e8g8 h2h3 c7b6 d1e2 b6b2 a1a2 b2b6 c3a4 b6c6 a4c5 c6c5 g2g3 a7a6 f1g2 b7b5 d2e3 c5c6 h1d1 c8b7 f2f3 e6e5 c2c4 b5c4 d3c4 f8d8 a2c2 c6d7 d1c1 a8c8 c4a6 c8c2 c1c2 b7a6 e2a6 d6d5 e4d5 f6d5 e3f2 d5f6 a6c6 d7c6 c2c6 d8a8 g3g4 h7h6 f2c5 f6d5 g2f2 f7f6 c6d6 d5f4 h3h4
RXOHNTJc-endgame | 1900 1850 | wtime 600000 btime 590000 | startpos | e2e4 e7e5 g1f3 g8f6 f3e5 d8e7 e5f3 f6e4 f1e2 e7c5 e1g1 c5b6 d2d4 c7c5 c1e3 c5d4 e3d4 f8c5 d4c5 b6c5 b1d2 e4d2 d1d2 e8g8 f1e1 d7d5 e2d3 c8e6 f3g5 g7g6 g5e6 f7e6 e1e6 b8c6 a1e1 c6d4 e6e3 d4f5 d3f5 f8f5 h2h3 a8f8 e3e8 f8e8 e1e8 g8f7 d2e2 c5d6 e8e3 d5d4 e3f3 d6f6
eQmWwkji-endgame-few_legal_moves-in_check | 800 900 | - | startpos | e2e4 g8f6 b1c3 b8c6 g1f3 e7e5 d2d3 f8b4 f1e2 d7d5 e4d5 f6d5 c1d2 d5c3 b2c3 b4c5 e1g1 e8g8 c3c4 c8g4 h2h3 g4h5 f3e5 h5e2 d1e2 f8e8 e5c6 e8e2 c6d8 e2d2 d8b7 c5d4 a1b1 d2c2 b7a5 c2a2 a5c6 d4c5 b1b7 c5b6 f1e1 a2d2 c6a7 b6a7 b7c7 d2d3 e1e7 a7b6 c7b7 b6c5 e7f7 a8a1 g1h2 c5d6 g2g3 d6e5 f7e7 g8f8 e7e5 a1a2 e5f5 f8e8 h2g2 d3c3 b7g7 c3c4 f5b5 e8f8 g7h7 f8g8 h7d7 c4c8 b5b7 a2c2 d7g7 g8f8 g7h7 f8g8 b7g7 g8f8 g7f7
tzjlzt4b-endgame | 1300 1200 | wtime 12000 btime 9000 | startpos | d2d4 f7f5 c1g5 e7e6 g5e7 f8e7 g1f3 g8f6 e2e3 c7c5 f1c4 c5d4 c4e6 d7e6 e3d4 b8c6 e1g1 e8g8 c2c3 f6e4 d1c2 c8d7 f1e1 a8c8 f3e5 c6e5 d4e5 d8c7 b1d2 c7e5 d2e4 f5e4 f2f3 e5c5 g1h1 e4f3 e1e6 d7e6 g2f3 e7f6 c2g2 e6d5 a1g1 c5c6 g2g7 f6g7 g1g7 g8g7 h1g2 d5f3 g2g3 f8e8 g3h4 c6e6
tCvYkWUv-opening | 2200 2250 | wtime 300000 btime 300000 winc 3000 binc 3000 movestogo 20 | startpos | d2d4 d7d5 e2e3 c8f5 c2c3 e7e6 f1d3 g8f6 b1a3 b8c6 b2b4
zaMtffIp-opening | 1700 1600 | wtime 60000 btime 60000 | startpos | e2e4 d7d5
dql3K7jw-opening | 600 650 | wtime 180000 btime 175000 winc 2000 binc 2000 | startpos | g1f3 g8f6 d2d4 b8c6 c1g5 e7e6 b1c3
BI1bJIyw-opening | 1100 1150 | wtime 600000 btime 590000 | startpos | e2e4 e7e5
t0vZ2FYV-opening | 1500 1500 | - | startpos | e2e4 g8f6 d2d4 f6e4 b1c3 e4d6 c3d5 g7g6 d5c7 d8c7 g1f3
emCPs4NU-middlegame-partial_castling_rights | 1900 1850 | wtime 12000 btime 9000 | startpos | e2e4 b7b6 g1f3 c8b7 b1c3 g7g6 d2d4 f8g7 c1e3 e7e6 d1d2 g8e7 e3h6 e8g8 h6g7 g8g7 h2h4 f7f5 e4e5 b7f3 g2f3 h7h5 h1g1 d7d5 d2g5 c7c5 g5h5 c5d4 c3e2 d4d3 e2f4 f8h8 h5g5
FD7BzZQ5-middlegame | 800 900 | wtime 300000 btime 300000 winc 3000 binc 3000 movestogo 20 | startpos | e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 f3g5 d7d5 e4d5 c6d4 c2c3 b7b5 c4f1 f6d5 g5f7 e8f7 c3d4 c8e6 f1b5 e5d4 e1g1 f8d6 b5c6 a8b8 c6d5 e6d5 d1h5 f7f8 f2f4 d5f7
z3YsyW82-middlegame-castling_legal-partial_castling_rights | 1300 1200 | wtime 60000 btime 60000 | startpos | d2d4 d7d5 c1f4 c8f5 e2e3 e7e6 f1d3 f5d3 d1d3 f8d6 f4g3 d6g3 h2g3 b8c6 g1f3 d8d6 b1c3 c6b4 d3b5 b4c6 b5b7 a8b8 b7a6 g8f6 e1c1
69cUu7AE-middlegame | 2200 2250 | wtime 180000 btime 175000 winc 2000 binc 2000 | startpos | c2c4 c7c5 b1c3 e7e6 e2e3 d7d5 g2g3 g8f6 f1g2 f8e7 g1e2 b8c6 a2a3 c8d7 c4d5 c6e5 e1g1 e8g8 d5e6 d7e6 g2b7 a8b8
8Tc94YSE-middlegame | 1700 1600 | wtime 600000 btime 590000 | startpos | e2e4 c7c6 d2d4 d7d5 e4d5 c6d5 f1d3 g8f6 g1f3 b8c6 e1g1 c8g4 d3e2 e7e6 c1e3 f8e7 b1d2 e8g8 f3e5 g4e2 e5c6
EwUfPL4p-middlegame-castling_legal | 600 650 | - | startpos | e2e4 e7e5 g1f3 g8f6 f3e5 b8c6 e5c6 d7c6 f1c4 f6e4 b1c3 e4c3 b2c3 d8f6 d2d4 c6c5
fen-promotion-choice | 1100 1150 | wtime 12000 btime 9000 | 8/1P4k1/8/8/8/8/6K1/8 w - - 0 1 | -
fen-underpromotion-capture | 1500 1500 | wtime 300000 btime 300000 winc 3000 binc 3000 movestogo 20 | 1n1r2k1/P4ppp/8/8/8/8/5PPP/6K1 w - - 0 1 | -
fen-black-promotes | 1900 1850 | wtime 60000 btime 60000 | 8/8/8/8/8/1k6/p7/4K3 b - - 0 1 | -
fen-castling-both | 800 900 | wtime 180000 btime 175000 winc 2000 binc 2000 | r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R3K2R w KQkq - 4 8 | -
fen-en-passant | 1300 1200 | wtime 600000 btime 590000 | rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3 | -
fen-one-legal-move | 2200 2250 | - | 7k/8/8/8/8/8/6q1/7K w - - 0 1 | -
fen-check-few-moves | 1700 1600 | wtime 12000 btime 9000 | 4k3/8/8/8/8/8/3q4/4K3 w - - 0 1 | -
fen-kiwipete | 600 650 | wtime 300000 btime 300000 winc 3000 binc 3000 movestogo 20 | r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1 | -
`
