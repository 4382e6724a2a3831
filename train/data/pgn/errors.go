package pgn

import (
	"errors"
	"strconv"
)

// Errors of the package. The ones naming a skip reason are also the keys of
// [Stats.Skipped] (their text without the "pgn: " prefix) and are wrapped in
// a *GameError when returned by [Game.ParseMoves] or passed to [Reader.OnSkip].
var (
	// ErrFormat is returned by Open when the file's content is neither PGN
	// text nor a supported compressed stream.
	ErrFormat = errors.New("pgn: unsupported file format")
	// ErrCorrupt means a file opened by Open broke off while being read: a
	// compressed stream that is truncated or damaged, or a failing read.
	// The error names the file and how far into it reading got; the games
	// before the break were returned normally.
	ErrCorrupt = errors.New("pgn: truncated or corrupt file")

	// ErrTooLarge: the game's text exceeded Reader.MaxGameBytes.
	ErrTooLarge = errors.New("pgn: too large")
	// ErrTruncated: the input ended inside the game (no result token,
	// unterminated comment or variation at the end of input).
	ErrTruncated = errors.New("pgn: truncated")
	// ErrNoHeaders: movetext with no tag pairs before it.
	ErrNoHeaders = errors.New("pgn: no headers")
	// ErrBadTag: a tag-pair line that does not parse as [Name "value"].
	ErrBadTag = errors.New("pgn: bad tag")
	// ErrNoResult: the movetext ended (the next game began) without a
	// result token.
	ErrNoResult = errors.New("pgn: no result")
	// ErrUnterminatedComment: a { comment not closed before the next game.
	ErrUnterminatedComment = errors.New("pgn: unterminated comment")
	// ErrUnterminatedVariation: a ( variation not closed before the next
	// game, or a ) with no ( before it.
	ErrUnterminatedVariation = errors.New("pgn: unbalanced variation")
	// ErrBadToken: a movetext token that is neither a move number, a SAN
	// move, a NAG nor a result.
	ErrBadToken = errors.New("pgn: bad token")
	// ErrAfterResult: movetext after the result token.
	ErrAfterResult = errors.New("pgn: text after result")
)

// skipReasons lists the sentinel errors that name skip reasons.
var skipReasons = []error{
	ErrTooLarge, ErrTruncated, ErrNoHeaders, ErrBadTag, ErrNoResult,
	ErrUnterminatedComment, ErrUnterminatedVariation, ErrBadToken, ErrAfterResult,
}

// GameError is why one game was skipped: a sentinel Err, the game's first
// line in the input (1-based) and a short detail such as the bad token.
type GameError struct {
	Err    error  // one of the sentinel errors naming a skip reason
	Line   int64  // 1-based line of the game's first line in the input
	Detail string // the offending token or tag, possibly shortened; may be empty
}

// Error implements error.
func (e *GameError) Error() string {
	s := e.Err.Error()
	if e.Line > 0 {
		s += " (game at line " + strconv.FormatInt(e.Line, 10) + ")"
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Unwrap returns the sentinel error.
func (e *GameError) Unwrap() error { return e.Err }

// Reason returns the skip reason of err: the text of its sentinel without the
// "pgn: " prefix, or "other" when err wraps none of them.
func Reason(err error) string {
	for _, s := range skipReasons {
		if errors.Is(err, s) {
			return s.Error()[len("pgn: "):]
		}
	}
	return "other"
}

// shorten returns at most 40 bytes of b as a string, for error details.
func shorten(b []byte) string {
	const max = 40
	if len(b) > max {
		return string(b[:max]) + "..."
	}
	return string(b)
}
