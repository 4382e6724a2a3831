package transformer

import (
	"math"
	"math/rand/v2"
	"strings"

	"github.com/humchess/humchess/board"
)

// RandomWeights returns weights for a drawn from a seeded generator, for
// tests and benchmarks: matrices ~ N(0, 1/in), biases and embeddings small,
// norm gains near 1 (perturbed so that a mix-up of gains shows in tests).
// The same arch and seed give the same weights.
func RandomWeights(a Arch, seed uint64) (Weights, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	w := make(Weights)
	for _, t := range a.Tensors() {
		v := make([]float32, t.Size())
		switch {
		case isGain(t.Name):
			for i := range v {
				v[i] = float32(1 + 0.2*rng.NormFloat64())
			}
		case strings.HasSuffix(t.Name, ".bias"):
			for i := range v {
				v[i] = float32(0.1 * rng.NormFloat64())
			}
		case strings.HasPrefix(t.Name, "embed.piece") || t.Name == "embed.pos":
			for i := range v {
				v[i] = float32(0.5 * rng.NormFloat64())
			}
		default: // a [out,in] matrix
			std := 1 / math.Sqrt(float64(t.Shape[len(t.Shape)-1]))
			for i := range v {
				v[i] = float32(std * rng.NormFloat64())
			}
		}
		w[t.Name] = v
	}
	return w, nil
}

// isGain reports whether the tensor is an RMSNorm gain.
func isGain(name string) bool {
	for _, s := range []string{"norm", "norm1", "norm2", "qnorm", "knorm"} {
		if name == s || strings.HasSuffix(name, "."+s) {
			return true
		}
	}
	return false
}

// RandomONNX returns the ONNX model (BuildONNX) of the named preset (Preset,
// with this build's default contract) with RandomWeights drawn from seed,
// for tests and benchmarks of the engine without a trained net.
func RandomONNX(preset string, seed uint64) ([]byte, error) {
	a, err := Preset(preset, board.DefaultContract())
	if err != nil {
		return nil, err
	}
	w, err := RandomWeights(a, seed)
	if err != nil {
		return nil, err
	}
	return BuildONNX(a, w)
}
