package prep

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/humchess/humchess/train/data/games"
	"github.com/humchess/humchess/train/data/pgn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// header builds one game's PGN text from tag overrides over a default rated
// lichess blitz game between 1500 and 1900 players.
func header(over map[string]string) string {
	tags := map[string]string{
		"Event": "Rated Blitz game", "Site": "https://lichess.org/abcdefgh", "White": "a", "Black": "b",
		"Result": "1-0", "WhiteElo": "1500", "BlackElo": "1900", "TimeControl": "300+0", "Termination": "Normal",
	}
	order := []string{"Event", "Site", "White", "Black", "Result", "WhiteElo", "BlackElo", "TimeControl", "Termination"}
	for k, v := range over {
		if _, ok := tags[k]; !ok {
			order = append(order, k)
		}
		tags[k] = v
	}
	var b strings.Builder
	for _, k := range order {
		if v := tags[k]; v != "\x00" {
			fmt.Fprintf(&b, "[%s %q]\n", k, v)
		}
	}
	b.WriteString("\n1. e4 e5 2. Nf3 Nc6 1-0\n\n")
	return b.String()
}

func readHeaders(t *testing.T, text string) *pgn.Game {
	t.Helper()
	r := pgn.NewReader(strings.NewReader(text))
	g, err := r.NextHeaders()
	require.NoError(t, err, text)
	return g
}

func TestHeaderFilter(t *testing.T) {
	cfg := DefaultConfig()
	cfg.BalanceBand = 0 // balancing tested apart
	tests := []struct {
		name string
		over map[string]string
		cfg  func(*Config)
		want string
	}{
		{"default passes", nil, nil, ""},
		{"chess960", map[string]string{"Variant": "Chess960"}, nil, ReasonNotStandard},
		{"standard variant tag", map[string]string{"Variant": "Standard"}, nil, ""},
		{"from position", map[string]string{"FEN": "8/8/8/8/8/8/8/K6k w - - 0 1", "SetUp": "1"}, nil, ReasonNotStandard},
		{"casual lichess", map[string]string{"Event": "Casual Blitz game"}, nil, ReasonNotRated},
		{"casual allowed", map[string]string{"Event": "Casual Blitz game"}, func(c *Config) { c.RatedOnly = false }, ""},
		{"chess.com has no rated flag", map[string]string{"Event": "Live Chess", "Site": "Chess.com", "TimeControl": "600"}, nil, ""},
		{"white bot", map[string]string{"WhiteTitle": "BOT"}, nil, ReasonBot},
		{"black bot", map[string]string{"BlackTitle": "BOT"}, nil, ReasonBot},
		{"bots allowed", map[string]string{"BlackTitle": "BOT"}, func(c *Config) { c.AllowBots = true }, ""},
		{"titled human", map[string]string{"BlackTitle": "GM"}, nil, ""},
		{"unfinished", map[string]string{"Result": "*"}, nil, ReasonNoResult},
		{"abandoned", map[string]string{"Termination": "Abandoned"}, nil, ReasonTermination},
		{"chess.com abandoned", map[string]string{"Termination": "x won - game abandoned"}, nil, ReasonTermination},
		{"time forfeit kept", map[string]string{"Termination": "Time forfeit"}, nil, ""},
		{"bullet", map[string]string{"TimeControl": "60+0"}, nil, ReasonTimeClass + "bullet"},
		{"bullet allowed", map[string]string{"TimeControl": "60+0"}, func(c *Config) { c.TimeClasses = []string{"bullet"} }, ""},
		{"2+1 is bullet on lichess", map[string]string{"TimeControl": "120+1"}, nil, ReasonTimeClass + "bullet"},
		{"ultrabullet", map[string]string{"TimeControl": "15+0"}, nil, ReasonTimeClass + "ultrabullet"},
		{"classical", map[string]string{"TimeControl": "1800+20"}, nil, ""},
		{"correspondence", map[string]string{"TimeControl": "-"}, nil, ReasonTimeClass + "correspondence"},
		{"daily", map[string]string{"TimeControl": "1/86400"}, nil, ReasonTimeClass + "correspondence"},
		{"no time control", map[string]string{"TimeControl": "\x00"}, nil, ReasonTimeClass + "unknown"},
		{"no rating", map[string]string{"WhiteElo": "?"}, nil, ReasonNoRating},
		{"low rating", map[string]string{"BlackElo": "999"}, nil, ReasonLowRating},
		{"at min rating", map[string]string{"BlackElo": "1000"}, nil, ""},
		{"high rating", map[string]string{"BlackElo": "2601"}, func(c *Config) { c.MaxRating = 2600 }, ReasonHighRating},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := cfg
			if tc.cfg != nil {
				tc.cfg(&c)
			}
			require.NoError(t, (&Config{Inputs: []string{"x"}, Out: "y", TimeClasses: c.TimeClasses, ShardMB: 1, Compression: "zstd"}).Validate())
			g := readHeaders(t, header(tc.over))
			got := newFilter(&c).headerReason(g, games.ID(g))
			assert.Equal(t, tc.want, got, "tags %v", tc.over)
		})
	}
}

