package match

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"strings"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/train/data/pgn"
)

// ErrOpenings means an openings file could not be read or held no usable opening.
var ErrOpenings = errors.New("match: openings")

// Opening is a start position and the moves played from it (UCI). FEN ""
// is the initial position.
type Opening struct {
	FEN   string
	Moves []string
}

// Game returns the position after the opening's moves.
func (o Opening) Game() (*board.Game, error) {
	g, err := board.NewGame(o.FEN)
	if err != nil {
		return nil, err
	}
	for _, m := range o.Moves {
		if err := g.Play(m); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// LoadOpenings reads openings from path: an EPD or FEN file (one position a
// line, ".epd" or ".fen"; EPD operations after the four position fields are
// ignored) or a PGN (.pgn, .pgn.zst, .pgn.bz2), of which each standard game
// gives its first plies moves (games shorter than that are skipped). Empty
// lines and lines starting with '#' are ignored in EPD/FEN files. Duplicate
// openings are kept once. limit > 0 stops after that many openings.
func LoadOpenings(path string, plies, limit int) ([]Opening, error) {
	rc, err := pgn.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrOpenings, err)
	}
	defer rc.Close()
	ext := strings.ToLower(filepath.Ext(strings.TrimSuffix(strings.TrimSuffix(path, ".zst"), ".bz2")))
	var out []Opening
	if ext == ".epd" || ext == ".fen" {
		out, err = readEPD(rc, limit)
	} else {
		out, err = readPGNOpenings(rc, plies, limit)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrOpenings, path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: %s: no usable opening", ErrOpenings, path)
	}
	return out, nil
}

func readEPD(r io.Reader, limit int) ([]Opening, error) {
	sc := bufio.NewScanner(r)
	seen := map[string]bool{}
	var out []Opening
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 {
			return nil, fmt.Errorf("line %d: %q is not a FEN or EPD", n, line)
		}
		fen := strings.Join(f[:4], " ") + " 0 1"
		if len(f) >= 6 && isNumber(f[4]) && isNumber(f[5]) {
			fen = strings.Join(f[:6], " ")
		}
		g, err := board.NewGame(fen)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", n, err)
		}
		if g.Status() != board.Ongoing {
			continue
		}
		if seen[g.FEN()] {
			continue
		}
		seen[g.FEN()] = true
		out = append(out, Opening{FEN: g.FEN()})
		if limit > 0 && len(out) >= limit {
			break
		}
	}
	return out, sc.Err()
}

func isNumber(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

func readPGNOpenings(r io.Reader, plies, limit int) ([]Opening, error) {
	if plies < 0 {
		return nil, fmt.Errorf("opening plies %d < 0", plies)
	}
	rd := pgn.NewReader(r)
	seen := map[string]bool{}
	var out []Opening
	for {
		pg, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if !pg.Standard() || len(pg.Moves) < plies {
			continue
		}
		g, err := board.NewGame("")
		if err != nil {
			return nil, err
		}
		o := Opening{}
		ok := true
		for _, san := range pg.Moves[:plies] {
			m, err := g.ParseSAN(san)
			if err != nil {
				ok = false
				break
			}
			if err := g.PlayMove(m); err != nil {
				ok = false
				break
			}
			o.Moves = append(o.Moves, m.String())
		}
		if !ok || g.Status() != board.Ongoing {
			continue
		}
		key := strings.Join(o.Moves, " ")
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, o)
		if limit > 0 && len(out) >= limit {
			break
		}
	}
	return out, nil
}

// Shuffle returns the openings in a random order fixed by seed.
func Shuffle(o []Opening, seed uint64) []Opening {
	out := append([]Opening(nil), o...)
	r := rand.New(rand.NewPCG(seed, 0x0ba1))
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}
