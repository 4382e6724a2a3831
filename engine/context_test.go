package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/nets"
	"github.com/humchess/humchess/train/data/pgn"
	"github.com/humchess/humchess/train/data/prep"
	"github.com/humchess/humchess/train/data/shard"
	"github.com/humchess/humchess/train/tools/eval"
	"github.com/humchess/humchess/uci"
)

const lichessSample = "../testdata/games/lichess-2022-06-2500.pgn.zst"

// recordingNet is the Fake net remembering the encoding of the first
// position of every Evaluate call: the root of each go.
type recordingNet struct {
	*nets.Fake
	mu    sync.Mutex
	roots []board.Encoded
	sizes []int // positions in each call
}

func (r *recordingNet) Evaluate(ctx context.Context, in []nets.Input) ([]nets.Output, error) {
	r.mu.Lock()
	if len(in) > 0 {
		r.roots = append(r.roots, board.Encode(in[0].Game, in[0].Ctx))
	}
	r.sizes = append(r.sizes, len(in))
	r.mu.Unlock()
	return r.Fake.Evaluate(ctx, in)
}

// calls returns the number of Evaluate calls so far.
func (r *recordingNet) calls() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.sizes)
}

// call returns the root and the batch size of call i.
func (r *recordingNet) call(i int) (board.Encoded, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.roots[i], r.sizes[i]
}

// contextGame is one real game the context test replays, and how.
type contextGame struct {
	kind string
	game *pgn.Game
	// keepClock says which [%clk] comments the replayed record keeps.
	keepClock func(move int) bool
}

// Kinds of replayed games.
const (
	kindIncrement = "clocks and increment"
	kindNoInc     = "clocks, no increment"
	kindNoClocks  = "no clocks (comments removed)"
	kindGaps      = "clocks with gaps"
	kindOdd       = "base 0 or no time control"
)

// contextGames picks games of the lichess sample for the context test:
// decided standard games whose two ratings UCI_Elo can carry, per kind.
func contextGames(t *testing.T, perKind int) []contextGame {
	t.Helper()
	f, err := pgn.Open(lichessSample)
	require.NoError(t, err)
	defer f.Close()
	r := pgn.NewReader(f)
	count := map[string]int{}
	var out []contextGame
	all := func(int) bool { return true }
	maxBase, maxInc := optionMax(t, "TimeControl"), optionMax(t, "Increment")
	for n := 0; ; n++ {
		g, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		inRange := func(r int) bool { return r >= uci.MinElo && r <= uci.MaxElo }
		if g.Result == "*" || !g.Standard() || len(g.Moves) == 0 || !inRange(g.WhiteElo) || !inRange(g.BlackElo) {
			continue
		}
		tc := g.TimeControl
		hasClocks := slicesAny(g.Clocks, func(c float64) bool { return c >= 0 })
		var kind string
		keep := all
		switch {
		case !tc.Known() || tc.Base == 0:
			kind = kindOdd
		case !hasClocks || tc.Base > maxBase || tc.Increment > maxInc || tc.Base != math.Trunc(tc.Base) || tc.Increment != math.Trunc(tc.Increment):
			continue // beyond what TimeControl and Increment can say
		case n%4 == 0:
			// The time control told through the options, no clocks in go.
			kind, keep = kindNoClocks, func(int) bool { return false }
		case n%4 == 1:
			// Moves without a clock: go gives one clock, or none.
			kind, keep = kindGaps, func(k int) bool { return k%9 != 4 && k%9 != 5 }
		case tc.Increment > 0:
			kind = kindIncrement
		default:
			kind = kindNoInc
		}
		if count[kind] >= perKind {
			continue
		}
		count[kind]++
		out = append(out, contextGame{kind: kind, game: g.Clone(), keepClock: keep})
	}
	for _, k := range []string{kindIncrement, kindNoInc, kindNoClocks, kindGaps, kindOdd} {
		require.NotZero(t, count[k], "no game of kind %q in %s", k, lichessSample)
	}
	return out
}

// optionMax returns the largest value of the UCI spin option name.
func optionMax(t *testing.T, name string) float64 {
	t.Helper()
	for _, o := range uci.OptionTable() {
		if o.Name == name {
			return float64(o.Max)
		}
	}
	t.Fatalf("no UCI option %s", name)
	return 0
}

func slicesAny(v []float64, f func(float64) bool) bool {
	for _, x := range v {
		if f(x) {
			return true
		}
	}
	return false
}

