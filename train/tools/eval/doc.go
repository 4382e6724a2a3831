// Package eval measures how human an engine is.
//
// Move matching (humchess eval, Run): over a PGN of real games, streamed and
// spread over all cores, every position is shown to each contestant (a
// HumChess net at the mover's context, a Maia net, "maia-auto" choosing the
// Maia net nearest the mover's rating, or any external UCI engine), and its
// most likely move is compared with the human's: top-1 and top-3 accuracy
// and the cross-entropy of the human move (nats). Two protocols are reported
// side by side: every position, and the Maia protocol (the first 10 plies of
// each game skipped, and every position where the mover had under 30 s; a
// position whose clock is unknown is kept, as train/data/prep does). Results are
// broken down by mover rating band, opponent rating relative to the mover,
// time-control class, game phase (ply and material) and mover clock, with
// counts beside every accuracy and a paired 95% interval for the difference
// between two contestants, of top-1 and (where both give probabilities) of
// cross-entropy (each game one draw: a game's positions share a player, an
// opening and a kind of position, so they are not independent).
// Output: a terminal table, CSV and PNG plots.
//
// Which split and time class a game is in come from train/data/games, as
// for train/data/prep. The package does not know how a net is built: it opens files through
// OpenNet, which the command line may replace.
package eval
