package torch

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// progress draws a one-line progress bar under the log lines while a run goes
// on, when the log is a terminal: steps done, the latest loss, positions/s
// and the time left. Log lines are printed above it (it is cleared first and
// redrawn after).
type progress struct {
	w        io.Writer
	on       bool
	total    int       // the run's last step
	first    int       // the first step of this session
	start    time.Time // when this session's first step began
	samples  int64     // positions trained on in this session
	last     time.Time // last redraw
	line     string    // what is on the screen now, "" none
	redrawIn time.Duration
}

// newProgress returns a bar for steps first..total, drawn only when w is a terminal.
func newProgress(w io.Writer, first, total int) *progress {
	return &progress{w: w, on: isTerminal(w), total: total, first: first, start: time.Now(), redrawIn: 200 * time.Millisecond}
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// step records a finished step and redraws the bar at most five times a second
// (and always at the last step).
func (p *progress) step(step, samples int, loss float64) {
	p.samples += int64(samples)
	if !p.on {
		return
	}
	now := time.Now()
	if step < p.total && now.Sub(p.last) < p.redrawIn {
		return
	}
	p.last = now
	el := now.Sub(p.start)
	done := step - p.first + 1
	var eta time.Duration
	if done > 0 {
		eta = time.Duration(float64(el) / float64(done) * float64(p.total-step))
	}
	p.line = barLine(step, p.total, loss, float64(p.samples)/max(el.Seconds(), 1e-9), el, eta, 30)
	fmt.Fprintf(p.w, "\r%s\x1b[K", p.line)
}

// clear removes the bar before a log line is printed.
func (p *progress) clear() {
	if p.on && p.line != "" {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}

// redraw puts the bar back after a log line.
func (p *progress) redraw() {
	if p.on && p.line != "" {
		fmt.Fprint(p.w, p.line)
	}
}

// done ends the bar's line, leaving it on the screen.
func (p *progress) done() {
	if p.on && p.line != "" {
		fmt.Fprintln(p.w)
		p.line = ""
	}
}

// barLine renders the bar: "[#####.....]  42.0%  step 420/1000  loss 2.3456
// 1234 pos/s  12m30s elapsed, 17m15s left", width characters of bar.
func barLine(step, total int, loss, rate float64, elapsed, eta time.Duration, width int) string {
	frac := 0.0
	if total > 0 {
		frac = min(max(float64(step)/float64(total), 0), 1)
	}
	full := int(frac * float64(width))
	bar := strings.Repeat("#", full) + strings.Repeat(".", width-full)
	return fmt.Sprintf("[%s] %5.1f%%  step %d/%d  loss %.4f  %.0f pos/s  %s elapsed, %s left",
		bar, 100*frac, step, total, loss, rate, shortDur(elapsed), shortDur(eta))
}

// shortDur formats d as 1h02m, 12m30s or 45s.
func shortDur(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	switch {
	case s >= 3600:
		return fmt.Sprintf("%dh%02dm", s/3600, s%3600/60)
	case s >= 60:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%ds", s)
}
