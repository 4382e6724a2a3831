package uci

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/humchess/humchess/score"
)

// printer is the one place output goes through: a mutex-guarded writer
// that writes whole lines.
type printer struct {
	mu  sync.Mutex
	w   io.Writer
	err error // first write error
}

func (p *printer) line(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return
	}
	_, p.err = io.WriteString(p.w, s+"\n")
}

// oneLine keeps a message on one protocol line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// maxQuote is the most bytes of the GUI's text an error message quotes.
const maxQuote = 64

// maxMessage is the most bytes of one error message the server prints or
// logs, whatever an Engine's error quotes.
const maxMessage = 1000

// quote quotes the GUI's text s for an error message: whole when short,
// else its first maxQuote bytes and its length, so that a huge command line
// never comes back whole.
func quote(s string) string {
	if len(s) <= maxQuote {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%q... (%d bytes)", runePrefix(s, maxQuote), len(s))
}

// clip cuts s to at most n bytes and "...".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return runePrefix(s, n) + "..."
}

// runePrefix is the longest prefix of s of at most n bytes that does not
// split a UTF-8 sequence.
func runePrefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func errorLine(err error) string {
	return "info string error: " + clip(oneLine(err.Error()), maxMessage)
}

func optionLine(o option) string {
	var b strings.Builder
	fmt.Fprintf(&b, "option name %s type %s default ", o.name, o.kind)
	if o.def == "" && o.kind == kindString {
		b.WriteString("<empty>")
	} else {
		b.WriteString(o.def)
	}
	if o.kind == kindSpin {
		fmt.Fprintf(&b, " min %d max %d", o.min, o.max)
	}
	return b.String()
}

// wdlPermille turns probabilities into integers summing to 1000.
func wdlPermille(p [3]float64) (w, d, l int) {
	sum := p[0] + p[1] + p[2]
	if !(sum > 0) || math.IsInf(sum, 0) {
		return 0, 1000, 0
	}
	w = int(math.Round(1000 * clamp01(p[0]/sum)))
	l = int(math.Round(1000 * clamp01(p[2]/sum)))
	if w+l > 1000 {
		l = 1000 - w
	}
	return w, 1000 - w - l, l
}

func clamp01(x float64) float64 {
	if !(x >= 0) {
		return 0
	}
	return min(x, 1)
}

// CentipawnsFromWDL converts win/draw/loss probabilities of the side to
// move into centipawns with the logistic curve lichess uses for its
// accuracy figures (score.Centipawns of the expected score E = W + D/2),
// which stays within about +-2500.
func CentipawnsFromWDL(p [3]float64) int {
	w, d, _ := wdlPermille(p)
	e := (float64(w) + float64(d)/2) / 1000
	e = min(max(e, 1e-4), 1-1e-4)
	return int(math.Round(score.Centipawns(e)))
}

// infoLines renders a Result's candidates: one "info depth 1 ..." line each
// (with multipv k when more than one is wanted) and one "info string" line
// with the move's probability.
func infoLines(r Result, o Options, elapsed time.Duration) []string {
	var out []string
	multi := o.MultiPV > 1
	for k, l := range r.Lines {
		var b strings.Builder
		b.WriteString("info depth 1 seldepth 1")
		if multi {
			fmt.Fprintf(&b, " multipv %d", k+1)
		}
		if l.HasWDL {
			fmt.Fprintf(&b, " score cp %d", CentipawnsFromWDL(l.WDL))
			if o.ShowWDL {
				w, d, ls := wdlPermille(l.WDL)
				fmt.Fprintf(&b, " wdl %d %d %d", w, d, ls)
			}
		}
		fmt.Fprintf(&b, " nodes %d time %d pv %s", r.Nodes, elapsed.Milliseconds(), l.Move)
		out = append(out, b.String())
		p := 100 * clamp01(l.Prob)
		if multi {
			out = append(out, fmt.Sprintf("info string multipv %d %s prob %.1f%%", k+1, l.Move, p))
		} else {
			out = append(out, fmt.Sprintf("info string %s prob %.1f%%", l.Move, p))
		}
	}
	return out
}

func bestMoveLine(r Result) string {
	m := r.BestMove
	if m == "" {
		return "bestmove 0000"
	}
	if r.Ponder != "" {
		return "bestmove " + m + " ponder " + r.Ponder
	}
	return "bestmove " + m
}
