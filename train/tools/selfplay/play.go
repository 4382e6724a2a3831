package selfplay

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/nets"
	"github.com/humchess/humchess/policy"
	"github.com/humchess/humchess/train/data/pgn"
)

// The Termination tags of a game, as lichess writes them; prep skips
// "unterminated" games by default.
const (
	TermNormal       = "Normal"       // checkmate, stalemate, a draw by the rules
	TermAdjudication = "adjudication" // called by the win/draw/loss heads
	TermUnterminated = "unterminated" // stopped at Config.MaxPlies
)

// The Result tags.
const (
	WhiteWins = "1-0"
	BlackWins = "0-1"
	Draw      = "1/2-1/2"
	NoResult  = "*"
)

// game is one self-play game in progress.
type game struct {
	index   int // 0-based, in the run
	g       *board.Game
	rng     *rand.Rand
	rating  [2]int // White's, Black's
	band    [2]int // the index in the run's bands of White's net, Black's
	opening int    // plies of the opening
	rec     board.Record

	// Adjudication: the side the last plies' verdicts called winning (0
	// White, 1 Black, -1 none) and for how many plies in a row; plies in a
	// row with a draw verdict.
	winner, winStreak, drawStreak int

	done                       bool
	result, termination, cause string // cause: the comment after the last move
}

// newGame starts game index of a run: its generator, seeded by the run's
// seed and the index, draws the opening, then White's rating, then Black's,
// then every move.
func newGame(cfg *Config, index int, openings []Opening, bands []Band, tc pgn.TimeControl) (*game, error) {
	rng := rand.New(rand.NewPCG(cfg.Seed, uint64(index)))
	o := openings[rng.IntN(len(openings))]
	lo, hi := cfg.Ratings.Lo, cfg.Ratings.Hi
	white := lo + rng.IntN(hi-lo+1)
	blo, bhi := max(lo, white-cfg.RatingSpread), min(hi, white+cfg.RatingSpread)
	black := blo + rng.IntN(bhi-blo+1)
	g, err := board.NewGame("")
	if err != nil {
		return nil, err
	}
	for _, m := range o.Moves {
		if err := g.PlayMove(m); err != nil { // LoadOpenings played them: cannot happen
			return nil, fmt.Errorf("selfplay: opening move %s: %w", m, err)
		}
	}
	return &game{
		index: index, g: g, rng: rng,
		rating:  [2]int{white, black},
		band:    [2]int{PickBand(bands, white), PickBand(bands, black)},
		opening: len(o.Moves),
		rec: board.Record{WhiteRating: float64(white), BlackRating: float64(black),
			Base: tc.Base, Inc: tc.Increment},
		winner: -1,
	}, nil
}

// mover is the side to move: 0 White, 1 Black.
func (gm *game) mover() int {
	if gm.g.WhiteToMove() {
		return 0
	}
	return 1
}

// input is what the mover's net sees: the game and the Context train/data/prep
// gives the same position of the written game (ratings, time control, no
// clocks).
func (gm *game) input() nets.Input {
	white := gm.g.WhiteToMove()
	return nets.Input{Game: gm.g, Ctx: gm.rec.Info(gm.g.Ply(), white).Context(white)}
}

// end finishes the game.
func (gm *game) end(result, termination, cause string) {
	gm.done, gm.result, gm.termination, gm.cause = true, result, termination, cause
}

// winFor is the Result tag of a win for side (0 White, 1 Black).
func winFor(side int) string {
	if side == 0 {
		return WhiteWins
	}
	return BlackWins
}

// sideName names side (0 White, 1 Black).
func sideName(side int) string {
	if side == 0 {
		return "White"
	}
	return "Black"
}

// checkEnd ends the game when the rules end it at the current position, or
// when it has reached maxPlies; it reports whether the game is over.
func (gm *game) checkEnd(maxPlies int) bool {
	switch st := gm.g.Status(); st {
	case board.Ongoing:
	case board.Checkmate:
		gm.end(winFor(1-gm.mover()), TermNormal, st.String())
		return true
	default: // stalemate, insufficient material, threefold, fifty moves
		gm.end(Draw, TermNormal, st.String())
		return true
	}
	if gm.g.Ply() >= maxPlies {
		gm.end(NoResult, TermUnterminated, fmt.Sprintf("stopped after %d plies", gm.g.Ply()))
		return true
	}
	return false
}

