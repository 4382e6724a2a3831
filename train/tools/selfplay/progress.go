package selfplay

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/humchess/humchess/train/internal/cli"
)

// Intervals of the progress line.
const (
	progressTerminal = time.Second      // redrawn in place on a terminal
	progressLog      = 30 * time.Second // a new line in a log file
)

// startProgress writes a progress line on w while the run goes on (redrawn
// every second on a terminal, a new line every 30 s otherwise), unless
// quiet. The returned function stops it, writing the last line.
func startProgress(w io.Writer, quiet bool, p *progress, start time.Time) func() {
	if quiet || w == nil || w == io.Discard {
		return func() {}
	}
	term := cli.IsTerminal(w)
	every := progressLog
	if term {
		every = progressTerminal
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-stop:
				if term {
					fmt.Fprintf(w, "\r%s\x1b[K\n", p.line(start))
				} else {
					fmt.Fprintln(w, p.line(start))
				}
				return
			case <-t.C:
				if term {
					fmt.Fprintf(w, "\r%s\x1b[K", p.line(start))
				} else {
					fmt.Fprintln(w, p.line(start))
				}
			}
		}
	})
	return func() { close(stop); wg.Wait() }
}

// line is the progress line: games done, plies per second, the estimated
// time left.
func (p *progress) line(start time.Time) string {
	el := time.Since(start)
	sec := max(el.Seconds(), 1e-9)
	g, n := p.games.Load(), p.plies.Load()
	eta := "?"
	if g > 0 {
		eta = (time.Duration(float64(el) * float64(p.total-g) / float64(g))).Round(time.Second).String()
	}
	return fmt.Sprintf("selfplay %6.0fs | games %d/%d (%.0f%%) | plies %d (%.1f/s) | ETA %s",
		sec, g, p.total, 100*float64(g)/float64(max(p.total, 1)), n, float64(n)/sec, eta)
}
