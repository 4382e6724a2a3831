// Package profile is the error profile that the stats and calibrate tools
// share: one definition of a blunder and of centipawn loss per move,
// counted by the mover's 200-point rating band and the game's time class,
// with 95% intervals, and the Stockfish analysis of games that feeds it.
// It must not know nets or how the games were played.
package profile

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/humchess/humchess/score"
	"github.com/humchess/humchess/train/data/games"
	"github.com/humchess/humchess/train/data/pgn"
)

// Definition of one judged move.
const (
	// BandWidth is the width of a profile band (Elo). Bands are centred on
	// multiples of it: band 1600 holds ratings 1500..1699, so an engine
	// playing at UCI_Elo 1600 is compared with humans around 1600.
	BandWidth = 200
	// CPCap bounds every evaluation before the loss is taken (centipawns;
	// mate scores become ±CPCap), as lichess does for its average
	// centipawn loss.
	CPCap = 1000
	// BlunderLoss is the loss of expected score (score.Expected, the
	// mover's view) from which a move is a blunder.
	BlunderLoss = 0.15
	// Z is the two-sided 95% normal quantile.
	Z = 1.959963984540054
)

// Band returns the profile band of a rating: the nearest multiple of
// BandWidth (1500..1699 -> 1600); -1 for an unknown rating (<= 0).
func Band(rating int) int {
	if rating <= 0 {
		return -1
	}
	return (rating + BandWidth/2) / BandWidth * BandWidth
}

// Move is one judged move.
type Move struct {
	Ply    int     // 0 = the game's first move (after a FEN, its first move)
	White  bool    // White played it
	Rating int     // the mover's rating tag; 0 = unknown
	Loss   float64 // loss of expected score, mover's view (may be negative)
	CPL    float64 // centipawn loss, evaluations capped at ±CPCap, at least 0
}

// Blunder reports whether the move loses at least BlunderLoss expected score.
func (m Move) Blunder() bool { return m.Loss >= BlunderLoss }

// Judge returns the moves of g whose evaluations before and after are both
// known. evals are White's centipawns for positions 0..len(g.Moves)
// (position i is before move i), NaN where unknown, ±100000 for mates.
func Judge(g *pgn.Game, evals []float64) []Move {
	var out []Move
	whiteFirst := !blackStarts(g)
	for i := range g.Moves {
		if i+1 >= len(evals) || math.IsNaN(evals[i]) || math.IsNaN(evals[i+1]) {
			continue
		}
		white := (i%2 == 0) == whiteFirst
		before, after, rating := evals[i], evals[i+1], g.WhiteElo
		if !white {
			before, after, rating = -before, -after, g.BlackElo
		}
		out = append(out, Move{Ply: i, White: white, Rating: rating,
			Loss: score.Expected(before) - score.Expected(after),
			CPL:  max(0, capCP(before)-capCP(after))})
	}
	return out
}

func capCP(cp float64) float64 { return max(-CPCap, min(CPCap, cp)) }

// blackStarts reports whether g starts from a FEN with Black to move.
func blackStarts(g *pgn.Game) bool {
	f := strings.Fields(g.FEN)
	return len(f) > 1 && f[1] == "b"
}

// Key is one cell of a profile.
type Key struct {
	Band  int             // Band of the mover's rating
	Class games.TimeClass // the game's time class
}

// Cell counts the moves of one key, and per game the sums its intervals
// need: the moves of one game are not independent (one player, one
// position type, one clock), so the intervals treat each game's moves in
// the cell as one cluster.
type Cell struct {
	Moves    int64   `json:"moves"`      // moves judged
	Blunders int64   `json:"blunders"`   // of which blunders
	CPL      float64 `json:"cpl_sum"`    // sum of centipawn losses
	CPL2     float64 `json:"cpl_sq_sum"` // sum of squared centipawn losses

	Games int64 `json:"games,omitempty"` // games (clusters) with moves in the cell; 0 in profiles written before it was counted
	// Sums over the games g of products of the game's counts in the cell:
	// n_g its moves, b_g its blunders, c_g its centipawn loss.
	GameN2 float64 `json:"game_moves_sq_sum,omitempty"`
	GameB2 float64 `json:"game_blunders_sq_sum,omitempty"`
	GameBN float64 `json:"game_blunders_moves_sum,omitempty"`
	GameC2 float64 `json:"game_cpl_sq_sum,omitempty"`
	GameCN float64 `json:"game_cpl_moves_sum,omitempty"`
}

