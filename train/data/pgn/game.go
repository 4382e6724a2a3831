package pgn

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Unknown is the value of a numeric field whose tag is missing or unreadable.
const Unknown = -1

// Tag is one tag pair, [Name "Value"], with the value unescaped.
type Tag struct {
	Name  string
	Value string
}

// TimeControl is the TimeControl tag, parsed.
//
// "180+2" gives Base 180, Increment 2; "600" (chess.com) Base 600, Increment
// 0; "40/7200:3600" the first period, Base 7200, Increment 0 (Moves 40).
// Untimed and correspondence games have Correspondence set and Base and
// Increment Unknown: lichess writes "-" for them, chess.com daily games
// "1/86400" (one move per day; PerMove holds the 86400). A missing, "?" or
// unreadable tag leaves Base and Increment Unknown and Correspondence false.
type TimeControl struct {
	Base           float64 // seconds on the clock at the start; Unknown if not known
	Increment      float64 // seconds added per move (fractions allowed: "60+0.6"); Unknown if not known
	Moves          int     // moves in the first period for "moves/seconds" forms, else 0
	PerMove        int     // seconds per move for correspondence "1/seconds" forms, else 0
	Correspondence bool    // untimed or correspondence (days per move)
}

// Known reports whether Base and Increment are known.
func (tc TimeControl) Known() bool { return tc.Base >= 0 && tc.Increment >= 0 }

// ParseTimeControl parses a TimeControl tag value (see TimeControl).
func ParseTimeControl(s string) TimeControl {
	tc := TimeControl{Base: Unknown, Increment: Unknown}
	s = strings.TrimSpace(s)
	switch s {
	case "", "?":
		return tc
	case "-":
		tc.Correspondence = true
		return tc
	}
	// Only the first period of a multi-period control ("40/7200:3600").
	if i := strings.IndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	if moves, secs, ok := strings.Cut(s, "/"); ok {
		m, err1 := strconv.Atoi(moves)
		t, err2 := strconv.Atoi(secs)
		if err1 != nil || err2 != nil || m <= 0 || t <= 0 {
			return tc
		}
		if m == 1 {
			tc.Correspondence = true
			tc.PerMove = t
			return tc
		}
		tc.Moves, tc.Base, tc.Increment = m, float64(t), 0
		return tc
	}
	base, inc, hasInc := strings.Cut(s, "+")
	b, err := parseSeconds(base)
	if err != nil {
		return tc
	}
	i := 0.0
	if hasInc {
		if i, err = parseSeconds(inc); err != nil {
			return tc
		}
	}
	tc.Base, tc.Increment = b, i
	return tc
}

// parseSeconds reads a non-negative, finite number of seconds ("180", "0.6").
func parseSeconds(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("pgn: bad seconds %q", s)
	}
	return v, nil
}

// Game is one game record. The reader reuses it: a *Game (and its slices)
// is valid until the next call to Next or NextHeaders; the strings in it are
// never overwritten and may be kept.
type Game struct {
	// Headers holds every tag pair in file order.
	Headers []Tag

	// Typed copies of the common tags ("" when absent).
	Event, Site, Date, White, Black string
	Result                          string // the Result tag: "1-0", "0-1", "1/2-1/2" or "*"
	Termination                     string
	WhiteTitle, BlackTitle          string // "BOT", "GM", ...
	Variant                         string // "" or "Standard" for standard chess
	FEN                             string // start position, "" for the initial one
	SetUp                           bool   // SetUp tag is "1"
	WhiteElo, BlackElo              int    // Unknown when missing or not a number
	TimeControl                     TimeControl

	// Moves holds the main line's SAN moves (move numbers, NAGs, comments,
	// variations and the result token removed; "0-0" written "O-O";
	// trailing !? annotations stripped). Filled by ParseMoves.
	Moves []string
	// Clocks holds, for each move, the mover's remaining time in seconds
	// from a [%clk h:mm:ss(.t)] comment after it, -1 when there is none.
	Clocks []float64
	// A fastchess "tl=12.345s" (time left, written with -pgnout
	// timeleft=true) stands in for [%clk] when the comment has none.
	// Evals holds, for each move, the [%eval] after it in pawns from
	// White's side; a mate in n is ±(MateEval-n); NaN when there is none.
	Evals []float64
	// Spent holds, for each move, the mover's think time in seconds as
	// engine-match programs write it in the comment after the move:
	// cutechess-cli "{+0.31/16 0.52s}", fastchess "{+0.31/16 0.512s, ...}"
	// (score/depth, then the time); -1 when there is none.
	Spent []float64
	// MovetextResult is the result token that ended the movetext.
	MovetextResult string

	// Line is the 1-based input line of the game's first line.
	Line int64

	movetext []byte  // raw movetext, into the reader's buffer
	atEOF    bool    // the input ended right after this game
	parsed   bool    // ParseMoves ran
	parseErr error   // what ParseMoves returned
	reader   *Reader // for moving stats when a lazy parse fails
	sanBuf   []byte  // move text of the game, converted to one string
	sanEnd   []int   // end offsets of each move in sanBuf
}

// MateEval is the magnitude, in pawns, from which a mate score is counted
// down in Game.Evals: mate in n for White is +(MateEval-n).
const MateEval = 1000

// MoverEval returns the evaluation of the position before ply i (evals as
// Game.Evals: the [%eval] after each ply) in centipawns for the side to
// move there (white: White moves at ply i), or NaN when evals gives none
// (the first position, a ply without a comment, evals too short).
func MoverEval(evals []float64, i int, white bool) float64 {
	if i < 1 || i > len(evals) || math.IsNaN(evals[i-1]) {
		return math.NaN()
	}
	if white {
		return 100 * evals[i-1]
	}
	return -100 * evals[i-1]
}

