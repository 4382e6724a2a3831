package selfplay

import (
	"errors"
	"fmt"
	"io"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/train/data/games"
	"github.com/humchess/humchess/train/data/pgn"
)

// ErrOpenings means an openings file could not be read or held no usable
// game.
var ErrOpenings = errors.New("selfplay: openings")

// Opening is the first plies of a real game, from the initial position.
type Opening struct {
	Moves []board.Move
}

// LoadOpenings reads the first plies moves of every standard game of the
// training split (the games prep with valFraction puts in the validation
// split are left out, so no held-out game's opening is played into
// training data) of the PGN files (.pgn, .pgn.zst, .pgn.bz2) at paths, in
// file order. Games
// shorter than that, with an unreadable move, or over by then are skipped;
// repeated openings are kept, so drawing one uniformly draws a real game.
// A file that cannot be read to its end (missing, truncated, corrupt) or
// holds no usable game is an error.
//
// Unlike train/tools/match's LoadOpenings, which keeps each opening once
// for a balanced match, the openings keep the real games' frequencies.
func LoadOpenings(paths []string, plies int, valFraction float64) ([]Opening, error) {
	if plies < 0 {
		return nil, fmt.Errorf("%w: opening plies %d < 0", ErrOpenings, plies)
	}
	var out []Opening
	for _, path := range paths {
		n := len(out)
		var err error
		if out, err = readOpenings(path, plies, valFraction, out); err != nil {
			return nil, err
		}
		if len(out) == n {
			return nil, fmt.Errorf("%w: %s: no standard training game of at least %d plies", ErrOpenings, path, plies)
		}
	}
	return out, nil
}

// readOpenings appends the openings of the training games of the file at
// path to out.
func readOpenings(path string, plies int, valFraction float64, out []Opening) ([]Opening, error) {
	rc, err := pgn.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOpenings, err)
	}
	defer rc.Close()
	rd := pgn.NewReader(rc)
	for {
		pg, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrOpenings, path, err)
		}
		if !pg.Standard() || len(pg.Moves) < plies || games.IsValidation(games.ID(pg), valFraction) {
			continue
		}
		if o, ok := opening(pg.Moves[:plies]); ok {
			out = append(out, o)
		}
	}
}

// opening plays the SAN moves from the initial position; ok is false when
// one is unreadable or the game is over after them.
func opening(sans []string) (Opening, bool) {
	g, err := board.NewGame("")
	if err != nil { // the initial position always parses
		return Opening{}, false
	}
	o := Opening{Moves: make([]board.Move, 0, len(sans))}
	for _, san := range sans {
		m, err := g.ParseSAN(san)
		if err != nil {
			return Opening{}, false
		}
		if err := g.PlayMove(m); err != nil {
			return Opening{}, false
		}
		o.Moves = append(o.Moves, m)
	}
	return o, g.Status() == board.Ongoing
}
