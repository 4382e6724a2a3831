package prep

import (
	"strings"

	"github.com/humchess/humchess/train/data/games"
	"github.com/humchess/humchess/train/data/pgn"
)

// Game-level skip reasons (keys of Summary.Skipped).
const (
	ReasonNotStandard  = "game: variant or set-up position"
	ReasonNotRated     = "game: not rated"
	ReasonBot          = "game: BOT account"
	ReasonNoRating     = "game: rating unknown"
	ReasonLowRating    = "game: rating below min"
	ReasonHighRating   = "game: rating above max"
	ReasonTimeClass    = "game: time class "
	ReasonTermination  = "game: termination"
	ReasonNoResult     = "game: no result"
	ReasonSameBand     = "game: balance same band"
	ReasonAdjacentBand = "game: balance adjacent band"
	ReasonPairCap      = "game: pair cap"
	ReasonOtherPart    = "game: in another part"
	ReasonSourceKeep   = "game: source keep rate"
	ReasonFewPlies     = "game: too few plies"
	ReasonBadMove      = "game: illegal or unreadable move"
	ReasonPGN          = "pgn: " // + the pgn reader's reason
	// Position-level reasons.
	ReasonLowClock  = "position: mover's clock below min"
	ReasonEarlyPly  = "position: early ply not sampled"
	ReasonNoTargets = "position: move outside the vocabulary"
)

// filter holds the parsed configuration used by the decisions.
type filter struct {
	cfg     *Config
	classes [games.NumClasses]bool
	skipTer []string
	pairs   map[[2]int]int64 // games admitted per band pair (PairCap)
	// sourceKeep is the keep rate of the input being read (SourceKeep;
	// 1 for an input it does not name), set by the reader per input.
	sourceKeep float64
}

func newFilter(cfg *Config) *filter {
	f := &filter{cfg: cfg, pairs: map[[2]int]int64{}, sourceKeep: 1}
	for _, n := range cfg.TimeClasses {
		if c, ok := games.ParseTimeClass(n); ok {
			f.classes[c] = true
		}
	}
	for _, t := range cfg.SkipTerminations {
		if t = strings.ToLower(strings.TrimSpace(t)); t != "" {
			f.skipTer = append(f.skipTer, t)
		}
	}
	return f
}

// isLichess reports whether a game comes from lichess (by its Site tag).
func isLichess(g *pgn.Game) bool { return strings.Contains(g.Site, "lichess.org") }

// headerReason returns why a game is rejected from its headers alone, or ""
// when it passes. It applies neither the pair cap nor the plies minimum.
func (f *filter) headerReason(g *pgn.Game, id uint64) string {
	c := f.cfg
	switch {
	case !g.Standard():
		return ReasonNotStandard
	case c.RatedOnly && isLichess(g) && !strings.Contains(strings.ToLower(g.Event), "rated"):
		return ReasonNotRated
	case !c.AllowBots && (strings.EqualFold(g.WhiteTitle, "BOT") || strings.EqualFold(g.BlackTitle, "BOT")):
		return ReasonBot
	case g.Result != "1-0" && g.Result != "0-1" && g.Result != "1/2-1/2":
		return ReasonNoResult
	}
	if len(f.skipTer) > 0 && g.Termination != "" {
		t := strings.ToLower(g.Termination)
		for _, s := range f.skipTer {
			if strings.Contains(t, s) {
				return ReasonTermination
			}
		}
	}
	if cl := games.ClassOf(g.TimeControl); !f.classes[cl] {
		return ReasonTimeClass + cl.String()
	}
	w, b := g.WhiteElo, g.BlackElo
	switch {
	case w < 0 || b < 0:
		return ReasonNoRating
	case w < c.MinRating || b < c.MinRating:
		return ReasonLowRating
	case c.MaxRating > 0 && (w > c.MaxRating || b > c.MaxRating):
		return ReasonHighRating
	}
	if c.BalanceBand > 0 {
		d := band(w, c.BalanceBand) - band(b, c.BalanceBand)
		u := games.Unit(id, c.Seed, saltBalance, 0)
		switch {
		case d == 0 && u >= c.SameBandKeep:
			return ReasonSameBand
		case (d == 1 || d == -1) && u >= c.AdjacentBandKeep:
			return ReasonAdjacentBand
		}
	}
	if c.Parts > 1 && (c.PartValidation || !games.IsValidation(id, c.ValFraction)) && games.PartOf(id, c.Parts) != c.Part-1 {
		return ReasonOtherPart
	}
	if f.sourceKeep < 1 && !games.IsValidation(id, c.ValFraction) && games.Unit(id, c.Seed, saltSource, 0) >= f.sourceKeep {
		return ReasonSourceKeep
	}
	return ""
}

// setSource sets the keep rate of the input about to be read.
func (f *filter) setSource(path string) {
	f.sourceKeep = 1
	if r, ok := f.cfg.SourceKeep[pgn.SourceName(path)]; ok {
		f.sourceKeep = r
	}
}

// capReason applies the pair cap, counting the game when admitted. It must be
// called in game order (it is, by the reader goroutine) to stay deterministic.
func (f *filter) capReason(w, b int) string {
	if f.cfg.PairCap <= 0 || f.cfg.BalanceBand <= 0 {
		return ""
	}
	k := [2]int{band(w, f.cfg.BalanceBand), band(b, f.cfg.BalanceBand)}
	if k[0] > k[1] {
		k[0], k[1] = k[1], k[0]
	}
	if f.pairs[k] >= f.cfg.PairCap {
		return ReasonPairCap
	}
	f.pairs[k]++
	return ""
}

func band(r, width int) int { return r / width }

// earlyRate is the sampling rate of ply i (0-based half-move index).
func earlyRate(cfg *Config, ply int) float64 {
	if ply >= cfg.EarlyFullPly {
		return 1
	}
	return cfg.EarlyMinRate + (1-cfg.EarlyMinRate)*float64(ply)/float64(cfg.EarlyFullPly)
}

// Salts separating the independent random decisions.
const (
	saltBalance uint64 = 0xba1a
	saltEarly   uint64 = 0xea21
	saltSource  uint64 = 0x5a7c
	saltTeacher uint64 = 0x7eac
)
