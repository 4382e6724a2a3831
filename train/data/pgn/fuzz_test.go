package pgn

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReader feeds arbitrary bytes to the reader, through both Next (with a
// Filter) and NextHeaders + ParseMoves, and checks that it never panics,
// always ends, keeps Clocks and Evals aligned with Moves, and accounts for
// every game it saw.
func FuzzReader(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(fixtureDir, "*.pgn"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b, uint16(0))
		}
	}
	f.Add([]byte("[Event \"x\"]\n\n1. e4 { [%clk 0:00:0"), uint16(64))
	f.Add([]byte("[A \"b\"]\n(((((\n[A \"b\"]\n1-0"), uint16(20))
	f.Fuzz(func(t *testing.T, data []byte, max uint16) {
		for pass := 0; pass < 2; pass++ {
			r := NewReader(bytes.NewReader(data))
			r.MaxGameBytes = int(max)
			if pass == 0 {
				r.Filter = func(g *Game) bool { return len(g.Headers)%2 == 0 }
			}
			for i := 0; ; i++ {
				if i > len(data)+2 {
					t.Fatalf("more games than bytes: %d", i)
				}
				var g *Game
				var err error
				if pass == 0 {
					g, err = r.Next()
				} else {
					g, err = r.NextHeaders()
					if err == nil {
						_ = g.ParseMoves()
					}
				}
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("non-EOF error from an in-memory reader: %v", err)
				}
				if len(g.Clocks) != len(g.Moves) || len(g.Evals) != len(g.Moves) {
					t.Fatalf("misaligned: %d moves, %d clocks, %d evals", len(g.Moves), len(g.Clocks), len(g.Evals))
				}
			}
			st := r.Stats()
			if st.Games < 0 || st.Bytes != int64(len(data)) {
				t.Fatalf("stats %+v for %d bytes", st, len(data))
			}
		}
	})
}
