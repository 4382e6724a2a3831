package load

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/humchess/humchess/nets"
	"github.com/humchess/humchess/nets/lc0"
	"github.com/humchess/humchess/nets/transformer"
)

// ErrUnknownFormat is returned for a file that is none of the formats Open
// reads.
var ErrUnknownFormat = errors.New("load: unknown network format (want a HumChess .onnx, a HumChess .safetensors or an Lc0/Maia .pb.gz)")

// Options configure Open.
type Options struct {
	LibraryPath string // ONNX Runtime shared library; "" = nets/ort's lookup order
	Threads     int    // intra-op threads; 0 means 1
}

// Format is a network file format.
type Format string

// The formats Open reads.
const (
	FormatONNX        Format = "onnx"
	FormatSafetensors Format = "safetensors"
	FormatLc0         Format = "lc0"
)

// Sniff tells the format of a network file from its first bytes.
func Sniff(data []byte) (Format, error) {
	switch {
	case len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b:
		return FormatLc0, nil
	case len(data) >= 9 && data[8] == '{':
		// safetensors: 8-byte little-endian header length, then JSON.
		return FormatSafetensors, nil
	case len(data) >= 1 && data[0] == 0x08:
		// ONNX ModelProto starts with field 1 (ir_version), varint.
		return FormatONNX, nil
	}
	return "", ErrUnknownFormat
}

// ErrNotRegular is returned for a path that is not a regular file (a
// folder, a FIFO, a device): reading one may fail, block or never end.
var ErrNotRegular = errors.New("not a regular file")

// Open reads the network file at path and prepares it for evaluation.
func Open(path string, opts Options) (nets.Net, error) {
	data, err := readRegular(path)
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	name := strings.TrimSuffix(strings.TrimSuffix(baseName(path), ".onnx"), ".safetensors")
	n, err := OpenBytes(data, name, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return n, nil
}

// OpenBytes prepares a network held in memory; name labels it in Info.
func OpenBytes(data []byte, name string, opts Options) (nets.Net, error) {
	f, err := Sniff(data)
	if err != nil {
		return nil, err
	}
	switch f {
	case FormatLc0:
		w, err := lc0.Parse(data)
		if err != nil {
			return nil, err
		}
		return lc0.New(w, nets.HashBytes(data), lc0.Options{
			LibraryPath: opts.LibraryPath, IntraOpThreads: opts.Threads, Name: lc0.NameFromPath(name),
		})
	case FormatSafetensors:
		a, w, err := transformer.ReadSafetensors(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		model, err := transformer.BuildONNX(a, w)
		if err != nil {
			return nil, err
		}
		data = model
	}
	return transformer.Open(data, transformer.Options{LibraryPath: opts.LibraryPath, Threads: opts.Threads, Name: name})
}

// readRegular reads the file at path, refusing anything but a regular file
// (opening a FIFO would already block).
func readRegular(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if m := st.Mode(); !m.IsRegular() {
		kind := "a special file"
		switch {
		case m.IsDir():
			kind = "a folder"
		case m&os.ModeNamedPipe != 0:
			kind = "a named pipe"
		case m&os.ModeDevice != 0:
			kind = "a device"
		case m&os.ModeSocket != 0:
			kind = "a socket"
		}
		return nil, fmt.Errorf("%s is %s: %w", path, kind, ErrNotRegular)
	}
	return os.ReadFile(path)
}

func baseName(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[i+1:]
	}
	return path
}
