package selfplay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/internal/testenv"
	"github.com/humchess/humchess/nets"
	"github.com/humchess/humchess/train/data/pgn"
)

// lichessSample is the repository's copy of 2,500 real lichess games.
const lichessSample = "../../../testdata/games/lichess-2022-06-2500.pgn.zst"

// sampleFile returns the absolute path of the lichess sample.
func sampleFile(t testing.TB) string {
	t.Helper()
	p, err := filepath.Abs(lichessSample)
	require.NoError(t, err)
	if _, err := os.Stat(p); err != nil {
		testenv.Missing(t, "fixture %s not present: %v", p, err)
	}
	return p
}

// smallSample is a PGN of the sample's first 300 games, made once per test
// binary by openingsFile (reading all 2,500 costs half a second a run).
var smallSample struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if smallSample.dir != "" {
		_ = os.RemoveAll(smallSample.dir) // a temporary directory: nothing to do on failure
	}
	os.Exit(code)
}

// openingsFile returns the path of a PGN of the lichess sample's first 300
// games.
func openingsFile(t *testing.T) string {
	t.Helper()
	full := sampleFile(t)
	smallSample.once.Do(func() {
		rc, err := pgn.Open(full)
		if err != nil {
			smallSample.err = err
			return
		}
		defer rc.Close()
		data, err := io.ReadAll(rc)
		if err != nil {
			smallSample.err = err
			return
		}
		cut := 0
		for range 301 {
			k := bytes.Index(data[cut+1:], []byte("[Event "))
			if k < 0 {
				smallSample.err = errors.New("the sample has fewer than 301 games")
				return
			}
			cut += k + 1
		}
		if smallSample.dir, err = os.MkdirTemp("", "selfplay-test-"); err != nil {
			smallSample.err = err
			return
		}
		smallSample.path = filepath.Join(smallSample.dir, "sample-300.pgn")
		smallSample.err = os.WriteFile(smallSample.path, data[:cut], 0o644)
	})
	require.NoError(t, smallSample.err)
	return smallSample.path
}

// seen is one position a testNet was shown.
type seen struct {
	whiteToMove bool
	ctx         board.Context
}

// testNet is a nets.Fake under another name whose win/draw/loss, when wdl
// is set, is wdl's; it records every position it is shown.
type testNet struct {
	*nets.Fake
	name string
	wdl  func(g *board.Game) []float32

	mu   sync.Mutex
	seen []seen
}

func (n *testNet) Evaluate(ctx context.Context, in []nets.Input) ([]nets.Output, error) {
	out, err := n.Fake.Evaluate(ctx, in)
	if err != nil {
		return nil, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	for i := range out {
		if n.wdl != nil {
			out[i].WDL = n.wdl(in[i].Game)
		}
		n.seen = append(n.seen, seen{in[i].Game.WhiteToMove(), in[i].Ctx})
	}
	return out, nil
}

func (n *testNet) Info() nets.Info {
	i := n.Fake.Info()
	i.Name = n.name
	return i
}

// neutral is a win/draw/loss that never adjudicates.
func neutral(*board.Game) []float32 { return []float32{0.4, 0.3, 0.3} }

// opener opens testNets named by their file (maia-1500.pb.gz: maia-1500),
// each made by setup (nil: a nets.Fake seeded 1 with neutral
// win/draw/loss), and keeps them all.
type opener struct {
	setup func(n *testNet)
	mu    sync.Mutex
	nets  []*testNet
}

func (o *opener) open(file string) (nets.Net, error) {
	n := &testNet{Fake: nets.NewFake(1), name: strings.TrimSuffix(filepath.Base(file), ".pb.gz"), wdl: neutral}
	if o.setup != nil {
		o.setup(n)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.nets = append(o.nets, n)
	return n, nil
}

// bandDir makes a directory holding empty files named as band nets (the
// opener does not read them).
func bandDir(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), nil, 0o644))
	}
	return dir
}

// maiaDir is bandDir with maia-1100.pb.gz ... maia-1900.pb.gz.
func maiaDir(t *testing.T) string {
	var names []string
	for r := 1100; r <= 1900; r += 100 {
		names = append(names, fmt.Sprintf("maia-%d.pb.gz", r))
	}
	return bandDir(t, names...)
}

// writeFile writes text to name in a new temporary directory.
func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

// testConfig is a small run from the openings of 300 real games with o's
// nets.
func testConfig(t *testing.T, net string, o *opener) Config {
	cfg := DefaultConfig()
	cfg.Net = net
	cfg.Openings = []string{openingsFile(t)}
	cfg.Out = filepath.Join(t.TempDir(), "selfplay.pgn")
	cfg.Games = 12
	cfg.Batch = 4
	cfg.MaxPlies = 80
	cfg.Quiet = true
	cfg.OpenNet = o.open
	return cfg
}

// record is what the tests check of a written game.
type record struct {
	headers map[string]string
	white   int // WhiteElo
	black   int // BlackElo
	moves   []string
	final   *board.Game // the position after the moves
	text    string      // the movetext
}

// readGames reads a PGN file back with train/data/pgn, replaying every move
// on a board.Game (an illegal move fails the test).
func readGames(t *testing.T, path string) []record {
	t.Helper()
	rc, err := pgn.Open(path)
	require.NoError(t, err)
	defer rc.Close()
	rd := pgn.NewReader(rc)
	var out []record
	for {
		pg, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		r := record{headers: map[string]string{}, white: pg.WhiteElo, black: pg.BlackElo,
			moves: append([]string(nil), pg.Moves...), text: string(pg.Movetext())}
		for _, h := range pg.Headers {
			r.headers[h.Name] = h.Value
		}
		g, err := board.NewGame("")
		require.NoError(t, err)
		for i, san := range pg.Moves {
			require.NoError(t, g.PlaySAN(san), "game %s ply %d: %s", pg.Site, i+1, san)
		}
		r.final = g
		out = append(out, r)
	}
	require.Zero(t, rd.Stats().SkippedTotal(), "games the PGN reader skipped")
	return out
}
