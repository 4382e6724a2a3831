package prep

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/humchess/humchess/nets"
	"github.com/humchess/humchess/train/data/games"
	"github.com/humchess/humchess/train/data/pgn"
	"github.com/humchess/humchess/train/internal/cli"
)

// ErrConfig reports an invalid configuration.
var ErrConfig = errors.New("prep: bad config")

// Config is every setting of a prep run. DefaultConfig gives the defaults; the
// whole struct is saved in the shard set's manifest.
type Config struct {
	Inputs []string `json:"inputs"` // PGN files (.pgn, .pgn.zst, .pgn.bz2) or "-" for stdin
	Out    string   `json:"out"`    // output directory
	Force  bool     `json:"force"`  // allow a non-empty output directory (its shards and manifest are replaced)

	Seed    uint64 `json:"seed"`    // seed of every sampling decision (hash of game id and seed)
	Workers int    `json:"workers"` // decoding goroutines; 0 = GOMAXPROCS

	// Game filters (decided from headers, before any SAN is decoded).
	RatedOnly        bool     `json:"rated_only"`        // lichess games must have "Rated" in Event; other sites carry no such flag and pass
	AllowBots        bool     `json:"allow_bots"`        // keep games with a BOT account (WhiteTitle/BlackTitle "BOT")
	MinRating        int      `json:"min_rating"`        // both players at least this rating; unknown ratings are rejected
	MaxRating        int      `json:"max_rating"`        // both players at most this rating; 0 = no limit
	TimeClasses      []string `json:"time_classes"`      // kept classes: ultrabullet, bullet, blitz, rapid, classical, correspondence
	SkipTerminations []string `json:"skip_terminations"` // Termination values (case-insensitive substrings) whose games are skipped
	MinPlies         int      `json:"min_plies"`         // games with fewer plies are skipped

	// Rating-pair balancing: ratings fall in bands of BalanceBand points;
	// games between two players of the same band are kept with probability
	// SameBandKeep, between adjacent bands with AdjacentBandKeep, others always.
	BalanceBand      int     `json:"balance_band"`       // band width, rating points; 0 disables balancing
	SameBandKeep     float64 `json:"same_band_keep"`     // keep rate, same band
	AdjacentBandKeep float64 `json:"adjacent_band_keep"` // keep rate, adjacent bands
	PairCap          int64   `json:"pair_cap"`           // at most this many games per unordered pair of bands; 0 = no cap

	// Parts: with Parts > 1, only the training games of part Part (1..Parts,
	// games.PartOf) are kept, and every validation game, so the sets of the
	// parts share one validation split and together hold every training game
	// once.
	Part  int `json:"part,omitempty"`  // 1..Parts; 0 with Parts 0 = all games
	Parts int `json:"parts,omitempty"` // number of parts; 0 or 1 = all games
	// PartValidation keeps only part Part's validation games too: a
	// validation split a Parts-th the size, for a trainer that reads only
	// its first positions, so a teacher labels far fewer of them.
	PartValidation bool `json:"part_validation,omitempty"`
	// SourceKeep keeps the training games of the input named NAME
	// (pgn.SourceName: the file name without folder and extension) with
	// probability SourceKeep[NAME], by game hash; inputs it does not name
	// keep every game, and validation games are always kept, so that sets
	// of different mixes share one validation split. It weighs the sources
	// of a mix: one player's archive, say, against population samples.
	SourceKeep map[string]float64 `json:"source_keep,omitempty"`

	// Position sampling.
	MinClock     float64 `json:"min_clock"`      // skip positions where the mover's clock is below this, seconds; 0 disables; unknown clocks never skip
	EarlyFullPly int     `json:"early_full_ply"` // plies before this are sampled at a lower rate; 0 disables
	EarlyMinRate float64 `json:"early_min_rate"` // sampling rate at ply 0, rising linearly to 1 at EarlyFullPly

	// Split and output.
	ValFraction  float64 `json:"val_fraction"`  // fraction of games (by hash of the game id) in the validation split
	ShardMB      int     `json:"shard_mb"`      // uncompressed shard size, MiB
	ShardRecords int64   `json:"shard_records"` // also start a new shard after this many records; 0 = by size only
	Compression  string  `json:"compression"`   // "zstd" or "none"
	MaxGames     int64   `json:"max_games"`     // stop after reading this many games; 0 = all
	Plots        bool    `json:"plots"`         // write PNG histograms to the output directory
	Quiet        bool    `json:"quiet"`         // no progress bar

	// RatingMap moves the ratings of other sites' games onto one scale
	// before their positions are encoded and labelled (games.LoadRatingMap:
	// "" none, games.ShippedRatingMap, or a JSON file). The filters and
	// the pair balancing above read the ratings as the PGN gives them.
	RatingMap string `json:"rating_map,omitempty"`

	// Teacher labelling (distillation): every kept position is evaluated
	// with the Teacher net and its record carries softmax(logits) over the
	// legal moves (shard.AppendTeacher).
	Teacher      string `json:"teacher"`       // net file (HumChess .onnx/.safetensors, Lc0/Maia .pb.gz), "default" (the embedded net), or a directory of band nets NAME-RATING.EXT (the mover's band labels each position), or a mean of such teachers "A:W,B:W" (TeacherMembers); "" = no teacher
	TeacherBatch int    `json:"teacher_batch"` // positions per teacher evaluation; 0 = DefaultTeacherBatch
	// WDLEvals takes the win/draw/loss target of a position from the
	// game's evaluation of it (the [%eval] after the move that reached it,
	// as lichess's analysed games carry) where there is one, instead of from
	// the teacher (EvalWDL); it needs a Teacher.
	WDLEvals bool `json:"wdl_evals,omitempty"`
	// OpenTeacher opens one instance of a teacher net file (Teacher, or a
	// band net of its directory); Run calls it once per worker and net (a
	// nets.Net serves one caller at a time). Required when Teacher is set;
	// cmd/humchess sets it (nets/load).
	OpenTeacher func(file string) (nets.Net, error) `json:"-"`
}

