package engine

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/humchess/humchess/board"
)

const (
	positionsFixture = "../testdata/bench/positions.txt"
	fakeGolden       = "../testdata/bench/fake.golden"
)

var update = flag.Bool("update", false, "rewrite testdata/bench/fake.golden from the current signature")

// TestBenchPositionsFixture checks that the built-in bench set equals the
// fixture made by testdata/bench/make-positions.py, and that it spans what
// the bench should cover.
func TestBenchPositionsFixture(t *testing.T) {
	want, err := os.ReadFile(positionsFixture)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != BenchPositions {
		t.Fatalf("BenchPositions in bench.go differs from %s: copy the file into the constant", positionsFixture)
	}
	ps, err := ParseBenchPositions(BenchPositions)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) < 40 {
		t.Errorf("bench set has %d positions, want at least 40", len(ps))
	}
	counts := map[string]int{}
	names := map[string]bool{}
	for _, p := range ps {
		if names[p.Name] {
			t.Errorf("position name %s appears twice", p.Name)
		}
		names[p.Name] = true
		g, err := p.game()
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		legal := g.LegalMoves()
		if len(legal) == 0 {
			t.Errorf("%s: no legal move; the bench wants a move in every position", p.Name)
		}
		if g.SideToMove() == board.Black {
			counts["black to move"]++
		}
		if g.EnPassant() != board.NoSquare {
			counts["en passant square"]++
		}
		if g.Castling() != 0 {
			counts["castling rights"]++
		}
		if g.InCheck() {
			counts["in check"]++
		}
		if len(legal) <= 3 {
			counts["at most 3 legal moves"]++
		}
		for _, m := range legal {
			if m.Promo != board.NoPieceType {
				counts["promotion legal"]++
				break
			}
		}
		if p.Clock == "" {
			counts["no clock"]++
		}
		if p.FEN != "" {
			counts["from FEN"]++
		}
		if len(p.Moves) >= 60 {
			counts["60+ plies of history"]++
		}
	}
	for _, k := range []string{"black to move", "en passant square", "castling rights", "in check", "at most 3 legal moves",
		"promotion legal", "no clock", "from FEN", "60+ plies of history"} {
		if counts[k] == 0 {
			t.Errorf("no bench position with %s", k)
		}
	}
	t.Logf("bench set: %d positions; %v", len(ps), counts)
}

// TestParseBenchPositionsErrors feeds malformed lines and expects an error
// naming the line, never a panic.
func TestParseBenchPositionsErrors(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"empty", "# only a comment\n", "none given"},
		{"fields", "a | 1500 1500 | - | startpos\n", "4 fields"},
		{"ratings", "a | 1500 | - | startpos | -\n", "ratings"},
		{"rating range", "a | 1500 99999 | - | startpos | -\n", "rating"},
		{"rating text", "a | x 1500 | - | startpos | -\n", "rating"},
		{"fen", "a | 1500 1500 | - | not a fen | -\n", "positions line 1 (a)"},
		{"illegal move", "a | 1500 1500 | - | startpos | e2e5\n", "move 1 (e2e5)"},
	} {
		_, err := ParseBenchPositions(tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: ParseBenchPositions(%q) = %v, want an error containing %q", tc.name, tc.text, err, tc.want)
		}
	}
}