func TestBalancing(t *testing.T) {
	cfg := DefaultConfig()
	f := newFilter(&cfg)
	tests := []struct {
		white, black int
		want         float64
	}{
		{1510, 1590, 0.10}, // same band
		{1450, 1610, 0.50}, // adjacent bands
		{1610, 1450, 0.50},
		{1210, 1610, 1.00}, // two bands apart
	}
	const n = 8000
	for _, tc := range tests {
		var text strings.Builder
		for i := range n {
			text.WriteString(header(map[string]string{
				"Site": fmt.Sprintf("https://lichess.org/g%07d", i), "WhiteElo": fmt.Sprint(tc.white), "BlackElo": fmt.Sprint(tc.black)}))
		}
		r := pgn.NewReader(strings.NewReader(text.String()))
		kept := 0
		for range n {
			g, err := r.NextHeaders()
			require.NoError(t, err)
			if f.headerReason(g, games.ID(g)) == "" {
				kept++
			}
		}
		got := float64(kept) / n
		assert.InDelta(t, tc.want, got, 0.025, "%d vs %d: kept %.3f, want %.2f", tc.white, tc.black, got, tc.want)
	}
}

func TestPairCap(t *testing.T) {
	cfg := DefaultConfig()
	cfg.PairCap = 3
	f := newFilter(&cfg)
	var got []string
	for _, p := range [][2]int{{1500, 2000}, {2000, 1500}, {1510, 2090}, {1500, 2000}, {1000, 2000}} {
		got = append(got, f.capReason(p[0], p[1]))
	}
	assert.Equal(t, []string{"", "", "", ReasonPairCap, ""}, got)
}

// TestParts checks -part K/N: over N parts every training game is kept in
// exactly one part, every validation game in all of them, and the parts are
// about equal.
func TestParts(t *testing.T) {
	const n, parts = 6000, 3
	var text strings.Builder
	for i := range n {
		text.WriteString(header(map[string]string{"Site": fmt.Sprintf("https://lichess.org/p%07d", i)}))
	}
	hdrs := pgn.NewReader(strings.NewReader(text.String()))
	var gs []pgn.Game // copies: the reader reuses its Game
	for range n {
		g, err := hdrs.NextHeaders()
		require.NoError(t, err)
		gs = append(gs, *g)
	}
	base := DefaultConfig()
	kept := make([]int, n)
	perPart := make([]int, parts)
	for k := 1; k <= parts; k++ {
		c := base
		c.Part, c.Parts = k, parts
		f := newFilter(&c)
		for i := range gs {
			g := &gs[i]
			switch r := f.headerReason(g, games.ID(g)); r {
			case "":
				kept[i]++
				if !games.IsValidation(games.ID(g), c.ValFraction) {
					perPart[k-1]++
				}
			default:
				require.Equal(t, ReasonOtherPart, r)
			}
		}
	}
	val := 0
	for i := range gs {
		if games.IsValidation(games.ID(&gs[i]), base.ValFraction) {
			val++
			assert.Equal(t, parts, kept[i], "game %d: a validation game is in every part", i)
		} else {
			assert.Equal(t, 1, kept[i], "game %d: a training game is in one part", i)
		}
	}
	require.Greater(t, val, 0)
	for k, m := range perPart {
		assert.InDelta(t, float64(n-val)/parts, float64(m), 0.05*float64(n), "part %d", k+1)
	}

	// -part-validation: every game, validation or not, in exactly one part
	kept = make([]int, n)
	for k := 1; k <= parts; k++ {
		c := base
		c.Part, c.Parts, c.PartValidation = k, parts, true
		f := newFilter(&c)
		for i := range gs {
			if r := f.headerReason(&gs[i], games.ID(&gs[i])); r == "" {
				kept[i]++
			} else {
				require.Equal(t, ReasonOtherPart, r)
			}
		}
	}
	for i := range gs {
		assert.Equal(t, 1, kept[i], "game %d: in one part", i)
	}
}

