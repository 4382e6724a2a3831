package prep

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/humchess/humchess/train/internal/cli"
)

// startProgress draws a one-line progress bar on w twice a second while the
// run goes on, when w is a terminal and quiet is false. The returned function
// stops it and ends the line.
func startProgress(w io.Writer, quiet bool, cnt *counters, start time.Time) func() {
	if quiet || w == nil || !cli.IsTerminal(w) {
		return func() {}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				fmt.Fprintf(w, "\r%s\n", progressLine(cnt, start))
				return
			case <-t.C:
				fmt.Fprintf(w, "\r%s\x1b[K", progressLine(cnt, start))
			}
		}
	}()
	return func() { close(stop); wg.Wait() }
}

func progressLine(cnt *counters, start time.Time) string {
	sec := max(time.Since(start).Seconds(), 1e-9)
	g, p, k := cnt.gamesSeen.Load(), cnt.posSeen.Load(), cnt.posKept.Load()
	return fmt.Sprintf("prep %5.0fs | games %s (%s/s) decoded %s skipped %s | positions %s (%s/s) kept %s",
		sec, human(g), human(int64(float64(g)/sec)), human(cnt.gamesDecoded.Load()), human(cnt.gamesSkipped.Load()),
		human(p), human(int64(float64(p)/sec)), human(k)) + teacherProgress(cnt, sec)
}

func teacherProgress(cnt *counters, sec float64) string {
	if !cnt.teacher {
		return ""
	}
	n := cnt.labelled.Load()
	return fmt.Sprintf(" | teacher labelled %s (%s/s)", human(n), human(int64(float64(n)/sec)))
}

// human formats n with a k/M/G suffix.
func human(n int64) string {
	switch {
	case n >= 10_000_000_000:
		return fmt.Sprintf("%.0fG", float64(n)/1e9)
	case n >= 10_000_000:
		return fmt.Sprintf("%.0fM", float64(n)/1e6)
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
