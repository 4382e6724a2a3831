// Package match plays engine-versus-engine matches (humchess match): two UCI
// engines, each its own process started through uci/client with its own
// command line and options, play a number of games at a time control with
// increment (or a fixed node count, depth or move time), colours
// alternating, from openings taken from real games or an EPD/FEN file,
// several games at once.
//
// The referee keeps the clocks (time runs from sending go to receiving
// bestmove; the increment is added after the move; a configurable margin is
// tolerated before a time forfeit) and the rules (board.Status: checkmate,
// stalemate, threefold repetition, the fifty-move rule, insufficient
// material; an optional maximum number of plies; optional adjudication by a
// third engine's evaluation). An engine that crashes, stalls, prints a
// malformed answer, plays an illegal move or oversteps its time loses the
// game; the failure is counted against it and it is restarted for its next
// game, so a match never hangs.
//
// Results are a PGN with [%clk] comments, a score W-D-L with the Elo
// difference, its 95% interval and the likelihood of superiority (elo.go).
// The package knows no nets: engines are programs.
package match