func TestPartFlag(t *testing.T) {
	c := DefaultConfig()
	fs := flag.NewFlagSet("prep", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.RegisterFlags(fs)
	require.NoError(t, fs.Parse([]string{"-part", "2/3"}))
	assert.Equal(t, [2]int{2, 3}, [2]int{c.Part, c.Parts})
	for _, bad := range []string{"3", "0/3", "4/3", "a/b", "1/0", "-1/2"} {
		fs := flag.NewFlagSet("prep", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		x := DefaultConfig()
		x.RegisterFlags(fs)
		assert.Error(t, fs.Parse([]string{"-part", bad}), bad)
	}
}

func TestEarlyRate(t *testing.T) {
	cfg := DefaultConfig()
	assert.InDelta(t, 0.1, earlyRate(&cfg, 0), 1e-9)
	assert.InDelta(t, 0.1+0.9*7/15.0, earlyRate(&cfg, 7), 1e-9)
	assert.Equal(t, 1.0, earlyRate(&cfg, 15))
	assert.Equal(t, 1.0, earlyRate(&cfg, 100))
}

func TestConfig(t *testing.T) {
	c := DefaultConfig()
	c.Inputs = []string{"a.pgn"}
	require.NoError(t, c.Validate())
	bad := []func(*Config){
		func(c *Config) { c.Inputs = nil },
		func(c *Config) { c.TimeClasses = []string{"hyperbullet"} },
		func(c *Config) { c.SameBandKeep = 1.5 },
		func(c *Config) { c.ValFraction = 1 },
		func(c *Config) { c.Compression = "lz4" },
		func(c *Config) { c.MaxRating = 900 },
		func(c *Config) { c.MinClock = -1 },
		func(c *Config) { c.Part, c.Parts = 4, 3 },
		func(c *Config) { c.Part, c.Parts = 0, 3 },
		func(c *Config) { c.Part, c.Parts = 2, 0 },
		func(c *Config) { c.Parts = -1 },
	}
	for i, f := range bad {
		x := c
		f(&x)
		assert.ErrorIs(t, x.Validate(), ErrConfig, "case %d", i)
	}
}

func TestDefaultConfigFile(t *testing.T) {
	var c Config
	require.NoError(t, LoadConfigFile("../../../testdata/prep/config.json", &c))
	assert.Equal(t, DefaultConfig(), c, "regenerate testdata/prep/config.json (see testdata/prep/README.md)")
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"min_ratin": 5}`), 0o644))
	assert.ErrorIs(t, LoadConfigFile(bad, &c), ErrConfig, "unknown fields are refused")
	require.NoError(t, os.WriteFile(bad, []byte(`{"min_rating": 1500}`), 0o644))
	c = DefaultConfig()
	require.NoError(t, LoadConfigFile(bad, &c))
	assert.Equal(t, 1500, c.MinRating)
	assert.Equal(t, 30, c.MinPlies, "fields absent from the file keep their value")
}

// TestSourceKeep keeps a named input's training games at its rate, by game
// hash, every validation game, and every game of the inputs it does not name.
func TestSourceKeep(t *testing.T) {
	const n = 6000
	var text strings.Builder
	for i := range n {
		text.WriteString(header(map[string]string{"Site": fmt.Sprintf("https://lichess.org/s%07d", i)}))
	}
	hdrs := pgn.NewReader(strings.NewReader(text.String()))
	var gs []pgn.Game
	for range n {
		g, err := hdrs.NextHeaders()
		require.NoError(t, err)
		gs = append(gs, *g)
	}
	c := DefaultConfig()
	c.SourceKeep = map[string]float64{"archive": 0.3}
	keptBy := func(path string) []bool {
		f := newFilter(&c)
		f.setSource(path)
		kept := make([]bool, n)
		for i := range gs {
			switch r := f.headerReason(&gs[i], games.ID(&gs[i])); r {
			case "":
				kept[i] = true
			default:
				require.Equal(t, ReasonSourceKeep, r)
			}
		}
		return kept
	}
	archive := keptBy("data/archive.pgn.zst")
	var train, trainKept, val int
	for i := range gs {
		if games.IsValidation(games.ID(&gs[i]), c.ValFraction) {
			val++
			assert.True(t, archive[i], "game %d: validation games are always kept", i)
			continue
		}
		train++
		if archive[i] {
			trainKept++
		}
	}
	require.Greater(t, val, 0)
	assert.InDelta(t, 0.3, float64(trainKept)/float64(train), 0.03, "training games kept at the archive's rate")
	assert.Equal(t, archive, keptBy("other/archive.pgn"), "the same games whatever the folder and extension")
	for i, k := range keptBy("population.pgn.zst") {
		assert.True(t, k, "game %d: an input the option does not name keeps every game", i)
	}
}

func TestSourceKeepFlag(t *testing.T) {
	parse := func(v string) (*Config, error) {
		c := DefaultConfig()
		fs := flag.NewFlagSet("prep", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		c.RegisterFlags(fs)
		return &c, fs.Parse([]string{"-source-keep", v})
	}
	c, err := parse("chesscom-player-27k=0.25, lichess=1")
	require.NoError(t, err)
	assert.Equal(t, map[string]float64{"chesscom-player-27k": 0.25, "lichess": 1}, c.SourceKeep)
	assert.Equal(t, "chesscom-player-27k=0.25,lichess=1", sourceKeepFlag{c}.String())
	for _, bad := range []string{"a", "a=2", "a=-0.1", "=0.5", "a=x", "a=0.1,a=0.2", "a=NaN"} {
		_, err := parse(bad)
		assert.Error(t, err, bad)
	}

	// Validate: a name that is none of the inputs (a typo) is an error that lists them.
	c = &Config{}
	*c = DefaultConfig()
	c.Inputs = []string{"data/lichess-2022-06-2500.pgn.zst", "data/chesscom-player-27k.pgn.zst"}
	c.SourceKeep = map[string]float64{"chesscom-player-27": 0.5}
	err = c.Validate()
	require.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), "chesscom-player-27k, lichess-2022-06-2500")
	c.SourceKeep = map[string]float64{"chesscom-player-27k": 0.5}
	assert.NoError(t, c.Validate())
}
