package uci

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Rating range accepted by UCI_Elo and OpponentElo.
const (
	MinElo = 600  // Elo
	MaxElo = 2600 // Elo
)

// Options are the engine's settings, set by setoption. The table in this
// file declares each one once: its UCI name, type, default, range and field.
type Options struct {
	Elo              int      // UCI_Elo: the rating the engine plays as (Elo)
	LimitStrength    bool     // UCI_LimitStrength: accepted for GUIs; HumChess always plays at Elo
	Opponent         Opponent // UCI_Opponent: what the GUI says about the opponent
	OpponentElo      int      // OpponentElo: the opponent's rating (Elo); 0 = from UCI_Opponent, else the engine's
	TimeControl      int      // TimeControl: base time (s); 0 = infer from the clocks go sends
	Increment        int      // Increment: increment (s) used with TimeControl when go sends no clocks
	Temperature      int      // Temperature (percent): 100 = the learned distribution, 0 = always the most likely move
	TopP             int      // TopP (percent): sample from the smallest set of moves holding this much probability; 100 = all
	Seed             int      // Seed: 0 = random; otherwise a fixed seed replays the same game
	MultiPV          int      // MultiPV: candidate lines printed
	ShowWDL          bool     // UCI_ShowWDL: print wdl with the score
	BlunderFilter    bool     // BlunderFilter: resample a move that loses far more than the best candidate
	BlunderThreshold int      // BlunderThreshold (percent): scales the rating-dependent loss the filter tolerates
	Calibration      bool     // Calibration: map UCI_Elo through the net's calibration (nets/calib)
	HumanTiming      bool     // HumanTiming: wait as long as a human of the rating would
	MoveOverhead     int      // MoveOverhead (ms): time kept back for transmission lag
	NetFile          string   // NetFile: net to load; "" = the embedded default
	Threads          int      // Threads: CPU threads for the net
	Ponder           bool     // Ponder: the GUI may send go ponder
}

// Opponent is the parsed value of UCI_Opponent:
// "[GM|IM|FM|CM|NM|WGM|WIM|WFM|WCM|LM|BOT|none] [<rating>|none] [computer|human] <name>".
type Opponent struct {
	Title    string // "" for none
	Rating   int    // Elo; 0 = unknown
	Computer bool   // the opponent is a computer
	Name     string // may be empty
}

// String returns the opponent in UCI_Opponent form, "" when nothing is known.
func (o Opponent) String() string {
	if o == (Opponent{}) {
		return ""
	}
	title, rating, kind := "none", "none", "human"
	if o.Title != "" {
		title = o.Title
	}
	if o.Rating > 0 {
		rating = strconv.Itoa(o.Rating)
	}
	if o.Computer {
		kind = "computer"
	}
	return strings.TrimSpace(title + " " + rating + " " + kind + " " + o.Name)
}

var titles = []string{"GM", "IM", "FM", "CM", "NM", "WGM", "WIM", "WFM", "WCM", "WNM", "LM", "BOT"}

