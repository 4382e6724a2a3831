package selfplay

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/internal/testenv"
	"github.com/humchess/humchess/nets"
	"github.com/humchess/humchess/nets/load"
	"github.com/humchess/humchess/nets/ort"
	"github.com/humchess/humchess/train/data/games"
	"github.com/humchess/humchess/train/data/pgn"
	"github.com/humchess/humchess/train/data/prep"
)

// maiaBand is the Maia band of a rating, computed as eval.MaiaBand does:
// the band holding it, clamped to 1100..1900. With contiguous bands it is
// the band whose centre is nearest.
func maiaBand(r int) int { return min(max(r/100*100, 1100), 1900) }

func TestPickBand(t *testing.T) {
	var maia []Band
	for r := 1100; r <= 1900; r += 100 {
		maia = append(maia, Band{File: fmt.Sprintf("maia-%d.pb.gz", r), Rating: r})
	}
	sparse := []Band{{Rating: 1100}, {Rating: 1500}, {Rating: 1900}}
	tests := []struct {
		name   string
		bands  []Band
		rating int
		want   int // the band's rating
	}{
		{"below the first band", maia, 600, 1100},
		{"first band", maia, 1100, 1100},
		{"top of a band", maia, 1599, 1500},
		{"bottom of a band", maia, 1600, 1600},
		{"last band", maia, 1950, 1900},
		{"above the last band", maia, 2600, 1900},
		{"sparse, nearer the lower centre", sparse, 1349, 1100},
		{"sparse, halfway goes up", sparse, 1350, 1500},
		{"sparse, nearer the upper centre", sparse, 1351, 1500},
		{"single net", []Band{{File: "net.onnx"}}, 2500, 0},
	}
	for _, tc := range tests {
		got := tc.bands[PickBand(tc.bands, tc.rating)].Rating
		assert.Equal(t, tc.want, got, "%s: PickBand(%d)", tc.name, tc.rating)
	}
	for r := 0; r <= 3000; r += 7 {
		require.Equal(t, maiaBand(r), maia[PickBand(maia, r)].Rating, "rating %d", r)
	}
}

func TestBands(t *testing.T) {
	dir := bandDir(t, "maia-1900.pb.gz", "maia-1100.pb.gz", "my-1500.onnx", "README.md", "reference.jsonl")
	bs, err := Bands(dir)
	require.NoError(t, err)
	assert.Equal(t, []Band{
		{File: filepath.Join(dir, "maia-1100.pb.gz"), Rating: 1100},
		{File: filepath.Join(dir, "my-1500.onnx"), Rating: 1500},
		{File: filepath.Join(dir, "maia-1900.pb.gz"), Rating: 1900},
	}, bs)

	file := filepath.Join(dir, "maia-1100.pb.gz")
	bs, err = Bands(file)
	require.NoError(t, err)
	assert.Equal(t, []Band{{File: file}}, bs, "a file is one net for both sides")

	missing := filepath.Join(dir, "no-such-dir")
	_, err = Bands(missing)
	require.ErrorIs(t, err, ErrNets)
	assert.Contains(t, err.Error(), missing)

	_, err = Bands(bandDir(t, "README.md"))
	require.ErrorIs(t, err, ErrNets)
	assert.Contains(t, err.Error(), "holds no band nets")

	_, err = Bands(bandDir(t, "a-1500.pb.gz", "b-1500.onnx"))
	require.ErrorIs(t, err, ErrNets)
	assert.Contains(t, err.Error(), "two nets for band 1500")
}

