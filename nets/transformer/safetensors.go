package transformer

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
)

// Weights maps each tensor name of Arch.Tensors to its float32 values in
// row-major order.
type Weights map[string][]float32

// maxHeaderLen bounds the safetensors JSON header (100 MB, as the reference
// implementation does).
const maxHeaderLen = 100 << 20

// MetadataArch is the `__metadata__` key holding the Arch JSON.
const MetadataArch = "arch"

// Check reports whether w holds exactly the tensors of a, each of the right
// size and finite, wrapping ErrWeights.
func (w Weights) Check(a Arch) error {
	if err := a.Validate(); err != nil {
		return err
	}
	ts := a.Tensors()
	want := make(map[string]bool, len(ts))
	for _, t := range ts {
		want[t.Name] = true
		v, ok := w[t.Name]
		if !ok {
			return fmt.Errorf("%w: missing tensor %q %v", ErrWeights, t.Name, t.Shape)
		}
		if len(v) != t.Size() {
			return fmt.Errorf("%w: tensor %q has %d values, want %d (shape %v)", ErrWeights, t.Name, len(v), t.Size(), t.Shape)
		}
		for i, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return fmt.Errorf("%w: tensor %q value %d is %v", ErrWeights, t.Name, i, x)
			}
		}
	}
	if len(w) != len(ts) {
		var extra []string
		for k := range w {
			if !want[k] {
				extra = append(extra, k)
			}
		}
		sort.Strings(extra)
		return fmt.Errorf("%w: unexpected tensors %q", ErrWeights, extra)
	}
	return nil
}

// stEntry is one tensor entry of a safetensors header.
type stEntry struct {
	DType       string  `json:"dtype"`
	Shape       []int64 `json:"shape"`
	DataOffsets []int64 `json:"data_offsets"`
}

