package prep

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/humchess/humchess/train/data/games"
)

const rapidSample = "../../../../shared/data/lichess-rapid-4756-players-59k.pgn.zst"

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPrep measures PGN to shards on the first 5,000 games of the lichess
// rapid sample, with one worker and with every core, under the default filters
// and under "all" (no balancing, no rating floor, no early-ply sampling: every
// position of every standard game is encoded and written). It reports games/s,
// replayed positions/s, kept positions/s and CPU microseconds per position
// (useful on a shared machine, where wall time depends on the neighbours).
//
//	go test -run '^$' -bench Prep -benchtime 1x -cpuprofile cpu.out ./train/data/prep/
func BenchmarkPrep(b *testing.B) {
	in := dataFile(b, rapidSample)
	for _, filters := range []string{"default", "all"} {
		for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
			b.Run(fmt.Sprintf("%s/workers=%d", filters, workers), func(b *testing.B) {
				var nGames, seen, kept int64
				c0, t0 := cpuTime(), time.Now()
				for range b.N {
					cfg := testConfig(b, in)
					cfg.Workers = workers
					cfg.MaxGames = 5000
					if filters == "all" {
						cfg.BalanceBand, cfg.MinRating, cfg.EarlyFullPly, cfg.MinPlies = 0, 0, 0, 0
						cfg.TimeClasses = games.ClassNames()[1:]
					}
					sum, err := Run(context.Background(), cfg, io.Discard)
					if err != nil {
						b.Fatal(err)
					}
					nGames += sum.GamesSeen
					seen += sum.PositionsSeen
					kept += sum.PositionsKept
				}
				sec := time.Since(t0).Seconds()
				b.ReportMetric(float64(nGames)/sec, "games/s")
				b.ReportMetric(float64(seen)/sec, "positions/s")
				b.ReportMetric(float64(kept)/sec, "kept/s")
				b.ReportMetric(float64((cpuTime()-c0).Microseconds())/float64(max(seen, 1)), "cpu-µs/position")
			})
		}
	}
}
