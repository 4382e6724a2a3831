package torch

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestBarLine(t *testing.T) {
	got := barLine(420, 1000, 2.34567, 1234.4, 750*time.Second, 1035*time.Second, 10)
	assert.Equal(t, "[####......]  42.0%  step 420/1000  loss 2.3457  1234 pos/s  12m30s elapsed, 17m15s left", got)
	assert.True(t, strings.HasPrefix(barLine(1000, 1000, 1, 1, time.Hour+2*time.Minute, 0, 4), "[####] 100.0%"))
	assert.Contains(t, barLine(3, 10, 1, 1, 3*time.Hour+5*time.Minute, 45*time.Second, 4), "3h05m elapsed, 45s left")
	assert.True(t, strings.HasPrefix(barLine(0, 0, 1, 1, 0, 0, 4), "[....]   0.0%"), "no steps: an empty bar, no division by zero")
}

// TestProgressOffWhenNotATerminal: logs to files and pipes get no bar.
func TestProgressOffWhenNotATerminal(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, 1, 10)
	for s := 1; s <= 10; s++ {
		p.step(s, 64, 1)
	}
	p.clear()
	p.redraw()
	p.done()
	assert.Empty(t, b.String())
	assert.EqualValues(t, 640, p.samples)
}

// TestProgressDraws: on a terminal the bar is redrawn in place and cleared
// around log lines.
func TestProgressDraws(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, 1, 4)
	p.on, p.redrawIn = true, 0 // as on a terminal
	p.step(1, 8, 3)
	p.clear()
	b.WriteString("log line\n")
	p.redraw()
	p.step(4, 8, 2)
	p.done()
	out := b.String()
	assert.Contains(t, out, "\r[")
	assert.Contains(t, out, "\r\x1b[Klog line\n[")
	assert.Contains(t, out, "step 4/4  loss 2.0000")
	assert.True(t, strings.HasSuffix(out, "left\x1b[K\n"), "done ends the line: %q", out)
}
