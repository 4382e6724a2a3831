package transformer

import "errors"

// Errors returned by the package. Returned errors wrap one of these, so test
// with errors.Is.
var (
	// ErrArch is returned for an invalid or unknown architecture.
	ErrArch = errors.New("transformer: bad architecture")
	// ErrWeights is returned when weights do not fit the architecture: a
	// tensor missing, unexpected, of the wrong size, or not finite.
	ErrWeights = errors.New("transformer: weights do not match the architecture")
	// ErrTruncated is returned when a safetensors file ends early.
	ErrTruncated = errors.New("transformer: truncated safetensors file")
	// ErrCorrupt is returned for a malformed safetensors file.
	ErrCorrupt = errors.New("transformer: corrupt safetensors file")
	// ErrInput is returned for input tensors of the wrong size or with
	// out-of-range piece tokens.
	ErrInput = errors.New("transformer: bad input")
	// ErrNotHumChess is returned when an ONNX model is not a HumChess
	// transformer (its metadata lacks the humchess keys).
	ErrNotHumChess = errors.New("transformer: not a HumChess net")
)