// Add counts one move as a game of its own.
func (c *Cell) Add(m Move) { c.addGame([]Move{m}) }

// addGame counts the moves of one game.
func (c *Cell) addGame(ms []Move) {
	var n, b, cpl float64
	for _, m := range ms {
		c.Moves++
		c.CPL += m.CPL
		c.CPL2 += m.CPL * m.CPL
		n++
		cpl += m.CPL
		if m.Blunder() {
			c.Blunders++
			b++
		}
	}
	c.Games++
	c.GameN2 += n * n
	c.GameB2 += b * b
	c.GameBN += b * n
	c.GameC2 += cpl * cpl
	c.GameCN += cpl * n
}

// Merge adds o's counts.
func (c *Cell) Merge(o Cell) {
	c.Moves += o.Moves
	c.Blunders += o.Blunders
	c.CPL += o.CPL
	c.CPL2 += o.CPL2
	c.Games += o.Games
	c.GameN2 += o.GameN2
	c.GameB2 += o.GameB2
	c.GameBN += o.GameBN
	c.GameC2 += o.GameC2
	c.GameCN += o.GameCN
}

// clustered reports whether the cell has at least two games counted (a
// profile written before games were counted has none).
func (c Cell) clustered() bool { return c.Games >= 2 }

// ratioVar is the variance of the ratio estimate r = sum y_g / sum n_g over
// the cell's games (the cluster, or linearisation, estimator), from sums of
// y_g^2 and y_g n_g.
func (c Cell) ratioVar(r, y2, yn float64) float64 {
	g, n := float64(c.Games), float64(c.Moves)
	s := max(0, y2-2*r*yn+r*r*c.GameN2)
	return g / (g - 1) * s / (n * n)
}

// BlunderRate is the fraction of blunders with its 95% interval: Wilson's
// score interval on the effective number of moves (the moves divided by
// the design effect of their games, at least 1; with no blunder or only
// blunders, or fewer than two games, Wilson's on the moves); NaN with no
// move.
func (c Cell) BlunderRate() (p, lo, hi float64) {
	if !c.clustered() || c.Blunders == 0 || c.Blunders == c.Moves {
		return Wilson(c.Blunders, c.Moves)
	}
	n := float64(c.Moves)
	p = float64(c.Blunders) / n
	deff := max(1, c.ratioVar(p, c.GameB2, c.GameBN)/(p*(1-p)/n))
	_, lo, hi = wilson(p, n/deff)
	return p, lo, hi
}

// MeanCPL is the average centipawn loss per move with the 95% normal
// interval of the mean, its variance taken over the cell's games (over the
// moves, as if independent, in profiles written before games were
// counted); NaN with no move.
func (c Cell) MeanCPL() (m, lo, hi float64) {
	if c.Moves == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	n := float64(c.Moves)
	m = c.CPL / n
	v := 0.0
	switch {
	case c.clustered():
		v = c.ratioVar(m, c.GameC2, c.GameCN)
	case c.Moves > 1:
		v = max(0, (c.CPL2-n*m*m)/(n-1)) / n
	}
	se := math.Sqrt(v)
	return m, m - Z*se, m + Z*se
}

// Wilson returns k/n and its 95% Wilson score interval; NaN when n is 0.
func Wilson(k, n int64) (p, lo, hi float64) {
	if n <= 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	return wilson(float64(k)/float64(n), float64(n))
}

// wilson is the Wilson score interval of a proportion p observed on nf
// (possibly effective, non-integer) trials.
func wilson(p, nf float64) (float64, float64, float64) {
	z2 := Z * Z
	den := 1 + z2/nf
	mid := (p + z2/(2*nf)) / den
	half := Z * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf)) / den
	return p, max(0, mid-half), min(1, mid+half)
}

// Profile is the error profile of a set of moves.
type Profile map[Key]*Cell

