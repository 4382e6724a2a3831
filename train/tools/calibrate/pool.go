package calibrate

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"

	"github.com/humchess/humchess/train/data/pgn"
)

// ErrPool is returned for a file Pool or PoolRun cannot read as a
// calibrate run's games, or for files that cannot be pooled together.
var ErrPool = errors.New("calibrate: cannot pool")

// Pool reads the spread games of earlier runs (their spread-X-Y.pgn files,
// from one seed or several) and sums them by match: one Spread per pair of
// labels, the score the top label's, by increasing top label. Only the
// tags are read (Event, WhiteElo, BlackElo, Result); a game without a
// result ("*", from a run killed mid-game) is not counted, nor a file
// named twice.
func Pool(paths []string) ([]Spread, error) {
	by := map[[2]int]*Spread{}
	seen := map[string]bool{}
	for _, p := range paths {
		if abs, err := filepath.Abs(p); err == nil {
			if seen[abs] {
				continue
			}
			seen[abs] = true
		}
		n, err := poolFile(p, by)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		if n == 0 {
			return nil, fmt.Errorf("%w: %s has no finished spread game", ErrPool, p)
		}
	}
	var out []Spread
	for _, s := range by {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Top < out[j].Top })
	return out, nil
}

// poolFile adds the finished games of one PGN to by and returns how many.
func poolFile(path string, by map[[2]int]*Spread) (int, error) {
	rc, err := pgn.Open(path)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	rd := pgn.NewReader(rc)
	n := 0
	for i := 1; ; i++ {
		g, err := rd.NextHeaders()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		var top, bottom int
		if _, err := fmt.Sscanf(g.Event, "HumChess calibrate spread %d vs %d", &top, &bottom); err != nil {
			return n, fmt.Errorf("%w: game %d: event %q", ErrPool, i, g.Event)
		}
		w, b := g.WhiteElo, g.BlackElo
		if w != top && b != top || w+b != top+bottom {
			return n, fmt.Errorf("%w: game %d: players %d and %d in the match %d vs %d", ErrPool, i, w, b, top, bottom)
		}
		if g.Result == "*" {
			continue
		}
		k := [2]int{top, bottom}
		if by[k] == nil {
			by[k] = &Spread{Top: top, Bottom: bottom}
		}
		sc := &by[k].Score
		switch {
		case g.Result == "1/2-1/2":
			sc.Draws++
		case g.Result == "1-0" && w == top, g.Result == "0-1" && b == top:
			sc.Wins++
		case g.Result == "1-0", g.Result == "0-1":
			sc.Losses++
		default:
			return n, fmt.Errorf("%w: game %d: result %q", ErrPool, i, g.Result)
		}
		n++
	}
}
