package transformer

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/nets"
	"github.com/humchess/humchess/nets/onnx"
	"github.com/humchess/humchess/nets/ort"
)

// Options configure Open. The zero value runs ONNX Runtime (found as
// nets/ort resolves it) with one thread and falls back to pure Go.
type Options struct {
	Backend     Backend
	LibraryPath string // ONNX Runtime shared library; "" = ort.Resolve's search order
	Threads     int    // ONNX Runtime intra-op threads; 0 means 1
	MaxBatch    int    // positions per ONNX Runtime run; 0 means 256. Evaluate checks ctx between runs
	Name        string // Info.Name; "" means "humchess-nn-<first 12 hex digits of the sha256>"
}

// Net is a HumChess transformer running on ONNX Runtime or, without it, on
// the pure-Go forward pass; it implements nets.Net.
type Net struct {
	mu       sync.Mutex
	sess     *ort.Session // nil with the pure-Go backend
	model    *Model       // nil with ONNX Runtime
	backend  Backend
	closed   bool
	arch     Arch
	contract board.Contract
	info     nets.Info
	maxBatch int

	// With rating experts (Arch.RatingExperts) and ONNX Runtime: the
	// weights, to fold the experts for one mover rating (experts.go), the
	// session options, and the folded sessions, most recently used first.
	weights  Weights
	sessOpts ort.SessionOptions
	folded   []foldedSession
}

var _ nets.Net = (*Net)(nil)

