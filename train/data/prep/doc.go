// Package prep turns PGN games into training shards (`humchess prep`): game
// filters, position sampling, rating-pair balancing, the train/validation
// split, the worker pipeline, progress, the summary and the histogram plots.
//
// It owns the decisions; it must not know the shard file layout (train/data/shard),
// PGN syntax (train/data/pgn) or the encoding contract (board), which it calls.
//
// # Pipeline
//
// One reader goroutine reads the inputs in order and decides from the headers
// alone (Reader.NextHeaders) whether a game is wanted, so a rejected game costs
// no movetext tokenizing and no SAN decoding. Wanted games are tokenized, copied
// into batches of consecutive games and numbered. N worker goroutines replay the
// SAN moves on a board.Game and encode the kept positions. One writer goroutine
// puts the batches back in input order (a reorder buffer bounded by a fixed
// number of batches in flight) and appends records to one shard.SplitWriter per
// split. The shards are therefore byte-identical whatever the number of workers.
// The manifest is written last; a failed or cancelled run writes none.
//
// # Teacher labels
//
// With Config.Teacher (humchess prep -teacher NET), each worker has its own
// copy of the teacher net (Config.OpenTeacher; a nets.Net serves one caller
// at a time). While it replays a batch of games it queues a clone of the
// board.Game (with its history, which Lc0/Maia nets need) and the Context of
// every kept position; after the batch it evaluates them in chunks of
// Config.TeacherBatch, in input order, and appends softmax(logits) over the
// legal moves to each record (shard.AppendTeacher). The chunks do not depend
// on the number of workers, so the output stays byte-identical. The manifest
// names the net (shard.Manifest.Teacher).
//
// # Decisions
//
// Every random decision is a hash of the game id (games.ID: the game's link,
// or its identifying headers) with Config.Seed and a salt per decision, never of
// goroutine order. The split (games.IsValidation) uses the game id only (not the seed), so a game
// stays in the same split across runs and configurations; all positions of a
// game go to the same split.
//
// Game filters, in order (the first that applies is the skip reason):
// variant or set-up position; lichess games not rated (Event without "Rated";
// other sites have no such flag); BOT accounts; undecided result; termination
// (abandoned, rules infraction, unterminated); time class (lichess's estimate
// base + 40*increment: ultrabullet < 30 s <= bullet < 180 s <= blitz < 480 s <=
// rapid < 1500 s <= classical; correspondence; unknown); ratings unknown, below
// MinRating or above MaxRating; rating-pair balancing (bands of BalanceBand
// points: same band kept with SameBandKeep, adjacent with AdjacentBandKeep);
// then, after tokenizing, fewer than MinPlies plies; the pair cap.
//
// Position sampling: a position whose mover has less than MinClock seconds is
// skipped (unknown clocks never are); plies before EarlyFullPly are kept with a
// probability rising linearly from EarlyMinRate at ply 0 to 1.
//
// # Clocks and targets
//
// The Context of the position before move i holds the mover's and opponent's
// ratings, the time control, and the clocks as they stood before the move: the
// mover's clock is his %clk after his previous move (the base time at his first
// move), the opponent's is the opponent's last %clk (the base before White's
// first move). A game without any %clk has unknown (-1) clocks. games.RecordOf
// states a game as a board.Record, whose Context is the mapping train/tools/eval
// and the engine share (board.GameInfo). The targets are
// the move's vocabulary index, the result from the mover's side, and the
// seconds spent, board.ThinkSpent(mover's clock before, %clk after, increment),
// -1 when unknown.
package prep