// WriteSafetensors writes the weights as a safetensors file: an 8-byte
// little-endian header length, a JSON header (each tensor's dtype "F32",
// shape and data_offsets, plus `__metadata__` {"arch": Arch JSON}) padded
// with spaces to a multiple of 8 bytes, then the raw little-endian float32
// data in the order of Arch.Tensors. The weights are checked against the
// architecture first.
func WriteSafetensors(w io.Writer, a Arch, weights Weights) error {
	if err := weights.Check(a); err != nil {
		return err
	}
	ts := a.Tensors()
	// Build the header by hand so the key order follows Arch.Tensors.
	var hb bytes.Buffer
	hb.WriteString(`{"__metadata__":`)
	meta, err := json.Marshal(map[string]string{MetadataArch: a.JSON()})
	if err != nil {
		return fmt.Errorf("transformer: safetensors metadata: %w", err)
	}
	hb.Write(meta)
	var off int64
	for _, t := range ts {
		shape := make([]int64, len(t.Shape))
		for i, d := range t.Shape {
			shape[i] = int64(d)
		}
		n := int64(t.Size()) * 4
		e, err := json.Marshal(stEntry{DType: "F32", Shape: shape, DataOffsets: []int64{off, off + n}})
		if err != nil {
			return fmt.Errorf("transformer: safetensors header: %w", err)
		}
		name, _ := json.Marshal(t.Name) // a string always marshals
		hb.WriteByte(',')
		hb.Write(name)
		hb.WriteByte(':')
		hb.Write(e)
		off += n
	}
	hb.WriteByte('}')
	for hb.Len()%8 != 0 {
		hb.WriteByte(' ')
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	var lenb [8]byte
	binary.LittleEndian.PutUint64(lenb[:], uint64(hb.Len()))
	if _, err := bw.Write(lenb[:]); err != nil {
		return fmt.Errorf("transformer: write safetensors: %w", err)
	}
	if _, err := bw.Write(hb.Bytes()); err != nil {
		return fmt.Errorf("transformer: write safetensors: %w", err)
	}
	var buf [4]byte
	for _, t := range ts {
		for _, x := range weights[t.Name] {
			binary.LittleEndian.PutUint32(buf[:], math.Float32bits(x))
			if _, err := bw.Write(buf[:]); err != nil {
				return fmt.Errorf("transformer: write safetensors: %w", err)
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("transformer: write safetensors: %w", err)
	}
	return nil
}

// ReadSafetensors reads a safetensors file written by WriteSafetensors or by
// the trainer: the architecture comes from `__metadata__`["arch"], and every
// tensor must be F32 with the shape Arch.Tensors gives it; the data buffer
// must be covered exactly, without holes or overlaps. Errors wrap
// ErrTruncated, ErrCorrupt, ErrArch or ErrWeights; it never panics.
func ReadSafetensors(r io.Reader) (Arch, Weights, error) {
	var lenb [8]byte
	if _, err := io.ReadFull(r, lenb[:]); err != nil {
		return Arch{}, nil, readErr("header length", err)
	}
	hlen := binary.LittleEndian.Uint64(lenb[:])
	if hlen < 2 || hlen > maxHeaderLen {
		return Arch{}, nil, fmt.Errorf("%w: header length %d, want 2..%d", ErrCorrupt, hlen, maxHeaderLen)
	}
	hdr, err := readExactly(r, int64(hlen), "header")
	if err != nil {
		return Arch{}, nil, err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(hdr, &raw); err != nil {
		return Arch{}, nil, fmt.Errorf("%w: header JSON: %v", ErrCorrupt, err)
	}
	var meta map[string]string
	if m, ok := raw["__metadata__"]; ok {
		if err := json.Unmarshal(m, &meta); err != nil {
			return Arch{}, nil, fmt.Errorf("%w: __metadata__: %v", ErrCorrupt, err)
		}
		delete(raw, "__metadata__")
	}
	archJSON, ok := meta[MetadataArch]
	if !ok {
		return Arch{}, nil, fmt.Errorf("%w: __metadata__ has no %q entry", ErrArch, MetadataArch)
	}
	a, err := ParseArch(archJSON)
	if err != nil {
		return Arch{}, nil, err
	}
	ts := a.Tensors()
	entries := make(map[string]stEntry, len(raw))
	for name, m := range raw {
		var e stEntry
		if err := json.Unmarshal(m, &e); err != nil {
			return Arch{}, nil, fmt.Errorf("%w: tensor %q: %v", ErrCorrupt, name, err)
		}
		entries[name] = e
	}
	type span struct {
		name       string
		begin, end int64
	}
	spans := make([]span, 0, len(ts))
	want := make(map[string]bool, len(ts))
	for _, t := range ts {
		want[t.Name] = true
		e, ok := entries[t.Name]
		if !ok {
			return Arch{}, nil, fmt.Errorf("%w: missing tensor %q %v", ErrWeights, t.Name, t.Shape)
		}
		if e.DType != "F32" {
			return Arch{}, nil, fmt.Errorf("%w: tensor %q has dtype %q, want F32", ErrWeights, t.Name, e.DType)
		}
		if !sameShape(e.Shape, t.Shape) {
			return Arch{}, nil, fmt.Errorf("%w: tensor %q has shape %v, want %v", ErrWeights, t.Name, e.Shape, t.Shape)
		}
		if len(e.DataOffsets) != 2 || e.DataOffsets[0] < 0 || e.DataOffsets[1] < e.DataOffsets[0] {
			return Arch{}, nil, fmt.Errorf("%w: tensor %q has data_offsets %v", ErrCorrupt, t.Name, e.DataOffsets)
		}
		if got := e.DataOffsets[1] - e.DataOffsets[0]; got != int64(t.Size())*4 {
			return Arch{}, nil, fmt.Errorf("%w: tensor %q spans %d bytes, want %d", ErrCorrupt, t.Name, got, t.Size()*4)
		}
		spans = append(spans, span{t.Name, e.DataOffsets[0], e.DataOffsets[1]})
	}
	if len(entries) != len(ts) {
		var extra []string
		for k := range entries {
			if !want[k] {
				extra = append(extra, k)
			}
		}
		sort.Strings(extra)
		return Arch{}, nil, fmt.Errorf("%w: unexpected tensors %q", ErrWeights, extra)
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].begin < spans[j].begin })
	var end int64
	for _, s := range spans {
		if s.begin != end {
			return Arch{}, nil, fmt.Errorf("%w: tensor %q starts at byte %d, want %d (hole or overlap)", ErrCorrupt, s.name, s.begin, end)
		}
		end = s.end
	}
	// The sizes were checked against a validated Arch, so end is bounded.
	data, err := readExactly(r, end, "tensor data")
	if err != nil {
		return Arch{}, nil, err
	}
	var extra [1]byte
	if n, _ := r.Read(extra[:]); n > 0 {
		return Arch{}, nil, fmt.Errorf("%w: data past the last tensor (byte %d)", ErrCorrupt, end)
	}
	w := make(Weights, len(ts))
	for _, s := range spans {
		b := data[s.begin:s.end]
		v := make([]float32, len(b)/4)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		w[s.name] = v
	}
	if err := w.Check(a); err != nil {
		return Arch{}, nil, err
	}
	return a, w, nil
}

// readExactly reads n bytes, growing the buffer as data arrives so that a
// lying header cannot make it allocate more than the input holds.
func readExactly(r io.Reader, n int64, what string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, n))
	if err != nil {
		return nil, readErr(what, err)
	}
	if int64(len(b)) != n {
		return nil, fmt.Errorf("%w: the %s has %d bytes, want %d", ErrTruncated, what, len(b), n)
	}
	return b, nil
}

func readErr(what string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: reading the %s", ErrTruncated, what)
	}
	return fmt.Errorf("transformer: reading the safetensors %s: %w", what, err)
}

func sameShape(got []int64, want []int) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != int64(want[i]) {
			return false
		}
	}
	return true
}

// LoadSafetensors reads a safetensors file from disk (see ReadSafetensors).
func LoadSafetensors(path string) (Arch, Weights, error) {
	f, err := os.Open(path)
	if err != nil {
		return Arch{}, nil, fmt.Errorf("transformer: %w", err)
	}
	defer f.Close()
	a, w, err := ReadSafetensors(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return Arch{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, w, nil
}

// SaveSafetensors writes the weights to path atomically (see WriteFileAtomic).
func SaveSafetensors(path string, a Arch, w Weights) error {
	return WriteFileAtomic(path, func(out io.Writer) error { return WriteSafetensors(out, a, w) })
}

// WriteFileAtomic writes a file by calling write on a temporary file in the
// same directory, syncing it and renaming it over path, so readers see
// either the old file or the whole new one. On error the temporary file is
// removed and path is untouched.
func WriteFileAtomic(path string, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("transformer: %w", err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("transformer: %w", err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("transformer: %w", err)
	}
	if err = os.Chmod(tmp, 0o644); err != nil {
		return fmt.Errorf("transformer: %w", err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("transformer: %w", err)
	}
	if d, derr := os.Open(dir); derr == nil {
		d.Sync() // best effort: make the rename durable
		d.Close()
	}
	return nil
}