// OpenFile reads an ONNX file and opens it (see Open).
func OpenFile(path string, opts Options) (*Net, error) {
	model, err := LoadONNX(path)
	if err != nil {
		return nil, err
	}
	n, err := Open(model, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return n, nil
}

// ReadArch reads and checks the metadata of a HumChess ONNX model: the
// architecture, the contract (which must be this build's:
// nets.ErrContractMismatch names both versions otherwise), the vocabulary and
// history length, and the weights' sha256.
func ReadArch(model []byte) (Arch, string, error) {
	meta, err := onnx.ReadMetadata(model)
	if err != nil {
		return Arch{}, "", fmt.Errorf("transformer: %w", err)
	}
	get := func(key string) (string, error) {
		v, ok := meta[key]
		if !ok {
			return "", fmt.Errorf("%w: the model's metadata has no %q", ErrNotHumChess, key)
		}
		return v, nil
	}
	getInt := func(key string) (int64, error) {
		v, err := get(key)
		if err != nil {
			return 0, err
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%w: metadata %s = %q is not an integer", ErrNotHumChess, key, v)
		}
		return n, nil
	}
	archJSON, err := get(MetaArch)
	if err != nil {
		return Arch{}, "", err
	}
	version, err := getInt(MetaContractVersion)
	if err != nil {
		return Arch{}, "", err
	}
	if err := nets.CheckContract(int(version), board.ContractVersion); err != nil {
		return Arch{}, "", err
	}
	derived, err := getInt(MetaContractDerived)
	if err != nil {
		return Arch{}, "", err
	}
	a, err := ParseArch(archJSON)
	if err != nil {
		return Arch{}, "", err
	}
	if int64(a.ContractVersion) != version || int64(a.ContractDerived) != derived {
		return Arch{}, "", fmt.Errorf("%w: metadata says contract %d/%d, the arch says %d/%d",
			ErrArch, version, derived, a.ContractVersion, a.ContractDerived)
	}
	c := a.Contract()
	if err := c.Validate(); err != nil {
		return Arch{}, "", fmt.Errorf("transformer: the net's contract: %w", err)
	}
	if a.SquareDim != c.SquareDim() || a.GlobalDim != c.GlobalDim() {
		return Arch{}, "", fmt.Errorf("%w: the net takes %d square and %d global inputs, contract %d with derived bits %#x gives %d and %d",
			ErrArch, a.SquareDim, a.GlobalDim, c.Version, c.Derived, c.SquareDim(), c.GlobalDim())
	}
	if v, err := get(MetaVocab); err != nil {
		return Arch{}, "", err
	} else if v != VocabMeta {
		return Arch{}, "", fmt.Errorf("%w: the net's vocabulary is %q, this build uses %q", nets.ErrContractMismatch, v, VocabMeta)
	}
	if h, err := getInt(MetaHistory); err != nil {
		return Arch{}, "", err
	} else if h != board.HistoryLen {
		return Arch{}, "", fmt.Errorf("%w: the net's history length is %d, this build uses %d", nets.ErrContractMismatch, h, board.HistoryLen)
	}
	sum, err := get(MetaSHA256)
	if err != nil {
		return Arch{}, "", err
	}
	if b, err := hex.DecodeString(sum); err != nil || len(b) != 32 {
		return Arch{}, "", fmt.Errorf("%w: metadata %s = %q is not a hex sha256", ErrNotHumChess, MetaSHA256, sum)
	}
	return a, sum, nil
}

// Open checks the model's metadata (ReadArch) and starts an ONNX Runtime
// session for it; with BackendGo, or with BackendAuto where ONNX Runtime is
// unavailable (no library, the wrong version, a build without cgo), it runs
// the pure-Go forward pass on the weights read back from the model
// (WeightsFromONNX).
func Open(model []byte, opts Options) (*Net, error) {
	a, sum, err := ReadArch(model)
	if err != nil {
		return nil, err
	}
	if opts.Threads < 0 || opts.MaxBatch < 0 {
		return nil, fmt.Errorf("transformer: negative option (threads %d, max batch %d)", opts.Threads, opts.MaxBatch)
	}
	name := opts.Name
	if name == "" {
		name = "humchess-nn-" + sum[:12]
	}
	n := &Net{
		arch:     a,
		contract: a.Contract(),
		maxBatch: opts.MaxBatch,
		info: nets.Info{
			Name:            name,
			Kind:            nets.KindHumChess,
			ContractVersion: a.ContractVersion,
			ContractDerived: a.ContractDerived,
			HasWDL:          true,
			HasTime:         true,
			ThinkBinEdges:   append([]float64(nil), board.ThinkBinEdges[:]...),
			Hash:            sum,
		},
	}
	if n.maxBatch == 0 {
		n.maxBatch = 256
	}
	if err := n.info.Validate(); err != nil {
		return nil, err
	}
	switch opts.Backend {
	case BackendAuto, BackendORT, BackendGo:
	default:
		return nil, fmt.Errorf("%w: unknown backend %q", ErrInput, opts.Backend)
	}
	if opts.Backend != BackendGo {
		model := upgradeGraph(a, sum, model)
		so := ort.SessionOptions{
			LibraryPath:    opts.LibraryPath,
			IntraOpThreads: opts.Threads,
			Outputs:        []string{OutputMove, OutputWDL, OutputTime},
		}
		sess, err := ort.NewSession(model, so)
		if err == nil {
			n.sess, n.backend, n.sessOpts = sess, BackendORT, so
			if a.RatingExperts > 0 { // without the weights, the experts are mixed per position
				n.weights, _ = WeightsFromONNX(a, sum, model)
			}
			return n, nil
		}
		if opts.Backend == BackendORT || !(errors.Is(err, ort.ErrNoLibrary) || errors.Is(err, ort.ErrWrongVersion)) {
			return nil, fmt.Errorf("transformer: %w", err)
		}
	}
	w, err := WeightsFromONNX(a, sum, model)
	if err != nil {
		return nil, err
	}
	if n.model, err = NewModel(a, w); err != nil {
		return nil, err
	}
	n.backend = BackendGo
	return n, nil
}

// upgradeGraph rebuilds a model written before BuildONNX used the opset-23
// Attention op (its graph computes the same function, more slowly) from the
// weights it holds. A model whose weights cannot be read back as a HumChess
// net's runs as it is.
func upgradeGraph(a Arch, sum string, model []byte) []byte {
	info, err := onnx.ReadInfo(model)
	if err != nil || info.Opsets[""] >= 23 {
		return model
	}
	w, err := WeightsFromONNX(a, sum, model)
	if err != nil {
		return model
	}
	rebuilt, err := BuildONNX(a, w)
	if err != nil {
		return model
	}
	return rebuilt
}

// Backend reports the backend in use: BackendORT or BackendGo.
func (n *Net) Backend() Backend { return n.backend }

// Arch returns the net's architecture.
func (n *Net) Arch() Arch { return n.arch }

// Info describes the net. It does not block.
func (n *Net) Info() nets.Info {
	i := n.info
	i.ThinkBinEdges = append([]float64(nil), i.ThinkBinEdges...)
	return i
}

// Close releases the ONNX Runtime session; Evaluate fails afterwards. Safe
// to call twice.
func (n *Net) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil
	}
	n.closed = true
	n.model = nil
	if n.sess == nil {
		return nil
	}
	err := n.sess.Close()
	if ferr := n.closeFolded(); err == nil {
		err = ferr
	}
	n.sess, n.weights = nil, nil
	return err
}

// EncodeInputs encodes positions into the net's input tensors with
// board.Encode and c.Fill.
func EncodeInputs(c board.Contract, in []nets.Input) (Batch, error) {
	if err := nets.ValidateInputs(in); err != nil {
		return Batch{}, err
	}
	S, G := c.SquareDim(), c.GlobalDim()
	b := Batch{
		N:       len(in),
		Pieces:  make([]int64, len(in)*NumSquares),
		Squares: make([]float32, len(in)*NumSquares*S),
		Global:  make([]float32, len(in)*G),
	}
	var e board.Encoded
	for i, x := range in {
		board.EncodeTo(&e, x.Game, x.Ctx)
		err := c.Fill(&e,
			b.Pieces[i*NumSquares:(i+1)*NumSquares],
			b.Squares[i*NumSquares*S:(i+1)*NumSquares*S],
			b.Global[i*G:(i+1)*G])
		if err != nil {
			return Batch{}, fmt.Errorf("transformer: encoding input %d: %w", i, err)
		}
	}
	return b, nil
}

