package games

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/humchess/humchess/train/data/pgn"
)

// Platform is the site a game was played on.
type Platform int

// Platforms a game's tags can name.
const (
	UnknownPlatform Platform = iota
	Lichess
	ChessCom
)

var platformNames = [...]string{"unknown", "lichess", "chess.com"}

// String returns the platform's name as rating maps write it.
func (p Platform) String() string {
	if p < 0 || int(p) >= len(platformNames) {
		return "unknown"
	}
	return platformNames[p]
}

// PlatformOf returns the site a game was played on, from its Site tag
// (lichess writes the game's link, chess.com "Chess.com") or its Link tag.
func PlatformOf(g *pgn.Game) Platform {
	site := strings.ToLower(g.Site)
	link, _ := g.Header("Link")
	link = strings.ToLower(link)
	switch {
	case strings.Contains(site, "lichess.org"):
		return Lichess
	case strings.Contains(site, "chess.com") || strings.Contains(link, "chess.com/"):
		return ChessCom
	}
	return UnknownPlatform
}

// A RatingMap moves the ratings of one platform onto another's scale, so
// that a rating means the same strength whatever site a game comes from:
// a chess.com 1500 and a lichess 1500 are not the same player. Each entry
// is a piecewise-linear map for one platform and, optionally, one time
// class; a rating beyond its points keeps the offset of the nearest end.
type RatingMap struct {
	Name string       `json:"name"`
	Note string       `json:"note,omitempty"`
	Maps []MapEntries `json:"maps"`
}

// MapEntries is the map of one platform's ratings (of one time class, or
// of every class when Class is empty).
type MapEntries struct {
	Platform string       `json:"platform"`
	Class    string       `json:"class,omitempty"`
	Points   [][2]float64 `json:"points"` // (the platform's rating, the mapped rating), ratings increasing
}

//go:embed ratingmaps/chesscom-to-lichess.json
var chessComToLichess []byte

// ShippedRatingMap is the name LoadRatingMap gives the map shipped with
// the pipeline: chess.com ratings onto lichess's scale.
const ShippedRatingMap = "chesscom-to-lichess"

// LoadRatingMap returns the map spec names: nil for "" or "none", the
// shipped map for ShippedRatingMap, otherwise the JSON file at that path.
func LoadRatingMap(spec string) (*RatingMap, error) {
	var data []byte
	switch spec {
	case "", "none":
		return nil, nil
	case ShippedRatingMap:
		data = chessComToLichess
	default:
		b, err := os.ReadFile(spec)
		if err != nil {
			return nil, fmt.Errorf("rating map: %w", err)
		}
		data = b
	}
	var m RatingMap
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("rating map %s: %w", spec, err)
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("rating map %s: %w", spec, err)
	}
	return &m, nil
}

// Validate reports a map that names an unknown platform or class, has
// fewer than two points, or whose ratings do not increase.
func (m *RatingMap) Validate() error {
	if len(m.Maps) == 0 {
		return errors.New("no maps")
	}
	seen := map[string]bool{}
	for i, e := range m.Maps {
		if e.Platform != Lichess.String() && e.Platform != ChessCom.String() {
			return fmt.Errorf("map %d: unknown platform %q (lichess or chess.com)", i, e.Platform)
		}
		if e.Class != "" {
			if _, ok := ParseTimeClass(e.Class); !ok {
				return fmt.Errorf("map %d: unknown time class %q", i, e.Class)
			}
		}
		key := e.Platform + "/" + strings.ToLower(e.Class)
		if seen[key] {
			return fmt.Errorf("map %d: a second map for %s", i, key)
		}
		seen[key] = true
		if len(e.Points) < 2 {
			return fmt.Errorf("map %d (%s): %d points, want at least 2", i, key, len(e.Points))
		}
		for j, p := range e.Points {
			if math.IsNaN(p[0]) || math.IsNaN(p[1]) || p[0] <= 0 || p[1] <= 0 {
				return fmt.Errorf("map %d (%s): point %d %v is not a pair of positive ratings", i, key, j, p)
			}
			if j > 0 && (p[0] <= e.Points[j-1][0] || p[1] <= e.Points[j-1][1]) {
				return fmt.Errorf("map %d (%s): point %d %v does not increase on %v", i, key, j, p, e.Points[j-1])
			}
		}
	}
	return nil
}

// entry returns the points for a platform and class: the class's own map,
// else the platform's map for every class, else nil.
func (m *RatingMap) entry(p Platform, c TimeClass) [][2]float64 {
	var any [][2]float64
	for _, e := range m.Maps {
		if e.Platform != p.String() {
			continue
		}
		if e.Class == "" {
			any = e.Points
		} else if strings.EqualFold(e.Class, c.String()) {
			return e.Points
		}
	}
	return any
}

// Rating returns r, a rating on platform p in a game of class c, on the
// map's scale; r itself when the map has nothing for them or r is unknown
// (negative). A nil map changes nothing.
func (m *RatingMap) Rating(p Platform, c TimeClass, r float64) float64 {
	if m == nil || r < 0 {
		return r
	}
	pts := m.entry(p, c)
	if len(pts) < 2 {
		return r
	}
	if r <= pts[0][0] {
		return r + pts[0][1] - pts[0][0]
	}
	last := pts[len(pts)-1]
	if r >= last[0] {
		return r + last[1] - last[0]
	}
	for i := 1; i < len(pts); i++ {
		if r <= pts[i][0] {
			a, b := pts[i-1], pts[i]
			t := (r - a[0]) / (b[0] - a[0])
			return a[1] + t*(b[1]-a[1])
		}
	}
	return r
}

// ApplyGame maps g's WhiteElo and BlackElo onto the map's scale (rounded),
// so that everything taken from g afterwards (RecordOf, rating bands, the
// mover's rating) sees the mapped ratings. A nil map changes nothing.
func (m *RatingMap) ApplyGame(g *pgn.Game) {
	if m == nil {
		return
	}
	p, c := PlatformOf(g), ClassOf(g.TimeControl)
	g.WhiteElo, g.BlackElo = m.Whole(p, c, g.WhiteElo), m.Whole(p, c, g.BlackElo)
}

// Whole is Rating for a whole-number rating, rounded; an unknown
// (negative) rating stays as it is.
func (m *RatingMap) Whole(p Platform, c TimeClass, r int) int {
	if m == nil || r < 0 {
		return r
	}
	return int(math.Round(m.Rating(p, c, float64(r))))
}
