package transformer

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/nets/ort"

	"github.com/humchess/humchess/internal/testenv"
)

// ortLib returns the ONNX Runtime library path, or skips the test.
func ortLib(t testing.TB) string {
	t.Helper()
	loc, err := ort.Resolve("")
	if err != nil {
		testenv.Missing(t, "ONNX Runtime not available (run make onnxruntime or set ONNXRUNTIME_SHARED_LIBRARY_PATH): %v", err)
	}
	if _, err := os.Stat(loc.Path); err != nil && loc.Path != "" {
		testenv.Missing(t, "ONNX Runtime library %s: %v", loc.Path, err)
	}
	return loc.Path
}

// randomBatch returns n positions of random tokens and features.
func randomBatch(a Arch, n int, seed uint64) Batch {
	rng := rand.New(rand.NewPCG(seed, 7))
	b := Batch{N: n, Pieces: make([]int64, n*NumSquares), Squares: make([]float32, n*NumSquares*a.SquareDim), Global: make([]float32, n*a.GlobalDim)}
	for i := range b.Pieces {
		b.Pieces[i] = int64(rng.IntN(NumPieces))
	}
	for i := range b.Squares {
		b.Squares[i] = float32(rng.NormFloat64())
	}
	for i := range b.Global {
		b.Global[i] = float32(rng.NormFloat64())
	}
	return b
}

// runONNX runs model bytes on a batch through ONNX Runtime.
func runONNX(t testing.TB, model []byte, a Arch, b Batch, threads int) Result {
	t.Helper()
	s, err := ort.NewSession(model, ort.SessionOptions{LibraryPath: ortLib(t), IntraOpThreads: threads})
	require.NoError(t, err)
	defer s.Close()
	outs, err := s.Run(
		ort.Tensor{Name: InputPieces, Shape: []int64{int64(b.N), NumSquares}, Int64: b.Pieces},
		ort.Tensor{Name: InputSquares, Shape: []int64{int64(b.N), NumSquares, int64(a.SquareDim)}, Float32: b.Squares},
		ort.Tensor{Name: InputGlobal, Shape: []int64{int64(b.N), int64(a.GlobalDim)}, Float32: b.Global},
	)
	require.NoError(t, err)
	get := func(name string, width int) []float32 {
		o, ok := ort.Find(outs, name)
		require.True(t, ok, "output %q missing", name)
		require.Equal(t, []int64{int64(b.N), int64(width)}, o.Shape, "output %q shape", name)
		return o.Float32
	}
	r := Result{N: b.N, Move: get(OutputMove, board.NumMoves), WDL: get(OutputWDL, NumWDL),
		Time: get(OutputTime, NumTimeBins), From: get(OutputFrom, NumSquares), To: get(OutputTo, NumSquares)}
	if a.LegalHead {
		r.Legal = get(OutputLegal, board.NumMoves)
	} else {
		_, ok := ort.Find(outs, OutputLegal)
		require.False(t, ok, "a net without the legal head has a %q output", OutputLegal)
	}
	return r
}

// maxDiff returns the largest absolute difference and its index.
func maxDiff(a, b []float32) (float64, int) {
	m, at := 0.0, -1
	for i := range a {
		if d := math.Abs(float64(a[i]) - float64(b[i])); d > m || math.IsNaN(d) {
			m, at = d, i
		}
	}
	return m, at
}

// requireClose checks two results agree to tol.
func requireClose(t testing.TB, want, got Result, tol float64, what string) {
	t.Helper()
	for _, o := range []struct {
		name      string
		want, got []float32
	}{{"move", want.Move, got.Move}, {"wdl", want.WDL, got.WDL}, {"time", want.Time, got.Time}, {"from", want.From, got.From}, {"to", want.To, got.To}, {"legal", want.Legal, got.Legal}} {
		require.Len(t, o.got, len(o.want), "%s: output %s length", what, o.name)
		if d, at := maxDiff(o.want, o.got); !(d < tol) {
			require.Failf(t, "outputs differ", "%s: output %s index %d: Go %v, ONNX %v (|diff| %g >= %g)", what, o.name, at, o.want[at], o.got[at], d, tol)
		}
	}
}

