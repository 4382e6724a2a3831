// Package stats measures how human a set of games looks (humchess stats):
// think-time distributions by time control from the clocks, blunder rate by
// mover rating band (Stockfish through uci/client, or %eval comments), the
// error profile of the Stockfish-judged moves (train/tools/internal/profile:
// blunder rate and centipawn loss by 200-point band and time class), game
// lengths and opening variety, for human games and engine games side by
// side, as a terminal table.
//
// It reads games through train/data/pgn and classifies them with
// train/data/games; it must not know nets, shards or the move-matching
// protocol of train/tools/eval.
package stats

import "errors"

// ErrConfig means a stats configuration is invalid.
var ErrConfig = errors.New("stats: bad config")