// DefaultConfig returns the default configuration.
//
// The filters follow the lichess-database pipelines of Maia and its
// successors: rated standard games without bots, both players rated at least
// 1000, at least 30 plies, positions with less than 30 s on the mover's clock
// skipped (Maia), early plies sampled at a lower rate rising to full rate at
// ply 15, and rating pairs balanced by keeping 10% of games inside one 200-point
// band and 50% of games between adjacent bands. Time classes default to
// blitz, rapid and classical: bullet play is dominated by the clock and
// correspondence games may be engine-assisted.
func DefaultConfig() Config {
	return Config{
		Out:              "shards",
		Seed:             1,
		RatedOnly:        true,
		MinRating:        1000,
		TimeClasses:      []string{"blitz", "rapid", "classical"},
		SkipTerminations: []string{"abandon", "rules infraction", "unterminated"},
		MinPlies:         30,
		BalanceBand:      200,
		SameBandKeep:     0.10,
		AdjacentBandKeep: 0.50,
		MinClock:         30,
		EarlyFullPly:     15,
		EarlyMinRate:     0.1,
		ValFraction:      0.05,
		ShardMB:          64,
		Compression:      "zstd",
		Plots:            true,
		TeacherBatch:     DefaultTeacherBatch,
	}
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrConfig, fmt.Sprintf(format, args...))
	}
	switch {
	case len(c.Inputs) == 0:
		return bad("no input files")
	case c.Out == "":
		return bad("no output directory")
	case c.Workers < 0:
		return bad("workers %d < 0", c.Workers)
	case c.MinRating < 0 || c.MaxRating < 0 || (c.MaxRating > 0 && c.MaxRating < c.MinRating):
		return bad("rating range %d..%d", c.MinRating, c.MaxRating)
	case c.MinPlies < 0:
		return bad("min plies %d < 0", c.MinPlies)
	case c.BalanceBand < 0:
		return bad("balance band %d < 0", c.BalanceBand)
	case !rate(c.SameBandKeep) || !rate(c.AdjacentBandKeep) || !rate(c.EarlyMinRate):
		return bad("keep rates must be in [0,1]: same %v adjacent %v early %v", c.SameBandKeep, c.AdjacentBandKeep, c.EarlyMinRate)
	case c.Parts < 0 || (c.Parts <= 1 && c.Part > 1) || (c.Parts > 1 && (c.Part < 1 || c.Part > c.Parts)):
		return bad("part %d of %d (give -part K/N with 1 <= K <= N)", c.Part, c.Parts)
	case c.PairCap < 0:
		return bad("pair cap %d < 0", c.PairCap)
	case !(c.MinClock >= 0):
		return bad("min clock %v < 0", c.MinClock)
	case c.EarlyFullPly < 0:
		return bad("early full ply %d < 0", c.EarlyFullPly)
	case !(c.ValFraction >= 0 && c.ValFraction < 1):
		return bad("validation fraction %v outside [0,1)", c.ValFraction)
	case c.ShardMB <= 0:
		return bad("shard size %d MiB", c.ShardMB)
	case c.ShardRecords < 0:
		return bad("shard records %d < 0", c.ShardRecords)
	case c.Compression != "zstd" && c.Compression != "none":
		return bad("compression %q (zstd or none)", c.Compression)
	case c.MaxGames < 0:
		return bad("max games %d < 0", c.MaxGames)
	case c.TeacherBatch < 0:
		return bad("teacher batch %d < 0", c.TeacherBatch)
	case c.Teacher != "" && c.OpenTeacher == nil:
		return bad("teacher %q but no OpenTeacher to open it", c.Teacher)
	case c.WDLEvals && c.Teacher == "":
		return bad("wdl-evals writes the teacher's win/draw/loss section: it needs a teacher")
	}
	if len(c.SourceKeep) > 0 {
		names := map[string]bool{}
		for _, in := range c.Inputs {
			names[pgn.SourceName(in)] = true
		}
		for _, name := range slices.Sorted(maps.Keys(c.SourceKeep)) {
			switch r := c.SourceKeep[name]; {
			case !rate(r):
				return bad("source keep rate %v of %s outside [0,1]", r, name)
			case !names[name]:
				return bad("source keep names %q, which is none of the inputs (%s)", name, strings.Join(slices.Sorted(maps.Keys(names)), ", "))
			}
		}
	}
	if c.Teacher != "" {
		if _, err := TeacherMembers(c.Teacher); err != nil {
			return bad("%v", err)
		}
	}
	if len(c.TimeClasses) == 0 {
		return bad("no time classes")
	}
	for _, tc := range c.TimeClasses {
		if _, ok := games.ParseTimeClass(tc); !ok {
			return bad("unknown time class %q (one of %s)", tc, strings.Join(games.ClassNames(), ", "))
		}
	}
	return nil
}

