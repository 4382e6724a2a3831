package lc0

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/humchess/humchess/nets"
	"github.com/humchess/humchess/nets/ort"
)

// Backend chooses how Net runs the network.
type Backend string

// Backends.
const (
	// BackendAuto runs through ONNX Runtime and falls back to the pure-Go
	// forward pass when the library is missing or of the wrong version.
	BackendAuto Backend = ""
	// BackendORT runs through ONNX Runtime only.
	BackendORT Backend = "ort"
	// BackendGo runs the pure-Go reference forward pass (slow).
	BackendGo Backend = "go"
)

// Options configure Open and New. The zero value is ONNX Runtime (found as
// nets/ort resolves it) with one intra-op thread, falling back to pure Go.
type Options struct {
	Backend        Backend
	LibraryPath    string // ONNX Runtime library; "" = nets/ort's lookup order
	IntraOpThreads int    // threads inside one ONNX operator; 0 means 1
	Name           string // overrides the name taken from the file name
}

// Net is a Lc0 network as a nets.Net. Evaluate is safe for one caller at a
// time (a mutex serialises callers).
type Net struct {
	mu      sync.Mutex
	w       *Weights
	sess    *ort.Session
	backend Backend
	info    nets.Info
	closed  bool
	planes  []float32 // reused input buffer
}

var _ nets.Net = (*Net)(nil)

// Open reads an Lc0 weights file (.pb.gz) and prepares it for evaluation.
// The net's name is the file name without .pb.gz (e.g. "maia-1500") unless
// opts.Name is set; its hash is the sha256 of the file.
func Open(path string, opts Options) (*Net, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("lc0: %w", err)
	}
	w, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("lc0: %s: %w", path, err)
	}
	if opts.Name == "" {
		opts.Name = NameFromPath(path)
	}
	return New(w, nets.HashBytes(data), opts)
}

// NameFromPath is the file name of path without its .pb.gz, .pb or .gz
// extension.
func NameFromPath(path string) string {
	name := filepath.Base(path)
	for _, ext := range []string{".gz", ".pb"} {
		name = strings.TrimSuffix(name, ext)
	}
	return name
}

// New prepares decoded weights for evaluation; hash is the hex sha256 that
// Info reports.
func New(w *Weights, hash string, opts Options) (*Net, error) {
	if w == nil {
		return nil, fmt.Errorf("%w: nil weights", ErrInput)
	}
	name := opts.Name
	if name == "" {
		name = "lc0"
	}
	n := &Net{w: w, backend: BackendGo, info: nets.Info{
		Name:   name,
		Kind:   nets.KindLc0,
		HasWDL: true,
		Hash:   hash,
	}}
	switch opts.Backend {
	case BackendGo:
		return n, nil
	case BackendAuto, BackendORT:
	default:
		return nil, fmt.Errorf("%w: unknown backend %q", ErrInput, opts.Backend)
	}
	model, err := w.ONNX(name, map[string]string{"lc0.name": name, "lc0.sha256": hash})
	if err != nil {
		return nil, err
	}
	sess, err := ort.NewSession(model, ort.SessionOptions{
		LibraryPath:    opts.LibraryPath,
		IntraOpThreads: opts.IntraOpThreads,
		Outputs:        []string{ONNXPolicy, w.ValueOutput()},
	})
	if err != nil {
		if opts.Backend == BackendAuto && (errors.Is(err, ort.ErrNoLibrary) || errors.Is(err, ort.ErrWrongVersion)) {
			return n, nil
		}
		return nil, fmt.Errorf("lc0: %w", err)
	}
	n.sess, n.backend = sess, BackendORT
	return n, nil
}

// Backend reports the backend in use: BackendORT or BackendGo.
func (n *Net) Backend() Backend { return n.backend }

// Weights returns the decoded weights (shared; do not modify).
func (n *Net) Weights() *Weights { return n.w }

// Info describes the net (kind "lc0", WDL head, no think-time head).
func (n *Net) Info() nets.Info { return n.info }

// Close releases the ONNX Runtime session; Evaluate fails afterwards.
func (n *Net) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil
	}
	n.closed = true
	if n.sess != nil {
		return n.sess.Close()
	}
	return nil
}

// Evaluate encodes every input's game (its last 8 positions), runs the
// network once for the batch and returns, per input, the legal moves in
// Game.LegalMoves() order with their policy logits and the mover's
// win/draw/loss probabilities. Time is nil: Lc0 nets have no think-time
// head. The Context of each input is ignored. Blocks until done or ctx is
// cancelled.
func (n *Net) Evaluate(ctx context.Context, in []nets.Input) ([]nets.Output, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil, nets.ErrClosed
	}
	if err := nets.ValidateInputs(in); err != nil {
		return nil, err
	}
	if len(in) == 0 {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	const per = InputPlanes * 64
	if cap(n.planes) < len(in)*per {
		n.planes = make([]float32, len(in)*per)
	}
	planes := n.planes[:len(in)*per]
	for i, x := range in {
		if err := EncodeGame(x.Game, planes[i*per:(i+1)*per]); err != nil {
			return nil, fmt.Errorf("input %d: %w", i, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	policy, value, err := n.run(ctx, planes, len(in))
	if err != nil {
		return nil, err
	}
	nv := len(value) / len(in)
	out := make([]nets.Output, len(in))
	for i, x := range in {
		moves, idx, err := LegalIndices(x.Game)
		if err != nil {
			return nil, fmt.Errorf("input %d: %w", i, err)
		}
		pol := policy[i*NumMoves : (i+1)*NumMoves]
		logits := make([]float32, len(idx))
		for k, j := range idx {
			logits[k] = pol[j]
		}
		out[i] = nets.Output{Moves: moves, Logits: logits, WDL: WDLProbs(value[i*nv : (i+1)*nv])}
	}
	return out, nil
}

// run evaluates b positions, returning [b][NumMoves] policy logits and the
// value head's output ([b][3] logits or [b][1] tanh values).
func (n *Net) run(ctx context.Context, planes []float32, b int) (policy, value []float32, err error) {
	const per = InputPlanes * 64
	if n.sess == nil {
		return n.w.forwardBatch(ctx, planes, b)
	}
	outs, err := n.sess.Run(ort.Tensor{Name: ONNXInput, Shape: []int64{int64(b), InputPlanes, 8, 8}, Float32: planes})
	if err != nil {
		return nil, nil, fmt.Errorf("lc0: %w", err)
	}
	if len(outs) != 2 || len(outs[0].Float32) != b*NumMoves || len(outs[1].Float32)%b != 0 || len(outs[1].Float32) == 0 {
		return nil, nil, fmt.Errorf("lc0: ONNX Runtime returned unexpected outputs for batch %d", b)
	}
	return outs[0].Float32, outs[1].Float32, nil
}
