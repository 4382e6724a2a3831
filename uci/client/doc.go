// Package client drives an external UCI engine process: it starts the
// program with its arguments, performs the uci/uciok handshake, sends
// setoption lines, synchronises with isready/readyok, sets positions and
// runs "go" with a clock or a node or time limit, and reads the bestmove.
//
// Every wait has a deadline. An engine that exits is reported as ErrCrashed,
// one that does not answer in time as ErrTimeout (the process is killed so
// nothing ever hangs), one that prints something unreadable where an answer
// is due as ErrMalformed. Close kills the process. UCI has no answer to
// setoption, so Start follows each configured option with isready and
// takes an error line before readyok ("info string error: ...", Stockfish's
// "No such option: ...") as a refusal: Start fails with ErrRefused.
//
// The package knows the protocol's text only; it does not check that the
// engine's move is legal (callers hold the board) and knows nothing of nets.
package client