func TestRatingsSet(t *testing.T) {
	good := map[string]Ratings{"1900-2600": {1900, 2600}, " 1500 - 1600 ": {1500, 1600}, "2000": {2000, 2000}, "1-4000": {1, 4000}}
	for in, want := range good {
		var r Ratings
		require.NoError(t, r.Set(in), in)
		assert.Equal(t, want, r, in)
	}
	for _, in := range []string{"", "abc", "2600-1900", "0-100", "1900-", "-1900", "1900-5000", "1900-2600-3000"} {
		var r Ratings
		assert.Error(t, r.Set(in), "ratings %q", in)
	}
	// The flag as the command line gives it.
	cfg := DefaultConfig()
	fs := flag.NewFlagSet("selfplay", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg.RegisterFlags(fs)
	require.NoError(t, fs.Parse([]string{"-ratings", "1500-1700"}))
	assert.Equal(t, Ratings{1500, 1700}, cfg.Ratings)
	assert.Error(t, fs.Parse([]string{"-ratings", "1700-1500"}))
}

func TestConfigValidate(t *testing.T) {
	o := &opener{}
	valid := func() Config {
		c := DefaultConfig()
		c.Net, c.Openings, c.OpenNet = "nets", []string{"games.pgn"}, o.open
		return c
	}
	c := valid()
	require.NoError(t, c.Validate())
	tests := []struct {
		name string
		edit func(c *Config)
	}{
		{"no net", func(c *Config) { c.Net = "" }},
		{"no openings", func(c *Config) { c.Openings = nil }},
		{"no output", func(c *Config) { c.Out = "" }},
		{"zero games", func(c *Config) { c.Games = 0 }},
		{"reversed ratings", func(c *Config) { c.Ratings = Ratings{2600, 1900} }},
		{"negative spread", func(c *Config) { c.RatingSpread = -1 }},
		{"negative temperature", func(c *Config) { c.Temperature = -1 }},
		{"max plies within the opening", func(c *Config) { c.MaxPlies = c.OpeningPlies }},
		{"win threshold", func(c *Config) { c.AdjudicateWin = 0.4 }},
		{"draw threshold", func(c *Config) { c.AdjudicateDraw = 1.5 }},
		{"untimed time control", func(c *Config) { c.TimeControl = "-" }},
		{"unknown time control", func(c *Config) { c.TimeControl = "?" }},
		{"zero workers", func(c *Config) { c.Workers = 0 }},
		{"zero batch", func(c *Config) { c.Batch = 0 }},
		{"no opener", func(c *Config) { c.OpenNet = nil }},
	}
	for _, tc := range tests {
		c := valid()
		tc.edit(&c)
		assert.ErrorIs(t, c.Validate(), ErrConfig, tc.name)
	}
}

// openingKey is the UCI moves of the first n SAN moves of a game, played
// from the initial position ("" when a move does not parse).
func openingKey(t *testing.T, sans []string, n int) string {
	t.Helper()
	g, err := board.NewGame("")
	require.NoError(t, err)
	var k []string
	for _, san := range sans[:n] {
		m, err := g.ParseSAN(san)
		if err != nil {
			return ""
		}
		require.NoError(t, g.PlayMove(m))
		k = append(k, m.String())
	}
	return strings.Join(k, " ")
}

// realOpenings is the set of the openings (first n plies, as UCI) of the
// games of the PGN at path, read here without LoadOpenings, and how many
// games of at least n plies each split has (games.IsValidation at 0.05).
func realOpenings(t *testing.T, path string, n int) (set map[string]bool, train, validation int) {
	rc, err := pgn.Open(path)
	require.NoError(t, err)
	defer rc.Close()
	rd := pgn.NewReader(rc)
	set = map[string]bool{}
	for {
		pg, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return set, train, validation
		}
		require.NoError(t, err)
		if len(pg.Moves) >= n {
			set[openingKey(t, pg.Moves, n)] = true
			if games.IsValidation(games.ID(pg), 0.05) {
				validation++
			} else {
				train++
			}
		}
	}
}

func TestLoadOpenings(t *testing.T) {
	ops, err := LoadOpenings([]string{sampleFile(t)}, 8, 0.05)
	require.NoError(t, err)
	real, train, validation := realOpenings(t, sampleFile(t), 8)
	require.Positive(t, validation)
	assert.LessOrEqual(t, len(ops), train, "the validation games give no opening")
	assert.Greater(t, len(ops), train-20, "nearly every training game gives one (a few end by ply 8)")
	all, err := LoadOpenings([]string{sampleFile(t)}, 8, 0)
	require.NoError(t, err)
	assert.Greater(t, len(all), len(ops)+validation-20, "without a validation split every game gives one")
	distinct := map[string]bool{}
	for _, o := range ops {
		require.Len(t, o.Moves, 8)
		var k []string
		for _, m := range o.Moves {
			k = append(k, m.String())
		}
		key := strings.Join(k, " ")
		require.True(t, real[key], "opening %s is no real game's", key)
		distinct[key] = true
	}
	assert.Greater(t, len(ops), 2000, "most of the 2,500 games give an opening")
	assert.Less(t, len(distinct), len(ops), "repeated openings are kept, with the real games' frequencies")

	zero, err := LoadOpenings([]string{sampleFile(t)}, 0, 0.05)
	require.NoError(t, err)
	assert.Empty(t, zero[0].Moves, "0 plies: the initial position")
}

