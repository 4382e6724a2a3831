package torch

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"unsafe"

	"github.com/humchess/humchess/nets/transformer"
	"github.com/humchess/humchess/train/data/shard"
)

// A checkpoint is one safetensors file: the weights under their
// ARCHITECTURE.md names, the AdamW moments under "optim.m.NAME" and
// "optim.v.NAME", and in __metadata__ "arch" (the Arch JSON, as in exported
// nets) and "humchess.trainer" (the State JSON: step, config, data position,
// best validation loss). It is written to a temporary file and renamed.

// MetaState is the __metadata__ key of the trainer state.
const MetaState = "humchess.trainer"

// State is everything besides tensors that a resumed run needs.
type State struct {
	Step      int            `json:"step"`           // optimizer steps done
	AdamStep  int            `json:"adam_step"`      // AdamW's step count (bias correction)
	Samples   int64          `json:"samples"`        // positions trained on
	Position  shard.Position `json:"position"`       // training data position after the last step
	Data      string         `json:"data,omitempty"` // DataID of the shard set Position belongs to ("" in runs older than it)
	BestVal   *float64       `json:"best_val"`       // best validation loss so far (nil: none yet)
	ValLoss   *float64       `json:"val_loss"`       // validation loss at this checkpoint (nil: not validated)
	Config    Config         `json:"config"`         // the run's configuration
	Elapsed   float64        `json:"elapsed_s"`      // training seconds so far
	RNGStream string         `json:"rng_stream"`     // what random state the run has (see doc.go)
	// WidenedFrom is the architecture the net had before Widen made it
	// wider (nil when the net was not widened, or was grown another way
	// since): in each tensor the entries inside its old shape are the old
	// ones, the rest are new (Config.NewLRMult).
	WidenedFrom *transformer.Arch `json:"widened_from,omitempty"`
}

// ReadsOther reports whether the shard set whose train split is id is not
// the one the run's data position belongs to (runs older than DataID match
// any set).
func (s State) ReadsOther(id string) bool { return s.Data != "" && s.Data != id }

// Checkpoint is a checkpoint read back: weights, optimizer moments, state.
type Checkpoint struct {
	Arch    transformer.Arch
	Weights transformer.Weights
	M, V    transformer.Weights // AdamW moments by parameter name (empty in an export-only file)
	State   State
}

type stHeader struct {
	DType   string  `json:"dtype"`
	Shape   []int64 `json:"shape"`
	Offsets [2]int  `json:"data_offsets"`
}

// writeCheckpoint writes a checkpoint to w.
func writeCheckpoint(w io.Writer, ck *Checkpoint) error {
	type item struct {
		name  string
		shape []int64
		data  []float32
	}
	var items []item
	for _, t := range ck.Arch.Tensors() {
		shape := make([]int64, len(t.Shape))
		for i, d := range t.Shape {
			shape[i] = int64(d)
		}
		for _, e := range []struct {
			prefix string
			w      transformer.Weights
		}{{"", ck.Weights}, {"optim.m.", ck.M}, {"optim.v.", ck.V}} {
			v, ok := e.w[t.Name]
			if !ok {
				if e.prefix == "" {
					return fmt.Errorf("%w: weight %s missing", ErrCheckpoint, t.Name)
				}
				continue
			}
			if len(v) != t.Size() {
				return fmt.Errorf("%w: %s%s has %d values, want %d", ErrCheckpoint, e.prefix, t.Name, len(v), t.Size())
			}
			items = append(items, item{e.prefix + t.Name, shape, v})
		}
	}
	sort.Slice(items, func(i, j int) bool { return items[i].name < items[j].name })
	state, err := json.Marshal(ck.State)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrCheckpoint, err)
	}
	hdr := map[string]any{"__metadata__": map[string]string{transformer.MetadataArch: ck.Arch.JSON(), MetaState: string(state)}}
	off := 0
	for _, it := range items {
		hdr[it.name] = stHeader{DType: "F32", Shape: it.shape, Offsets: [2]int{off, off + 4*len(it.data)}}
		off += 4 * len(it.data)
	}
	hb, err := json.Marshal(hdr)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrCheckpoint, err)
	}
	for len(hb)%8 != 0 {
		hb = append(hb, ' ')
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(hb)))
	bw.Write(n[:])
	bw.Write(hb)
	for _, it := range items {
		if len(it.data) > 0 {
			bw.Write(unsafe.Slice((*byte)(unsafe.Pointer(&it.data[0])), 4*len(it.data)))
		}
	}
	return bw.Flush()
}

// SaveCheckpoint writes ck to path atomically.
func SaveCheckpoint(path string, ck *Checkpoint) error {
	return transformer.WriteFileAtomic(path, func(w io.Writer) error { return writeCheckpoint(w, ck) })
}

// LoadCheckpoint reads a checkpoint written by SaveCheckpoint.
func LoadCheckpoint(path string) (*Checkpoint, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCheckpoint, err)
	}
	ck, err := parseCheckpoint(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ck, nil
}

func parseCheckpoint(b []byte) (*Checkpoint, error) {
	if len(b) < 8 {
		return nil, fmt.Errorf("%w: %d bytes", ErrCheckpoint, len(b))
	}
	hl := binary.LittleEndian.Uint64(b)
	if hl > uint64(len(b)-8) {
		return nil, fmt.Errorf("%w: header length %d past the end", ErrCheckpoint, hl)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b[8:8+hl], &raw); err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrCheckpoint, err)
	}
	data := b[8+hl:]
	var meta map[string]string
	if err := json.Unmarshal(raw["__metadata__"], &meta); err != nil {
		return nil, fmt.Errorf("%w: metadata: %v", ErrCheckpoint, err)
	}
	a, err := transformer.ParseArch(meta[transformer.MetadataArch])
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCheckpoint, err)
	}
	ck := &Checkpoint{Arch: a, Weights: transformer.Weights{}, M: transformer.Weights{}, V: transformer.Weights{}}
	if s, ok := meta[MetaState]; ok {
		if err := json.Unmarshal([]byte(s), &ck.State); err != nil {
			return nil, fmt.Errorf("%w: state: %v", ErrCheckpoint, err)
		}
	}
	for name, r := range raw {
		if name == "__metadata__" {
			continue
		}
		var h stHeader
		if err := json.Unmarshal(r, &h); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrCheckpoint, name, err)
		}
		lo, hi := h.Offsets[0], h.Offsets[1]
		if h.DType != "F32" || lo < 0 || hi < lo || hi > len(data) || (hi-lo)%4 != 0 {
			return nil, fmt.Errorf("%w: %s: dtype %s offsets %d..%d of %d", ErrCheckpoint, name, h.DType, lo, hi, len(data))
		}
		v := make([]float32, (hi-lo)/4)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[lo+4*i:]))
		}
		switch {
		case len(name) > 8 && name[:8] == "optim.m.":
			ck.M[name[8:]] = v
		case len(name) > 8 && name[:8] == "optim.v.":
			ck.V[name[8:]] = v
		default:
			ck.Weights[name] = v
		}
	}
	if err := ck.Weights.Check(a); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCheckpoint, err)
	}
	return ck, nil
}
