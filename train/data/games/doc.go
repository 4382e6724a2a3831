// Package games owns what the data pipeline and the tools agree a game is,
// beyond its PGN text: its identity (ID, a hash of its link or identifying
// headers), the train/validation split that identity decides (IsValidation),
// its time class (lichess's speed categories, ClassOf), and its players and
// time as a board.Record (RecordOf), from which every position's
// board.Context is taken.
//
// train/data/prep (which writes the split) and train/tools/eval and
// train/tools/stats (which read it back) all call it, so a game is in the
// same split and the same time class for each of them. It must not know
// shards, filters or nets.
package games
