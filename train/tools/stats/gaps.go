package stats

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/humchess/humchess/train/data/games"
	"github.com/humchess/humchess/train/data/pgn"
	"github.com/humchess/humchess/train/tools/match"
)

// GapWidth is the width of a rating-gap bucket (Gaps): bucket g holds the
// games whose players' ratings differ by g-GapWidth/2 to g+GapWidth/2.
const GapWidth = 100

// Gaps is how the higher-rated player of a set of games scored, by time
// class and rating gap: what the Elo formula predicts for a gap set beside
// what the players did.
type Gaps struct {
	Name string
	// Score[class][bucket] is the higher-rated player's record in the
	// games of that time class whose rating gap is in the bucket (a
	// multiple of GapWidth; the lowest bucket, 0, holds gaps below
	// GapWidth/2, where either player may be the higher).
	Score map[games.TimeClass]map[int]*match.Score
	// Gap[class][bucket] sums the gaps of those games, for their mean.
	Gap map[games.TimeClass]map[int]float64
}

// MeanGap is the mean rating gap of a bucket's games; NaN when empty.
func (g *Gaps) MeanGap(c games.TimeClass, bucket int) float64 {
	s := g.Score[c][bucket]
	if s == nil || s.Games() == 0 {
		return math.NaN()
	}
	return g.Gap[c][bucket] / float64(s.Games())
}

// RunGaps reads the games of inputs (PGN) and counts the higher-rated
// player's results by time class and rating gap. Games without both
// ratings, without a decided result ("*") or not of standard chess are
// left out; site, when set, keeps only the games whose Site tag contains
// it (one rating pool: a lichess and a chess.com rating do not compare).
func RunGaps(name string, inputs []string, site string) (*Gaps, error) {
	g := &Gaps{Name: name, Score: map[games.TimeClass]map[int]*match.Score{}, Gap: map[games.TimeClass]map[int]float64{}}
	err := readGames(inputs, func(game *pgn.Game) bool {
		if site == "" || strings.Contains(strings.ToLower(game.Site), strings.ToLower(site)) {
			g.add(game)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}

// add counts one game.
func (g *Gaps) add(game *pgn.Game) {
	if !standardRules(game) || game.WhiteElo <= 0 || game.BlackElo <= 0 {
		return
	}
	var white float64 // White's points
	switch game.Result {
	case "1-0":
		white = 1
	case "0-1":
		white = 0
	case "1/2-1/2":
		white = 0.5
	default:
		return
	}
	gap, points := game.WhiteElo-game.BlackElo, white
	if gap < 0 {
		gap, points = -gap, 1-white
	}
	bucket := (gap + GapWidth/2) / GapWidth * GapWidth
	class := games.ClassOf(game.TimeControl)
	if g.Score[class] == nil {
		g.Score[class], g.Gap[class] = map[int]*match.Score{}, map[int]float64{}
	}
	s := g.Score[class][bucket]
	if s == nil {
		s = &match.Score{}
		g.Score[class][bucket] = s
	}
	switch points {
	case 1:
		s.Wins++
	case 0:
		s.Losses++
	default:
		s.Draws++
	}
	g.Gap[class][bucket] += float64(gap)
}

// WriteGapsText writes each set's table: by time class and gap bucket, the
// games, the mean gap, the higher-rated player's W-D-L and score with its
// 95% interval, and the Elo formula's expected score at the mean gap.
// Buckets with fewer than minGames games are left out; maxGap (0 = none)
// leaves out the buckets above it.
func WriteGapsText(w io.Writer, sets []*Gaps, minGames, maxGap int) error {
	for _, g := range sets {
		if _, err := fmt.Fprintf(w, "%s: score of the higher-rated player by rating gap (buckets of %d; Elo formula at the mean gap)\n", g.Name, GapWidth); err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "  %-14s %6s %8s %8s %-16s %-22s %s\n", "class", "gap", "games", "mean gap", "W-D-L", "score [95%]", "Elo formula"); err != nil {
			return err
		}
		classes := make([]games.TimeClass, 0, len(g.Score))
		for c := range g.Score {
			classes = append(classes, c)
		}
		sort.Slice(classes, func(i, j int) bool { return classes[i] < classes[j] })
		for _, c := range classes {
			buckets := make([]int, 0, len(g.Score[c]))
			for b := range g.Score[c] {
				buckets = append(buckets, b)
			}
			sort.Ints(buckets)
			for _, b := range buckets {
				s := g.Score[c][b]
				if s.Games() < minGames || (maxGap > 0 && b > maxGap) {
					continue
				}
				p, lo, hi := s.Interval()
				mean := g.MeanGap(c, b)
				if _, err := fmt.Fprintf(w, "  %-14s %6d %8d %8.0f %-16s %-22s %.1f%%\n", c, b, s.Games(), mean,
					fmt.Sprintf("%d-%d-%d", s.Wins, s.Draws, s.Losses),
					fmt.Sprintf("%.1f%% [%.1f, %.1f]", 100*p, 100*lo, 100*hi), 100*match.ExpectedFraction(mean)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
