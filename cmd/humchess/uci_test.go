package main

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/humchess/humchess/engine"
	"github.com/humchess/humchess/engine/enginetest"
	"github.com/humchess/humchess/uci"
	"github.com/humchess/humchess/uci/client/clienttest"
)

var update = flag.Bool("update", false, "rewrite testdata/uci/*.out from the current output")

// runTranscript feeds the lines of in one by one to humchess's UCI server
// (newServer) on the engine with Fake nets (enginetest.OpenFake), named
// "HumChess test", its clock stopped, Seed 1 and HumanTiming off, waiting
// after each line for the search to print what it will print.
func runTranscript(in string) string {
	out := &clienttest.Buffer{}
	e := engine.New(enginetest.OpenFake)
	defer e.Close()
	s := newServer(e, out, nil)
	s.Name = "HumChess test"
	t0 := time.Unix(0, 0)
	s.Now = func() time.Time { return t0 }
	setup := []string{"setoption name Seed value 1", "setoption name HumanTiming value false"}
	for _, line := range append(setup, strings.Split(in, "\n")...) {
		if strings.HasPrefix(line, "#") { // comments in .in files
			continue
		}
		if errors.Is(s.Execute(line), uci.ErrQuit) {
			break
		}
		s.Sync()
	}
	s.Close()
	return out.String()
}

// TestTranscripts runs testdata/uci/*.in through uci.Run's command loop
// with the engine on the Fake net and compares with *.out. Regenerate with
// go test ./cmd/humchess -run Transcripts -update (make uci-transcripts).
func TestTranscripts(t *testing.T) {
	ins, err := filepath.Glob("../../testdata/uci/*.in")
	if err != nil || len(ins) == 0 {
		t.Fatalf("no transcripts in testdata/uci (%v)", err)
	}
	for _, in := range ins {
		name := strings.TrimSuffix(filepath.Base(in), ".in")
		t.Run(name, func(t *testing.T) {
			input, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			got := runTranscript(string(input))
			outPath := strings.TrimSuffix(in, ".in") + ".out"
			if *update {
				if err := os.WriteFile(outPath, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(outPath)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("transcript %s.in:\n--- want (%s)\n%s--- got\n%s", name, outPath, want, got)
			}
			// Protocol invariants, whatever the expected file says.
			if g, b := strings.Count(string(input), "\ngo")+boolInt(strings.HasPrefix(string(input), "go")), strings.Count(got, "bestmove "); g != b {
				t.Errorf("transcript %s: %d go commands but %d bestmove lines", name, g, b)
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
