// Package selfplay writes self-play games between rating-band nets as PGN
// (humchess selfplay), for train/data/prep to label with a teacher: positions
// of strong play, which real games hold too few of.
//
// Each game starts from the first plies of a real game drawn with the seed
// (LoadOpenings), gives White a rating drawn uniformly in a range and Black
// one near it, and lets each side sample its moves from the net of its own
// rating band (the band whose centre is nearest, clamped to the ends: Bands,
// PickBand), through policy.Distribution and policy.Sample, as the engine
// does. A game ends by the rules (board.Game.Status), by adjudication on the
// mover's net's win/draw/loss head (one side winning, or a draw, for several
// consecutive plies), or unterminated at a maximum length.
//
// Games are played a block at a time by each worker, the positions of a
// block's games in one batch per net; every random choice of a game comes
// from its own generator, seeded by the run's seed and the game's index, and
// games are written in index order, so a seed gives the same file whatever
// the number of workers. The PGN is written to a temporary file renamed to
// the output at the end.
//
// The package does not know how a net is built (Config.OpenNet opens one),
// nor how prep filters and labels the games; it must not know shards.
package selfplay