func rate(x float64) bool { return x >= 0 && x <= 1 }

// LoadConfigFile reads a JSON configuration over c: fields present in the
// file replace c's, others stay. Unknown fields are an error.
func LoadConfigFile(path string, c *Config) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("prep: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(c); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrConfig, path, err)
	}
	return nil
}

// JSON returns the configuration as indented JSON.
func (c *Config) JSON() []byte {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil { // a Config always marshals
		return []byte("{}")
	}
	return b
}

// partFlag is the -part K/N flag.
type partFlag struct{ c *Config }

func (p partFlag) String() string {
	if p.c == nil || p.c.Parts <= 1 {
		return ""
	}
	return fmt.Sprintf("%d/%d", p.c.Part, p.c.Parts)
}

func (p partFlag) Set(s string) error {
	k, n, ok := strings.Cut(s, "/")
	part, err1 := strconv.Atoi(strings.TrimSpace(k))
	parts, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil || parts < 1 || part < 1 || part > parts {
		return fmt.Errorf("part %q: want K/N with 1 <= K <= N, e.g. 2/3", s)
	}
	p.c.Part, p.c.Parts = part, parts
	return nil
}

// sourceKeepFlag parses -source-keep NAME=RATE[,NAME=RATE...].
type sourceKeepFlag struct{ c *Config }

func (p sourceKeepFlag) String() string {
	if p.c == nil || len(p.c.SourceKeep) == 0 {
		return ""
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(p.c.SourceKeep)) {
		parts = append(parts, fmt.Sprintf("%s=%g", name, p.c.SourceKeep[name]))
	}
	return strings.Join(parts, ",")
}

func (p sourceKeepFlag) Set(s string) error {
	m := map[string]float64{}
	for _, item := range strings.Split(s, ",") {
		name, v, ok := strings.Cut(strings.TrimSpace(item), "=")
		r, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if !ok || name == "" || err != nil || !rate(r) {
			return fmt.Errorf("source keep %q: want NAME=RATE with RATE in [0,1], NAME an input's file name without folder and extension", item)
		}
		if _, dup := m[name]; dup {
			return fmt.Errorf("source keep: %s given twice", name)
		}
		m[name] = r
	}
	p.c.SourceKeep = m
	return nil
}