// pgnText writes g back as PGN with the clock comments keep keeps.
func pgnText(g *pgn.Game, keep func(int) bool) string {
	var b strings.Builder
	for _, h := range g.Headers {
		v := strings.ReplaceAll(strings.ReplaceAll(h.Value, `\`, `\\`), `"`, `\"`)
		fmt.Fprintf(&b, "[%s \"%s\"]\n", h.Name, v)
	}
	b.WriteString("\n")
	for k, san := range g.Moves {
		if k%2 == 0 {
			fmt.Fprintf(&b, "%d. ", k/2+1)
		}
		b.WriteString(san + " ")
		if c := g.Clocks[k]; c >= 0 && keep(k) {
			s := strconv.FormatFloat(math.Mod(c, 60), 'f', -1, 64)
			if math.Mod(c, 60) < 10 {
				s = "0" + s
			}
			fmt.Fprintf(&b, "{ [%%clk %d:%02d:%s] } ", int(c)/3600, int(c)/60%60, s)
		}
	}
	b.WriteString(g.Result + "\n\n")
	return b.String()
}

// guiClocks follows a replayed game's clocks as a GUI showing them would:
// a side's clock is the one shown after its last move, the base time before
// its first; a move shown without a clock leaves its side's clock unknown
// (-1); a game with no clock at all has none.
type guiClocks struct {
	clock [2]float64 // White, Black; seconds
}

func newGUIClocks(g *pgn.Game) guiClocks {
	if !slicesAny(g.Clocks, func(c float64) bool { return c >= 0 }) {
		return guiClocks{clock: [2]float64{-1, -1}}
	}
	return guiClocks{clock: [2]float64{g.TimeControl.Base, g.TimeControl.Base}}
}

// played records the clock shown after a move by White (side 0) or Black.
func (c *guiClocks) played(side int, shown float64) { c.clock[side] = shown }

// goLine is the go command with the clocks known; winc and binc are sent
// with clocks when the increment is not 0.
func (c *guiClocks) goLine(inc float64) string {
	line := "go"
	for i, name := range []string{"wtime", "btime"} {
		if c.clock[i] >= 0 {
			line += fmt.Sprintf(" %s %d", name, int64(math.Round(c.clock[i]*1000)))
		}
	}
	if line != "go" && inc > 0 {
		ms := int64(math.Round(inc * 1000))
		line += fmt.Sprintf(" winc %d binc %d", ms, ms)
	}
	return line
}

// TestEngineContextMatchesPrep replays real lichess games (with clocks and
// increments, with clocks and no increment, without clocks, with some
// clocks missing, with a base of 0 or no time control) three ways, and
// requires the net's input to be identical position by position:
//   - through the engine over UCI, as a GUI replaying them would
//     (ucinewgame; TimeControl and Increment, or 0 to infer them from the
//     clocks; UCI_Elo for the mover and OpponentElo; position startpos moves
//     ...; go wtime btime winc binc from the clocks shown), capturing what
//     the engine hands the net with a recording Fake net;
//   - through train/data/prep (prep.Run writing shards, read back);
//   - through train/tools/eval's Positions.
//
// Equal board.Encoded values give equal tensors; Contract.Fill's tensors
// are compared too.
func TestEngineContextMatchesPrep(t *testing.T) {
	perKind := 8
	if testing.Short() {
		perKind = 3
	}
	games := contextGames(t, perKind)
	dir := t.TempDir()
	var text strings.Builder
	for _, cg := range games {
		text.WriteString(pgnText(cg.game, cg.keepClock))
	}
	in := filepath.Join(dir, "games.pgn")
	require.NoError(t, os.WriteFile(in, []byte(text.String()), 0o644))

	// prep, keeping every position of every game.
	cfg := prep.DefaultConfig()
	cfg.Inputs, cfg.Out, cfg.Workers = []string{in}, filepath.Join(dir, "shards"), 1
	cfg.RatedOnly, cfg.AllowBots, cfg.MinRating, cfg.SkipTerminations, cfg.MinPlies = false, true, 0, nil, 0
	cfg.TimeClasses = []string{"ultrabullet", "bullet", "blitz", "rapid", "classical", "correspondence"}
	cfg.BalanceBand, cfg.MinClock, cfg.EarlyFullPly, cfg.ValFraction = 0, 0, 0, 0
	cfg.Compression, cfg.Plots, cfg.Quiet = "none", false, true
	sum, err := prep.Run(context.Background(), cfg, io.Discard)
	require.NoError(t, err)
	plies := 0
	for _, cg := range games {
		plies += len(cg.game.Moves)
	}
	require.Equal(t, int64(len(games)), sum.GamesKept, "prep kept %d of the %d games: %v", sum.GamesKept, len(games), sum.Skipped)
	require.Equal(t, int64(plies), sum.PositionsKept, "prep kept %d of the %d positions: %v", sum.PositionsKept, plies, sum.Skipped)
	set, err := shard.Open(cfg.Out)
	require.NoError(t, err)
	records := set.Reader(shard.SplitTrain)

	// The engine, over UCI, on a recording Fake net.
	net := &recordingNet{Fake: nets.NewFake(1)}
	e := New(func(string, int) (nets.Net, error) { return net, nil })
	defer e.Close()
	s := StartSession(e, "HumChess", nil)
	defer s.Close()
	for _, l := range []string{"uci", "setoption name HumanTiming value false", "setoption name Seed value 1", "isready"} {
		require.NoError(t, s.Send(l))
	}
	_, _, err = s.Expect("readyok", benchStartupWait)
	require.NoError(t, err)

	// Replayed per game: the PGN as written, read back as prep and eval read it.
	replayed := pgn.NewReader(strings.NewReader(text.String()))
	c := board.DefaultContract()
	type tensors struct {
		pieces          []int64
		squares, global []float32
	}
	fill := func(enc *board.Encoded) tensors {
		x := tensors{make([]int64, 64), make([]float32, 64*c.SquareDim()), make([]float32, c.GlobalDim())}
		require.NoError(t, c.Fill(enc, x.pieces, x.squares, x.global))
		return x
	}
	kinds := map[string]int{}
	var prepEnc board.Encoded
	var targets board.Targets
	failures := 0
	for gi, cg := range games {
		pg, err := replayed.Next()
		require.NoError(t, err)
		evalPos, ok := eval.Positions(pg)
		require.True(t, ok, "eval.Positions of %s", pg.Site)
		tc := pg.TimeControl
		gui := newGUIClocks(pg)
		setup := []string{"ucinewgame", "setoption name TimeControl value 0", "setoption name Increment value 0"}
		if tc.Known() && tc.Base > 0 && (cg.kind == kindNoClocks || gi%2 == 0) {
			// The time control told through the options (for half of
			// the games with clocks; with none, the only way).
			setup[1] = fmt.Sprintf("setoption name TimeControl value %d", int(tc.Base))
			setup[2] = fmt.Sprintf("setoption name Increment value %d", int(tc.Increment))
		}
		for _, l := range setup {
			require.NoError(t, s.Send(l))
		}
		g := board.MustNewGame("")
		var moves []string
		for i, san := range pg.Moves {
			mover, opp := pg.WhiteElo, pg.BlackElo
			if i%2 == 1 {
				mover, opp = opp, mover
			}
			goLine := gui.goLine(tc.Increment)
			position := "position startpos"
			if len(moves) > 0 {
				position += " moves " + strings.Join(moves, " ")
			}
			before := net.calls()
			for _, l := range []string{
				fmt.Sprintf("setoption name UCI_Elo value %d", mover), fmt.Sprintf("setoption name OpponentElo value %d", opp),
				position, goLine,
			} {
				require.NoError(t, s.Send(l))
			}
			_, _, err := s.Expect("bestmove", benchGoTimeout)
			require.NoError(t, err, "%s ply %d: %s", pg.Site, i, goLine)
			require.Greater(t, net.calls(), before, "%s ply %d: the net was not asked", pg.Site, i)
			engineEnc, batch := net.call(before)
			require.Equal(t, 1, batch, "%s ply %d: the first evaluation of a go is the position alone", pg.Site, i)

			rec, err := records.Next()
			require.NoError(t, err, "%s ply %d: prep's record", pg.Site, i)
			require.NoError(t, shard.DecodeSample(rec, &prepEnc, &targets))
			evalEnc := board.Encode(evalPos[i].Game, evalPos[i].Ctx)

			where := fmt.Sprintf("%s (%s) ply %d, %s, %s", pg.Site, cg.kind, i, strings.Join(setup[1:], ", "), goLine)
			same := assert.Equal(t, prepEnc, engineEnc, "%s: the engine's input differs from prep's", where) &&
				assert.Equal(t, fill(&prepEnc), fill(&engineEnc), "%s: the engine's tensors differ from prep's", where) &&
				assert.Equal(t, prepEnc, evalEnc, "%s: eval's input differs from prep's", where)
			if !same {
				if failures++; failures >= 5 {
					t.Fatalf("stopping after %d positions that differ", failures)
				}
			}
			x := prepEnc.Ctx
			kinds[cg.kind]++
			switch {
			case x.MoverClock >= 0 && x.OppClock >= 0:
				kinds["both clocks"]++
			case x.MoverClock >= 0 || x.OppClock >= 0:
				kinds["one clock"]++
			default:
				kinds["no clock"]++
			}
			if x.Inc > 0 {
				kinds["increment > 0"]++
			}
			if x.Base < 0 {
				kinds["time control unknown"]++
			}

			m, err := g.ParseSAN(san)
			require.NoError(t, err)
			require.NoError(t, g.PlayMove(m))
			moves = append(moves, m.String())
			gui.played(i%2, pg.Clocks[i]) // -1 where the record shows none
		}
	}
	_, err = records.Next()
	assert.ErrorIs(t, err, io.EOF, "prep wrote more records than the games have positions")
	t.Logf("%d games, %d positions identical in the engine, prep and eval: %v", len(games), plies, kinds)
	least := 300
	if testing.Short() {
		least = 100
	}
	for _, k := range []string{"both clocks", "no clock", "increment > 0"} {
		assert.GreaterOrEqual(t, kinds[k], least, "positions with %s", k)
	}
	assert.GreaterOrEqual(t, kinds["one clock"], least/10, "positions with one clock")
	assert.GreaterOrEqual(t, kinds["time control unknown"], least/10, "positions without a time control")
}
