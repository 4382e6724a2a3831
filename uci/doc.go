// Package uci speaks the Universal Chess Interface protocol for HumChess.
//
// It owns the protocol only: it parses the GUI's commands, keeps the options
// table (each option declared once, as data, in options.go), runs "go"
// asynchronously and prints every reply through one mutex-guarded writer.
// What to play is decided by an Engine, a small interface defined here and
// implemented elsewhere (package engine wires board, policy and a net into it).
//
// Positions travel to the Engine as the FEN and move strings the GUI sent;
// the Engine validates them. Results come back as structs (Result, Line) and
// are turned into text in one place (print.go).
//
// Bad input never crashes the loop and never passes silently: an unknown
// command, a malformed or illegal FEN, an illegal move, an unknown option or
// an out-of-range value is answered with "info string error: ..." naming what
// was wrong, and the last valid state is kept.
//
// The package must not know nets, ONNX Runtime or how a move is chosen.
package uci