// truncated writes the first half of the lichess sample.
func truncated(t *testing.T) string {
	data, err := os.ReadFile(sampleFile(t))
	require.NoError(t, err)
	return writeFile(t, "cut.pgn.zst", string(data[:len(data)/2]))
}

func TestLoadOpeningsErrors(t *testing.T) {
	short := writeFile(t, "short.pgn", "[Event \"x\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n")
	variant := writeFile(t, "variant.pgn", "[Event \"x\"]\n[Variant \"Chess960\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 *\n\n")
	tests := []struct {
		name  string
		path  string
		is    error  // wrapped besides ErrOpenings
		words string // in the message
	}{
		{"missing file", filepath.Join(t.TempDir(), "none.pgn.zst"), os.ErrNotExist, "none.pgn.zst"},
		{"truncated zstd", truncated(t), pgn.ErrCorrupt, "cut.pgn.zst"},
		{"no game long enough", short, nil, "no standard training game of at least 8 plies"},
		{"only a variant", variant, nil, "no standard training game"},
		{"not PGN", writeFile(t, "bin.pgn", "\x00\x01\x02\x03"), nil, "bin.pgn"},
	}
	for _, tc := range tests {
		_, err := LoadOpenings([]string{tc.path}, 8, 0.05)
		require.ErrorIs(t, err, ErrOpenings, tc.name)
		if tc.is != nil {
			assert.ErrorIs(t, err, tc.is, tc.name)
		}
		assert.Contains(t, err.Error(), tc.words, tc.name)
	}
}

// TestGames plays games with fake band nets over ratings crossing the
// bands' ends and checks each written game: legal moves from a real
// opening, ratings in range with Black within the spread, each side's net
// the one of its band (in the headers and in the positions each net was
// shown), the headers prep reads, and an end that matches the final
// position.
func TestGames(t *testing.T) {
	o := &opener{}
	cfg := testConfig(t, maiaDir(t), o)
	cfg.Ratings = Ratings{1000, 2000}
	cfg.Games = 23 // the last block is short
	cfg.Batch = 5
	cfg.MaxPlies = 60
	sum, err := Run(context.Background(), cfg, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, cfg.Games, sum.Games)

	data, err := os.ReadFile(cfg.Out)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "%clk", "self-play games carry no clocks")
	games := readGames(t, cfg.Out)
	require.Len(t, games, cfg.Games)
	real, _, _ := realOpenings(t, cfg.Openings[0], cfg.OpeningPlies)
	sites := map[string]bool{}
	var plies int64
	for i, g := range games {
		h := g.headers
		what := fmt.Sprintf("game %d (%s)", i+1, h["Site"])
		assert.Equal(t, Event, h["Event"], what)
		assert.Equal(t, fmt.Sprintf("humchess-selfplay/%d/%d", cfg.Seed, i+1), h["Site"], what)
		assert.False(t, sites[h["Site"]], "%s: Site repeated", what)
		sites[h["Site"]] = true
		assert.Equal(t, "600+0", h["TimeControl"], what)
		assert.NotContains(t, h, "FEN", what)
		assert.NotContains(t, h, "SetUp", what)
		assert.Equal(t, strconv.Itoa(len(g.moves)), h["PlyCount"], what)

		assert.True(t, real[openingKey(t, g.moves, cfg.OpeningPlies)], "%s: starts from no real game's opening", what)
		assert.GreaterOrEqual(t, g.white, cfg.Ratings.Lo, what)
		assert.LessOrEqual(t, g.white, cfg.Ratings.Hi, what)
		assert.GreaterOrEqual(t, g.black, cfg.Ratings.Lo, what)
		assert.LessOrEqual(t, g.black, cfg.Ratings.Hi, what)
		assert.LessOrEqual(t, abs(g.black-g.white), cfg.RatingSpread, "%s: White %d, Black %d", what, g.white, g.black)
		assert.Equal(t, fmt.Sprintf("maia-%d", maiaBand(g.white)), h["White"], "%s: White rated %d", what, g.white)
		assert.Equal(t, fmt.Sprintf("maia-%d", maiaBand(g.black)), h["Black"], "%s: Black rated %d", what, g.black)

		switch st := g.final.Status(); h["Termination"] {
		case TermNormal:
			require.NotEqual(t, board.Ongoing, st, what)
			want := Draw
			if st == board.Checkmate {
				want = winFor(1 - boolSide(g.final.WhiteToMove()))
			}
			assert.Equal(t, want, h["Result"], "%s: %s", what, st)
			assert.Contains(t, g.text, st.String(), what)
		case TermUnterminated:
			assert.Equal(t, board.Ongoing, st, what)
			assert.Equal(t, NoResult, h["Result"], what)
			assert.Len(t, g.moves, cfg.MaxPlies, what)
		default:
			t.Errorf("%s: Termination %q (neutral win/draw/loss never adjudicates)", what, h["Termination"])
		}
		plies += int64(len(g.moves))
	}
	assert.Equal(t, plies, sum.Plies+sum.OpeningPlies)
	assert.Equal(t, int64(cfg.Games*cfg.OpeningPlies), sum.OpeningPlies)

	// Each net is shown only positions whose mover is rated in its band,
	// with prep's Context: the ratings, the time control, no clocks.
	bandsSeen := map[string]bool{}
	for _, n := range o.nets {
		for _, s := range n.seen {
			mover := int(s.ctx.MoverRating)
			require.Equal(t, fmt.Sprintf("maia-%d", maiaBand(mover)), n.name, "mover rated %d", mover)
			require.Equal(t, board.Context{MoverRating: s.ctx.MoverRating, OppRating: s.ctx.OppRating,
				Base: 600, Inc: 0, MoverClock: -1, OppClock: -1}, s.ctx)
			require.LessOrEqual(t, abs(int(s.ctx.OppRating)-mover), cfg.RatingSpread)
			bandsSeen[n.name] = true
		}
	}
	assert.True(t, bandsSeen["maia-1100"] && bandsSeen["maia-1900"], "the clamped end bands play: %v", bandsSeen)
	assert.GreaterOrEqual(t, len(bandsSeen), 5, "bands that played: %v", bandsSeen)
}