// ParseOpponent parses a UCI_Opponent value. The empty string (or "<empty>")
// means nothing is known.
func ParseOpponent(s string) (Opponent, error) {
	f := strings.Fields(s)
	if len(f) == 0 || (len(f) == 1 && f[0] == "<empty>") {
		return Opponent{}, nil
	}
	if len(f) < 3 {
		return Opponent{}, fmt.Errorf("UCI_Opponent %s: want \"<title|none> <rating|none> <computer|human> <name>\"", quote(s))
	}
	var o Opponent
	switch t := strings.ToUpper(f[0]); {
	case t == "NONE":
	case contains(titles, t):
		o.Title = t
	default:
		return Opponent{}, fmt.Errorf("UCI_Opponent %s: unknown title %s (want one of %s or none)", quote(s), quote(f[0]), strings.Join(titles, " "))
	}
	if !strings.EqualFold(f[1], "none") {
		r, err := strconv.Atoi(f[1])
		if err != nil || r < 0 || r > 4000 {
			return Opponent{}, fmt.Errorf("UCI_Opponent %s: rating %s is not a number in 0..4000 or none", quote(s), quote(f[1]))
		}
		o.Rating = r
	}
	switch strings.ToLower(f[2]) {
	case "computer":
		o.Computer = true
	case "human":
	default:
		return Opponent{}, fmt.Errorf("UCI_Opponent %s: %s is neither computer nor human", quote(s), quote(f[2]))
	}
	o.Name = strings.Join(f[3:], " ")
	return o, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// OpponentRating returns the opponent's rating to feed the net: OpponentElo
// when set, else the rating in UCI_Opponent clamped to the accepted range,
// else the engine's own rating.
func (o Options) OpponentRating() int {
	switch {
	case o.OpponentElo > 0:
		return o.OpponentElo
	case o.Opponent.Rating > 0:
		return min(max(o.Opponent.Rating, MinElo), MaxElo)
	}
	return o.Elo
}

// Kinds of options (the UCI "type").
const (
	kindCheck  = "check"
	kindSpin   = "spin"
	kindString = "string"
)

// option is one row of the table: everything about an option, once.
type option struct {
	name     string
	kind     string
	def      string // default, in setoption form
	min, max int    // spin range
	help     string // for the README table
	set      func(o *Options, v string) error
	get      func(o *Options) string
}

// ErrUnknownOption is returned by setoption for a name not in the table.
var ErrUnknownOption = errors.New("unknown option")

// ErrBadValue is wrapped by errors for values of the wrong type or out of range.
var ErrBadValue = errors.New("bad option value")

func spin(name string, def, lo, hi int, help string, field func(*Options) *int) option {
	return spinCheck(name, def, lo, hi, help, field, nil)
}

// spinCheck is spin with an extra validity check inside [lo, hi].
func spinCheck(name string, def, lo, hi int, help string, field func(*Options) *int, ok func(int) error) option {
	return option{
		name: name, kind: kindSpin, def: strconv.Itoa(def), min: lo, max: hi, help: help,
		set: func(o *Options, v string) error {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("%w: %s: %s is not an integer", ErrBadValue, name, quote(v))
			}
			if n < lo || n > hi {
				return fmt.Errorf("%w: %s: %d is out of range %d..%d", ErrBadValue, name, n, lo, hi)
			}
			if ok != nil {
				if err := ok(n); err != nil {
					return fmt.Errorf("%w: %s: %v", ErrBadValue, name, err)
				}
			}
			*field(o) = n
			return nil
		},
		get: func(o *Options) string { return strconv.Itoa(*field(o)) },
	}
}

func check(name string, def bool, help string, field func(*Options) *bool) option {
	return option{
		name: name, kind: kindCheck, def: strconv.FormatBool(def), help: help,
		set: func(o *Options, v string) error {
			switch strings.ToLower(strings.TrimSpace(v)) {
			case "true":
				*field(o) = true
			case "false":
				*field(o) = false
			default:
				return fmt.Errorf("%w: %s: %s is neither true nor false", ErrBadValue, name, quote(v))
			}
			return nil
		},
		get: func(o *Options) string { return strconv.FormatBool(*field(o)) },
	}
}

func str(name, def, help string, set func(o *Options, v string) error, get func(o *Options) string) option {
	return option{name: name, kind: kindString, def: def, help: help, set: set, get: get}
}

