package nets

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"

	"github.com/humchess/humchess/board"
)

// Net kinds.
const (
	KindHumChess = "humchess" // a HumChess transformer (board's encoding contract)
	KindLc0      = "lc0"      // an Lc0/Maia net (its own 112-plane encoding)
	KindFake     = "fake"     // Fake, for tests
)

// Info is what a net says about itself.
type Info struct {
	Name            string    // human-readable, e.g. "humchess-nn-1a2b3c4d5e6f" or "maia-1500"
	Kind            string    // KindHumChess, KindLc0 or KindFake
	ContractVersion int       // board.ContractVersion the net was made for; 0 for KindLc0
	ContractDerived uint32    // board.Contract.Derived bits the net was made for; 0 for KindLc0
	HasWDL          bool      // the net has a win/draw/loss head
	HasTime         bool      // the net has a think-time head
	ThinkBinEdges   []float64 // upper bin edges in seconds (board.ThinkBinEdges); nil without a time head
	Hash            string    // hex sha256 of the weights
}

// ShortHash is the first 12 hex digits of Hash, for names like nn-<hash>.
func (i Info) ShortHash() string {
	if len(i.Hash) <= 12 {
		return i.Hash
	}
	return i.Hash[:12]
}

// String is a one-line summary for logs and `info string`.
func (i Info) String() string {
	heads := "policy"
	if i.HasWDL {
		heads += "+wdl"
	}
	if i.HasTime {
		heads += "+time"
	}
	return fmt.Sprintf("%s (%s, contract %d, %s, %s)", i.Name, i.Kind, i.ContractVersion, heads, i.ShortHash())
}

// CheckContract reports ErrContractMismatch, naming both versions, when a
// net made for contract netVersion is used where want is required.
func CheckContract(netVersion, want int) error {
	if netVersion != want {
		return fmt.Errorf("%w: the net was made for encoding contract version %d, this build uses version %d; use a net made for version %d",
			ErrContractMismatch, netVersion, want, want)
	}
	return nil
}

// CheckThinkBins reports ErrBadInfo unless edges equal board.ThinkBinEdges.
func CheckThinkBins(edges []float64) error {
	want := board.ThinkBinEdges[:]
	if len(edges) != len(want) {
		return fmt.Errorf("%w: %d think-time bin edges %v, want %d %v", ErrBadInfo, len(edges), edges, len(want), want)
	}
	for k := range want {
		if math.Abs(edges[k]-want[k]) > 1e-9 {
			return fmt.Errorf("%w: think-time bin edges %v, want %v", ErrBadInfo, edges, want)
		}
	}
	return nil
}

// Validate checks that i is consistent and usable by this build: a known
// kind, a HumChess net of this build's contract version, think-time edges
// that match board's when there is a time head, a hex sha256 hash.
func (i Info) Validate() error {
	switch i.Kind {
	case KindHumChess:
		if err := CheckContract(i.ContractVersion, board.ContractVersion); err != nil {
			return err
		}
	case KindLc0, KindFake:
	default:
		return fmt.Errorf("%w: unknown kind %q (want %q or %q)", ErrBadInfo, i.Kind, KindHumChess, KindLc0)
	}
	if i.HasTime {
		if err := CheckThinkBins(i.ThinkBinEdges); err != nil {
			return err
		}
	} else if i.ThinkBinEdges != nil {
		return fmt.Errorf("%w: think-time bin edges without a time head", ErrBadInfo)
	}
	if len(i.Hash) != 2*sha256.Size {
		return fmt.Errorf("%w: hash %q is not a hex sha256", ErrBadInfo, i.Hash)
	}
	if _, err := hex.DecodeString(i.Hash); err != nil {
		return fmt.Errorf("%w: hash %q is not a hex sha256", ErrBadInfo, i.Hash)
	}
	return nil
}

// HashBytes is the hex sha256 of data, the form Info.Hash takes.
func HashBytes(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// Softmax writes the softmax of logits into dst (allocated when nil or too
// short) and returns it. It is stable for large logits; -Inf entries get 0.
// All -Inf (or empty) input gives all zeros.
func Softmax(dst, logits []float32) []float32 {
	if cap(dst) < len(logits) {
		dst = make([]float32, len(logits))
	}
	dst = dst[:len(logits)]
	mx := math.Inf(-1)
	for _, v := range logits {
		mx = max(mx, float64(v))
	}
	if math.IsInf(mx, -1) || math.IsNaN(mx) {
		clear(dst)
		return dst
	}
	sum := 0.0
	for k, v := range logits {
		e := math.Exp(float64(v) - mx)
		dst[k] = float32(e)
		sum += e
	}
	for k := range dst {
		dst[k] = float32(float64(dst[k]) / sum)
	}
	return dst
}
