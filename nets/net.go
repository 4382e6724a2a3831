package nets

import (
	"context"
	"errors"
	"fmt"

	"github.com/humchess/humchess/board"
)

// Input is one position to evaluate: the game so far (for history and
// repetitions) and what the net knows besides the board.
type Input struct {
	Game *board.Game
	Ctx  board.Context
}

// Output is a net's opinion of one position.
type Output struct {
	Moves  []board.Move // the legal moves, in Game.LegalMoves() order
	Logits []float32    // one per legal move, unmasked log-odds
	WDL    []float32    // win/draw/loss probabilities for the mover; nil if the net has no value head
	Time   []float32    // think-time bin probabilities; nil if absent
}

// Net evaluates batches of positions.
type Net interface {
	// Evaluate returns one Output per Input, in order. It blocks until done
	// or ctx is cancelled; it is safe for one caller at a time.
	Evaluate(ctx context.Context, in []Input) ([]Output, error)
	// Info describes the net; it does not block.
	Info() Info
	// Close releases the net's resources; Evaluate fails afterwards.
	Close() error
}

// Errors shared by Net implementations.
var (
	// ErrContractMismatch means a net was made for another encoding contract.
	ErrContractMismatch = errors.New("nets: contract version mismatch")
	// ErrBadInfo means a net's Info is inconsistent.
	ErrBadInfo = errors.New("nets: bad net info")
	// ErrBadInput means an Input cannot be evaluated (no game).
	ErrBadInput = errors.New("nets: bad input")
	// ErrClosed means the net was closed.
	ErrClosed = errors.New("nets: net closed")
)

// ValidateInputs checks that every input has a game.
func ValidateInputs(in []Input) error {
	for i, x := range in {
		if x.Game == nil {
			return fmt.Errorf("%w: input %d of %d has no game", ErrBadInput, i, len(in))
		}
	}
	return nil
}
