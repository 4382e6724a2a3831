package prep

import (
	"hash/fnv"
	"strings"

	"github.com/humchess/humchess/train/pgn"
)

// TimeClass is lichess's speed category of a game.
type TimeClass int

// Time classes, by lichess's estimated duration base + 40*increment seconds.
const (
	UnknownClass   TimeClass = iota // TimeControl missing or unreadable
	UltraBullet                     // under 30 s
	Bullet                          // 30 s to under 180 s
	Blitz                           // 180 s to under 480 s
	Rapid                           // 480 s to under 1500 s
	Classical                       // 1500 s and more
	Correspondence                  // days per move or untimed
	numClasses
)

var timeClassNames = [numClasses]string{"unknown", "ultrabullet", "bullet", "blitz", "rapid", "classical", "correspondence"}

// String returns the class's lower-case name.
func (c TimeClass) String() string {
	if c < 0 || c >= numClasses {
		return "unknown"
	}
	return timeClassNames[c]
}

// ParseTimeClass returns the class named s (case-insensitive).
func ParseTimeClass(s string) (TimeClass, bool) {
	for i, n := range timeClassNames {
		if strings.EqualFold(strings.TrimSpace(s), n) && i != int(UnknownClass) {
			return TimeClass(i), true
		}
	}
	return UnknownClass, false
}

// EstimatedSeconds returns lichess's estimated game duration base + 40*inc,
// or -1 when the time control is not known or is correspondence.
func EstimatedSeconds(tc pgn.TimeControl) float64 {
	if tc.Correspondence || !tc.Known() {
		return -1
	}
	return tc.Base + 40*tc.Increment
}

// ClassOf returns the time class of a time control.
func ClassOf(tc pgn.TimeControl) TimeClass {
	if tc.Correspondence {
		return Correspondence
	}
	est := EstimatedSeconds(tc)
	switch {
	case est < 0:
		return UnknownClass
	case est < 30:
		return UltraBullet
	case est < 180:
		return Bullet
	case est < 480:
		return Blitz
	case est < 1500:
		return Rapid
	}
	return Classical
}

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
	classes [numClasses]bool
	skipTer []string
	pairs   map[[2]int]int64 // games admitted per band pair (PairCap)
}

func newFilter(cfg *Config) *filter {
	f := &filter{cfg: cfg, pairs: map[[2]int]int64{}}
	for _, n := range cfg.TimeClasses {
		if c, ok := ParseTimeClass(n); ok {
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
	if cl := ClassOf(g.TimeControl); !f.classes[cl] {
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
		u := unit(id, c.Seed, saltBalance, 0)
		switch {
		case d == 0 && u >= c.SameBandKeep:
			return ReasonSameBand
		case (d == 1 || d == -1) && u >= c.AdjacentBandKeep:
			return ReasonAdjacentBand
		}
	}
	return ""
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
	saltSplit   uint64 = 0x5b17
	saltTeacher uint64 = 0x7eac
)

// GameID returns a stable identifier of a game: a hash of its Site tag when
// that is a per-game link (lichess), of its Link tag (chess.com), and
// otherwise of the headers that identify a game (players, dates, times,
// event, round, result, ratings, time control). It needs no movetext, so
// every decision can be taken before SAN decoding.
func GameID(g *pgn.Game) uint64 {
	h := fnv.New64a()
	if link, ok := g.Header("Link"); ok && strings.Contains(link, "/game/") {
		h.Write([]byte("link:" + link))
		return h.Sum64()
	}
	if s := g.Site; strings.HasPrefix(s, "http") && strings.Count(s, "/") >= 3 && !strings.HasSuffix(s, "/") {
		h.Write([]byte("site:" + s))
		return h.Sum64()
	}
	h.Write([]byte("hdr"))
	for _, k := range []string{"Event", "Site", "Date", "Round", "White", "Black", "Result", "UTCDate", "UTCTime", "StartTime", "EndTime", "WhiteElo", "BlackElo", "TimeControl"} {
		v, _ := g.Header(k)
		h.Write([]byte{0})
		h.Write([]byte(v))
	}
	return h.Sum64()
}

// mix64 is the splitmix64 finaliser.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// unit returns a uniform number in [0,1) determined by its arguments only.
func unit(id, seed, salt uint64, i int) float64 {
	z := mix64(id ^ mix64(seed+0x9e3779b97f4a7c15*salt) ^ mix64(uint64(i)+salt))
	return float64(z>>11) / (1 << 53)
}

// IsValidation reports whether the game with this id belongs to the
// validation split. It depends on the id and the fraction only, not on the
// seed, so changing the seed never moves a game between splits.
func IsValidation(id uint64, fraction float64) bool {
	return unit(id, 0, saltSplit, 0) < fraction
}
