package eval

import (
	"context"
	"os"
	"testing"

	"github.com/humchess/humchess/nets"

	"github.com/humchess/humchess/internal/testenv"
)

// benchEval runs move matching over the first games of the shared lichess
// sample and reports positions per second.
func benchEval(b *testing.B, spec Spec, games int64) {
	if _, err := os.Stat(realPGN); err != nil {
		testenv.Missing(b, "no lichess sample: %v", err)
	}
	var positions int64
	for b.Loop() {
		rep, err := Run(context.Background(), Config{Inputs: []string{realPGN}, MaxGames: games, Contestants: []Spec{spec}})
		if err != nil {
			b.Fatal(err)
		}
		positions += rep.Positions(ProtocolAll)
	}
	b.ReportMetric(float64(positions)/b.Elapsed().Seconds(), "positions/s")
}

func BenchmarkEvalFake(b *testing.B) {
	benchEval(b, NetContestantSpec("fake", func() (nets.Net, error) { return nets.NewFake(1), nil }), 200)
}

func BenchmarkEvalMaia(b *testing.B) {
	p := maiaDir + "/maia-1500.pb.gz"
	if _, err := os.Stat(p); err != nil {
		b.Skip("no maia net:", err) // ../shared/maia may be empty, on CI too
	}
	benchEval(b, NetSpec("maia-1500", p), 20)
}
