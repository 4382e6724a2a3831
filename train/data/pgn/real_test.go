package pgn

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/notnil/chess"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/internal/testenv"
)

// realDataDir holds the shared real-game files (see its README).
const realDataDir = "../../../../shared/data"

// vendoredGames is the copy of one shared file kept in the repository, so
// that a clone without the shared data still tests on real games.
const vendoredGames = "../../../testdata/games/lichess-2022-06-2500.pgn.zst"

// realFiles lists the shared real-game files, or the vendored copy when the
// shared data is absent.
func realFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(realDataDir, "*.pgn.zst"))
	require.NoError(t, err)
	if len(files) == 0 {
		if testenv.OnCI() {
			t.Fatalf("no real data in %s under CI=true (CI has ../shared beside the checkout)", realDataDir)
		}
		t.Logf("no real data in %s; using %s", realDataDir, vendoredGames)
		files = []string{vendoredGames}
	}
	return files
}

// scanCounts is what a simple line scan, independent of the reader, finds.
type scanCounts struct {
	events       int64 // lines starting with "[Event "
	blocksNoEvnt int64 // tag blocks (tag lines after a non-tag line) with no [Event line
	clk          int64 // occurrences of "[%clk"
}

// scanFile counts Event lines, Event-less tag blocks and %clk occurrences.
func scanFile(t *testing.T, path string) scanCounts {
	t.Helper()
	rc, err := Open(path)
	require.NoError(t, err)
	defer rc.Close()
	var c scanCounts
	sc := bufio.NewScanner(rc)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	prevTag, blockHasEvent, inBlock := false, false, false
	for sc.Scan() {
		line := sc.Bytes()
		isTag := len(line) > 1 && line[0] == '[' && (line[1] >= 'A' && line[1] <= 'Z' || line[1] >= 'a' && line[1] <= 'z')
		if isTag && !prevTag {
			if inBlock && !blockHasEvent {
				c.blocksNoEvnt++
			}
			inBlock, blockHasEvent = true, false
		}
		if bytes.HasPrefix(line, []byte("[Event ")) {
			c.events++
			blockHasEvent = true
		}
		c.clk += int64(bytes.Count(line, []byte("[%clk")))
		prevTag = isTag
	}
	require.NoError(t, sc.Err())
	if inBlock && !blockHasEvent {
		c.blocksNoEvnt++
	}
	return c
}

// TestRealFiles checks, on every shared real file, that every game is
// accounted for (returned + skipped = tag blocks found by a separate scan)
// and that every %clk in the text became a clock.
func TestRealFiles(t *testing.T) {
	for _, path := range realFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want := scanFile(t, path)
			rc, err := Open(path)
			require.NoError(t, err)
			defer rc.Close()
			r := NewReader(rc)
			var clocks, clkInSkipped, moves int64
			for {
				g, err := r.NextHeaders()
				if errors.Is(err, io.EOF) {
					break
				}
				require.NoError(t, err)
				if err := g.ParseMoves(); err != nil {
					clkInSkipped += int64(bytes.Count(g.Movetext(), []byte("[%clk")))
					t.Logf("skipped: %v", err)
					continue
				}
				require.Len(t, g.Clocks, len(g.Moves))
				require.Len(t, g.Evals, len(g.Moves))
				moves += int64(len(g.Moves))
				for _, c := range g.Clocks {
					if c >= 0 {
						clocks++
					}
				}
			}
			st := r.Stats()
			t.Logf("%s: %d games, %d moves, %d clocks, skipped %v; scan: %d [Event lines, %d tag blocks without Event, %d %%clk",
				filepath.Base(path), st.Games, moves, clocks, st.Skipped, want.events, want.blocksNoEvnt, want.clk)
			assert.Equal(t, want.events+want.blocksNoEvnt, st.Total(), "games returned + skipped vs tag blocks in the text")
			assert.Equal(t, want.clk, clocks+clkInSkipped, "%%clk comments in the text vs clocks parsed (+ %%clk in skipped games)")
			assert.Zero(t, st.BadClocks, "unparsable %%clk comments")
			assert.Zero(t, st.Skipped["too large"]+st.Skipped["bad tag"]+st.Skipped["no headers"], "games skipped before their movetext")
		})
	}
}

// TestRealFilesLegal replays the moves read from the real files on a board
// (notnil/chess positions), so a tokenizer slip (a lost or extra move)
// shows as an illegal move. Standard games only; the first 50 per file
// (10 under -short), since notnil's SAN decoding is slow.
func TestRealFilesLegal(t *testing.T) {
	limit := 50
	if testing.Short() {
		limit = 10
	}
	var an chess.AlgebraicNotation
	for _, path := range realFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			rc, err := Open(path)
			require.NoError(t, err)
			defer rc.Close()
			r := NewReader(rc)
			r.Filter = func(g *Game) bool { return g.Variant == "" || g.Variant == "Standard" }
			for n := 0; n < limit; n++ {
				g, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				require.NoError(t, err)
				pos := chess.StartingPosition()
				if g.FEN != "" {
					require.NoError(t, pos.UnmarshalText([]byte(g.FEN)), "game at line %d: FEN %q", g.Line, g.FEN)
				}
				for i, san := range g.Moves {
					m, err := an.Decode(pos, san)
					if err != nil {
						t.Fatalf("game at line %d: move %d %q: %v (moves %v)", g.Line, i, san, err, g.Moves)
					}
					pos = pos.Update(m)
				}
			}
		})
	}
}
