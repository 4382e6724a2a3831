package lc0

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/nets"
	"github.com/humchess/humchess/nets/onnx"
	"github.com/humchess/humchess/nets/ort"

	"github.com/humchess/humchess/internal/testenv"
)

// needORT skips the test when the ONNX Runtime library cannot be found.
func needORT(t testing.TB) {
	t.Helper()
	if _, err := ort.Resolve(""); err != nil {
		testenv.Missing(t, "ONNX Runtime not available (%v); run `make onnxruntime`", err)
	}
}

func openTestNet(t testing.TB, name string, opts Options) *Net {
	t.Helper()
	n, err := Open(filepath.Join(testdataDir, name+".pb.gz"), opts)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, n.Close()) })
	return n
}

// TestONNXMatchesGoForward runs the ONNX graph through ONNX Runtime on a
// batch of real positions and compares every policy logit and value output
// with the pure-Go reference.
func TestONNXMatchesGoForward(t *testing.T) {
	needORT(t)
	ref := loadReference(t)
	for _, name := range []string{"maia-1100", "maia-1900"} {
		t.Run(name, func(t *testing.T) {
			n := openTestNet(t, name, Options{Backend: BackendORT})
			require.Equal(t, BackendORT, n.Backend())
			var games []*board.Game
			for i, l := range ref {
				if l.Net == name && i%4 < 2 {
					games = append(games, refGame(t, l))
				}
			}
			if testing.Short() && len(games) > 6 {
				games = games[:6]
			}
			const per = InputPlanes * 64
			planes := make([]float32, len(games)*per)
			for i, g := range games {
				require.NoError(t, EncodeGame(g, planes[i*per:(i+1)*per]))
			}
			policy, value, err := n.run(context.Background(), planes, len(games))
			require.NoError(t, err)
			worst := 0.0
			for i, g := range games {
				r, err := n.Weights().Forward(planes[i*per : (i+1)*per])
				require.NoError(t, err)
				for k, want := range r.Policy {
					d := math.Abs(float64(policy[i*NumMoves+k] - want))
					worst = math.Max(worst, d)
					require.LessOrEqual(t, d, 1e-4, "%s: policy[%d]: go %v, ort %v", g.FEN(), k, want, policy[i*NumMoves+k])
				}
				for k, want := range r.Value {
					d := math.Abs(float64(value[i*len(r.Value)+k] - want))
					worst = math.Max(worst, d)
					require.LessOrEqual(t, d, 1e-4, "%s: value[%d]: go %v, ort %v", g.FEN(), k, want, value[i*len(r.Value)+k])
				}
			}
			t.Logf("%s: ORT vs Go max abs difference %.3g over %d positions", name, worst, len(games))
		})
	}
}

// TestORTMatchesLc0 is the parity test through the nets.Net interface and
// ONNX Runtime: every legal move's prior within 0.5 points (and the finer
// bound of the reference's README) and the same top move.
func TestORTMatchesLc0(t *testing.T) {
	needORT(t)
	ref := loadReference(t)
	worst, worstWDL := 0.0, 0.0
	for _, name := range []string{"maia-1100", "maia-1900"} {
		n := openTestNet(t, name, Options{})
		require.Equal(t, BackendORT, n.Backend())
		var lines []refLine
		var in []nets.Input
		for _, l := range ref {
			if l.Net == name {
				lines = append(lines, l)
				in = append(in, nets.Input{Game: refGame(t, l), Ctx: board.UnknownContext()})
			}
		}
		out, err := n.Evaluate(context.Background(), in)
		require.NoError(t, err)
		require.Len(t, out, len(in))
		for i, l := range lines {
			require.Equal(t, in[i].Game.LegalMoves(), out[i].Moves)
			require.Nil(t, out[i].Time)
			p, v := refScore(t, l, in[i].Game, out[i].Logits, out[i].WDL)
			worst, worstWDL = math.Max(worst, p), math.Max(worstWDL, v)
		}
	}
	t.Logf("ONNX Runtime: max prior deviation %.4f points, max WDL deviation %.2f per mille, over %d positions", worst, worstWDL, len(ref))
}

func TestONNXModelInfo(t *testing.T) {
	w := testWeights(t, "maia-1100")
	model, err := w.ONNX("maia-1100", map[string]string{"extra": "x"})
	require.NoError(t, err)
	info, err := onnx.ReadInfo(model)
	require.NoError(t, err)
	require.Len(t, info.Inputs, 1)
	require.Equal(t, ONNXInput, info.Inputs[0].Name)
	require.Len(t, info.Outputs, 2)
	require.Equal(t, ONNXPolicy, info.Outputs[0].Name)
	require.Equal(t, ONNXWDL, info.Outputs[1].Name)
	md, err := onnx.ReadMetadata(model)
	require.NoError(t, err)
	require.Equal(t, "x", md["extra"])
	require.Equal(t, "6", md["lc0.blocks"])
	require.Equal(t, "64", md["lc0.filters"])
}

func TestNetInfoAndErrors(t *testing.T) {
	n := openTestNet(t, "maia-1100", Options{Backend: BackendGo})
	info := n.Info()
	require.Equal(t, "maia-1100", info.Name)
	require.Equal(t, nets.KindLc0, info.Kind)
	require.True(t, info.HasWDL)
	require.False(t, info.HasTime)
	require.Equal(t, "e1cf1cd0c96b8a4fa6a275f4b9fd54ed1ffebf9fe44641b9fceded310e9619c4", info.Hash)
	require.NoError(t, info.Validate())
	require.Equal(t, BackendGo, n.Backend())
	require.Equal(t, "6x64 SE, policy convolution, value WDL", n.Weights().String())

	ctx := context.Background()
	out, err := n.Evaluate(ctx, nil)
	require.NoError(t, err)
	require.Empty(t, out)

	_, err = n.Evaluate(ctx, []nets.Input{{}})
	require.ErrorIs(t, err, nets.ErrBadInput)

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = n.Evaluate(cancelled, []nets.Input{{Game: board.MustNewGame(board.StartFEN)}})
	require.ErrorIs(t, err, context.Canceled)

	// A finished game has no legal moves: empty logits, a WDL all the same.
	g := board.MustNewGame(board.StartFEN)
	for _, m := range []string{"f2f3", "e7e5", "g2g4", "d8h4"} {
		require.NoError(t, g.Play(m))
	}
	out, err = n.Evaluate(ctx, []nets.Input{{Game: g}})
	require.NoError(t, err)
	require.Empty(t, out[0].Logits)
	require.Len(t, out[0].WDL, 3)

	require.NoError(t, n.Close())
	_, err = n.Evaluate(ctx, []nets.Input{{Game: g}})
	require.ErrorIs(t, err, nets.ErrClosed)
}

func TestOpenErrors(t *testing.T) {
	_, err := Open(filepath.Join(testdataDir, "missing.pb.gz"), Options{})
	require.Error(t, err)
	_, err = Open(filepath.Join(testdataDir, "reference.jsonl"), Options{})
	require.ErrorIs(t, err, ErrNotLc0)
	_, err = Open(filepath.Join(testdataDir, "maia-1100.pb.gz"), Options{Backend: "tpu"})
	require.ErrorIs(t, err, ErrInput)
}

func TestNameFromPath(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"/x/maia-1500.pb.gz", "maia-1500"},
		{"net.pb", "net"},
		{"weights_run1_42.gz", "weights_run1_42"},
		{"plain", "plain"},
	} {
		require.Equal(t, c.want, NameFromPath(c.in), "NameFromPath(%q)", c.in)
	}
}
