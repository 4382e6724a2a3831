package pgn

import (
	"bytes"
	"math"
	"strconv"
)

// parse tokenizes g.movetext into Moves, Clocks and Evals (once).
func (g *Game) parse() error {
	if !g.parsed {
		g.parsed = true
		g.parseErr = g.tokenize()
		if g.parseErr != nil {
			// A failed game has no moves: keep the three slices aligned.
			g.Moves, g.Clocks, g.Evals, g.Spent = g.Moves[:0], g.Clocks[:0], g.Evals[:0], g.Spent[:0]
		}
	}
	return g.parseErr
}

// fail builds the *GameError for a movetext problem; at the end of input an
// unfinished game is reported as truncated.
func (g *Game) fail(err error, detail []byte) error {
	if g.atEOF && (err == ErrNoResult || err == ErrUnterminatedComment || err == ErrUnterminatedVariation) {
		err = ErrTruncated
	}
	return &GameError{Err: err, Line: g.Line, Detail: shorten(detail)}
}

// tokenize is the movetext scanner.
func (g *Game) tokenize() error {
	b := g.movetext
	g.Moves, g.Clocks, g.Evals, g.Spent = g.Moves[:0], g.Clocks[:0], g.Evals[:0], g.Spent[:0]
	g.sanBuf, g.sanEnd = g.sanBuf[:0], g.sanEnd[:0]
	depth := 0 // variation nesting
	result := []byte(nil)
	for i := 0; i < len(b); {
		c := b[i]
		switch c {
		case ' ', '\n', '\r', '\t', '\f', '\v':
			i++
			continue
		case '{':
			end := bytes.IndexByte(b[i+1:], '}')
			if end < 0 {
				return g.fail(ErrUnterminatedComment, b[i:])
			}
			if depth == 0 && len(g.sanEnd) > 0 {
				g.comment(b[i+1 : i+1+end])
			}
			i += end + 2
			continue
		case ';':
			end := bytes.IndexByte(b[i:], '\n')
			if end < 0 {
				i = len(b)
			} else {
				i += end + 1
			}
			continue
		case '(':
			if result != nil {
				return g.fail(ErrAfterResult, b[i:])
			}
			depth++
			i++
			continue
		case ')':
			depth--
			if depth < 0 {
				return g.fail(ErrUnterminatedVariation, b[i:])
			}
			i++
			continue
		case '$':
			j := i + 1
			for j < len(b) && b[j] >= '0' && b[j] <= '9' {
				j++
			}
			if j == i+1 {
				return g.fail(ErrBadToken, b[i:])
			}
			i = j
			continue
		case '!', '?':
			for i < len(b) && (b[i] == '!' || b[i] == '?') {
				i++
			}
			continue
		case '}':
			return g.fail(ErrBadToken, b[i:])
		}
		j := i
		for j < len(b) && !isDelim(b[j]) {
			j++
		}
		tok := b[i:j]
		i = j
		if depth > 0 {
			continue
		}
		if result != nil {
			return g.fail(ErrAfterResult, tok)
		}
		if isResult(tok) {
			result = tok
			continue
		}
		// A move number, possibly glued to its move ("12.Nf3", "12...Nf3").
		if tok[0] >= '0' && tok[0] <= '9' && !isCastle(tok) {
			k := 0
			for k < len(tok) && tok[k] >= '0' && tok[k] <= '9' {
				k++
			}
			if k == len(tok) || tok[k] != '.' {
				return g.fail(ErrBadToken, tok)
			}
			for k < len(tok) && tok[k] == '.' {
				k++
			}
			if tok = tok[k:]; len(tok) == 0 {
				continue
			}
		}
		// Annotations glued to the move: "Qe7?", "e4!?".
		for len(tok) > 0 && (tok[len(tok)-1] == '!' || tok[len(tok)-1] == '?') {
			tok = tok[:len(tok)-1]
		}
		if !isSAN(tok) {
			return g.fail(ErrBadToken, tok)
		}
		if isCastle(tok) {
			// Normalise the zeros some exporters write.
			tok = castleSAN(tok)
		}
		g.sanBuf = append(g.sanBuf, tok...)
		g.sanEnd = append(g.sanEnd, len(g.sanBuf))
		g.Clocks = append(g.Clocks, -1)
		g.Evals = append(g.Evals, math.NaN())
		g.Spent = append(g.Spent, -1)
	}
	if depth > 0 {
		return g.fail(ErrUnterminatedVariation, nil)
	}
	if result == nil {
		return g.fail(ErrNoResult, nil)
	}
	g.MovetextResult = string(result)
	s := string(g.sanBuf)
	start := 0
	for _, end := range g.sanEnd {
		g.Moves = append(g.Moves, s[start:end])
		start = end
	}
	return nil
}

