package selfplay

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/humchess/humchess/nets"
	"github.com/humchess/humchess/train/data/games"
	"github.com/humchess/humchess/train/data/pgn"
	"github.com/humchess/humchess/train/internal/cli"
)

// ErrConfig reports an invalid configuration.
var ErrConfig = errors.New("selfplay: bad config")

// MaxRating is the highest rating a range may reach.
const MaxRating = 4000 // Elo

// Ratings is a closed range of ratings, written LO-HI (or R for LO = HI).
type Ratings struct {
	Lo, Hi int // Elo
}

// String writes the range as LO-HI.
func (r Ratings) String() string { return fmt.Sprintf("%d-%d", r.Lo, r.Hi) }

// Set parses LO-HI or R (flag.Value).
func (r *Ratings) Set(s string) error {
	lo, hi, isRange := strings.Cut(strings.TrimSpace(s), "-")
	if !isRange {
		hi = lo
	}
	a, err1 := strconv.Atoi(strings.TrimSpace(lo))
	b, err2 := strconv.Atoi(strings.TrimSpace(hi))
	if err1 != nil || err2 != nil {
		return fmt.Errorf("ratings %q: want LO-HI, e.g. 1900-2600", s)
	}
	n := Ratings{a, b}
	if err := n.check(); err != nil {
		return fmt.Errorf("ratings %q: %w", s, err)
	}
	*r = n
	return nil
}

func (r Ratings) check() error {
	if r.Lo < 1 || r.Hi < r.Lo || r.Hi > MaxRating {
		return fmt.Errorf("want 1 <= LO <= HI <= %d", MaxRating)
	}
	return nil
}

// MarshalText writes the range as LO-HI (in the logged configuration).
func (r Ratings) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText parses LO-HI.
func (r *Ratings) UnmarshalText(b []byte) error { return r.Set(string(b)) }

// Config is every setting of a self-play run. DefaultConfig gives the
// defaults; Run logs the whole struct at the start.
type Config struct {
	Net          string   `json:"net"`           // a directory of band nets NAME-RATING.EXT (maia-1100.pb.gz ... maia-1900.pb.gz), each side playing the net of its band; or one net file for both sides
	Ratings      Ratings  `json:"ratings"`       // White's rating is drawn uniformly in this range
	RatingSpread int      `json:"rating_spread"` // Black's rating is drawn uniformly within this of White's, inside Ratings; rating points
	Games        int      `json:"games"`         // games to play
	Openings     []string `json:"openings"`      // PGN files of real games (.pgn, .pgn.zst, .pgn.bz2) whose first OpeningPlies plies start the games
	OpeningPlies int      `json:"opening_plies"` // plies taken from the drawn real game
	ValFraction  float64  `json:"val_fraction"`  // prep's validation fraction: openings come from the other games
	Seed         uint64   `json:"seed"`          // seed of every random choice (with the game's index)
	Temperature  float64  `json:"temperature"`   // 1 = sample the net's distribution over the legal moves; 0 = always its most likely move
	MaxPlies     int      `json:"max_plies"`     // a game this long (plies, opening included) ends unterminated, Result "*"

	// Adjudication by the mover's net's win/draw/loss head (nets without
	// one are never adjudicated).
	AdjudicatePlies int     `json:"adjudicate_plies"` // consecutive plies a verdict must hold; 0 = no adjudication
	AdjudicateWin   float64 `json:"adjudicate_win"`   // the mover's win (or loss) probability that calls the game for one side
	AdjudicateDraw  float64 `json:"adjudicate_draw"`  // the draw probability that calls the game a draw

	// TimeControl is the PGN TimeControl tag, BASE+INC seconds. The games
	// carry no clocks, like the unclocked real games, whose tag is the time
	// control they were played at; prep classifies a game by this tag.
	TimeControl string `json:"time_control"`

	Workers int    `json:"workers"` // goroutines, each with its own nets
	Batch   int    `json:"batch"`   // games a worker plays at once, their positions evaluated in one batch per net
	Out     string `json:"out"`     // output PGN file
	Force   bool   `json:"force"`   // replace an existing output file
	Quiet   bool   `json:"quiet"`   // no progress line

	// OpenNet opens one instance of a net file (Net, or a band net of its
	// directory); Run calls it once per worker and net (a nets.Net serves
	// one caller at a time). Required; cmd/humchess sets it (nets/load).
	OpenNet func(file string) (nets.Net, error) `json:"-"`
}

// DefaultConfig returns the default configuration: ratings 1900-2600
// (where the real games are scarce), Black within 100 points of White, 8
// opening plies, the nets' own distributions (temperature 1), 300 plies at
// most, adjudication after 8 plies of win or loss >= 0.95 or draw >= 0.9,
// and the time control of most unclocked real games, 600+0.
func DefaultConfig() Config {
	return Config{
		Ratings:         Ratings{1900, 2600},
		RatingSpread:    100,
		Games:           100,
		OpeningPlies:    8,
		ValFraction:     0.05,
		Seed:            1,
		Temperature:     1,
		MaxPlies:        300,
		AdjudicatePlies: 8,
		AdjudicateWin:   0.95,
		AdjudicateDraw:  0.9,
		TimeControl:     "600+0",
		Workers:         1,
		Batch:           16,
		Out:             "selfplay.pgn",
	}
}

