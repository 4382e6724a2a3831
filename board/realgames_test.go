package board

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/notnil/chess"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/internal/testenv"
)

const realGamesPath = "../testdata/games/lichess-2022-06-2500.pgn.zst"

// readSANGames is a throwaway PGN reader: it returns the SAN move lists of
// up to max games (comments, move numbers, NAGs and results dropped).
func readSANGames(t testing.TB, path string, max int) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		testenv.Missing(t, "real games not available: %v", err)
	}
	defer f.Close()
	zr, err := zstd.NewReader(f)
	require.NoError(t, err)
	defer zr.Close()
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var games [][]string
	var text strings.Builder
	flush := func() {
		if text.Len() == 0 {
			return
		}
		games = append(games, sanTokens(text.String()))
		text.Reset()
	}
	for sc.Scan() && len(games) < max {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "":
		case strings.HasPrefix(line, "["):
			flush()
		default:
			text.WriteString(line)
			text.WriteByte(' ')
		}
	}
	require.NoError(t, sc.Err())
	if len(games) < max {
		flush()
	}
	return games
}

func sanTokens(movetext string) []string {
	var out []string
	depth := 0
	var b strings.Builder
	for _, r := range movetext {
		switch {
		case r == '{':
			depth++
		case r == '}':
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	for _, tok := range strings.Fields(b.String()) {
		if i := strings.LastIndexByte(tok, '.'); i >= 0 {
			tok = tok[i+1:]
		}
		if tok == "" || tok[0] == '$' || tok == "1-0" || tok == "0-1" || tok == "1/2-1/2" || tok == "*" {
			continue
		}
		out = append(out, tok)
	}
	return out
}

// TestRealGamesVocabulary plays real games and checks, in every position,
// that each legal move has a vocabulary index unique among the legal moves
// and that the index maps back to the move.
func TestRealGamesVocabulary(t *testing.T) {
	max := 2500
	if testing.Short() {
		max = 300
	}
	games := readSANGames(t, realGamesPath, max)
	require.NotEmpty(t, games)
	positions, moves := 0, 0
	for gi, sans := range games {
		g := MustNewGame("")
		for ply, san := range sans {
			w := g.WhiteToMove()
			seen := map[int]Move{}
			for _, m := range g.LegalMoves() {
				i, ok := MoveToIndex(m, w)
				if !ok {
					t.Fatalf("game %d ply %d: %s has no index in %s", gi, ply, m, g.FEN())
				}
				if prev, dup := seen[i]; dup {
					t.Fatalf("game %d ply %d: %s and %s share index %d in %s", gi, ply, prev, m, i, g.FEN())
				}
				seen[i] = m
				back := IndexToMove(i, w)
				want := m
				if want.Promo == Queen {
					want.Promo = NoPieceType // plain entry: the promotion is implied
				}
				if back != want {
					t.Fatalf("game %d ply %d: %s -> index %d -> %s in %s", gi, ply, m, i, back, g.FEN())
				}
				if fm, ok := g.MoveForIndex(i); !ok || fm != m {
					t.Fatalf("game %d ply %d: MoveForIndex(%d) = %s, %v; want %s", gi, ply, i, fm, ok, m)
				}
				moves++
			}
			positions++
			if err := g.PlaySAN(san); err != nil {
				t.Fatalf("game %d ply %d: %v", gi, ply, err)
			}
		}
	}
	t.Logf("%d games, %d positions, %d legal moves checked", len(games), positions, moves)
	assert.Greater(t, positions, 1000)
}

// TestRealGamesSAN checks the SAN decoder against notnil's own decoder and
// the mailbox against notnil's board, move by move.
func TestRealGamesSAN(t *testing.T) {
	games := readSANGames(t, realGamesPath, 40)
	for gi, sans := range games {
		g := MustNewGame("")
		ref := chess.NewGame()
		for ply, san := range sans {
			want, err := chess.AlgebraicNotation{}.Decode(ref.Position(), san)
			require.NoError(t, err, "notnil: game %d ply %d %s", gi, ply, san)
			got, err := g.ParseSAN(san)
			require.NoError(t, err, "game %d ply %d %s", gi, ply, san)
			require.Equal(t, want.String(), got.String(), "game %d ply %d %s in %s", gi, ply, san, g.FEN())
			require.NoError(t, ref.Move(want))
			require.NoError(t, g.PlayMove(got))
			require.Equal(t, ref.Position().String(), g.FEN())
			require.Equal(t, boardField(g.FEN()), mailboxFEN(g))
		}
	}
}
