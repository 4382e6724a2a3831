// Package pgn is the streaming PGN reader of the training pipeline.
//
// It owns reading game records from plain, zstd- and bzip2-compressed PGN
// files (or stdin), splitting the stream into games, parsing the tag pairs
// and tokenizing the movetext into SAN moves with their %clk clocks and
// %eval evaluations. It must not know the encoding contract, boards or
// shards: it checks the shape of each SAN token, never its legality (the
// prep pipeline replays moves on a board).
//
// Memory is bounded whatever the input size: the reader streams line by line,
// keeps one game at a time and skips a game larger than [Reader.MaxGameBytes].
// A malformed game is skipped and counted by reason in [Reader.Stats]; it
// never stops the run. The reader splits games itself, at a tag-pair line
// that follows movetext (or follows a blank line after tag pairs), so a game
// whose movetext is only a result token stays one game.
//
// Typical use, deciding from headers before any movetext is parsed:
//
//	rc, err := pgn.Open(path)
//	if err != nil { ... }
//	defer rc.Close()
//	r := pgn.NewReader(rc)
//	r.Filter = func(g *pgn.Game) bool { return g.Standard() && g.WhiteElo >= 1000 }
//	for {
//		g, err := r.Next()
//		if errors.Is(err, io.EOF) { break }
//		if err != nil { ... }
//		use(g.Moves, g.Clocks)
//	}
//	stats := r.Stats()
//
// Two-phase use: NextHeaders returns a game with its headers and raw
// movetext only; Game.ParseMoves tokenizes it on demand. Game.Clone detaches
// a game from the reader, so movetext parsing can run in worker goroutines
// while one goroutine splits the stream.
//
// Stats.Games + Stats.Filtered + the skipped games equal the games in the
// input: tag-pair blocks, plus movetext found before any tag pair.
package pgn