func abs(x int) int { return max(x, -x) }

func boolSide(whiteToMove bool) int {
	if whiteToMove {
		return 0
	}
	return 1
}

// TestCheckmate: from 1. f3 e5 2. g4 a net that always plays Qh4 mates.
func TestCheckmate(t *testing.T) {
	o := &opener{setup: func(n *testNet) {
		n.Fake.Logits = func(_ nets.Input, moves []board.Move) []float32 {
			l := make([]float32, len(moves))
			for k, m := range moves {
				if m.String() == "d8h4" {
					l[k] = 50
				}
			}
			return l
		}
	}}
	net := writeFile(t, "mater.pb.gz", "")
	cfg := testConfig(t, net, o)
	cfg.Openings = []string{writeFile(t, "fool.pgn", "[Event \"x\"]\n[Result \"*\"]\n\n1. f3 e5 2. g4 a6 *\n\n")}
	cfg.OpeningPlies = 3
	cfg.Games = 3
	sum, err := Run(context.Background(), cfg, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"checkmate": 3}, sum.Ends)
	for _, g := range readGames(t, cfg.Out) {
		assert.Equal(t, []string{"f3", "e5", "g4", "Qh4#"}, g.moves)
		assert.Contains(t, g.text, "Qh4#")
		assert.Equal(t, BlackWins, g.headers["Result"])
		assert.Equal(t, TermNormal, g.headers["Termination"])
		assert.Equal(t, "mater", g.headers["White"])
		assert.Equal(t, "mater", g.headers["Black"], "one net file plays both sides")
		assert.Contains(t, g.text, "{ checkmate }")
	}
}

