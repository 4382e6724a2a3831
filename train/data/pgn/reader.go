package pgn

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
)

// DefaultMaxGameBytes is the default cap on one game's text.
const DefaultMaxGameBytes = 1 << 20 // bytes

// bom is the UTF-8 byte-order mark, skipped at the start of any line.
var bom = []byte{0xef, 0xbb, 0xbf}

// Stats counts what a Reader has seen. Every game the input holds lands in
// exactly one of Games, Filtered and Skipped.
type Stats struct {
	Games     int64            // games returned with their moves parsed (or headers only, see NextHeaders)
	Filtered  int64            // games Reader.Filter rejected
	Skipped   map[string]int64 // games skipped, by reason (see Reason)
	BadClocks int64            // %clk comments that did not parse (the move's clock is -1)
	Bytes     int64            // bytes of PGN text read (after decompression)
	Lines     int64            // lines read
}

// Total returns the number of games seen: Games + Filtered + all Skipped.
func (s Stats) Total() int64 {
	n := s.Games + s.Filtered
	for _, v := range s.Skipped {
		n += v
	}
	return n
}

// SkippedTotal returns the number of skipped games, all reasons together.
func (s Stats) SkippedTotal() int64 {
	var n int64
	for _, v := range s.Skipped {
		n += v
	}
	return n
}

// Reader reads games from a PGN stream one at a time. Set its exported
// fields before the first call to Next. A Reader is not safe for
// concurrent use.
type Reader struct {
	// Filter, when not nil, is called by Next with each game whose headers
	// parsed, before its movetext is tokenized; a game it rejects is
	// counted in Stats.Filtered and costs no movetext parsing. Moves,
	// Clocks and Evals are empty when it runs.
	Filter func(*Game) bool
	// OnSkip, when not nil, is called with the *GameError of each skipped
	// game (for logging); it must not keep the error's game.
	OnSkip func(err error)
	// MaxGameBytes caps one game's text; a bigger game is skipped as
	// ErrTooLarge without being held in memory. Zero means
	// DefaultMaxGameBytes.
	MaxGameBytes int

	br      *bufio.Reader
	line    []byte // the current line, when it spans bufio's buffer
	pending []byte // a tag line read that begins the next game
	hasPend bool
	pendNo  int64 // line number of pending
	hdr     []byte
	mt      []byte
	game    Game
	stats   Stats
	err     error // sticky read error (io.EOF at the end)
}

// NewReader returns a Reader reading PGN text from r (already decompressed;
// see Open).
func NewReader(r io.Reader) *Reader {
	rd := &Reader{br: bufio.NewReaderSize(r, 64<<10), stats: Stats{Skipped: map[string]int64{}}}
	rd.game.reader = rd
	return rd
}

// Stats returns a copy of the counts so far.
func (r *Reader) Stats() Stats {
	s := r.stats
	s.Skipped = maps.Clone(r.stats.Skipped)
	return s
}

// Next returns the next well-formed game that passes Filter, with headers,
// Moves, Clocks and Evals filled. Malformed games are skipped and counted.
// It returns io.EOF at the end of the input, or a read error wrapping the
// underlying one (for example a corrupt compressed stream). The game is
// reused by the next call.
func (r *Reader) Next() (*Game, error) {
	for {
		g, err := r.nextGame()
		if err != nil {
			return nil, err
		}
		if r.Filter != nil && !r.Filter(g) {
			r.stats.Filtered++
			continue
		}
		if err := g.parse(); err != nil {
			r.skip(err)
			continue
		}
		r.stats.Games++
		return g, nil
	}
}

// NextHeaders returns the next game whose headers parse, without
// tokenizing its movetext and without calling Filter: call
// Game.ParseMoves for its moves. The game counts in Stats.Games until a
// ParseMoves on it fails, which moves it to Stats.Skipped. It returns
// io.EOF at the end of the input. The game is reused by the next call.
func (r *Reader) NextHeaders() (*Game, error) {
	g, err := r.nextGame()
	if err != nil {
		return nil, err
	}
	r.stats.Games++
	return g, nil
}

// ParseMoves tokenizes the game's movetext into Moves, Clocks and Evals.
// It returns a *GameError wrapping the skip reason when the movetext is
// malformed; then, for a game from NextHeaders, the reader's Stats count it
// as skipped instead of read. Calling it again returns the same result.
func (g *Game) ParseMoves() error {
	if g.parsed {
		return g.parseErr
	}
	err := g.parse()
	if err != nil && g.reader != nil {
		g.reader.stats.Games--
		g.reader.skip(err)
	}
	return err
}

// skip counts a skipped game.
func (r *Reader) skip(err error) {
	r.stats.Skipped[Reason(err)]++
	if r.OnSkip != nil {
		r.OnSkip(err)
	}
}

