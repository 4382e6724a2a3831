package uci

import (
	"context"
	"time"
)

// Engine is what the protocol drives. The Server never calls two Engine
// methods at the same time.
type Engine interface {
	// NewGame forgets everything about the previous game (ucinewgame) and
	// sets the start position. It blocks only briefly.
	NewGame()

	// SetPosition sets the position: fen is the FEN the GUI sent ("" for the
	// start position) and moves the UCI moves played from it. On an error
	// (malformed or illegal FEN, illegal move) the previous position is kept
	// and the error names what was wrong. It blocks only briefly.
	SetPosition(fen string, moves []string) error

	// Configure applies a complete set of options. On an error the Engine
	// keeps its previous options and the Server restores its own copy. It
	// may block: a file an option names should be loaded and tried here, so
	// that an unusable one is refused at setoption and the previous one kept.
	Configure(o Options) error

	// Ready prepares for the next Think, for example by loading the net. It
	// blocks until done; the Server calls it on isready when not thinking.
	Ready() error

	// Think chooses the move to play in the current position under lim. It
	// blocks for the computation only (never for a human-like delay: it
	// returns that delay in Result.Think and the Server waits). ctx is
	// cancelled when the Server quits. An error means no move could be
	// chosen at all; the Server then reports it and answers bestmove 0000.
	Think(ctx context.Context, lim Limits) (Result, error)
}

// Limits are the parameters of one "go" command. Clock fields are negative
// when the GUI did not send them; a negative value sent by the GUI (a clock
// past zero) is recorded as 0.
type Limits struct {
	SearchMoves []string      // restrict the choice to these UCI moves; empty = all legal moves
	Ponder      bool          // go ponder: think on the opponent's time until ponderhit or stop
	WTime       time.Duration // White's remaining clock; negative = not given
	BTime       time.Duration // Black's remaining clock; negative = not given
	WInc        time.Duration // White's increment per move; negative = not given
	BInc        time.Duration // Black's increment per move; negative = not given
	MovesToGo   int           // moves to the next time control; 0 = not given
	Depth       int           // plies; 0 = not given
	Nodes       int64         // nodes; 0 = not given
	Mate        int           // mate in moves; 0 = not given
	MoveTime    time.Duration // exact time to think; 0 = not given
	Infinite    bool          // go infinite: answer only after stop
}

// NoLimits returns Limits with every field "not given".
func NoLimits() Limits {
	return Limits{WTime: -1, BTime: -1, WInc: -1, BInc: -1}
}

// HasClock reports whether the GUI sent at least one side's clock.
func (l Limits) HasClock() bool { return l.WTime >= 0 || l.BTime >= 0 }

// Line is one candidate move the Engine reports, printed as an info line.
type Line struct {
	Move   string     // UCI move
	Prob   float64    // probability that a human of the set rating plays it, 0..1
	WDL    [3]float64 // win, draw, loss probabilities for the side to move after playing Move (or of the position); valid when HasWDL
	HasWDL bool       // whether WDL is known (the net has a value head)
}

// Result is what Think chose.
type Result struct {
	BestMove string        // UCI move to play; "" when there is no legal move (printed as 0000)
	Ponder   string        // expected reply to ponder on; "" for none
	Lines    []Line        // candidates to print: the played move, or with MultiPV > 1 the top moves by probability
	Nodes    int64         // positions evaluated by the net
	Think    time.Duration // how long to wait, counted from go, before answering (human-like timing); 0 = at once
	Errors   []error       // problems that did not stop the choice (e.g. an illegal searchmove), each printed as info string error
	Notes    []string      // details printed as info string only in debug mode
}