// Header returns the value of the first tag called name and whether there is one.
func (g *Game) Header(name string) (string, bool) {
	for _, t := range g.Headers {
		if t.Name == name {
			return t.Value, true
		}
	}
	return "", false
}

// Movetext returns the raw movetext (everything after the tag pairs, lines
// joined by '\n'). It aliases the reader's buffer: valid until the next
// call to Next or NextHeaders.
func (g *Game) Movetext() []byte { return g.movetext }

// Standard reports whether the game is standard chess from the initial
// position: Variant absent or "Standard" (any case), and no FEN/SetUp.
func (g *Game) Standard() bool {
	v := g.Variant
	return (v == "" || strings.EqualFold(v, "Standard") || strings.EqualFold(v, "chess")) && g.FEN == "" && !g.SetUp
}

// reset clears g for a new game, keeping its buffers.
func (g *Game) reset() {
	r, moves, clocks, evals, spent, hdr, sb, se := g.reader, g.Moves[:0], g.Clocks[:0], g.Evals[:0], g.Spent[:0], g.Headers[:0], g.sanBuf[:0], g.sanEnd[:0]
	clear(g.Headers[:cap(g.Headers)])
	*g = Game{reader: r, Moves: moves, Clocks: clocks, Evals: evals, Spent: spent, Headers: hdr, sanBuf: sb, sanEnd: se,
		WhiteElo: Unknown, BlackElo: Unknown, TimeControl: TimeControl{Base: Unknown, Increment: Unknown}}
}

// parseHeaders parses the tag-pair lines in hdr (joined by '\n') into g.
func (g *Game) parseHeaders(hdr []byte) error {
	if len(hdr) == 0 {
		return nil
	}
	s := string(hdr) // one allocation: every name and value slices into it
	for len(s) > 0 {
		var line string
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			line, s = s, ""
		}
		if err := g.parseTagLine(line); err != nil {
			return err
		}
	}
	for _, t := range g.Headers {
		g.setTyped(t)
	}
	return nil
}

// parseTagLine parses one line holding one or more [Name "Value"] pairs.
func (g *Game) parseTagLine(line string) error {
	line = strings.TrimSpace(line)
	for len(line) > 0 {
		if line[0] != '[' {
			return &GameError{Err: ErrBadTag, Detail: shorten([]byte(line))}
		}
		i := 1
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		start := i
		for i < len(line) && isNameByte(line[i]) {
			i++
		}
		name := line[start:i]
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if name == "" || i >= len(line) || line[i] != '"' {
			return &GameError{Err: ErrBadTag, Detail: shorten([]byte(line))}
		}
		i++
		vstart, escaped := i, false
		for i < len(line) && line[i] != '"' {
			if line[i] == '\\' && i+1 < len(line) {
				escaped = true
				i++
			}
			i++
		}
		if i >= len(line) {
			return &GameError{Err: ErrBadTag, Detail: shorten([]byte(line))}
		}
		value := line[vstart:i]
		if escaped {
			value = unescape(value)
		}
		i++
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i >= len(line) || line[i] != ']' {
			return &GameError{Err: ErrBadTag, Detail: shorten([]byte(line))}
		}
		g.Headers = append(g.Headers, Tag{Name: name, Value: value})
		line = strings.TrimLeft(line[i+1:], " \t")
	}
	return nil
}

// isNameByte reports whether c may appear in a tag name.
func isNameByte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
}

// unescape removes the backslashes of \" and \\ in a tag value.
func unescape(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// setTyped copies a tag into its typed field, if it has one.
func (g *Game) setTyped(t Tag) {
	switch t.Name {
	case "Event":
		g.Event = t.Value
	case "Site":
		g.Site = t.Value
	case "Date":
		g.Date = t.Value
	case "White":
		g.White = t.Value
	case "Black":
		g.Black = t.Value
	case "Result":
		g.Result = t.Value
	case "Termination":
		g.Termination = t.Value
	case "WhiteTitle":
		g.WhiteTitle = t.Value
	case "BlackTitle":
		g.BlackTitle = t.Value
	case "Variant":
		g.Variant = t.Value
	case "FEN":
		g.FEN = t.Value
	case "SetUp":
		g.SetUp = strings.TrimSpace(t.Value) == "1"
	case "WhiteElo":
		g.WhiteElo = parseElo(t.Value)
	case "BlackElo":
		g.BlackElo = parseElo(t.Value)
	case "TimeControl":
		g.TimeControl = ParseTimeControl(t.Value)
	}
}

// parseElo parses a rating; Unknown for "", "?", "-" or anything not a
// non-negative integer.
func parseElo(s string) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 {
		return Unknown
	}
	return n
}

// Clone returns a deep copy of g that no later call on the reader
// changes, detached from the reader: ParseMoves on it (for example in a
// worker goroutine, which is how to spread movetext parsing over cores)
// updates no Stats, so the caller counts its failures.
func (g *Game) Clone() *Game {
	c := *g
	c.reader = nil
	c.Headers = append([]Tag(nil), g.Headers...)
	c.Moves = append([]string(nil), g.Moves...)
	c.Clocks = append([]float64(nil), g.Clocks...)
	c.Evals = append([]float64(nil), g.Evals...)
	c.Spent = append([]float64(nil), g.Spent...)
	c.movetext = append([]byte(nil), g.movetext...)
	c.sanBuf, c.sanEnd = nil, nil
	return &c
}