func TestONNXMatchesForwardRandomInputs(t *testing.T) {
	lib := ortLib(t)
	_ = lib
	for _, tc := range []struct {
		name    string
		smolgen bool
		batch   int
		legal   bool
		experts int
	}{
		{"smolgen/batch1", true, 1, false, 0},
		{"smolgen/batch5", true, 5, false, 0},
		{"plain/batch1", false, 1, false, 0},
		{"plain/batch5", false, 5, false, 0},
		{"legal/batch5", true, 5, true, 0},
		{"experts/batch1", true, 1, false, 1},
		{"experts/batch5", true, 5, false, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := Tiny(board.DefaultContract())
			a.Smolgen, a.LegalHead, a.RatingExperts = tc.smolgen, tc.legal, tc.experts
			w, err := RandomWeights(a, 1)
			require.NoError(t, err)
			m, err := NewModel(a, w)
			require.NoError(t, err)
			model, err := BuildONNX(a, w)
			require.NoError(t, err)
			b := randomBatch(a, tc.batch, 3)
			want, err := m.Forward(b)
			require.NoError(t, err)
			got := runONNX(t, model, a, b, 1)
			requireClose(t, want, got, 1e-4, tc.name)
		})
	}
}

// TestEveryWeightMatters perturbs each tensor in turn: both the Go forward and
// the ONNX graph must change, and still agree, so neither ignores a weight.
func TestEveryWeightMatters(t *testing.T) {
	ortLib(t)
	a := Tiny(board.DefaultContract())
	a.Layers, a.LegalHead, a.RatingExperts = 1, true, 1
	w, err := RandomWeights(a, 2)
	require.NoError(t, err)
	b := randomBatch(a, 2, 4)
	m, err := NewModel(a, w)
	require.NoError(t, err)
	base, err := m.Forward(b)
	require.NoError(t, err)
	for _, tn := range a.Tensors() {
		w2 := make(Weights, len(w))
		for k, v := range w {
			w2[k] = v
		}
		v := append([]float32(nil), w[tn.Name]...)
		for i := range v {
			v[i] += 0.3 * float32(1+i%3)
		}
		w2[tn.Name] = v
		m2, err := NewModel(a, w2)
		require.NoError(t, err)
		want, err := m2.Forward(b)
		require.NoError(t, err)
		changed := false
		for _, p := range [][2][]float32{{base.Move, want.Move}, {base.WDL, want.WDL}, {base.Time, want.Time}, {base.From, want.From}, {base.To, want.To}, {base.Legal, want.Legal}} {
			if d, _ := maxDiff(p[0], p[1]); d > 1e-3 {
				changed = true
			}
		}
		require.True(t, changed, "perturbing %s does not change the Go forward", tn.Name)
		model, err := BuildONNX(a, w2)
		require.NoError(t, err)
		requireClose(t, want, runONNX(t, model, a, b, 1), 1e-4, "perturbed "+tn.Name)
	}
}

func TestForwardRefusesBadInput(t *testing.T) {
	a := Tiny(board.DefaultContract())
	w, err := RandomWeights(a, 1)
	require.NoError(t, err)
	m, err := NewModel(a, w)
	require.NoError(t, err)
	good := randomBatch(a, 2, 1)
	for _, tc := range []struct {
		name   string
		change func(*Batch)
	}{
		{"negative n", func(b *Batch) { b.N = -1 }},
		{"short pieces", func(b *Batch) { b.Pieces = b.Pieces[1:] }},
		{"short squares", func(b *Batch) { b.Squares = b.Squares[1:] }},
		{"long global", func(b *Batch) { b.Global = append(b.Global, 0) }},
		{"piece token 13", func(b *Batch) { b.Pieces = append([]int64{13}, b.Pieces[1:]...) }},
		{"piece token -1", func(b *Batch) { b.Pieces = append([]int64{-1}, b.Pieces[1:]...) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := good
			tc.change(&b)
			_, err := m.Forward(b)
			assert.ErrorIs(t, err, ErrInput)
		})
	}
	r, err := m.Forward(Batch{})
	require.NoError(t, err)
	assert.Empty(t, r.Move)

	delete(w, "norm")
	_, err = NewModel(a, w)
	assert.ErrorIs(t, err, ErrWeights)
}

func FuzzParseArch(f *testing.F) {
	f.Add(Tiny(board.DefaultContract()).JSON())
	f.Add(`{"layers":1e9}`)
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseArch(s)
		if err != nil {
			return
		}
		require.NoError(t, a.Validate())
		require.Equal(t, a.ParamCount(), func() int64 {
			var n int64
			for _, ts := range a.Tensors() {
				n += int64(ts.Size())
			}
			return n
		}())
	})
}
