package engine

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/engine/enginetest"
	"github.com/humchess/humchess/nets"
	"github.com/humchess/humchess/uci"
	"github.com/humchess/humchess/uci/client/clienttest"
)

// badNetFiles writes, in a temporary folder, one file of each kind that
// exists but is not a usable net, and returns their paths by kind.
func badNetFiles(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	maia, err := os.ReadFile(filepath.Join(maiaDir(), "maia-1100.pb.gz"))
	require.NoError(t, err)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, err = zw.Write([]byte("a gzip stream that holds no net\n"))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	files := map[string][]byte{
		"text":               []byte("This is not a net.\nJust some text.\n"),
		"passwd":             []byte("root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"),
		"empty":              nil,
		"maia-truncated":     maia[:len(maia)/2],
		"maia-header-only":   maia[:64],
		"gzip-not-a-net":     gz.Bytes(),
		"onnx-like-garbage":  append([]byte{0x08, 0x07}, bytes.Repeat([]byte("garbage "), 32)...),
		"safetensors-header": append([]byte{0x10, 0, 0, 0, 0, 0, 0, 0}, []byte(`{"x": {"dtype"`)...),
	}
	paths := map[string]string{}
	for kind, data := range files {
		p := filepath.Join(dir, kind+".pb.gz")
		require.NoError(t, os.WriteFile(p, data, 0o644))
		paths[kind] = p
	}
	paths["directory"] = filepath.Join(dir, "net.onnx")
	require.NoError(t, os.Mkdir(paths["directory"], 0o755))
	paths["fifo"] = filepath.Join(dir, "fifo.onnx")
	require.NoError(t, syscall.Mkfifo(paths["fifo"], 0o644))
	return paths
}

// brokenNet opens but gives no logit for any legal move: no use to play.
type brokenNet struct{ nets.Fake }

func (b *brokenNet) Evaluate(ctx context.Context, in []nets.Input) ([]nets.Output, error) {
	out, err := b.Fake.Evaluate(ctx, in)
	for i := range out {
		out[i].Logits = out[i].Logits[:0]
	}
	return out, err
}

// netFileEngine is fakeEngine opening every other NetFile through
// nets/load, as the engine does: it plays the Fake net for NetFile "" and
// needs no ONNX Runtime to refuse a bad file. A file named broken.fake
// opens as a brokenNet.
func netFileEngine() *Engine {
	return New(func(path string, threads int) (nets.Net, error) {
		if filepath.Base(path) == "broken.fake" {
			return &brokenNet{nets.Fake{Seed: 1}}, nil
		}
		if n, err := enginetest.OpenFake(path, threads); err == nil {
			return n, nil
		}
		return OpenNet(path, threads)
	})
}

// expectLegalBestmove sends isready and go through s and checks that no
// error is reported and that the bestmove is legal from the start position.
func expectLegalBestmove(t *testing.T, s *uci.Server, out *clienttest.Buffer) {
	t.Helper()
	before := len(out.String())
	require.NoError(t, s.Execute("position startpos"))
	require.NoError(t, s.Execute("isready"))
	require.NoError(t, s.Execute("go wtime 60000 btime 60000"))
	s.Sync()
	got := out.String()[before:]
	assert.NotContains(t, got, "info string error", "isready and go after a refused NetFile")
	lines := strings.Split(strings.TrimSpace(got), "\n")
	f := strings.Fields(lines[len(lines)-1])
	require.True(t, len(f) >= 2 && f[0] == "bestmove", "last line %q, want bestmove; output:\n%s", lines[len(lines)-1], got)
	m, err := board.ParseMove(f[1])
	require.NoError(t, err, "bestmove %q", f[1])
	assert.True(t, board.MustNewGame("").IsLegal(m), "bestmove %s is not legal from the start position", f[1])
}

// TestBadNetFileRefused sets NetFile to files that exist but are not usable
// nets: each is refused at setoption with an error, the previous net stays
// and the engine keeps playing legal moves.
func TestBadNetFileRefused(t *testing.T) {
	paths := badNetFiles(t)
	paths["missing"] = filepath.Join(t.TempDir(), "missing.onnx")
	paths["opens-but-cannot-evaluate"] = filepath.Join(t.TempDir(), "broken.fake")
	require.NoError(t, os.WriteFile(paths["opens-but-cannot-evaluate"], []byte("any"), 0o644))
	for kind, path := range paths {
		t.Run(kind, func(t *testing.T) {
			out := &clienttest.Buffer{}
			e := netFileEngine()
			defer e.Close()
			s := uci.NewServer(e, out)
			require.NoError(t, s.Execute("setoption name HumanTiming value false"))
			expectLegalBestmove(t, s, out)
			before := e.net

			err := s.Execute("setoption name NetFile value " + path)
			require.Error(t, err, "setoption NetFile %s accepted", path)
			t.Logf("refused: %v", err)
			assert.Contains(t, out.String(), "info string error: setoption: NetFile: ")
			assert.Equal(t, "", s.Options().NetFile, "the server's NetFile after a refused one")
			assert.Equal(t, "", e.opts.NetFile, "the engine's NetFile after a refused one")

			expectLegalBestmove(t, s, out)
			assert.Same(t, before, e.net, "the previous net was not kept")
		})
	}
}

// TestBadNetFileKeepsMaia loads maia-1100, then tries every bad file: the
// Maia net stays loaded and plays.
func TestBadNetFileKeepsMaia(t *testing.T) {
	ortOrSkip(t)
	maia := maiaOrSkip(t, "maia-1100")
	out := &clienttest.Buffer{}
	e := New(nil)
	defer e.Close()
	s := uci.NewServer(e, out)
	require.NoError(t, s.Execute("setoption name HumanTiming value false"))
	require.NoError(t, s.Execute("setoption name NetFile value "+maia))
	expectLegalBestmove(t, s, out)
	for kind, path := range badNetFiles(t) {
		err := s.Execute("setoption name NetFile value " + path)
		assert.Error(t, err, "%s: setoption NetFile %s accepted", kind, path)
		assert.Equal(t, maia, s.Options().NetFile, "%s: NetFile after a refused one", kind)
		expectLegalBestmove(t, s, out)
		require.NotNil(t, e.net)
		assert.True(t, strings.HasPrefix(e.net.Info().Name, "maia-1100"), "%s: playing %s, want maia-1100", kind, e.net.Info().Name)
	}
}

// TestThreadsReopenFailureKeepsNet changes Threads after the NetFile has
// gone: the change is refused and the net already open keeps playing.
func TestThreadsReopenFailureKeepsNet(t *testing.T) {
	path := filepath.Join(t.TempDir(), "maia-1100.pb.gz")
	data, err := os.ReadFile(filepath.Join(maiaDir(), "maia-1100.pb.gz"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	e := New(func(p string, threads int) (nets.Net, error) {
		if _, err := os.Stat(p); p != "" && err != nil {
			return nil, err
		}
		return nets.NewFake(1), nil
	})
	defer e.Close()
	out := &clienttest.Buffer{}
	s := uci.NewServer(e, out)
	require.NoError(t, s.Execute("setoption name HumanTiming value false"))
	require.NoError(t, s.Execute("setoption name NetFile value "+path))
	expectLegalBestmove(t, s, out)
	require.NoError(t, os.Remove(path))
	err = s.Execute("setoption name Threads value 2")
	require.Error(t, err, "Threads 2 accepted with the NetFile gone")
	assert.True(t, errors.Is(err, os.ErrNotExist), "error %v", err)
	assert.Equal(t, 1, s.Options().Threads)
	expectLegalBestmove(t, s, out)
}