// TestAdjudication scripts the nets' win/draw/loss and checks each game's
// result, termination and length.
func TestAdjudication(t *testing.T) {
	const opening, maxPlies = 8, 40
	wdl := func(white, black []float32) func(*board.Game) []float32 {
		return func(g *board.Game) []float32 {
			if g.WhiteToMove() {
				return white
			}
			return black
		}
	}
	winning, losing := []float32{0.97, 0.02, 0.01}, []float32{0.01, 0.02, 0.97}
	drawish := []float32{0.03, 0.95, 0.02}
	tests := []struct {
		name        string
		wdl         func(*board.Game) []float32
		adjudicate  int // Config.AdjudicatePlies
		result      string
		termination string
		plies       int
	}{
		// The verdict of the 8th evaluated position ends the game before its move: 7 moves.
		{"White winning", wdl(winning, losing), 8, WhiteWins, TermAdjudication, opening + 7},
		{"Black winning", wdl(losing, winning), 8, BlackWins, TermAdjudication, opening + 7},
		{"draw", wdl(drawish, drawish), 8, Draw, TermAdjudication, opening + 7},
		{"shorter streak", wdl(winning, losing), 3, WhiteWins, TermAdjudication, opening + 2},
		{"each mover winning is no verdict", wdl(winning, winning), 8, NoResult, TermUnterminated, maxPlies},
		{"streak broken every 8th ply", func(g *board.Game) []float32 {
			if g.Ply()%8 == 0 {
				return neutral(g)
			}
			return wdl(winning, losing)(g)
		}, 8, NoResult, TermUnterminated, maxPlies},
		{"draw below threshold", wdl([]float32{0.05, 0.89, 0.06}, []float32{0.05, 0.89, 0.06}), 8, NoResult, TermUnterminated, maxPlies},
		{"adjudication off", wdl(winning, losing), 0, NoResult, TermUnterminated, maxPlies},
		{"no win/draw/loss head", func(*board.Game) []float32 { return nil }, 8, NoResult, TermUnterminated, maxPlies},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := &opener{setup: func(n *testNet) { n.wdl = tc.wdl }}
			cfg := testConfig(t, writeFile(t, "net.pb.gz", ""), o)
			cfg.Games, cfg.MaxPlies, cfg.AdjudicatePlies = 4, maxPlies, tc.adjudicate
			_, err := Run(context.Background(), cfg, io.Discard)
			require.NoError(t, err)
			games := readGames(t, cfg.Out)
			require.Len(t, games, cfg.Games)
			for i, g := range games {
				if g.final.Status() != board.Ongoing { // a random game may end by the rules first
					t.Logf("game %d ended by %s", i+1, g.final.Status())
					continue
				}
				assert.Equal(t, tc.result, g.headers["Result"], "game %d", i+1)
				assert.Equal(t, tc.termination, g.headers["Termination"], "game %d", i+1)
				assert.Len(t, g.moves, tc.plies, "game %d", i+1)
			}
		})
	}
}

// TestDeterministic: a seed gives the same file whatever the number of
// workers and games at once; another seed gives other games.
func TestDeterministic(t *testing.T) {
	dir := maiaDir(t)
	run := func(seed uint64, workers, batch int) []byte {
		o := &opener{}
		cfg := testConfig(t, dir, o)
		cfg.Ratings = Ratings{1100, 1900}
		cfg.Games, cfg.Seed, cfg.Workers, cfg.Batch = 10, seed, workers, batch
		_, err := Run(context.Background(), cfg, io.Discard)
		require.NoError(t, err)
		data, err := os.ReadFile(cfg.Out)
		require.NoError(t, err)
		return data
	}
	base := run(7, 1, 3)
	assert.Equal(t, string(base), string(run(7, 1, 3)), "same seed")
	assert.Equal(t, string(base), string(run(7, 3, 3)), "3 workers")
	assert.Equal(t, string(base), string(run(7, 2, 1)), "one game at a time")
	assert.NotEqual(t, string(base), string(run(8, 1, 3)), "another seed")
}

// verdictWDL adjudicates some games: from the game's opening a verdict
// (White wins, Black wins, draw, none) and the ply from which the nets give
// it.
func verdictWDL(g *board.Game) []float32 {
	moves := g.Moves()
	h := fnv.New32a()
	for _, m := range moves[:min(8, len(moves))] {
		h.Write([]byte(m.String()))
	}
	v := h.Sum32()
	if g.Ply() < 30+int(v/4%30) {
		return neutral(g)
	}
	white := []float32{0.97, 0.02, 0.01}
	switch v % 4 {
	case 0: // White wins
	case 1: // Black wins
		white = []float32{0.01, 0.02, 0.97}
	case 2:
		white = []float32{0.02, 0.96, 0.02}
	default:
		return neutral(g)
	}
	if g.WhiteToMove() {
		return white
	}
	return []float32{white[2], white[1], white[0]}
}