// TestBenchFakeNet runs the bench on the Fake net: the signature is the
// same on every run and with another thread count, matches the golden file
// (regenerate with go test ./engine -run BenchFakeNet -update), and
// -n cycles through the positions.
func TestBenchFakeNet(t *testing.T) {
	ps, err := ParseBenchPositions(BenchPositions)
	if err != nil {
		t.Fatal(err)
	}
	run := func(threads, n int) BenchReport {
		t.Helper()
		e := fakeEngine()
		defer e.Close()
		rep, err := Bench(e, ps, BenchConfig{Threads: threads, N: n})
		if err != nil {
			t.Fatalf("bench (threads %d, n %d): %v", threads, n, err)
		}
		return rep
	}
	a, b, c := run(1, 0), run(1, 0), run(2, 0)
	if a.Signature != b.Signature || a.Signature != c.Signature {
		t.Errorf("signatures differ: run 1 %016x, run 2 %016x, threads 2 %016x", a.Signature, b.Signature, c.Signature)
	}
	if len(a.Go) != len(ps) {
		t.Errorf("played %d positions, want %d", len(a.Go), len(ps))
	}
	if long := run(1, len(ps)+7); len(long.Go) != len(ps)+7 || long.Signature == a.Signature {
		t.Errorf("-n %d: played %d positions, signature %016x (want %d and a signature other than %016x)", len(ps)+7, len(long.Go), long.Signature, len(ps)+7, a.Signature)
	}
	if !strings.HasPrefix(a.Net, "fake") {
		t.Errorf("net %q, want the Fake net's Info", a.Net)
	}
	if a.Startup <= 0 || a.HeapPeak == 0 || a.GoSys == 0 {
		t.Errorf("startup %v, heap peak %d, sys %d: want all positive", a.Startup, a.HeapPeak, a.GoSys)
	}

	var out bytes.Buffer
	a.Write(&out)
	text := out.String()
	for _, want := range []string{"startup to readyok", "go to bestmove      p50", "p99", "positions/s", "VmHWM", "\nBench: "} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	sig := fmt.Sprintf("Bench: %016x\n", a.Signature)
	if !strings.HasSuffix(text, sig) {
		t.Errorf("report does not end with %q:\n%s", sig, text)
	}
	if *update {
		if err := os.WriteFile(fakeGolden, []byte(sig), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(fakeGolden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != sig {
		t.Errorf("Fake net bench: got %q, want %q (%s); if the pipeline changed on purpose, regenerate with -update", sig, want, fakeGolden)
	}
}

// TestPercentile checks the nearest-rank percentile.
func TestPercentile(t *testing.T) {
	d := []time.Duration{5, 1, 4, 2, 3, 6, 7, 8, 9, 10}
	for _, tc := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 5}, {0.99, 10}, {0.1, 1}, {1, 10}} {
		if got := percentile(d, tc.q); got != tc.want {
			t.Errorf("percentile(%v, %v) = %v, want %v", d, tc.q, got, tc.want)
		}
	}
	if got := percentile(nil, 0.5); got != 0 {
		t.Errorf("percentile(nil) = %v, want 0", got)
	}
}

// BenchmarkGoBestmove times go to bestmove through the UCI server (an
// in-memory pipe), HumanTiming off, engine defaults otherwise (temperature
// 100, blunder filter on, Threads 1), cycling through the bench positions:
// fake (the protocol and pipeline without a net), maia-1100, and the Tiny
// and Default transformer architectures with random weights. Nets that are
// absent, or ONNX Runtime, skip.
func BenchmarkGoBestmove(b *testing.B) {
	ps, err := ParseBenchPositions(BenchPositions)
	if err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name string
		path func(b *testing.B) string // "" = the Fake net
	}{
		{"fake", func(*testing.B) string { return "" }},
		{"maia-1100", func(b *testing.B) string { ortOrSkip(b); return maiaOrSkip(b, "maia-1100") }},
		{"tiny", func(b *testing.B) string { ortOrSkip(b); return randomNetFile(b, "tiny") }},
		{"default", func(b *testing.B) string { ortOrSkip(b); return randomNetFile(b, "default") }},
	}
	for _, n := range cases {
		b.Run(n.name, func(b *testing.B) {
			path := n.path(b)
			e := fakeEngine()
			if path != "" {
				e = New(nil)
			}
			defer e.Close()
			s := StartSession(e, "HumChess", nil)
			defer s.Close()
			setup := []string{"setoption name HumanTiming value false", "setoption name Seed value 1", "isready"}
			if path != "" {
				setup = append([]string{"setoption name NetFile value " + path}, setup...)
			}
			for _, l := range setup {
				if err := s.Send(l); err != nil {
					b.Fatal(err)
				}
			}
			if _, _, err := s.Expect("readyok", benchStartupWait); err != nil {
				b.Fatal(err)
			}
			i := 0
			for b.Loop() {
				p := ps[i%len(ps)]
				i++
				for _, l := range []string{p.command(), strings.TrimSpace("go " + p.Clock)} {
					if err := s.Send(l); err != nil {
						b.Fatal(err)
					}
				}
				if _, _, err := s.Expect("bestmove", benchGoTimeout); err != nil {
					b.Fatalf("%s: %v", p.Name, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/move")
		})
	}
}
