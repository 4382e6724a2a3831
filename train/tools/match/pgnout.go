package match

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/notnil/chess"
)

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// termination is the PGN Termination tag for a game's reason.
func termination(r *GameResult) string {
	switch r.Failure {
	case "":
	case FailTime:
		return "time forfeit"
	case FailIllegal:
		return "rules infraction"
	default:
		return "abandoned"
	}
	switch r.Reason {
	case "adjudication":
		return "adjudication"
	case "max plies":
		return "unterminated"
	}
	return "normal"
}

// fmtClock writes a clock as h:mm:ss.t for a [%clk] comment.
func fmtClock(d time.Duration) string {
	d = max(d, 0).Round(100 * time.Millisecond)
	h := int(d / time.Hour)
	m := int(d/time.Minute) % 60
	s := (d % time.Minute).Seconds()
	return fmt.Sprintf("%d:%02d:%04.1f", h, m, s)
}

// SAN converts a game's UCI moves to SAN, starting from fen ("" = the
// initial position).
func SAN(fen string, moves []string) ([]string, error) {
	if fen == "" {
		fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
	}
	opt, err := chess.FEN(fen)
	if err != nil {
		return nil, err
	}
	pos := chess.NewGame(opt).Position()
	out := make([]string, 0, len(moves))
	for _, u := range moves {
		m, err := chess.UCINotation{}.Decode(pos, u)
		if err != nil {
			return out, fmt.Errorf("move %s: %w", u, err)
		}
		out = append(out, chess.AlgebraicNotation{}.Encode(pos, m))
		pos = pos.Update(m)
	}
	return out, nil
}

func pgnEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`)
}

// writePGN writes one finished game.
func writePGN(w io.Writer, cfg *Config, r *GameResult) error {
	now := time.Now
	if cfg.Now != nil {
		now = cfg.Now
	}
	event := cfg.Event
	if event == "" {
		event = "HumChess match"
	}
	white, black := r.White, 1-r.White
	var b strings.Builder
	tag := func(k, v string) { fmt.Fprintf(&b, "[%s \"%s\"]\n", k, pgnEscape(v)) }
	tag("Event", event)
	tag("Site", "humchess match")
	tag("Date", now().Format("2006.01.02"))
	tag("Round", fmt.Sprint(r.Round))
	tag("White", r.EngineNames[white])
	tag("Black", r.EngineNames[black])
	tag("Result", r.Result)
	if e := cfg.Engines[white].elo(); e > 0 {
		tag("WhiteElo", fmt.Sprint(e))
	}
	if e := cfg.Engines[black].elo(); e > 0 {
		tag("BlackElo", fmt.Sprint(e))
	}
	tag("TimeControl", cfg.TC.String())
	if r.Opening.FEN != "" {
		tag("SetUp", "1")
		tag("FEN", r.Opening.FEN)
	}
	tag("Termination", termination(r))
	tag("PlyCount", fmt.Sprint(len(r.Moves)))
	b.WriteString("\n")

	san, err := SAN(r.Opening.FEN, r.Moves)
	if err != nil { // the referee played every move on its board: cannot happen
		return err
	}
	blackFirst := strings.Contains(r.Opening.FEN, " b ")
	moveNo := 1
	if r.Opening.FEN != "" {
		f := strings.Fields(r.Opening.FEN)
		if len(f) >= 6 {
			if n, err := strconv.Atoi(f[5]); err == nil && n > 0 {
				moveNo = n
			}
		}
	}
	var line strings.Builder
	flush := func(tok string) {
		if line.Len()+len(tok)+1 > 79 {
			b.WriteString(line.String() + "\n")
			line.Reset()
		}
		if line.Len() > 0 {
			line.WriteByte(' ')
		}
		line.WriteString(tok)
	}
	for k, s := range san {
		whiteMove := (k%2 == 0) != blackFirst
		switch {
		case whiteMove:
			flush(fmt.Sprintf("%d.", moveNo))
		case k == 0:
			flush(fmt.Sprintf("%d...", moveNo))
		}
		flush(s)
		if j := k - r.OpeningLen; j >= 0 && j < len(r.Clocks) && cfg.TC.Clock() {
			flush(fmt.Sprintf("{ [%%clk %s] }", fmtClock(r.Clocks[j])))
		}
		if !whiteMove {
			moveNo++
		}
	}
	if r.Failure != "" {
		flush(fmt.Sprintf("{ %s %s: %s }", r.EngineNames[r.Culprit], r.Failure, strings.NewReplacer("}", ")", "{", "(", "\n", " ").Replace(r.Detail)))
	} else if r.Reason != "" {
		flush(fmt.Sprintf("{ %s }", r.Reason))
	}
	flush(r.Result)
	b.WriteString(line.String() + "\n\n")
	_, err = io.WriteString(w, b.String())
	return err
}
