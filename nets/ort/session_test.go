//go:build cgo

package ort

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/internal/testenv"
	"github.com/humchess/humchess/nets/onnx"
)

// requireORT loads the library or skips the test saying how to get it.
func requireORT(t testing.TB) {
	t.Helper()
	if err := Init(""); err != nil {
		if errors.Is(err, ErrNoLibrary) || errors.Is(err, ErrWrongVersion) {
			testenv.Missing(t, "ONNX Runtime not available (run `make onnxruntime` or set %s): %v", EnvLibraryPath, err)
		}
		t.Fatalf("Init: %v", err)
	}
}

func randFloats(r *rand.Rand, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(r.NormFloat64())
	}
	return out
}

func maxAbsDiff(a, b []float32) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	m := 0.0
	for i := range a {
		m = max(m, math.Abs(float64(a[i])-float64(b[i])))
	}
	return m
}

// graphCase is a model written by nets/onnx plus the same computation in Go.
type graphCase struct {
	name   string
	build  func(r *rand.Rand, g *onnx.Graph) any                          // fills g, returns the weights (passed to ref)
	inputs func(r *rand.Rand, batch int) []Tensor                         // random inputs
	ref    func(weights any, in []Tensor, batch int) map[string][]float32 // expected outputs by name
}

type mlpWeights struct{ w, b []float32 }

type convWeights struct{ w, b []float32 }

type gatherWeights struct{ table []float32 }

type rmsWeights struct{ w []float32 }

const (
	mlpIn, mlpOut                = 5, 4
	convC, convO, convHW         = 2, 3, 5
	gatherN, gatherRows          = 4, 13
	gatherDim                    = 6
	rmsT, rmsD                   = 3, 8
	rmsEps               float32 = 1e-6
)

