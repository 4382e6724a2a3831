package pgn

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// Magic numbers of the compressed formats Open recognises.
var (
	magicZstd  = []byte{0x28, 0xb5, 0x2f, 0xfd}
	magicBzip2 = []byte("BZh")
	magicGzip  = []byte{0x1f, 0x8b}
)

// Format is the container of a PGN stream.
type Format int

// The formats Open recognises.
const (
	FormatPlain Format = iota // PGN text
	FormatZstd                // zstd (.pgn.zst), as the lichess database ships
	FormatBzip2               // bzip2 (.pgn.bz2), as older lichess months ship
	FormatGzip                // gzip (.pgn.gz)
)

// String returns the format's usual file extension without the dot.
func (f Format) String() string {
	switch f {
	case FormatZstd:
		return "zst"
	case FormatBzip2:
		return "bz2"
	case FormatGzip:
		return "gz"
	default:
		return "pgn"
	}
}

// FormatFromName returns the format a file name's extension claims, and
// whether it claims one (.pgn, .zst, .bz2, .gz, case-insensitive).
func FormatFromName(name string) (Format, bool) {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".pgn":
		return FormatPlain, true
	case ".zst", ".zstd":
		return FormatZstd, true
	case ".bz2":
		return FormatBzip2, true
	case ".gz":
		return FormatGzip, true
	}
	return FormatPlain, false
}

// sniff returns the format the first bytes of a stream show, and whether
// they look like anything known (a compressed magic, or PGN text).
func sniff(head []byte) (Format, bool) {
	switch {
	case bytes.HasPrefix(head, magicZstd):
		return FormatZstd, true
	case bytes.HasPrefix(head, magicBzip2):
		return FormatBzip2, true
	case bytes.HasPrefix(head, magicGzip):
		return FormatGzip, true
	}
	return FormatPlain, looksLikeText(head)
}

// looksLikeText reports whether head could begin PGN text: UTF-8 BOM, or
// printable ASCII, UTF-8 and whitespace only (an empty stream is text).
func looksLikeText(head []byte) bool {
	head = bytes.TrimPrefix(head, bom)
	for _, c := range head {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\v' {
			return false
		}
		if c == 0x7f {
			return false
		}
	}
	return true
}

// Open opens a PGN stream for reading: path "-" is stdin, any other path a
// file. The container (plain, zstd, bzip2, gzip) is chosen by the stream's
// magic bytes, so a mislabeled file still reads; a stream that is neither a
// known compressed format nor text gives an error wrapping ErrFormat that
// names what the extension claimed. The stream is decompressed as it is
// read, in bounded memory. Closing the result closes the file (never stdin).
//
// A read that fails after the start (a truncated or damaged compressed
// stream, an I/O error) returns an error wrapping ErrCorrupt that names the
// file and the byte offset reached in it.
func Open(path string) (io.ReadCloser, error) {
	var f *os.File
	size := int64(-1)
	if path == "-" {
		f = os.Stdin
	} else {
		var err error
		f, err = os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("pgn: open: %w", err)
		}
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			size = st.Size()
		}
	}
	cf := &countingReader{r: f}
	rc, format, err := newDecompressor(cf, path)
	if err != nil {
		if path != "-" {
			_ = f.Close() // the open error is the one to report
		}
		return nil, err
	}
	closeFile := f.Close
	if path == "-" {
		closeFile = func() error { return nil }
	}
	name := path
	if path == "-" {
		name = "stdin"
	}
	r := &breakReader{r: rc, file: cf, name: name, format: format, size: size}
	return &readCloser{Reader: r, closers: []func() error{rc.Close, closeFile}}, nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// breakReader turns a read error other than io.EOF into one wrapping
// ErrCorrupt that says where in the file reading broke off.
type breakReader struct {
	r      io.Reader
	file   *countingReader // the bytes taken from the file so far
	name   string
	format Format
	size   int64 // the file's size, -1 unknown
}

func (b *breakReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, ErrCorrupt) {
		return n, err
	}
	what := "reading"
	if b.format != FormatPlain {
		what = b.format.String() + " stream"
	}
	of := ""
	if b.size >= 0 {
		of = fmt.Sprintf(" of %d", b.size)
	}
	return n, fmt.Errorf("%w: %s: %s broke off at byte %d%s: %w", ErrCorrupt, b.name, what, b.file.n, of, err)
}

// NewDecompressor wraps r in the decompressor its magic bytes call for (see
// Open). name is only used in error messages and may be empty. Closing the
// result releases the decompressor, not r.
func NewDecompressor(r io.Reader, name string) (io.ReadCloser, error) {
	rc, _, err := newDecompressor(r, name)
	return rc, err
}

// newDecompressor is NewDecompressor, also returning the format found.
func newDecompressor(r io.Reader, name string) (io.ReadCloser, Format, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(512)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, FormatPlain, fmt.Errorf("pgn: read %s: %w", name, err)
	}
	format, ok := sniff(head)
	if !ok {
		claimed := "PGN text"
		if f, has := FormatFromName(name); has && f != FormatPlain {
			claimed = f.String() + " data"
		}
		return nil, FormatPlain, fmt.Errorf("%w: %s: name says %s, content is neither text nor zstd, bzip2 or gzip (first bytes % x)",
			ErrFormat, name, claimed, head[:min(len(head), 4)])
	}
	switch format {
	case FormatZstd:
		// One decoding goroutine ahead of the parser is enough to keep it
		// fed; the window is capped at zstd's 512 MiB default (the lichess
		// database uses far less).
		d, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(2), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, format, fmt.Errorf("pgn: zstd %s: %w", name, err)
		}
		return &readCloser{Reader: d, closers: []func() error{func() error { d.Close(); return nil }}}, format, nil
	case FormatBzip2:
		return io.NopCloser(bzip2.NewReader(br)), format, nil
	case FormatGzip:
		g, err := gzip.NewReader(br)
		if err != nil {
			return nil, format, fmt.Errorf("pgn: gzip %s: %w", name, err)
		}
		return g, format, nil
	}
	return io.NopCloser(br), format, nil
}

// readCloser is an io.Reader with a list of closers run in order.
type readCloser struct {
	io.Reader
	closers []func() error
}

// Close runs every closer and returns the first error.
func (rc *readCloser) Close() error {
	var first error
	for _, c := range rc.closers {
		if err := c(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// SourceName names an input by its file name without folder and PGN
// extension (.pgn, .pgn.zst, .pgn.bz2, .pgn.gz): "lichess-2022-06" for
// "data/lichess-2022-06.pgn.zst", "-" for standard input. prep's
// -source-keep and eval's "source" breakdown name inputs this way.
func SourceName(path string) string {
	name := filepath.Base(path)
	for _, ext := range []string{".zst", ".bz2", ".gz"} {
		name = strings.TrimSuffix(name, ext)
	}
	return strings.TrimSuffix(name, ".pgn")
}