// nextGame reads the next game's text and parses its headers, skipping
// (and counting) games that are too large, have bad tags or no headers.
func (r *Reader) nextGame() (*Game, error) {
	for {
		g, err := r.readGame()
		if g != nil {
			return g, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// Line states while reading one game.
const (
	stBefore   = iota // nothing of the game yet
	stTags            // in the tag pairs
	stTagsGap         // a blank line after tag pairs
	stMovetext        // in the movetext
)

// readGame reads one game. It returns the game, or nil and nil when the
// game was skipped, or nil and the sticky error at the end of the input.
func (r *Reader) readGame() (*Game, error) {
	maxBytes := r.MaxGameBytes
	if maxBytes <= 0 {
		maxBytes = DefaultMaxGameBytes
	}
	r.hdr, r.mt = r.hdr[:0], r.mt[:0]
	g := &r.game
	g.reset()
	state, tooLarge, size := stBefore, false, 0
	var firstLine int64
	for {
		var line []byte
		var lineNo int64
		var long bool
		if r.hasPend {
			line, lineNo, r.hasPend = r.pending, r.pendNo, false
		} else {
			if r.err != nil {
				break
			}
			var err error
			line, long, err = r.readLine(maxBytes)
			if err != nil {
				r.err = err
				if len(line) == 0 {
					break
				}
			}
			lineNo = r.stats.Lines
		}
		line = bytes.TrimPrefix(line, bom)
		kind := classify(line)
		switch kind {
		case lineBlank:
			if state == stTags {
				state = stTagsGap
			}
			continue
		case lineEscape:
			continue
		case lineTag:
			if state == stMovetext || state == stTagsGap {
				r.pending = append(r.pending[:0], line...)
				r.pendNo, r.hasPend = lineNo, true
				return r.finish(firstLine, state, tooLarge, false)
			}
		}
		if state == stBefore {
			firstLine = lineNo
		}
		if kind == lineTag {
			state = stTags
		} else {
			state = stMovetext
		}
		if tooLarge {
			continue
		}
		size += len(line) + 1
		if long || size > maxBytes {
			tooLarge = true
			continue
		}
		if kind == lineTag {
			r.hdr = append(r.hdr, line...)
			r.hdr = append(r.hdr, '\n')
		} else {
			r.mt = append(r.mt, line...)
			r.mt = append(r.mt, '\n')
		}
	}
	if state == stBefore {
		if errors.Is(r.err, io.EOF) {
			return nil, io.EOF
		}
		return nil, readError(r.err)
	}
	return r.finish(firstLine, state, tooLarge, true)
}

// finish turns the text read into the game, or counts why it is skipped.
// atEnd says the input ended after it.
func (r *Reader) finish(firstLine int64, state int, tooLarge, atEnd bool) (*Game, error) {
	g := &r.game
	g.Line = firstLine
	g.atEOF = atEnd
	if atEnd && !errors.Is(r.err, io.EOF) {
		// A read error in the middle of the game: the game is lost.
		r.skip(&GameError{Err: ErrTruncated, Line: firstLine, Detail: r.err.Error()})
		return nil, readError(r.err)
	}
	var err error
	switch {
	case tooLarge:
		err = &GameError{Err: ErrTooLarge, Line: firstLine}
	case len(r.hdr) == 0:
		err = &GameError{Err: ErrNoHeaders, Line: firstLine, Detail: shorten(firstLineOf(r.mt))}
	default:
		if e := g.parseHeaders(r.hdr); e != nil {
			var ge *GameError
			if errors.As(e, &ge) {
				ge.Line = firstLine
			}
			err = e
		}
	}
	if err != nil {
		r.skip(err)
		return nil, nil
	}
	g.movetext = r.mt
	return g, nil
}

// readError is the error Next returns for a read error: Open's ErrCorrupt
// errors already say what broke and where; others get a prefix.
func readError(err error) error {
	if errors.Is(err, ErrCorrupt) {
		return err
	}
	return fmt.Errorf("pgn: read: %w", err)
}

// firstLineOf returns b up to its first '\n'.
func firstLineOf(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i]
	}
	return b
}

// readLine returns the next line without its line ending. A line longer
// than limit is cut to limit bytes (the rest is read and dropped) and long
// is set. The returned slice is valid until the next call. err is the read
// error that ended the input (io.EOF at the end), with the last line
// (possibly empty) still returned.
func (r *Reader) readLine(limit int) (line []byte, long bool, err error) {
	chunk, err := r.br.ReadSlice('\n')
	r.stats.Bytes += int64(len(chunk))
	if errors.Is(err, bufio.ErrBufferFull) {
		r.line = append(r.line[:0], chunk...)
		for errors.Is(err, bufio.ErrBufferFull) {
			chunk, err = r.br.ReadSlice('\n')
			r.stats.Bytes += int64(len(chunk))
			if len(r.line) < limit {
				r.line = append(r.line, chunk[:min(len(chunk), limit-len(r.line))]...)
			} else {
				long = true
			}
		}
		chunk = r.line
	}
	if len(chunk) > 0 || err == nil {
		r.stats.Lines++
	}
	chunk = bytes.TrimSuffix(chunk, []byte{'\n'})
	chunk = bytes.TrimSuffix(chunk, []byte{'\r'})
	return chunk, long, err
}

// Kinds of line.
const (
	lineBlank  = iota // only whitespace
	lineEscape        // starts with %: ignored (PGN escape mechanism)
	lineTag           // starts with [ and a tag name
	lineText          // anything else: movetext
)

// classify tells what a line is from its first non-blank bytes.
func classify(line []byte) int {
	if len(line) > 0 && line[0] == '%' {
		return lineEscape
	}
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '\f' || line[i] == '\v') {
		i++
	}
	if i == len(line) {
		return lineBlank
	}
	if line[i] == '[' && i+1 < len(line) && isTagStart(line[i+1]) {
		return lineTag
	}
	return lineText
}

// isTagStart reports whether c may begin a tag name.
func isTagStart(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
}
