package shard

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"

	"github.com/klauspost/compress/zstd"
)

// FormatVersion is the version of the shard file and manifest layout written by
// this package. Readers refuse other versions.
const FormatVersion = 1

// Compression says how a shard's body is stored.
type Compression uint8

const (
	// CompressNone stores the records as they are.
	CompressNone Compression = 0
	// CompressZstd stores the records as one zstd stream.
	CompressZstd Compression = 1
)

const (
	headerSize  = 16
	footerSize  = 32
	headerMagic = "HCSHARD1"
	footerMagic = "HCF1"
	// MaxRecordSize bounds one record, so a corrupt length cannot make a
	// reader allocate without limit.
	MaxRecordSize = 1 << 20 // bytes
)

var (
	// ErrTruncated reports a shard file that was not finished (no footer, or a
	// size that disagrees with its footer).
	ErrTruncated = errors.New("shard: truncated or unfinished shard file")
	// ErrBadMagic reports a file that is not a HumChess shard.
	ErrBadMagic = errors.New("shard: not a HumChess shard file")
	// ErrFormatVersion reports a shard or manifest written by another layout version.
	ErrFormatVersion = errors.New("shard: unsupported format version")
	// ErrContractVersion reports data encoded under another board.ContractVersion.
	ErrContractVersion = errors.New("shard: contract version mismatch")
	// ErrChecksum reports a body whose CRC-32C does not match its footer.
	ErrChecksum = errors.New("shard: checksum mismatch")
	// ErrCorrupt reports a body that does not parse into the recorded records.
	ErrCorrupt = errors.New("shard: corrupt body")
	// ErrRecordSize reports a record larger than MaxRecordSize.
	ErrRecordSize = errors.New("shard: record too large")
	// ErrClosed reports use of a closed writer.
	ErrClosed = errors.New("shard: writer closed")
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Header is the fixed start of a shard file.
type Header struct {
	FormatVersion   int
	Compression     Compression
	ContractVersion int
}

func (h Header) append(b []byte) []byte {
	b = append(b, headerMagic...)
	b = binary.LittleEndian.AppendUint16(b, uint16(h.FormatVersion))
	b = append(b, byte(h.Compression), 0)
	b = binary.LittleEndian.AppendUint32(b, uint32(h.ContractVersion))
	return b
}

func parseHeader(b []byte) (Header, error) {
	if len(b) < headerSize {
		return Header{}, ErrTruncated
	}
	if string(b[:8]) != headerMagic {
		return Header{}, ErrBadMagic
	}
	h := Header{
		FormatVersion:   int(binary.LittleEndian.Uint16(b[8:])),
		Compression:     Compression(b[10]),
		ContractVersion: int(binary.LittleEndian.Uint32(b[12:])),
	}
	if h.FormatVersion != FormatVersion {
		return h, fmt.Errorf("%w: file has %d, this reader reads %d", ErrFormatVersion, h.FormatVersion, FormatVersion)
	}
	if h.Compression > CompressZstd {
		return h, fmt.Errorf("%w: unknown compression %d", ErrCorrupt, h.Compression)
	}
	return h, nil
}

type footer struct {
	records  uint64
	bodyLen  uint64
	rawLen   uint64
	checksum uint32
}

func (f footer) append(b []byte) []byte {
	b = binary.LittleEndian.AppendUint64(b, f.records)
	b = binary.LittleEndian.AppendUint64(b, f.bodyLen)
	b = binary.LittleEndian.AppendUint64(b, f.rawLen)
	b = binary.LittleEndian.AppendUint32(b, f.checksum)
	return append(b, footerMagic...)
}

func parseFooter(b []byte) (footer, error) {
	if len(b) != footerSize || string(b[28:]) != footerMagic {
		return footer{}, ErrTruncated
	}
	return footer{
		records:  binary.LittleEndian.Uint64(b[0:]),
		bodyLen:  binary.LittleEndian.Uint64(b[8:]),
		rawLen:   binary.LittleEndian.Uint64(b[16:]),
		checksum: binary.LittleEndian.Uint32(b[24:]),
	}, nil
}

// Info describes one finished shard file, as listed in a manifest.
type Info struct {
	Name    string `json:"name"`     // file name inside the set's directory
	Split   string `json:"split"`    // e.g. "train", "validation"
	Records int64  `json:"records"`  // number of records
	Bytes   int64  `json:"bytes"`    // file size
	RawSize int64  `json:"raw_size"` // uncompressed body size in bytes
	SHA256  string `json:"sha256"`   // hex sha256 of the whole file
}

// WriterOptions configures a shard Writer.
type WriterOptions struct {
	ContractVersion int         // board.ContractVersion of the records
	Compression     Compression // body compression; CompressZstd by default in NewSplitWriter
}

// countWriter counts and checksums the stored body as it goes to the file.
type bodyWriter struct {
	w   io.Writer
	n   uint64
	crc uint32
}

func (b *bodyWriter) Write(p []byte) (int, error) {
	n, err := b.w.Write(p)
	b.n += uint64(n)
	b.crc = crc32.Update(b.crc, castagnoli, p[:n])
	return n, err
}

// Writer writes one shard file atomically: records go to NAME.tmp, and only
// Close makes NAME appear. It is not safe for concurrent use.
type Writer struct {
	dir, name, split string
	f                *os.File
	buf              *bufio.Writer
	sum              hash.Hash
	body             *bodyWriter
	zw               *zstd.Encoder
	rec              io.Writer // where records go (zstd encoder or body)
	records          int64
	rawLen           int64
	scratch          []byte
	closed           bool
}

// Create starts the shard NAME in dir (as NAME.tmp) for the given split.
func Create(dir, name, split string, opts WriterOptions) (*Writer, error) {
	if name == "" || filepath.Base(name) != name {
		return nil, fmt.Errorf("shard: bad shard name %q", name)
	}
	f, err := os.Create(filepath.Join(dir, name+".tmp"))
	if err != nil {
		return nil, fmt.Errorf("shard: create: %w", err)
	}
	w := &Writer{dir: dir, name: name, split: split, f: f, sum: sha256.New()}
	w.buf = bufio.NewWriterSize(io.MultiWriter(f, w.sum), 1<<20)
	hdr := Header{FormatVersion: FormatVersion, Compression: opts.Compression, ContractVersion: opts.ContractVersion}
	if _, err := w.buf.Write(hdr.append(nil)); err != nil {
		w.Abort()
		return nil, fmt.Errorf("shard: write header: %w", err)
	}
	w.body = &bodyWriter{w: w.buf}
	switch opts.Compression {
	case CompressNone:
		w.rec = w.body
	case CompressZstd:
		zw, err := zstd.NewWriter(w.body, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
		if err != nil {
			w.Abort()
			return nil, fmt.Errorf("shard: zstd: %w", err)
		}
		w.zw, w.rec = zw, zw
	default:
		w.Abort()
		return nil, fmt.Errorf("shard: unknown compression %d", opts.Compression)
	}
	return w, nil
}

// Append adds one record.
func (w *Writer) Append(rec []byte) error {
	if w.closed {
		return ErrClosed
	}
	if len(rec) > MaxRecordSize {
		return fmt.Errorf("%w: %d bytes", ErrRecordSize, len(rec))
	}
	w.scratch = binary.AppendUvarint(w.scratch[:0], uint64(len(rec)))
	w.scratch = append(w.scratch, rec...)
	if _, err := w.rec.Write(w.scratch); err != nil {
		return fmt.Errorf("shard: write %s: %w", w.name, err)
	}
	w.records++
	w.rawLen += int64(len(w.scratch))
	return nil
}

// Records returns the number of records appended so far.
func (w *Writer) Records() int64 { return w.records }

// RawSize returns the uncompressed body size so far, in bytes.
func (w *Writer) RawSize() int64 { return w.rawLen }

// Close finishes the shard: footer, fsync, rename NAME.tmp to NAME, fsync of
// the directory. On error the temporary file is removed.
func (w *Writer) Close() (Info, error) {
	if w.closed {
		return Info{}, ErrClosed
	}
	fail := func(what string, err error) (Info, error) {
		w.Abort()
		return Info{}, fmt.Errorf("shard: %s %s: %w", what, w.name, err)
	}
	if w.zw != nil {
		if err := w.zw.Close(); err != nil {
			return fail("compress", err)
		}
	}
	ft := footer{records: uint64(w.records), bodyLen: w.body.n, rawLen: uint64(w.rawLen), checksum: w.body.crc}
	if _, err := w.buf.Write(ft.append(nil)); err != nil {
		return fail("write footer", err)
	}
	if err := w.buf.Flush(); err != nil {
		return fail("flush", err)
	}
	if err := w.f.Sync(); err != nil {
		return fail("fsync", err)
	}
	st, err := w.f.Stat()
	if err != nil {
		return fail("stat", err)
	}
	if err := w.f.Close(); err != nil {
		return fail("close", err)
	}
	w.closed = true
	if err := os.Rename(filepath.Join(w.dir, w.name+".tmp"), filepath.Join(w.dir, w.name)); err != nil {
		_ = os.Remove(filepath.Join(w.dir, w.name+".tmp"))
		return Info{}, fmt.Errorf("shard: rename %s: %w", w.name, err)
	}
	if err := syncDir(w.dir); err != nil {
		return Info{}, err
	}
	return Info{
		Name: w.name, Split: w.split, Records: w.records, Bytes: st.Size(),
		RawSize: w.rawLen, SHA256: hex.EncodeToString(w.sum.Sum(nil)),
	}, nil
}

// Abort discards the shard: the temporary file is closed and removed. It is
// safe to call after Close (it then does nothing).
func (w *Writer) Abort() {
	if w.closed {
		return
	}
	w.closed = true
	if w.zw != nil {
		_ = w.zw.Close()
	}
	_ = w.f.Close()
	_ = os.Remove(filepath.Join(w.dir, w.name+".tmp"))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("shard: open dir: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("shard: fsync dir %s: %w", dir, err)
	}
	return nil
}

// ReadFile reads and verifies one shard file and returns its header and its
// records. The records alias one buffer owned by the caller. contract is the
// board.ContractVersion the caller expects; a negative value accepts any.
func ReadFile(path string, contract int) (Header, [][]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Header{}, nil, fmt.Errorf("shard: %w", err)
	}
	h, recs, err := Parse(data, contract)
	if err != nil {
		return h, nil, fmt.Errorf("%s: %w", path, err)
	}
	return h, recs, nil
}

var zdec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(1<<34))

