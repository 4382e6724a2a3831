// Package engine is HumChess the UCI engine: Engine implements uci.Engine
// with board, policy and a nets.Net.
//
// Engine turns the UCI options into policy parameters, validates the GUI's
// positions, states the GUI's options and clocks as the net's context
// (policy.GameClock, the mapping training uses too), seeds the choice (a
// fixed Seed replays a game), restricts it to searchmoves, and decides the
// human think time. It opens a NetFile when it is set and tries it on the
// start position, so an unusable file is refused at setoption; the default
// net (nets/load's embedded one) is opened at isready or the first go.
//
// Session drives a uci.Server in memory as a GUI would (command lines in,
// reply lines out with the time each arrived); Bench plays the fixed bench
// positions through it and signs the choices ("Bench: <hex>").
//
// The package must not know flags, signals or the process: cmd/humchess
// wires it to stdin and stdout. uci stays the protocol only and never
// imports this package.
package engine
