package board

import "errors"

// Errors returned by the package. Returned errors wrap one of these, so test
// with errors.Is.
var (
	// ErrBadFEN is returned by NewGame for a malformed or illegal FEN.
	ErrBadFEN = errors.New("board: bad FEN")
	// ErrIllegalMove is returned when a move is not legal in the position.
	ErrIllegalMove = errors.New("board: illegal move")
	// ErrBadMove is returned for a move string that does not parse.
	ErrBadMove = errors.New("board: malformed move")
	// ErrAmbiguousMove is returned by PlaySAN when a SAN move matches several legal moves.
	ErrAmbiguousMove = errors.New("board: ambiguous move")
	// ErrBadSquare is returned for a square name that does not parse.
	ErrBadSquare = errors.New("board: bad square")
	// ErrTruncated is returned by the binary decoders when the input ends early.
	ErrTruncated = errors.New("board: truncated data")
	// ErrCorrupt is returned by the binary decoders for out-of-range fields.
	ErrCorrupt = errors.New("board: corrupt data")
	// ErrContract is returned by Contract.Fill for a contract it cannot honour
	// (wrong version, unknown derived bits) or tensors of the wrong size.
	ErrContract = errors.New("board: contract mismatch")
)