// table declares every option once. The "option name ..." lines, setoption
// and DefaultOptions are all generated from it.
var table = []option{
	spin("UCI_Elo", 1500, MinElo, MaxElo, "the rating HumChess plays as", func(o *Options) *int { return &o.Elo }),
	check("UCI_LimitStrength", true, "accepted for GUIs; HumChess always plays at UCI_Elo", func(o *Options) *bool { return &o.LimitStrength }),
	str("UCI_Opponent", "", "`<title> <rating> <computer|human> <name>` (title GM IM FM CM NM WGM WIM WFM WCM WNM LM BOT or none; rating or none); its rating is the opponent's unless OpponentElo is set",
		func(o *Options, v string) error {
			p, err := ParseOpponent(v)
			if err != nil {
				return fmt.Errorf("%w: %v", ErrBadValue, err)
			}
			o.Opponent = p
			return nil
		},
		func(o *Options) string { return o.Opponent.String() }),
	spinCheck("OpponentElo", 0, 0, MaxElo, "the opponent's rating; 0 = UCI_Opponent's rating, else the same as UCI_Elo", func(o *Options) *int { return &o.OpponentElo },
		func(n int) error {
			if n != 0 && n < MinElo {
				return fmt.Errorf("%d is neither 0 nor in %d..%d", n, MinElo, MaxElo)
			}
			return nil
		}),
	spin("TimeControl", 0, 0, 10800, "base time in seconds; 0 = taken from the first clock the GUI sends in the game", func(o *Options) *int { return &o.TimeControl }),
	spin("Increment", 0, 0, 180, "increment in seconds, used with TimeControl when go sends no clocks", func(o *Options) *int { return &o.Increment }),
	spin("Temperature", 100, 0, 300, "percent: 100 = the learned distribution, 0 = always the most likely move", func(o *Options) *int { return &o.Temperature }),
	spin("TopP", 100, 1, 100, "percent: sample only among the most likely moves holding this much probability", func(o *Options) *int { return &o.TopP }),
	spin("Seed", 0, 0, 2147483647, "0 = random; any other value replays the same choices", func(o *Options) *int { return &o.Seed }),
	spin("MultiPV", 1, 1, 64, "candidate moves printed, with their probabilities", func(o *Options) *int { return &o.MultiPV }),
	check("UCI_ShowWDL", false, "print win/draw/loss permille with the score", func(o *Options) *bool { return &o.ShowWDL }),
	check("BlunderFilter", true, "resample a move that loses far more than the best candidate (needs a value head)", func(o *Options) *bool { return &o.BlunderFilter }),
	spin("BlunderThreshold", 100, 0, 500, "percent of the rating-scaled loss the filter tolerates (0.30 at 800 to 0.10 at 2400 expected score)", func(o *Options) *int { return &o.BlunderThreshold }),
	check("Calibration", true, "map UCI_Elo (and the opponent's rating) to the net's inputs, temperature, top-p and filter through the net's calibration, when it has one; off = UCI_Elo goes to the net as is", func(o *Options) *bool { return &o.Calibration }),
	check("HumanTiming", true, "take as long as a human of the rating would (never more than a safe share of the clock)", func(o *Options) *bool { return &o.HumanTiming }),
	spin("MoveOverhead", 100, 0, 5000, "milliseconds kept back for lag", func(o *Options) *int { return &o.MoveOverhead }),
	str("NetFile", "", "net to load: HumChess .onnx or Maia/Lc0 .pb.gz; empty = the embedded default",
		func(o *Options, v string) error {
			v = strings.TrimSpace(v)
			if v == "<empty>" {
				v = ""
			}
			o.NetFile = v
			return nil
		},
		func(o *Options) string { return o.NetFile }),
	spin("Threads", 1, 1, 256, "CPU threads for the net", func(o *Options) *int { return &o.Threads }),
	check("Ponder", false, "the GUI may let HumChess think on the opponent's time", func(o *Options) *bool { return &o.Ponder }),
}

// findOption returns the table row named name, case-insensitively.
func findOption(name string) (*option, bool) {
	for i := range table {
		if strings.EqualFold(table[i].name, name) {
			return &table[i], true
		}
	}
	return nil, false
}

// DefaultOptions returns every option at its declared default.
func DefaultOptions() Options {
	var o Options
	for _, opt := range table {
		if err := opt.set(&o, opt.def); err != nil {
			panic("uci: bad default in option table: " + err.Error()) // a programming error, caught by every test
		}
	}
	return o
}

// Set sets the option named name (case-insensitive) from its setoption value.
// On an error o is unchanged.
func (o *Options) Set(name, value string) error {
	opt, ok := findOption(name)
	if !ok {
		return fmt.Errorf("%w %s", ErrUnknownOption, quote(name))
	}
	c := *o
	if err := opt.set(&c, value); err != nil {
		return err
	}
	*o = c
	return nil
}

// Get returns the option's value in setoption form.
func (o *Options) Get(name string) (string, error) {
	opt, ok := findOption(name)
	if !ok {
		return "", fmt.Errorf("%w %s", ErrUnknownOption, quote(name))
	}
	return opt.get(o), nil
}

// OptionInfo describes one option, for documentation.
type OptionInfo struct {
	Name, Type, Default string
	Min, Max            int // spin range
	Help                string
}

// OptionTable lists every option in declaration order.
func OptionTable() []OptionInfo {
	out := make([]OptionInfo, len(table))
	for i, t := range table {
		out[i] = OptionInfo{Name: t.name, Type: t.kind, Default: t.def, Min: t.min, Max: t.max, Help: t.help}
	}
	return out
}
