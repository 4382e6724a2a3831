package games

import (
	"hash/fnv"
	"strings"

	"github.com/humchess/humchess/train/data/pgn"
)

// ID returns a stable identifier of a game: a hash of its Site tag when
// that is a per-game link (lichess), of its Link tag (chess.com), and
// otherwise of the headers that identify a game (players, dates, times,
// event, round, result, ratings, time control). It needs no movetext, so
// every decision can be taken before SAN decoding.
func ID(g *pgn.Game) uint64 {
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

// Unit returns a uniform number in [0,1) determined by its arguments only.
func Unit(id, seed, salt uint64, i int) float64 {
	z := mix64(id ^ mix64(seed+0x9e3779b97f4a7c15*salt) ^ mix64(uint64(i)+salt))
	return float64(z>>11) / (1 << 53)
}

// saltSplit is the salt of the train/validation split (train/data/prep
// salts its own decisions differently).
const saltSplit uint64 = 0x5b17

// IsValidation reports whether the game with this id belongs to the
// validation split. It depends on the id and the fraction only, not on the
// seed, so changing the seed never moves a game between splits.
func IsValidation(id uint64, fraction float64) bool {
	return Unit(id, 0, saltSplit, 0) < fraction
}

// saltPart is the salt of PartOf.
const saltPart uint64 = 0x9a27

// PartOf returns which of n equal parts (0..n-1) the game with this id falls
// in, so a large set of games can be prepared and trained on a part at a
// time. Like IsValidation it depends on the id only, and it is independent
// of the split: every part holds its share of both.
func PartOf(id uint64, n int) int {
	if n <= 1 {
		return 0
	}
	return min(int(Unit(id, 0, saltPart, 0)*float64(n)), n-1)
}