// Add counts m, as a game of its own, in the cell of its band and class c.
func (p Profile) Add(c games.TimeClass, m Move) { p.AddGame(c, []Move{m}) }

// AddGame counts the moves of one game of class c, each in the cell of its
// band: in each cell, the game's moves are one cluster of its intervals.
func (p Profile) AddGame(c games.TimeClass, ms []Move) {
	byKey := map[Key][]Move{}
	var keys []Key
	for _, m := range ms {
		k := Key{Band: Band(m.Rating), Class: c}
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], m)
	}
	for _, k := range keys {
		cell := p[k]
		if cell == nil {
			cell = &Cell{}
			p[k] = cell
		}
		cell.addGame(byKey[k])
	}
}

// Get returns the cell of k (zero when absent).
func (p Profile) Get(k Key) Cell {
	if c := p[k]; c != nil {
		return *c
	}
	return Cell{}
}

// Keys returns the keys in order: by class, then band.
func (p Profile) Keys() []Key {
	keys := make([]Key, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].Class != keys[j].Class {
			return keys[i].Class < keys[j].Class
		}
		return keys[i].Band < keys[j].Band
	})
	return keys
}

// row is a cell in the JSON form.
type row struct {
	Band  int    `json:"band"`
	Class string `json:"class"`
	Cell
}

// MarshalJSON writes the profile as a list of cells.
func (p Profile) MarshalJSON() ([]byte, error) {
	rows := []row{}
	for _, k := range p.Keys() {
		rows = append(rows, row{Band: k.Band, Class: k.Class.String(), Cell: *p[k]})
	}
	return json.Marshal(rows)
}

// UnmarshalJSON reads a list of cells.
func (p *Profile) UnmarshalJSON(data []byte) error {
	var rows []row
	if err := json.Unmarshal(data, &rows); err != nil {
		return err
	}
	*p = Profile{}
	for _, r := range rows {
		c := games.UnknownClass
		if r.Class != games.UnknownClass.String() {
			var ok bool
			if c, ok = games.ParseTimeClass(r.Class); !ok {
				return fmt.Errorf("profile: unknown time class %q", r.Class)
			}
		}
		cell := r.Cell
		(*p)[Key{Band: r.Band, Class: c}] = &cell
	}
	return nil
}

// Column is one profile shown in WriteTable.
type Column struct {
	Name    string
	Profile Profile
}

// WriteTable prints the profiles side by side, one row per key any of them
// has (with at least minMoves moves in one of them): blunder rate % and
// average centipawn loss, each with its 95% interval and the move count.
func WriteTable(w io.Writer, cols []Column, minMoves int64) error {
	seen := Profile{}
	for _, c := range cols {
		for k, cell := range c.Profile {
			if cell.Moves >= minMoves {
				seen[k] = cell
			}
		}
	}
	var err error
	pr := func(format string, a ...any) {
		if err == nil {
			_, err = fmt.Fprintf(w, format, a...)
		}
	}
	pr("%-11s %-6s", "class", "band")
	for _, c := range cols {
		pr(" | %-40s", trunc(c.Name, 40))
	}
	pr("\n%-18s", "")
	for range cols {
		pr(" | %-21s %-18s", "blunder % [95%]", "cpl [95%]")
	}
	pr("\n")
	for _, k := range seen.Keys() {
		pr("%-11s %-6s", k.Class, bandName(k.Band))
		for _, c := range cols {
			cell := c.Profile.Get(k)
			if cell.Moves == 0 {
				pr(" | %-40s", "-")
				continue
			}
			p, plo, phi := cell.BlunderRate()
			m, mlo, mhi := cell.MeanCPL()
			pr(" | %-21s %-18s", fmt.Sprintf("%.1f [%.1f,%.1f] n=%d", 100*p, 100*plo, 100*phi, cell.Moves),
				fmt.Sprintf("%.0f [%.0f,%.0f]", m, mlo, mhi))
		}
		pr("\n")
	}
	return err
}

func trunc(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// bandName is "1600" for band 1600, "?" for unknown.
func bandName(b int) string {
	if b < 0 {
		return "?"
	}
	return fmt.Sprint(b)
}
