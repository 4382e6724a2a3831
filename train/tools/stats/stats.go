package stats

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/train/data/games"
	"github.com/humchess/humchess/train/data/pgn"
	"github.com/humchess/humchess/train/tools/internal/format"
	"github.com/humchess/humchess/train/tools/internal/profile"
	"github.com/humchess/humchess/uci/client"

	"github.com/humchess/humchess/score"
)

// Blunder sources (Config.Blunders).
const (
	BlundersAuto      = "auto"      // %eval comments when a game has them, else Stockfish when configured
	BlundersEvals     = "evals"     // %eval comments only
	BlundersStockfish = "stockfish" // always the engine
	BlundersOff       = "off"
)

// Config configures Stats.
type Config struct {
	MaxGames int64 // per set; 0 = all
	// Blunders chooses where evaluations come from (Blunders* constants; "" = auto).
	Blunders string
	// BlunderLoss is the loss of expected score (0..1, mover's view) from
	// which a move is a blunder; 0 means 0.15.
	BlunderLoss float64
	// Engine evaluates positions for blunders (Path "" = no engine); Limits
	// is its search, e.g. Nodes 20000.
	Engine       client.Config
	EngineLimits client.Limits
	// EngineGames caps the games analysed by the engine per set (it is
	// slow); 0 means 200.
	EngineGames int64
	Workers     int // engine processes; 0 means 2
	// Player, when set, restricts the set to the games this player (the
	// White or Black tag, compared case-insensitively) played, and the
	// per-move statistics (think times, blunders) to this player's moves;
	// game length and variety stay per game. "" = every game and move.
	Player string
}

// Set are the statistics of one set of games.
type Set struct {
	Name   string
	Player string // the player the per-move statistics are restricted to; "" = both sides
	Games  int64
	// Score is the player's wins, draws and losses (only with a Player;
	// games with another result tag are not counted).
	Score      [3]int64
	Think      map[games.TimeClass]*Quantiles // seconds per move, by time class
	Blunders   map[int]*[2]int64              // mover rating band (board.RatingBand) -> {moves judged, blunders}
	BlunderSrc map[string]int64               // games judged by source ("evals", "stockfish")
	// Profile is the error profile (profile.Judge: blunders and centipawn
	// loss by 200-point band and time class) of the Stockfish-judged moves
	// only, so that sets judged with the same engine limits compare.
	Profile profile.Profile
	Lengths Quantiles        // plies per game
	Variety map[int]*Variety // by ply (10, 20)
}

// Variety counts distinct move sequences at a ply.
type Variety struct {
	Games    int64 // games that reached the ply
	Distinct int64 // distinct sequences of the first ply moves among them
	seen     map[string]bool
}

// Fraction is Distinct/Games.
func (v *Variety) Fraction() float64 { return format.Ratio(float64(v.Distinct), v.Games) }

// Quantiles collects values and answers quantile queries (exact: it keeps
// every value; a few million values at most in practice).
type Quantiles struct {
	v      []float64
	sorted bool
}

// Add adds a value.
func (q *Quantiles) Add(x float64) { q.v = append(q.v, x); q.sorted = false }

// N is the number of values.
func (q *Quantiles) N() int { return len(q.v) }

// Quantile returns the p-quantile (0..1) by linear interpolation; NaN when empty.
func (q *Quantiles) Quantile(p float64) float64 {
	if len(q.v) == 0 {
		return math.NaN()
	}
	if !q.sorted {
		sort.Float64s(q.v)
		q.sorted = true
	}
	pos := p * float64(len(q.v)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(q.v)-1)
	return q.v[lo] + (pos-float64(lo))*(q.v[hi]-q.v[lo])
}

// Mean is the mean; NaN when empty.
func (q *Quantiles) Mean() float64 {
	s := 0.0
	for _, x := range q.v {
		s += x
	}
	return format.Ratio(s, int64(len(q.v)))
}

var varietyPlies = []int{10, 20}

