package selfplay

import (
	"fmt"
	"strings"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/train/tools/match"
)

// Event is the PGN Event tag of every self-play game.
const Event = "HumChess self-play"

// Site is the PGN Site tag of game index (0-based) of a run with seed: unique
// per seed and game, so train/data/games.ID tells the games apart.
func Site(seed uint64, index int) string {
	return fmt.Sprintf("humchess-selfplay/%d/%d", seed, index+1)
}

// appendPGN appends the finished game as PGN to b: the headers (names[k]
// the name of band k's net), the moves from the initial position, opening
// included, and the cause of the end as a comment. There are no clock
// comments and no Date (an unknown "????.??.??"), so a seed gives the same
// bytes.
func appendPGN(b []byte, cfg *Config, gm *game, names []string) ([]byte, error) {
	var s strings.Builder
	tag := func(k, v string) { fmt.Fprintf(&s, "[%s \"%s\"]\n", k, pgnEscape(v)) }
	tag("Event", Event)
	tag("Site", Site(cfg.Seed, gm.index))
	tag("Date", "????.??.??")
	tag("Round", fmt.Sprint(gm.index+1))
	tag("White", names[gm.band[0]])
	tag("Black", names[gm.band[1]])
	tag("Result", gm.result)
	tag("WhiteElo", fmt.Sprint(gm.rating[0]))
	tag("BlackElo", fmt.Sprint(gm.rating[1]))
	tag("TimeControl", cfg.TimeControl)
	tag("Termination", gm.termination)
	tag("PlyCount", fmt.Sprint(gm.g.Ply()))
	s.WriteString("\n")

	san, err := sanMoves(gm.g.Moves())
	if err != nil { // every move was played on a board.Game: cannot happen
		return b, fmt.Errorf("selfplay: game %d: %w", gm.index+1, err)
	}
	var line strings.Builder
	put := func(tok string) {
		if line.Len() > 0 && line.Len()+1+len(tok) > 79 {
			s.WriteString(line.String())
			s.WriteByte('\n')
			line.Reset()
		}
		if line.Len() > 0 {
			line.WriteByte(' ')
		}
		line.WriteString(tok)
	}
	for k, m := range san {
		if k%2 == 0 {
			put(fmt.Sprintf("%d.", k/2+1))
		}
		put(m)
	}
	if gm.cause != "" {
		for _, w := range strings.Fields("{ " + strings.NewReplacer("{", "(", "}", ")").Replace(gm.cause) + " }") {
			put(w)
		}
	}
	put(gm.result)
	s.WriteString(line.String())
	s.WriteString("\n\n")
	return append(b, s.String()...), nil
}

// sanMoves writes moves, played from the initial position, in SAN with the
// check and mate marks (match.SAN leaves them out).
func sanMoves(moves []board.Move) ([]string, error) {
	uci := make([]string, len(moves))
	for k, m := range moves {
		uci[k] = m.String()
	}
	san, err := match.SAN("", uci)
	if err != nil {
		return nil, err
	}
	g, err := board.NewGame("")
	if err != nil {
		return nil, err
	}
	for k, m := range moves {
		if err := g.PlayMove(m); err != nil {
			return nil, err
		}
		switch {
		case g.Status() == board.Checkmate:
			san[k] += "#"
		case g.InCheck():
			san[k] += "+"
		}
	}
	return san, nil
}

func pgnEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`)
}