// Parse verifies a whole shard file held in memory and splits it into records
// (which alias data, or a decompressed copy of it).
func Parse(data []byte, contract int) (Header, [][]byte, error) {
	if len(data) < headerSize+footerSize {
		if len(data) >= 8 && string(data[:8]) != headerMagic {
			return Header{}, nil, ErrBadMagic
		}
		return Header{}, nil, ErrTruncated
	}
	h, err := parseHeader(data[:headerSize])
	if err != nil {
		return h, nil, err
	}
	if contract >= 0 && h.ContractVersion != contract {
		return h, nil, fmt.Errorf("%w: shard has contract version %d, this program uses %d", ErrContractVersion, h.ContractVersion, contract)
	}
	ft, err := parseFooter(data[len(data)-footerSize:])
	if err != nil {
		return h, nil, err
	}
	if ft.bodyLen != uint64(len(data)-headerSize-footerSize) {
		return h, nil, fmt.Errorf("%w: body is %d bytes, footer says %d", ErrTruncated, len(data)-headerSize-footerSize, ft.bodyLen)
	}
	body := data[headerSize : len(data)-footerSize]
	if crc32.Checksum(body, castagnoli) != ft.checksum {
		return h, nil, ErrChecksum
	}
	if h.Compression == CompressZstd {
		if ft.rawLen > 1<<34 {
			return h, nil, fmt.Errorf("%w: raw size %d", ErrCorrupt, ft.rawLen)
		}
		raw, err := zdec.DecodeAll(body, make([]byte, 0, ft.rawLen))
		if err != nil {
			return h, nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		body = raw
	}
	if uint64(len(body)) != ft.rawLen {
		return h, nil, fmt.Errorf("%w: raw body is %d bytes, footer says %d", ErrCorrupt, len(body), ft.rawLen)
	}
	if ft.records > uint64(len(body)) {
		return h, nil, fmt.Errorf("%w: %d records in %d bytes", ErrCorrupt, ft.records, len(body))
	}
	recs := make([][]byte, 0, ft.records)
	for len(body) > 0 {
		n, k := binary.Uvarint(body)
		if k <= 0 || n > MaxRecordSize || n > uint64(len(body)-k) {
			return h, nil, fmt.Errorf("%w: bad record length at record %d", ErrCorrupt, len(recs))
		}
		body = body[k:]
		recs = append(recs, body[:n:n])
		body = body[n:]
	}
	if uint64(len(recs)) != ft.records {
		return h, nil, fmt.Errorf("%w: %d records, footer says %d", ErrCorrupt, len(recs), ft.records)
	}
	return h, recs, nil
}