// isDelim reports whether c ends a movetext token.
func isDelim(c byte) bool {
	switch c {
	case ' ', '\n', '\r', '\t', '\f', '\v', '{', '}', '(', ')', ';', '$':
		return true
	}
	return false
}

// isResult reports whether tok is a game termination marker.
func isResult(tok []byte) bool {
	switch string(tok) {
	case "1-0", "0-1", "1/2-1/2", "*":
		return true
	}
	return false
}

// isCastle reports whether tok is castling, with O or 0, and a check suffix.
func isCastle(tok []byte) bool {
	if len(tok) < 3 || tok[0] != 'O' && tok[0] != '0' {
		return false
	}
	t := tok
	for len(t) > 0 && (t[len(t)-1] == '+' || t[len(t)-1] == '#') {
		t = t[:len(t)-1]
	}
	switch string(t) {
	case "O-O", "O-O-O", "0-0", "0-0-0":
		return true
	}
	return false
}

// castleSAN returns tok with zeros written as letters O.
func castleSAN(tok []byte) []byte {
	if tok[0] == 'O' {
		return tok
	}
	var buf [8]byte
	out := append(buf[:0], tok...)
	for k := range out {
		if out[k] == '0' {
			out[k] = 'O'
		}
	}
	return out
}

// isSAN reports whether tok has the shape of a SAN move: castling, or
// [piece][from file][from rank][x]square[=promotion][+#]. The promotion
// "=" may be missing ("e8Q"); "P" is allowed as a pawn letter. Legality is
// not checked.
func isSAN(tok []byte) bool {
	if isCastle(tok) {
		return true
	}
	t := tok
	if n := len(t); n > 0 && (t[n-1] == '+' || t[n-1] == '#') {
		t = t[:n-1]
	}
	if n := len(t); n >= 2 && isPromo(t[n-1]) {
		if t[n-2] == '=' {
			t = t[:n-2]
		} else if t[n-2] >= '1' && t[n-2] <= '8' {
			t = t[:n-1]
		}
	}
	// Destination square.
	n := len(t)
	if n < 2 || !isFile(t[n-2]) || !isRank(t[n-1]) {
		return false
	}
	t = t[:n-2]
	capture := len(t) > 0 && t[len(t)-1] == 'x'
	if capture {
		t = t[:len(t)-1]
	}
	if len(t) > 0 && t[0] == 'P' {
		t = t[1:]
	} else if len(t) == 0 || !isPiece(t[0]) {
		// A pawn: "e4" or "exd5".
		return len(t) == 0 && !capture || len(t) == 1 && capture && isFile(t[0])
	} else {
		t = t[1:]
	}
	// Disambiguation: file, rank or both.
	if len(t) > 0 && isFile(t[0]) {
		t = t[1:]
	}
	if len(t) > 0 && isRank(t[0]) {
		t = t[1:]
	}
	return len(t) == 0
}

func isFile(c byte) bool  { return c >= 'a' && c <= 'h' }
func isRank(c byte) bool  { return c >= '1' && c <= '8' }
func isPiece(c byte) bool { return c == 'N' || c == 'B' || c == 'R' || c == 'Q' || c == 'K' }
func isPromo(c byte) bool { return c == 'N' || c == 'B' || c == 'R' || c == 'Q' }

// Markers of the commands read inside comments.
var (
	clkCmd  = []byte("[%clk")
	evalCmd = []byte("[%eval")
	tlKey   = []byte("tl=")
)

// comment reads %clk and %eval commands from a main-line comment after the
// last move, and the think time and time left that cutechess-cli and
// fastchess write; the first of each kind wins.
func (g *Game) comment(c []byte) {
	last := len(g.Clocks) - 1
	if k := bytes.Index(c, clkCmd); k >= 0 && g.Clocks[last] < 0 {
		if v, ok := parseClock(c[k+len(clkCmd):]); ok {
			g.Clocks[last] = v
		} else if g.reader != nil {
			g.reader.stats.BadClocks++
		}
	}
	if g.Clocks[last] < 0 {
		if v, ok := timeLeft(c); ok {
			g.Clocks[last] = v
		}
	}
	if g.Spent[last] < 0 {
		if v, ok := matchSpent(c); ok {
			g.Spent[last] = v
		}
	}
	if k := bytes.Index(c, evalCmd); k >= 0 && math.IsNaN(g.Evals[last]) {
		if v, ok := parseEval(c[k+len(evalCmd):]); ok {
			g.Evals[last] = v
		}
	}
}