// Run runs the net on encoded inputs and returns the move, wdl and time
// logits (From and To are left nil: Open does not ask ONNX Runtime for
// them). It blocks.
func (n *Net) Run(b Batch) (Result, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.run(b)
}

func (n *Net) run(b Batch) (Result, error) {
	if n.closed {
		return Result{}, nets.ErrClosed
	}
	if err := n.arch.checkBatch(b); err != nil {
		return Result{}, err
	}
	if b.N == 0 {
		return Result{}, nil
	}
	if n.model != nil {
		return n.model.Forward(b)
	}
	N := int64(b.N)
	outs, err := n.session(b).Run(
		ort.Tensor{Name: InputPieces, Shape: []int64{N, NumSquares}, Int64: b.Pieces},
		ort.Tensor{Name: InputSquares, Shape: []int64{N, NumSquares, int64(n.arch.SquareDim)}, Float32: b.Squares},
		ort.Tensor{Name: InputGlobal, Shape: []int64{N, int64(n.arch.GlobalDim)}, Float32: b.Global},
	)
	if err != nil {
		return Result{}, fmt.Errorf("transformer: %w", err)
	}
	r := Result{N: b.N}
	for _, o := range []struct {
		name  string
		width int
		dst   *[]float32
	}{{OutputMove, board.NumMoves, &r.Move}, {OutputWDL, NumWDL, &r.WDL}, {OutputTime, NumTimeBins, &r.Time}} {
		t, ok := ort.Find(outs, o.name)
		if !ok || len(t.Float32) != b.N*o.width {
			return Result{}, fmt.Errorf("transformer: output %q missing or of shape %v, want [%d %d]", o.name, t.Shape, b.N, o.width)
		}
		*o.dst = t.Float32
	}
	return r, nil
}

// Evaluate encodes the positions, runs them in batches of at most
// Options.MaxBatch and returns, per position, the logits of its legal moves
// (in Game.LegalMoves order) and the WDL and think-time probabilities. It
// blocks; it is safe for one caller at a time (calls are serialised).
func (n *Net) Evaluate(ctx context.Context, in []nets.Input) ([]nets.Output, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b, err := EncodeInputs(n.contract, in)
	if err != nil {
		return nil, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make([]nets.Output, 0, len(in))
	S, G := n.arch.SquareDim, n.arch.GlobalDim
	for lo := 0; lo < b.N; lo += n.maxBatch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		hi := min(lo+n.maxBatch, b.N)
		r, err := n.run(Batch{
			N:       hi - lo,
			Pieces:  b.Pieces[lo*NumSquares : hi*NumSquares],
			Squares: b.Squares[lo*NumSquares*S : hi*NumSquares*S],
			Global:  b.Global[lo*G : hi*G],
		})
		if err != nil {
			return nil, err
		}
		o, err := Outputs(r, in[lo:hi])
		if err != nil {
			return nil, err
		}
		out = append(out, o...)
	}
	return out, nil
}

// Outputs turns raw results into nets.Output: the move logits gathered at
// each legal move's vocabulary index (board.MoveToIndex in the mover's
// frame), softmax WDL and time probabilities.
func Outputs(r Result, in []nets.Input) ([]nets.Output, error) {
	if r.N != len(in) || len(r.Move) != r.N*board.NumMoves || len(r.WDL) != r.N*NumWDL || len(r.Time) != r.N*NumTimeBins {
		return nil, fmt.Errorf("%w: results for %d positions do not fit %d inputs", ErrInput, r.N, len(in))
	}
	out := make([]nets.Output, len(in))
	for i, x := range in {
		g := x.Game
		moves := g.LegalMoves()
		white := g.WhiteToMove()
		row := r.Move[i*board.NumMoves : (i+1)*board.NumMoves]
		logits := make([]float32, len(moves))
		for j, m := range moves {
			k, ok := board.MoveToIndex(m, white)
			if !ok {
				return nil, fmt.Errorf("%w: input %d: legal move %s has no vocabulary index", ErrInput, i, m)
			}
			logits[j] = row[k]
		}
		out[i] = nets.Output{
			Moves:  moves,
			Logits: logits,
			WDL:    nets.Softmax(nil, r.WDL[i*NumWDL:(i+1)*NumWDL]),
			Time:   nets.Softmax(nil, r.Time[i*NumTimeBins:(i+1)*NumTimeBins]),
		}
	}
	return out, nil
}
