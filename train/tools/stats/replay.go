package stats

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/nets"
	"github.com/humchess/humchess/policy"
	"github.com/humchess/humchess/train/data/games"
	"github.com/humchess/humchess/train/data/pgn"
)

// Replay gives, for each ply of a game, the think time in seconds a model
// of the mover would have taken there; negative where it gives none. The
// slice may be shorter than the game.
type Replay func(g *pgn.Game) ([]float64, error)

// NetReplay replays games with the engine's human timing on net: at every
// position with a known mover's clock, policy.ThinkTime with the net's
// think-time head, the probability of the move the human played, whether it
// is a recapture or the only move, and the clocks, ratings and time control
// the human had (the engine's HumanTiming, fed the human's game instead of
// its own). So the engine's timing meets the humans' on the same
// positions, without self-play. The draws are seeded by seed and the game,
// so a replay is reproducible. reshape, when not nil, gives the think-time
// scale and power of a time control (base, increment in seconds;
// policy.Shape.Reshape).
func NetReplay(ctx context.Context, net nets.Net, seed uint64, reshape func(base, inc float64) (scale, power float64)) Replay {
	edges := net.Info().ThinkBinEdges
	return func(g *pgn.Game) ([]float64, error) {
		b, err := board.NewGame(g.FEN)
		if err != nil {
			return nil, nil // the timing reads nothing of this game either
		}
		rec := games.RecordOf(g)
		if !rec.HasClocks() {
			return nil, nil
		}
		var in []nets.Input
		var played []board.Move
		for _, san := range g.Moves {
			m, err := b.ParseSAN(san)
			if err != nil {
				break
			}
			in = append(in, nets.Input{Game: b.Clone(), Ctx: rec.Context(b)})
			played = append(played, m)
			if b.PlayMove(m) != nil {
				break
			}
		}
		if len(in) == 0 {
			return nil, nil
		}
		outs, err := net.Evaluate(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("stats: replay: %w", err)
		}
		if len(outs) != len(in) {
			return nil, fmt.Errorf("stats: replay: net %s returned %d outputs for %d positions", net.Info().Name, len(outs), len(in))
		}
		rng := rand.New(rand.NewPCG(seed, games.ID(g)))
		times := make([]float64, len(in))
		for i, o := range outs {
			times[i] = -1
			clock := policy.ContextClock(in[i].Ctx, 0, 0)
			if clock.Remaining < 0 || len(o.Time) == 0 {
				continue
			}
			human := policy.Distribution(o.Logits, nil, 1)
			shape := policy.Shape{FactorMean: policy.MoveFactorMean(human), Only: in[i].Game.NumLegalMoves() == 1,
				Recapture: policy.Recapture(in[i].Game, played[i])}
			if reshape != nil {
				shape.Scale, shape.Power = reshape(g.TimeControl.Base, g.TimeControl.Increment)
			}
			for k, m := range o.Moves {
				if m == played[i] && k < len(human) {
					shape.Prob = human[k]
				}
				if k < len(human) {
					shape.Top = max(shape.Top, human[k])
				}
			}
			times[i] = policy.ThinkTime(o.Time, edges, clock, shape, rng).Seconds()
		}
		return times, nil
	}
}
