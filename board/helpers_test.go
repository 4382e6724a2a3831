package board

import (
	"strconv"
	"strings"
)

// mailboxFEN renders the Game's own mailbox as a FEN board field.
func mailboxFEN(g *Game) string {
	var b strings.Builder
	for r := 7; r >= 0; r-- {
		empty := 0
		for f := 0; f < 8; f++ {
			p := g.PieceAt(Square(r*8 + f))
			if p == NoPiece {
				empty++
				continue
			}
			if empty > 0 {
				b.WriteString(strconv.Itoa(empty))
				empty = 0
			}
			b.WriteString(p.String())
		}
		if empty > 0 {
			b.WriteString(strconv.Itoa(empty))
		}
		if r > 0 {
			b.WriteByte('/')
		}
	}
	return b.String()
}

func boardField(fen string) string {
	return strings.Fields(fen)[0]
}