// TestPrepKeepsGames preps the self-play games with the command line the
// README gives (a fake teacher): every game with a result and 30 plies is
// replayed and its positions labelled; only the unfinished are skipped.
func TestPrepKeepsGames(t *testing.T) {
	o := &opener{setup: func(n *testNet) { n.wdl = verdictWDL }}
	cfg := testConfig(t, maiaDir(t), o) // the default ratings, 1900-2600
	cfg.Games, cfg.MaxPlies = 24, 100
	_, err := Run(context.Background(), cfg, io.Discard)
	require.NoError(t, err)
	var finished, unfinished, plies int64
	results := map[string]int{}
	for _, g := range readGames(t, cfg.Out) {
		results[g.headers["Result"]]++
		switch {
		case g.headers["Result"] == NoResult:
			unfinished++
		case len(g.moves) >= 30: // prep's -min-plies
			finished++
			plies += int64(len(g.moves))
		}
	}
	require.Positive(t, finished)
	t.Logf("results %v", results)

	out := t.TempDir()
	pc := prep.DefaultConfig()
	fs := flag.NewFlagSet("prep", flag.ContinueOnError)
	pc.RegisterFlags(fs)
	require.NoError(t, fs.Parse(strings.Fields("-min-rating 600 -same-band-keep 1 -adjacent-band-keep 1 "+
		"-time-classes bullet,blitz,rapid,classical -min-clock 0 -teacher fake-teacher.pb.gz -workers 1 -o "+out)))
	pc.Inputs = []string{cfg.Out}
	pc.Quiet, pc.Plots = true, false
	pc.OpenTeacher = func(string) (nets.Net, error) { return nets.NewFake(3), nil }
	sum, err := prep.Run(context.Background(), pc, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, int64(cfg.Games), sum.GamesSeen)
	assert.Equal(t, finished, sum.GamesDecoded, "skipped: %v", sum.Skipped)
	assert.Equal(t, plies, sum.PositionsSeen)
	assert.Equal(t, unfinished, sum.Skipped[prep.ReasonNoResult], "skipped: %v", sum.Skipped)
	for reason := range sum.Skipped {
		switch reason {
		case prep.ReasonNoResult, prep.ReasonFewPlies, prep.ReasonEarlyPly, prep.ReasonNoTargets:
		default:
			t.Errorf("prep skipped for %q (%d)", reason, sum.Skipped[reason])
		}
	}
	assert.Equal(t, sum.PositionsSeen-sum.Skipped[prep.ReasonEarlyPly]-sum.Skipped[prep.ReasonNoTargets], sum.PositionsKept)
	assert.Equal(t, sum.PositionsKept, sum.TeacherPositions, "every kept position labelled")
}

// leftovers lists the files of dir.
func leftovers(t *testing.T, dir string) []string {
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func TestRunErrors(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(t *testing.T, c *Config)
		is    error
		words string
	}{
		{"missing net directory", func(t *testing.T, c *Config) { c.Net = filepath.Join(t.TempDir(), "maia") }, ErrNets, "maia"},
		{"no nets in the directory", func(t *testing.T, c *Config) { c.Net = bandDir(t, "README.md") }, ErrNets, "holds no band nets"},
		{"bad ratings", func(t *testing.T, c *Config) { c.Ratings = Ratings{2600, 1900} }, ErrConfig, "ratings 2600-1900"},
		{"zero games", func(t *testing.T, c *Config) { c.Games = 0 }, ErrConfig, "games 0"},
		{"missing openings", func(t *testing.T, c *Config) { c.Openings = []string{filepath.Join(t.TempDir(), "x.pgn.zst")} }, os.ErrNotExist, "x.pgn.zst"},
		{"truncated openings", func(t *testing.T, c *Config) { c.Openings = []string{truncated(t)} }, pgn.ErrCorrupt, "cut.pgn.zst"},
		{"net fails to open", func(t *testing.T, c *Config) {
			c.OpenNet = func(f string) (nets.Net, error) { return nil, errors.New("bad weights") }
		}, ErrNets, "bad weights"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, maiaDir(t), &opener{})
			tc.edit(t, &cfg)
			_, err := Run(context.Background(), cfg, io.Discard)
			require.ErrorIs(t, err, tc.is)
			assert.Contains(t, err.Error(), tc.words)
			assert.Empty(t, leftovers(t, filepath.Dir(cfg.Out)), "files left")
		})
	}
}