// matchSpent reads the think time of a cutechess-cli or fastchess move
// comment: its first comma-separated part is "<score>/<depth> <t>s" (or
// "<t>s" alone), such as "+0.31/16 0.512s" or "-M3/12 1.2s".
func matchSpent(c []byte) (float64, bool) {
	first, _, _ := bytes.Cut(c, []byte{','})
	f := bytes.Fields(first)
	switch {
	case len(f) == 2 && bytes.IndexByte(f[0], '/') > 0:
		return seconds(f[1])
	case len(f) == 1:
		return seconds(f[0])
	}
	return 0, false
}

// timeLeft reads a fastchess "tl=<t>s" item (a comma- or space-separated
// part of the comment) as seconds.
func timeLeft(c []byte) (float64, bool) {
	for rest := c; ; {
		k := bytes.Index(rest, tlKey)
		if k < 0 {
			return 0, false
		}
		if k == 0 || rest[k-1] == ' ' || rest[k-1] == ',' {
			v := rest[k+len(tlKey):]
			if end := bytes.IndexAny(v, ", "); end >= 0 {
				v = v[:end]
			}
			return seconds(v)
		}
		rest = rest[k+len(tlKey):]
	}
}

// seconds parses "<digits>[.<digits>]s" as seconds.
func seconds(b []byte) (float64, bool) {
	num, ok := bytes.CutSuffix(b, []byte{'s'})
	if !ok || len(num) == 0 || num[0] < '0' || num[0] > '9' || bytes.Count(num, []byte{'.'}) > 1 {
		return 0, false
	}
	for _, d := range num {
		if (d < '0' || d > '9') && d != '.' {
			return 0, false
		}
	}
	v, err := strconv.ParseFloat(string(num), 64)
	if err != nil || v < 0 || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// parseClock parses " h:mm:ss(.f)]" (also "m:ss" or plain seconds) into seconds.
func parseClock(b []byte) (float64, bool) {
	b = trimLeftSpace(b)
	end := bytes.IndexByte(b, ']')
	if end < 0 {
		return 0, false
	}
	b = bytes.TrimSpace(b[:end])
	if len(b) == 0 {
		return 0, false
	}
	total := 0.0
	for part := 0; ; part++ {
		if part > 2 {
			return 0, false
		}
		field := b
		colon := bytes.IndexByte(b, ':')
		if colon >= 0 {
			field, b = b[:colon], b[colon+1:]
		}
		if len(field) == 0 {
			return 0, false
		}
		if colon >= 0 {
			n, ok := atoiDigits(field)
			if !ok {
				return 0, false
			}
			total = total*60 + float64(n)
			continue
		}
		// Seconds, maybe with a fraction.
		ip, frac, hasFrac := bytes.Cut(field, []byte{'.'})
		n, ok := atoiDigits(ip)
		if !ok {
			return 0, false
		}
		total = total*60 + float64(n)
		if hasFrac {
			f, ok := atoiDigits(frac)
			if !ok || len(frac) > 9 {
				return 0, false
			}
			total += float64(f) / math.Pow10(len(frac))
		}
		return total, true
	}
}

// atoiDigits parses a non-empty run of at most 9 ASCII digits.
func atoiDigits(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// parseEval parses " 0.33]", " -1.5,20]" or " #-7]" into pawns (see MateEval).
func parseEval(b []byte) (float64, bool) {
	b = trimLeftSpace(b)
	end := 0
	for end < len(b) && b[end] != ']' && b[end] != ',' {
		end++
	}
	if end == len(b) {
		return 0, false
	}
	b = bytes.TrimSpace(b[:end])
	if len(b) > 0 && b[0] == '#' {
		n, err := strconv.Atoi(string(b[1:]))
		if err != nil || n == 0 && b[1] != '+' && b[1] != '-' {
			return 0, false
		}
		if n < 0 || n == 0 && b[1] == '-' {
			return -(MateEval + float64(n)), true
		}
		return MateEval - float64(n), true
	}
	if v, ok := parseDecimal(b); ok {
		return v, true
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// parseDecimal is the fast path of parseEval: [-+]digits[.digits] with at
// most 15 digits in all, which it converts exactly as ParseFloat would (an
// integer below 2^53 divided by an exact power of ten is correctly rounded).
func parseDecimal(b []byte) (float64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	var mant int64
	digits, frac, dot := 0, 0, false
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			mant = mant*10 + int64(c-'0')
			digits++
			if dot {
				frac++
			}
		case c == '.' && !dot:
			dot = true
		default:
			return 0, false
		}
	}
	if digits == 0 || digits > 15 || dot && frac == 0 {
		return 0, false
	}
	v := float64(mant) / math.Pow10(frac)
	if neg {
		v = -v
	}
	return v, true
}

// trimLeftSpace drops leading ASCII blanks.
func trimLeftSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	return b
}