// Run computes the statistics of one set of games (PGN files).
func Run(ctx context.Context, name string, inputs []string, cfg Config) (*Set, error) {
	if cfg.Blunders == "" {
		cfg.Blunders = BlundersAuto
	}
	switch cfg.Blunders {
	case BlundersAuto, BlundersEvals, BlundersStockfish, BlundersOff:
	default:
		return nil, fmt.Errorf("%w: blunders %q (want auto, evals, stockfish or off)", ErrConfig, cfg.Blunders)
	}
	if cfg.Blunders == BlundersStockfish && cfg.Engine.Path == "" {
		return nil, fmt.Errorf("%w: blunders from stockfish need an engine", ErrConfig)
	}
	if cfg.BlunderLoss <= 0 {
		cfg.BlunderLoss = 0.15
	}
	if cfg.EngineGames <= 0 {
		cfg.EngineGames = 200
	}
	s := &Set{Name: name, Player: cfg.Player, Think: map[games.TimeClass]*Quantiles{}, Blunders: map[int]*[2]int64{},
		BlunderSrc: map[string]int64{}, Profile: profile.Profile{}, Variety: map[int]*Variety{}}
	for _, p := range varietyPlies {
		s.Variety[p] = &Variety{seen: map[string]bool{}}
	}
	an := profile.NewAnalyser(ctx, cfg.Engine, cfg.EngineLimits, cfg.Workers)
	var engineGames int64
	var sides []int // the judged sides of each game submitted to the analyser, by tag
	err := readGames(inputs, func(g *pgn.Game) bool {
		if cfg.MaxGames > 0 && s.Games >= cfg.MaxGames {
			return false
		}
		if !standardRules(g) {
			return true
		}
		side := playerSide(g, cfg.Player)
		if side == sideNone {
			return true
		}
		s.Games++
		s.addGame(g, side)
		s.addResult(g, side)
		useEvals := cfg.Blunders != BlundersStockfish && hasEvals(g)
		switch {
		case cfg.Blunders == BlundersOff:
		case useEvals:
			s.BlunderSrc["evals"]++
			s.addBlunders(g, side, evalsFromPGN(g), cfg.BlunderLoss)
		case cfg.Blunders != BlundersEvals && cfg.Engine.Path != "" && engineGames < cfg.EngineGames:
			engineGames++
			s.BlunderSrc["stockfish"]++
			an.Submit(g.Clone(), len(sides))
			sides = append(sides, side)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	res, err := an.Wait()
	if err != nil {
		return nil, fmt.Errorf("eval: blunder engine: %w", err)
	}
	for _, r := range res {
		s.addBlunders(r.Game, sides[r.Tag], r.Evals, cfg.BlunderLoss)
		s.addProfile(r.Game, sides[r.Tag], r.Evals)
	}
	return s, nil
}

// standardRules reports whether g is played under the standard rules, from
// the initial position or a FEN (a match's openings): Standard, or a FEN
// with no variant or lichess's "From Position".
func standardRules(g *pgn.Game) bool {
	return g.Standard() || (g.FEN != "" && (g.Variant == "" || strings.EqualFold(g.Variant, "Standard") ||
		strings.EqualFold(g.Variant, "chess") || strings.EqualFold(g.Variant, "From Position")))
}

// readGames calls f with each game of the PGN files inputs, in order,
// until f returns false. g is valid only during the call.
func readGames(inputs []string, f func(g *pgn.Game) bool) error {
	for _, path := range inputs {
		rc, err := pgn.Open(path)
		if err != nil {
			return fmt.Errorf("stats: %w", err)
		}
		r := pgn.NewReader(rc)
		for {
			g, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				_ = rc.Close() // the read error is the one to report
				return fmt.Errorf("stats: %s: %w", path, err)
			}
			if !f(g) {
				break
			}
		}
		if err := rc.Close(); err != nil {
			return fmt.Errorf("stats: %s: %w", path, err)
		}
	}
	return nil
}

// Sides whose moves count (playerSide).
const (
	sideNone  = 0 // the player is not in the game: skip it
	sideWhite = 1
	sideBlack = 2
	sideBoth  = sideWhite | sideBlack
)

// playerSide says which of g's sides are player's: both when player is "",
// none when neither tag names the player.
func playerSide(g *pgn.Game, player string) int {
	player = strings.TrimSpace(player)
	if player == "" {
		return sideBoth
	}
	side := sideNone
	if strings.EqualFold(strings.TrimSpace(g.White), player) {
		side |= sideWhite
	}
	if strings.EqualFold(strings.TrimSpace(g.Black), player) {
		side |= sideBlack
	}
	return side
}

// counts reports whether move i (0 = the game's first) is played by a side
// in sides. A game from a FEN with Black to move starts with Black's move.
func counts(g *pgn.Game, i int, sides int) bool {
	white := i%2 == 0
	if blackStarts(g) {
		white = !white
	}
	if white {
		return sides&sideWhite != 0
	}
	return sides&sideBlack != 0
}

// blackStarts reports whether g starts from a FEN with Black to move.
func blackStarts(g *pgn.Game) bool {
	f := strings.Fields(g.FEN)
	return len(f) > 1 && f[1] == "b"
}

// addResult adds the player's result (sides is one colour when a player is
// set; a game against oneself, or no player, is not scored).
func (s *Set) addResult(g *pgn.Game, sides int) {
	if s.Player == "" || sides == sideBoth {
		return
	}
	switch {
	case g.Result == "1/2-1/2":
		s.Score[1]++
	case g.Result == "1-0" && sides == sideWhite, g.Result == "0-1" && sides == sideBlack:
		s.Score[0]++
	case g.Result == "1-0" || g.Result == "0-1":
		s.Score[2]++
	}
}

// addGame adds think times (of the moves of sides), length and variety.
func (s *Set) addGame(g *pgn.Game, sides int) {
	s.Lengths.Add(float64(len(g.Moves)))
	for _, p := range varietyPlies {
		if g.FEN != "" {
			break // sequences from different positions are not comparable
		}
		if len(g.Moves) >= p {
			v := s.Variety[p]
			v.Games++
			k := strings.Join(g.Moves[:p], " ")
			if !v.seen[k] {
				v.seen[k] = true
				v.Distinct++
			}
		}
	}
	rec := games.RecordOf(g)
	clocks := rec.HasClocks()
	if (!clocks && !hasSpent(g)) || !g.TimeControl.Known() {
		return
	}
	class := games.ClassOf(g.TimeControl)
	q := s.Think[class]
	if q == nil {
		q = &Quantiles{}
		s.Think[class] = q
	}
	for i := range g.Moves {
		if !counts(g, i, sides) {
			continue
		}
		// An engine-match program's own record of the think time is exact;
		// else the time is read from the clocks ([%clk], or fastchess tl=).
		spent := -1.0
		switch {
		case i < len(g.Spent) && g.Spent[i] >= 0:
			spent = g.Spent[i]
		case clocks:
			spent = board.ThinkSpent(rec.ClockAfter(i-2), rec.ClockAfter(i), rec.Inc)
		}
		if spent >= 0 {
			q.Add(spent)
		}
	}
}

// hasSpent reports whether g records a think time for at least one move
// (cutechess-cli and fastchess comments).
func hasSpent(g *pgn.Game) bool {
	for _, t := range g.Spent {
		if t >= 0 {
			return true
		}
	}
	return false
}

func hasEvals(g *pgn.Game) bool {
	for _, e := range g.Evals {
		if !math.IsNaN(e) {
			return true
		}
	}
	return false
}

// evalsFromPGN returns White's evaluation in centipawns of every position
// 0..len(Moves) (position i is before move i); NaN where unknown. The start
// position gets +20 when the game starts from it.
func evalsFromPGN(g *pgn.Game) []float64 {
	ev := make([]float64, len(g.Moves)+1)
	ev[0] = math.NaN()
	if g.FEN == "" {
		ev[0] = 20
	}
	for i := range g.Moves {
		ev[i+1] = math.NaN()
		if i < len(g.Evals) {
			ev[i+1] = 100 * g.Evals[i]
		}
	}
	return ev
}

// addBlunders judges every move of sides whose before and after evaluations
// are known. evals are White's centipawns per position (len(Moves)+1).
func (s *Set) addBlunders(g *pgn.Game, sides int, evals []float64, loss float64) {
	for i := range g.Moves {
		if !counts(g, i, sides) || i+1 >= len(evals) || math.IsNaN(evals[i]) || math.IsNaN(evals[i+1]) {
			continue
		}
		rating := g.WhiteElo
		before, after := evals[i], evals[i+1]
		if counts(g, i, sideBlack) {
			rating = g.BlackElo
			before, after = -before, -after
		}
		band := board.RatingBand(rating)
		c := s.Blunders[band]
		if c == nil {
			c = &[2]int64{}
			s.Blunders[band] = c
		}
		c[0]++
		if score.Expected(before)-score.Expected(after) >= loss {
			c[1]++
		}
	}
}

// addProfile counts the moves of sides in the error profile, by the
// game's time class.
func (s *Set) addProfile(g *pgn.Game, sides int, evals []float64) {
	class := games.ClassOf(g.TimeControl)
	var ms []profile.Move
	for _, m := range profile.Judge(g, evals) {
		if counts(g, m.Ply, sides) {
			ms = append(ms, m)
		}
	}
	s.Profile.AddGame(class, ms)
}

// WriteText prints the sets side by side: the player and the player's
// W-D-L when a set has a player, think time by time class (median and 90th
// percentile, seconds, with move counts), blunder rate by mover rating band
// (with move counts), game length and variety.
func WriteText(w io.Writer, sets []*Set) error {
	var b strings.Builder
	col := func(s string) { fmt.Fprintf(&b, " | %-24s", s) }
	header := func(title string) {
		fmt.Fprintf(&b, "\n%-20s", title)
		for _, s := range sets {
			col(format.Trunc(s.Name, 24))
		}
		b.WriteString("\n")
	}
	header("games")
	fmt.Fprintf(&b, "%-20s", "")
	for _, s := range sets {
		col(fmt.Sprint(s.Games))
	}
	b.WriteString("\n")
	players := false
	for _, s := range sets {
		players = players || s.Player != ""
	}
	if players {
		fmt.Fprintf(&b, "%-20s", "player")
		for _, s := range sets {
			col(format.Trunc(s.Player, 24))
		}
		b.WriteString("\n")
		fmt.Fprintf(&b, "%-20s", "player W-D-L")
		for _, s := range sets {
			if s.Player == "" {
				col("-")
				continue
			}
			col(fmt.Sprintf("%d-%d-%d", s.Score[0], s.Score[1], s.Score[2]))
		}
		b.WriteString("\n")
	}

	header("think time (s)")
	classes := map[games.TimeClass]bool{}
	for _, s := range sets {
		for c := range s.Think {
			classes[c] = true
		}
	}
	var cl []games.TimeClass
	for c := range classes {
		cl = append(cl, c)
	}
	sort.Slice(cl, func(i, j int) bool { return cl[i] < cl[j] })
	for _, c := range cl {
		fmt.Fprintf(&b, "%-20s", c.String()+" med/p90")
		for _, s := range sets {
			if q := s.Think[c]; q != nil && q.N() > 0 {
				col(fmt.Sprintf("%.1f / %.1f (n=%d)", q.Quantile(0.5), q.Quantile(0.9), q.N()))
			} else {
				col("-")
			}
		}
		b.WriteString("\n")
	}

	header("blunder rate %")
	bands := map[int]bool{}
	for _, s := range sets {
		for k := range s.Blunders {
			bands[k] = true
		}
	}
	var bl []int
	for k := range bands {
		bl = append(bl, k)
	}
	sort.Ints(bl)
	for _, k := range bl {
		fmt.Fprintf(&b, "%-20s", board.RatingBandName(k))
		for _, s := range sets {
			if c := s.Blunders[k]; c != nil && c[0] > 0 {
				col(fmt.Sprintf("%.2f (n=%d)", 100*float64(c[1])/float64(c[0]), c[0]))
			} else {
				col("-")
			}
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%-20s", "all bands")
	for _, s := range sets {
		var n, k int64
		for _, c := range s.Blunders {
			n, k = n+c[0], k+c[1]
		}
		if n > 0 {
			col(fmt.Sprintf("%.2f (%d/%d)", 100*float64(k)/float64(n), k, n))
		} else {
			col("-")
		}
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "%-20s", "judged games")
	for _, s := range sets {
		var parts []string
		for _, k := range []string{"evals", "stockfish"} {
			if s.BlunderSrc[k] > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", k, s.BlunderSrc[k]))
			}
		}
		col(strings.Join(parts, ", "))
	}
	b.WriteString("\n")

	var cols []profile.Column
	for _, s := range sets {
		if len(s.Profile) > 0 {
			cols = append(cols, profile.Column{Name: s.Name, Profile: s.Profile})
		}
	}
	if len(cols) > 0 {
		fmt.Fprintf(&b, "\nerror profile (Stockfish-judged moves; band = mover rating ±%d; blunder: expected score loss >= %.2f; cpl capped at ±%d cp)\n",
			profile.BandWidth/2, profile.BlunderLoss, profile.CPCap)
		if err := profile.WriteTable(&b, cols, 1); err != nil {
			return err
		}
	}

	header("game length")
	for _, row := range []struct {
		name string
		f    func(q *Quantiles) float64
	}{{"mean plies", (*Quantiles).Mean}, {"median plies", func(q *Quantiles) float64 { return q.Quantile(0.5) }}} {
		fmt.Fprintf(&b, "%-20s", row.name)
		for _, s := range sets {
			col(format.Num(row.f(&s.Lengths), 1))
		}
		b.WriteString("\n")
	}
	header("variety")
	for _, p := range varietyPlies {
		fmt.Fprintf(&b, "%-20s", fmt.Sprintf("distinct @%d %%", p))
		for _, s := range sets {
			v := s.Variety[p]
			col(fmt.Sprintf("%s (%d/%d)", format.Pct(v.Fraction()), v.Distinct, v.Games))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