func graphCases() []graphCase {
	return []graphCase{
		{
			name: "matmul_add_softmax",
			build: func(r *rand.Rand, g *onnx.Graph) any {
				w := mlpWeights{w: randFloats(r, mlpIn*mlpOut), b: randFloats(r, mlpOut)}
				x := g.Input("x", onnx.Float, onnx.Batch, mlpIn)
				y := g.Softmax(g.Add(g.MatMul(x, g.Initializer("w", []int64{mlpIn, mlpOut}, w.w)), g.Initializer("b", []int64{mlpOut}, w.b)), -1)
				g.Output("y", y, onnx.Float, onnx.Batch, mlpOut)
				return w
			},
			inputs: func(r *rand.Rand, batch int) []Tensor {
				return []Tensor{{Name: "x", Shape: []int64{int64(batch), mlpIn}, Float32: randFloats(r, batch*mlpIn)}}
			},
			ref: func(ws any, in []Tensor, batch int) map[string][]float32 {
				w := ws.(mlpWeights)
				x := in[0].Float32
				out := make([]float32, batch*mlpOut)
				for n := range batch {
					row := out[n*mlpOut : (n+1)*mlpOut]
					mx := math.Inf(-1)
					for j := range mlpOut {
						s := float64(w.b[j])
						for i := range mlpIn {
							s += float64(x[n*mlpIn+i]) * float64(w.w[i*mlpOut+j])
						}
						row[j] = float32(s)
						mx = max(mx, s)
					}
					sum := 0.0
					for j := range row {
						e := math.Exp(float64(row[j]) - mx)
						row[j] = float32(e)
						sum += e
					}
					for j := range row {
						row[j] = float32(float64(row[j]) / sum)
					}
				}
				return map[string][]float32{"y": out}
			},
		},
		{
			name: "conv3x3_relu",
			build: func(r *rand.Rand, g *onnx.Graph) any {
				w := convWeights{w: randFloats(r, convO*convC*9), b: randFloats(r, convO)}
				x := g.Input("x", onnx.Float, onnx.Batch, convC, convHW, convHW)
				y := g.Relu(g.Conv(x, g.Initializer("w", []int64{convO, convC, 3, 3}, w.w), g.Initializer("b", []int64{convO}, w.b), []int64{1, 1, 1, 1}))
				g.Output("y", y, onnx.Float, onnx.Batch, convO, convHW, convHW)
				return w
			},
			inputs: func(r *rand.Rand, batch int) []Tensor {
				return []Tensor{{Name: "x", Shape: []int64{int64(batch), convC, convHW, convHW}, Float32: randFloats(r, batch*convC*convHW*convHW)}}
			},
			ref: func(ws any, in []Tensor, batch int) map[string][]float32 {
				w := ws.(convWeights)
				x := in[0].Float32
				const hw = convHW
				out := make([]float32, batch*convO*hw*hw)
				for n := range batch {
					for o := range convO {
						for i := range hw {
							for j := range hw {
								s := float64(w.b[o])
								for c := range convC {
									for di := range 3 {
										for dj := range 3 {
											ii, jj := i+di-1, j+dj-1
											if ii < 0 || jj < 0 || ii >= hw || jj >= hw {
												continue
											}
											s += float64(x[((n*convC+c)*hw+ii)*hw+jj]) * float64(w.w[((o*convC+c)*3+di)*3+dj])
										}
									}
								}
								out[((n*convO+o)*hw+i)*hw+j] = float32(max(s, 0))
							}
						}
					}
				}
				return map[string][]float32{"y": out}
			},
		},
		{
			name: "gather_embedding",
			build: func(r *rand.Rand, g *onnx.Graph) any {
				w := gatherWeights{table: randFloats(r, gatherRows*gatherDim)}
				p := g.Input("pieces", onnx.Int64, onnx.Batch, gatherN)
				y := g.Gather(g.Initializer("table", []int64{gatherRows, gatherDim}, w.table), p, 0)
				g.Output("y", y, onnx.Float, onnx.Batch, gatherN, gatherDim)
				return w
			},
			inputs: func(r *rand.Rand, batch int) []Tensor {
				idx := make([]int64, batch*gatherN)
				for i := range idx {
					idx[i] = int64(r.IntN(gatherRows))
				}
				return []Tensor{{Name: "pieces", Shape: []int64{int64(batch), gatherN}, Int64: idx}}
			},
			ref: func(ws any, in []Tensor, batch int) map[string][]float32 {
				w := ws.(gatherWeights)
				var out []float32
				for _, ix := range in[0].Int64 {
					out = append(out, w.table[ix*gatherDim:(ix+1)*gatherDim]...)
				}
				return map[string][]float32{"y": out}
			},
		},
		{
			name: "rmsnorm",
			build: func(r *rand.Rand, g *onnx.Graph) any {
				w := rmsWeights{w: randFloats(r, rmsD)}
				x := g.Input("x", onnx.Float, onnx.Batch, rmsT, rmsD)
				y := g.RMSNorm(x, g.Initializer("norm", []int64{rmsD}, w.w), rmsEps)
				g.Output("y", y, onnx.Float, onnx.Batch, rmsT, rmsD)
				return w
			},
			inputs: func(r *rand.Rand, batch int) []Tensor {
				return []Tensor{{Name: "x", Shape: []int64{int64(batch), rmsT, rmsD}, Float32: randFloats(r, batch*rmsT*rmsD)}}
			},
			ref: func(ws any, in []Tensor, batch int) map[string][]float32 {
				w := ws.(rmsWeights)
				x := in[0].Float32
				out := make([]float32, len(x))
				for row := 0; row < len(x); row += rmsD {
					ms := 0.0
					for i := range rmsD {
						ms += float64(x[row+i]) * float64(x[row+i])
					}
					inv := 1 / math.Sqrt(ms/rmsD+float64(rmsEps))
					for i := range rmsD {
						out[row+i] = float32(float64(x[row+i]) * inv * float64(w.w[i]))
					}
				}
				return map[string][]float32{"y": out}
			},
		},
	}
}

func TestGraphsMatchGo(t *testing.T) {
	requireORT(t)
	for _, opset := range []int{17, 18} {
		for ci, c := range graphCases() {
			r := rand.New(rand.NewPCG(uint64(ci), uint64(opset)))
			g := onnx.NewGraph(c.name).SetOpset(opset)
			w := c.build(r, g)
			data, err := onnx.Model{Graph: g, Metadata: map[string]string{"case": c.name}}.Marshal()
			require.NoError(t, err, "%s opset %d: marshal", c.name, opset)
			s, err := NewSession(data, SessionOptions{})
			require.NoError(t, err, "%s opset %d: session", c.name, opset)
			for _, batch := range []int{1, 7} {
				in := c.inputs(r, batch)
				got, err := s.Run(in...)
				require.NoError(t, err, "%s opset %d batch %d: run", c.name, opset, batch)
				want := c.ref(w, in, batch)
				for _, o := range got {
					d := maxAbsDiff(o.Float32, want[o.Name])
					assert.Less(t, d, 1e-4, "%s opset %d batch %d output %s: max abs diff (shape %v)", c.name, opset, batch, o.Name, o.Shape)
					assert.Equal(t, int64(batch), o.Shape[0], "%s batch dim", c.name)
				}
			}
			require.NoError(t, s.Close())
		}
	}
}
