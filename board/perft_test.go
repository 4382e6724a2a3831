package board

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Perft reference counts from https://www.chessprogramming.org/Perft_Results.
var perftCases = []struct {
	name  string
	fen   string
	depth int
	nodes uint64
	deep  bool // skipped under -short
}{
	{"start", StartFEN, 1, 20, false},
	{"start", StartFEN, 2, 400, false},
	{"start", StartFEN, 3, 8902, false},
	{"start", StartFEN, 4, 197281, true},
	{"start", StartFEN, 5, 4865609, true},
	{"kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 1, 48, false},
	{"kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 2, 2039, false},
	{"kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 3, 97862, true},
	{"kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 4, 4085603, true},
	{"position3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 1, 14, false},
	{"position3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 3, 2812, false},
	{"position3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 4, 43238, false},
	{"position3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5, 674624, true},
	{"position4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 1, 6, false},
	{"position4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 2, 264, false},
	{"position4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 3, 9467, false},
	{"position4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 4, 422333, true},
	{"position4-mirrored", "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1", 3, 9467, false},
	{"position5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 1, 44, false},
	{"position5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 2, 1486, false},
	{"position5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 3, 62379, true},
	{"position6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 1, 46, false},
	{"position6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 2, 2079, false},
	{"position6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 3, 89890, true},
}

func TestPerft(t *testing.T) {
	for _, c := range perftCases {
		if c.deep && testing.Short() {
			continue
		}
		g, err := NewGame(c.fen)
		require.NoError(t, err, c.fen)
		assert.Equal(t, c.nodes, g.Perft(c.depth), "%s depth %d (%s)", c.name, c.depth, c.fen)
	}
}

// gamePerft walks the tree through the Game API (Clone, PlayMove) and checks
// that the mailbox stays in step with notnil's board at every node.
func gamePerft(t *testing.T, g *Game, depth int) uint64 {
	if got, want := mailboxFEN(g), boardField(g.FEN()); got != want {
		t.Fatalf("mailbox %s != notnil board %s after %v", got, want, g.Moves())
	}
	if depth == 0 {
		return 1
	}
	var n uint64
	for _, m := range g.LegalMoves() {
		c := g.Clone()
		require.NoError(t, c.PlayMove(m))
		n += gamePerft(t, c, depth-1)
	}
	return n
}

func TestPerftThroughGame(t *testing.T) {
	for _, c := range perftCases {
		if c.depth > 3 || c.nodes > 100000 || (c.deep && testing.Short()) {
			continue
		}
		if testing.Short() && c.depth > 2 {
			continue
		}
		g, err := NewGame(c.fen)
		require.NoError(t, err)
		assert.Equal(t, c.nodes, gamePerft(t, g, c.depth), "%s depth %d", c.name, c.depth)
	}
}