// Validate checks the configuration (not the files it names).
func (c *Config) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrConfig, fmt.Sprintf(format, args...))
	}
	tc := pgn.ParseTimeControl(c.TimeControl)
	switch {
	case c.Net == "":
		return bad("no net (-net: a directory of band nets such as maia-1100.pb.gz ... maia-1900.pb.gz, or one net file)")
	case len(c.Openings) == 0:
		return bad("no openings (-openings: PGN files of real games)")
	case c.Out == "":
		return bad("no output file")
	case c.Ratings.check() != nil:
		return bad("ratings %s: %v", c.Ratings, c.Ratings.check())
	case c.RatingSpread < 0:
		return bad("rating spread %d < 0", c.RatingSpread)
	case c.Games < 1:
		return bad("games %d: want at least 1", c.Games)
	case !(c.ValFraction >= 0 && c.ValFraction < 1):
		return bad("validation fraction %v outside [0,1)", c.ValFraction)
	case c.OpeningPlies < 0:
		return bad("opening plies %d < 0", c.OpeningPlies)
	case !(c.Temperature >= 0) || math.IsInf(c.Temperature, 1):
		return bad("temperature %v: want >= 0", c.Temperature)
	case c.MaxPlies <= c.OpeningPlies:
		return bad("max plies %d: want more than the %d opening plies", c.MaxPlies, c.OpeningPlies)
	case c.AdjudicatePlies < 0:
		return bad("adjudicate plies %d < 0", c.AdjudicatePlies)
	case !(c.AdjudicateWin > 0.5 && c.AdjudicateWin <= 1):
		return bad("adjudicate win %v: want in (0.5, 1]", c.AdjudicateWin)
	case !(c.AdjudicateDraw > 0.5 && c.AdjudicateDraw <= 1):
		return bad("adjudicate draw %v: want in (0.5, 1]", c.AdjudicateDraw)
	case !tc.Known() || tc.Correspondence || games.ClassOf(tc) == games.UnknownClass:
		return bad("time control %q: want BASE+INC in seconds, e.g. 600+0", c.TimeControl)
	case c.Workers < 1:
		return bad("workers %d: want at least 1", c.Workers)
	case c.Batch < 1:
		return bad("batch %d: want at least 1", c.Batch)
	case c.OpenNet == nil:
		return bad("no OpenNet to open the nets")
	}
	return nil
}

// JSON returns the configuration as one line of JSON.
func (c *Config) JSON() []byte {
	b, err := json.Marshal(c)
	if err != nil { // a Config always marshals
		return []byte("{}")
	}
	return b
}

// RegisterFlags defines one flag per Config field on fs, writing into c
// (whose current values are the defaults shown).
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.Net, "net", c.Net, "a directory of band nets NAME-RATING.pb.gz/.onnx such as ../shared/maia (each side plays the net whose band centre is nearest its rating, clamped to the ends), or one net file for both sides")
	fs.Var(&c.Ratings, "ratings", "LO-HI: White's rating is drawn uniformly in this range")
	fs.IntVar(&c.RatingSpread, "rating-spread", c.RatingSpread, "Black's rating is drawn uniformly within this many points of White's, inside -ratings")
	fs.IntVar(&c.Games, "games", c.Games, "games to play")
	fs.Var(cli.ListFlag{P: &c.Openings}, "openings", "PGN files of real games (.pgn, .pgn.zst, .pgn.bz2), comma-separated: each game starts from the first -opening-plies plies of one of their games, drawn with the seed")
	fs.IntVar(&c.OpeningPlies, "opening-plies", c.OpeningPlies, "plies taken from the drawn real game")
	fs.Float64Var(&c.ValFraction, "val-fraction", c.ValFraction, "prep's validation fraction: openings come only from the games prep keeps for training")
	fs.Uint64Var(&c.Seed, "seed", c.Seed, "seed of every random choice: the same seed gives the same games")
	fs.Float64Var(&c.Temperature, "temperature", c.Temperature, "1 = sample from the net's distribution over the legal moves; 0 = always its most likely move")
	fs.IntVar(&c.MaxPlies, "max-plies", c.MaxPlies, "a game this long (opening included) ends unterminated, Result \"*\"")
	fs.IntVar(&c.AdjudicatePlies, "adjudicate-plies", c.AdjudicatePlies, "adjudicate when the mover's net's win/draw/loss gives one verdict this many plies in a row (0 = never)")
	fs.Float64Var(&c.AdjudicateWin, "adjudicate-win", c.AdjudicateWin, "win (or loss) probability of the mover that calls the game for one side")
	fs.Float64Var(&c.AdjudicateDraw, "adjudicate-draw", c.AdjudicateDraw, "draw probability that calls the game a draw")
	fs.StringVar(&c.TimeControl, "time-control", c.TimeControl, "PGN TimeControl tag, BASE+INC seconds (the games carry no clocks)")
	fs.IntVar(&c.Workers, "workers", c.Workers, "goroutines, each with its own nets")
	fs.IntVar(&c.Batch, "batch", c.Batch, "games a worker plays at once, evaluated in one batch per net")
	fs.StringVar(&c.Out, "o", c.Out, "output PGN file")
	fs.BoolVar(&c.Force, "force", c.Force, "replace an existing output file")
	fs.BoolVar(&c.Quiet, "quiet", c.Quiet, "no progress line")
}
