package transformer

import (
	"fmt"

	"github.com/humchess/humchess/nets/ort"
)

// maxFolded is how many folded sessions a Net with rating experts keeps (one
// per distinct mover-rating input; a game needs two, the engine's side and
// the opponent's).
const maxFolded = 4

// FoldRatingExperts returns the net without rating experts that computes
// what (a, w) computes for every position whose mover-rating inputs (the
// first NumRatingExperts global inputs) are mix: each expert layer's ffn.w1
// and ffn.w2 become the mixed matrices. The plain net runs at the speed of a
// net without experts. w is not modified.
func FoldRatingExperts(a Arch, w Weights, mix []float32) (Arch, Weights, error) {
	if err := w.Check(a); err != nil {
		return Arch{}, nil, err
	}
	if len(mix) != NumRatingExperts {
		return Arch{}, nil, fmt.Errorf("%w: %d rating-expert weights, want %d", ErrInput, len(mix), NumRatingExperts)
	}
	f := a
	f.RatingExperts = 0
	out := Weights{}
	for _, t := range f.Tensors() {
		out[t.Name] = w[t.Name]
	}
	for l := 0; l < a.Layers; l++ {
		if !a.HasExperts(l) {
			continue
		}
		for _, m := range []string{"ffn.w1", "ffn.w2"} {
			name := fmt.Sprintf("layers.%d.%s", l, m)
			out[name] = mixExperts(w[name], w[name+".experts"], mix)
		}
	}
	return f, out, nil
}

// foldedSession is an ONNX Runtime session of the net folded for one
// mover-rating input.
type foldedSession struct {
	mix  [NumRatingExperts]float32
	sess *ort.Session
}

// sameMix returns the mover-rating inputs of b when every position has the
// same ones.
func (n *Net) sameMix(b Batch) ([NumRatingExperts]float32, bool) {
	var mix [NumRatingExperts]float32
	G := n.arch.GlobalDim
	copy(mix[:], b.Global[:NumRatingExperts])
	for i := 1; i < b.N; i++ {
		if [NumRatingExperts]float32(b.Global[i*G:i*G+NumRatingExperts]) != mix {
			return mix, false
		}
	}
	return mix, true
}

// session returns the ONNX Runtime session to run b on: for a net with
// rating experts and a batch of one mover-rating input, the net folded for
// it (made on first use, the most recent maxFolded kept), else the net's
// own session, which mixes the experts per position. Called with n.mu held.
func (n *Net) session(b Batch) *ort.Session {
	if n.weights == nil || b.N == 0 {
		return n.sess
	}
	mix, ok := n.sameMix(b)
	if !ok {
		return n.sess
	}
	for i, f := range n.folded {
		if f.mix == mix {
			copy(n.folded[1:i+1], n.folded[:i]) // most recent first
			n.folded[0] = f
			return f.sess
		}
	}
	a, w, err := FoldRatingExperts(n.arch, n.weights, mix[:])
	if err != nil {
		return n.sess
	}
	model, err := BuildONNX(a, w)
	if err != nil {
		return n.sess
	}
	sess, err := ort.NewSession(model, n.sessOpts)
	if err != nil { // the net's own session still works
		return n.sess
	}
	if len(n.folded) == maxFolded {
		last := n.folded[maxFolded-1]
		_ = last.sess.Close()
		n.folded = n.folded[:maxFolded-1]
	}
	n.folded = append([]foldedSession{{mix: mix, sess: sess}}, n.folded...)
	return sess
}

// closeFolded closes the folded sessions. Called with n.mu held.
func (n *Net) closeFolded() error {
	var first error
	for _, f := range n.folded {
		if err := f.sess.Close(); err != nil && first == nil {
			first = err
		}
	}
	n.folded = nil
	return first
}