func TestOutputExists(t *testing.T) {
	cfg := testConfig(t, maiaDir(t), &opener{})
	cfg.Games = 2
	require.NoError(t, os.WriteFile(cfg.Out, []byte("old"), 0o644))
	_, err := Run(context.Background(), cfg, io.Discard)
	require.ErrorIs(t, err, ErrExists)
	data, err := os.ReadFile(cfg.Out)
	require.NoError(t, err)
	assert.Equal(t, "old", string(data), "refused: the file is untouched")

	cfg.Force = true
	_, err = Run(context.Background(), cfg, io.Discard)
	require.NoError(t, err)
	assert.Len(t, readGames(t, cfg.Out), 2, "-force replaces it")
	assert.Equal(t, []string{"selfplay.pgn"}, leftovers(t, filepath.Dir(cfg.Out)))
	st, err := os.Stat(cfg.Out)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), st.Mode().Perm())
}

// TestFailedRunKeepsWholeGames: a net failing in the third block leaves the
// two blocks before it, whole games in index order, and no temporary file.
func TestFailedRunKeepsWholeGames(t *testing.T) {
	boom := errors.New("boom")
	o := &opener{setup: func(n *testNet) {
		// A block of 2 games from 8 to 20 plies evaluates 12 batches.
		n.Fake.Err, n.Fake.FailFrom = boom, 2*12+1
	}}
	cfg := testConfig(t, writeFile(t, "net.pb.gz", ""), o)
	cfg.Games, cfg.Batch, cfg.MaxPlies = 6, 2, 20
	sum, err := Run(context.Background(), cfg, io.Discard)
	require.ErrorIs(t, err, boom)
	assert.Contains(t, err.Error(), "first 4 games")
	assert.Equal(t, 4, sum.Games)
	games := readGames(t, cfg.Out)
	require.Len(t, games, 4)
	for i, g := range games {
		assert.Equal(t, Site(cfg.Seed, i), g.headers["Site"])
	}
	assert.Equal(t, []string{"selfplay.pgn"}, leftovers(t, filepath.Dir(cfg.Out)))
}

// TestInterrupted: a cancelled run before any game is written leaves no
// file.
func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	o := &opener{setup: func(n *testNet) {
		n.wdl = func(g *board.Game) []float32 { cancel(); return neutral(g) }
	}}
	cfg := testConfig(t, maiaDir(t), o)
	_, err := Run(ctx, cfg, io.Discard)
	require.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "interrupted")
	assert.Empty(t, leftovers(t, filepath.Dir(cfg.Out)))
}

// TestRealMaia plays two short games with the repository's maia-1100 and
// maia-1900 (a band directory with other files in it): legal games, each
// side's net the one whose band centre is nearest its rating, and the same
// games one at a time as two at once.
func TestRealMaia(t *testing.T) {
	if testing.Short() {
		t.Skip("loads two real nets (-short)")
	}
	if _, err := ort.Resolve(""); err != nil {
		testenv.Missing(t, "ONNX Runtime not available (run `make onnxruntime` or set ONNXRUNTIME_SHARED_LIBRARY_PATH): %v", err)
	}
	dir, err := filepath.Abs("../../../testdata/lc0")
	require.NoError(t, err)
	run := func(batch int) (*Summary, []byte) {
		cfg := testConfig(t, dir, &opener{})
		cfg.OpenNet = func(f string) (nets.Net, error) { return load.Open(f, load.Options{Threads: 1}) }
		cfg.Ratings = Ratings{1300, 1800}
		cfg.RatingSpread = 300
		cfg.Games, cfg.Batch, cfg.MaxPlies = 2, batch, 30
		sum, err := Run(context.Background(), cfg, io.Discard)
		require.NoError(t, err)
		data, err := os.ReadFile(cfg.Out)
		require.NoError(t, err)
		games := readGames(t, cfg.Out)
		require.Len(t, games, 2)
		for _, g := range games {
			for side, r := range map[string]int{"White": g.white, "Black": g.black} {
				want := "maia-1900"
				if r < 1550 { // halfway between the centres 1150 and 1950
					want = "maia-1100"
				}
				assert.Equal(t, want, g.headers[side], "%s rated %d", side, r)
			}
		}
		return sum, data
	}
	sum, one := run(1)
	assert.Equal(t, []string{"maia-1100", "maia-1900"}, sum.Nets)
	_, two := run(2)
	assert.Equal(t, string(one), string(two), "batching does not change the games")
}