// adjudicate updates the verdicts with the mover's net's win/draw/loss and
// ends the game when one has held for cfg.AdjudicatePlies plies in a row.
func (gm *game) adjudicate(cfg *Config, wdl []float32) bool {
	if cfg.AdjudicatePlies == 0 || len(wdl) != 3 {
		return false
	}
	me := gm.mover()
	winner := -1
	switch {
	case float64(wdl[0]) >= cfg.AdjudicateWin:
		winner = me
	case float64(wdl[2]) >= cfg.AdjudicateWin:
		winner = 1 - me
	}
	switch {
	case winner < 0:
		gm.winner, gm.winStreak = -1, 0
	case winner == gm.winner:
		gm.winStreak++
	default:
		gm.winner, gm.winStreak = winner, 1
	}
	if float64(wdl[1]) >= cfg.AdjudicateDraw {
		gm.drawStreak++
	} else {
		gm.drawStreak = 0
	}
	switch {
	case gm.winStreak >= cfg.AdjudicatePlies:
		gm.end(winFor(gm.winner), TermAdjudication, fmt.Sprintf("%s wins by adjudication: win/draw/loss >= %v for %d plies",
			sideName(gm.winner), cfg.AdjudicateWin, gm.winStreak))
		return true
	case gm.drawStreak >= cfg.AdjudicatePlies:
		gm.end(Draw, TermAdjudication, fmt.Sprintf("draw by adjudication: draw >= %v for %d plies", cfg.AdjudicateDraw, gm.drawStreak))
		return true
	}
	return false
}

// advance takes the mover's net's output for the current position:
// adjudication, or a move sampled from the net's distribution and played.
// It reports whether a move was played.
func (gm *game) advance(cfg *Config, out *nets.Output) (bool, error) {
	if gm.adjudicate(cfg, out.WDL) {
		return false, nil
	}
	if len(out.Logits) != len(out.Moves) || len(out.Moves) == 0 {
		return false, fmt.Errorf("selfplay: game %d ply %d: the net gave %d moves and %d logits",
			gm.index+1, gm.g.Ply()+1, len(out.Moves), len(out.Logits))
	}
	k := policy.Sample(policy.Distribution(out.Logits, nil, cfg.Temperature), gm.rng)
	if k < 0 {
		return false, fmt.Errorf("selfplay: game %d ply %d: the net gave no finite logit", gm.index+1, gm.g.Ply()+1)
	}
	if err := gm.g.PlayMove(out.Moves[k]); err != nil {
		return false, fmt.Errorf("selfplay: game %d ply %d: the net's move %s: %w", gm.index+1, gm.g.Ply()+1, out.Moves[k], err)
	}
	return true, nil
}

// playBlock plays games to their end, in lockstep: at each step the
// positions of the games still going are evaluated in one batch per net
// (netsByBand[k] plays band k; nil for a band no game of the run needs).
// plies, when set, is called with the moves played at each step; ended,
// when set, with each game as it ends.
func playBlock(ctx context.Context, cfg *Config, netsByBand []nets.Net, games []*game, plies func(int), ended func(*game)) error {
	active := make([]*game, 0, len(games))
	var in []nets.Input
	var idx []int
	outs := make([]nets.Output, len(games))
	for {
		active = active[:0]
		for _, gm := range games {
			if gm.done {
				continue
			}
			if gm.checkEnd(cfg.MaxPlies) {
				if ended != nil {
					ended(gm)
				}
				continue
			}
			active = append(active, gm)
		}
		if len(active) == 0 {
			return nil
		}
		for b, n := range netsByBand {
			in, idx = in[:0], idx[:0]
			for i, gm := range active {
				if gm.band[gm.mover()] == b {
					in = append(in, gm.input())
					idx = append(idx, i)
				}
			}
			if len(in) == 0 {
				continue
			}
			if n == nil { // every band a game can pick is opened: cannot happen
				return fmt.Errorf("selfplay: band %d has no open net", b)
			}
			o, err := n.Evaluate(ctx, in)
			if err != nil {
				return fmt.Errorf("selfplay: %s: %w", n.Info().Name, err)
			}
			if len(o) != len(in) {
				return fmt.Errorf("selfplay: %s returned %d outputs for %d positions", n.Info().Name, len(o), len(in))
			}
			for j, i := range idx {
				outs[i] = o[j]
			}
		}
		moved := 0
		for i, gm := range active {
			played, err := gm.advance(cfg, &outs[i])
			if err != nil {
				return err
			}
			if played {
				moved++
			} else if ended != nil {
				ended(gm)
			}
			outs[i] = nets.Output{}
		}
		if plies != nil {
			plies(moved)
		}
	}
}