// RegisterFlags defines one flag per Config field on fs, writing into c (whose
// current values are the defaults shown). Inputs are not a flag: they are the
// positional arguments.
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.Out, "o", c.Out, "output directory")
	fs.BoolVar(&c.Force, "force", c.Force, "replace the shards and manifest of a non-empty output directory")
	fs.Uint64Var(&c.Seed, "seed", c.Seed, "seed of the sampling decisions")
	fs.IntVar(&c.Workers, "workers", c.Workers, "decoding goroutines (0 = all cores)")
	fs.BoolVar(&c.RatedOnly, "rated-only", c.RatedOnly, "lichess games must be rated (Event contains \"Rated\")")
	fs.BoolVar(&c.AllowBots, "allow-bots", c.AllowBots, "keep games with a BOT account")
	fs.IntVar(&c.MinRating, "min-rating", c.MinRating, "minimum rating of both players")
	fs.IntVar(&c.MaxRating, "max-rating", c.MaxRating, "maximum rating of both players (0 = none)")
	fs.Var(cli.ListFlag{P: &c.TimeClasses}, "time-classes", "kept time classes, comma-separated (ultrabullet,bullet,blitz,rapid,classical,correspondence)")
	fs.Var(cli.ListFlag{P: &c.SkipTerminations}, "skip-terminations", "Termination substrings whose games are skipped, comma-separated")
	fs.IntVar(&c.MinPlies, "min-plies", c.MinPlies, "minimum plies of a game")
	fs.IntVar(&c.BalanceBand, "balance-band", c.BalanceBand, "rating band width for pair balancing (0 = off)")
	fs.Float64Var(&c.SameBandKeep, "same-band-keep", c.SameBandKeep, "keep rate of games within one band")
	fs.Float64Var(&c.AdjacentBandKeep, "adjacent-band-keep", c.AdjacentBandKeep, "keep rate of games between adjacent bands")
	fs.Int64Var(&c.PairCap, "pair-cap", c.PairCap, "maximum games per pair of bands (0 = none)")
	fs.Var(partFlag{c}, "part", "K/N: keep only the training games of part K of N (by game hash; every validation game is kept), to prepare and train on a large set a part at a time")
	fs.Var(sourceKeepFlag{c}, "source-keep", "NAME=RATE[,NAME=RATE...]: keep the training games of the input NAME (its file name without folder and extension, e.g. chesscom-player-27k) at RATE, by game hash; validation games are always kept")
	fs.BoolVar(&c.PartValidation, "part-validation", c.PartValidation, "with -part K/N, keep only part K's validation games too (a validation split N times smaller, which a teacher labels N times faster)")
	fs.Float64Var(&c.MinClock, "min-clock", c.MinClock, "skip positions with less than this on the mover's clock, seconds (0 = off)")
	fs.IntVar(&c.EarlyFullPly, "early-full-ply", c.EarlyFullPly, "ply from which positions are kept at full rate (0 = off)")
	fs.Float64Var(&c.EarlyMinRate, "early-min-rate", c.EarlyMinRate, "sampling rate at ply 0")
	fs.Float64Var(&c.ValFraction, "val-fraction", c.ValFraction, "fraction of games in the validation split")
	fs.IntVar(&c.ShardMB, "shard-mb", c.ShardMB, "uncompressed shard size, MiB")
	fs.Int64Var(&c.ShardRecords, "shard-records", c.ShardRecords, "also start a new shard after this many records (0 = by size only)")
	fs.StringVar(&c.Compression, "compression", c.Compression, "shard compression: zstd or none")
	fs.Int64Var(&c.MaxGames, "max-games", c.MaxGames, "stop after this many games (0 = all)")
	fs.BoolVar(&c.Plots, "plots", c.Plots, "write PNG histograms")
	fs.BoolVar(&c.Quiet, "quiet", c.Quiet, "no progress bar")
	fs.StringVar(&c.RatingMap, "rating-map", c.RatingMap, "move other sites' ratings onto one scale before encoding: \"\" (none), \""+games.ShippedRatingMap+"\" (chess.com onto lichess, shipped) or a JSON file (train/data/games/ratingmaps)")
	fs.StringVar(&c.Teacher, "teacher", c.Teacher, "label every kept position with this net's move distribution and win/draw/loss, for distillation: a net file, \"default\" (the embedded net), or a directory of band nets such as ../shared/maia (each position labelled by the net of the mover's band, between two band centres by one of the neighbours chosen by distance), or an ensemble of those, A:W,B:W (the weighted mean of their move distributions, the first one's win/draw/loss; e.g. default:1,../shared/maia:1)")
	fs.IntVar(&c.TeacherBatch, "teacher-batch", c.TeacherBatch, "positions per teacher evaluation")
	fs.BoolVar(&c.WDLEvals, "wdl-evals", c.WDLEvals, "with -teacher: where the game evaluates a position ([%eval] after the move that reached it), its win/draw/loss label is that evaluation's expected score (lichess's logistic) with the teacher's draw share, not the teacher's")
}
