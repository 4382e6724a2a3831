package shard

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/bits"
	"os"
	"path/filepath"
	"slices"

	"github.com/klauspost/compress/zstd"
)

// DefaultStreams is the number of shards a Shuffler reads at once when
// ShuffleOptions.Streams is 0.
const DefaultStreams = 32

// PositionVersion is the layout version of Position. Positions without it
// (version 0) were saved by the single-stream shuffler, which filled each
// window from consecutive shards; they cannot be resumed exactly and are
// refused with ErrPosition.
const PositionVersion = 2

// ShuffleOptions configures a Shuffler.
type ShuffleOptions struct {
	Buffer  int       // records per shuffle window; default 1<<18
	Streams int       // shards read at once and interleaved; default DefaultStreams
	Seed    uint64    // everything random derives from it
	Epochs  int       // passes over the split; 0 = endless
	Resume  *Position // start from a saved position instead of the beginning
}

// Position is a Shuffler's place in its stream, saved in trainer checkpoints
// (as JSON). Resuming from it yields exactly the records that would have
// followed. It describes the start of the current window (which resuming reads
// again) and how many of that window's records were already returned.
type Position struct {
	Version int         `json:"version"` // PositionVersion
	Epoch   int         `json:"epoch"`   // current epoch, from 0
	Window  int         `json:"window"`  // index of the current window in this epoch
	Next    int         `json:"next"`    // index, in this epoch's shard order, of the first shard of the next group
	Open    []StreamPos `json:"open"`    // the current group's shards with records left where the current window starts, in draw order
	Emitted int         `json:"emitted"` // records already returned from the current window
	Buffer  int         `json:"buffer"`  // window size (checked on resume)
	Streams int         `json:"streams"` // ShuffleOptions.Streams (checked on resume)
	RNG     uint64      `json:"rng"`     // seed of the current window (checked on resume)
}

// StreamPos is one open stream of a Position: a shard being read in order.
type StreamPos struct {
	Shard  int   `json:"shard"`  // index in this epoch's shard order
	Offset int64 `json:"offset"` // records of that shard already taken into earlier windows
}

// Shuffler returns the records of one split in a deterministic pseudo-random
// order.
//
// Each epoch has a seeded shard order, cut into ceil(shards/Streams) groups of
// consecutive shards of near-equal count (at most Streams each). The groups
// are read one after another, each as a uniformly random interleave of its
// shards: every record is drawn from one of the group's shards with
// probability proportional to the records that shard has left, which makes
// every stretch of the stream, to the group's last record, a fair sample of
// all the group's shards. That stream is cut into windows of Buffer records
// (a window may span two groups, not two epochs: the last window of an epoch
// may be shorter), and each window is emitted in a seeded random order.
//
// So shards that each hold one kind of data (one input file, one time
// control) are mixed in every batch, not only across the epoch: with Streams
// at least the number of shards, every window is a sample of the whole split.
//
// Shards are read as streams (checked against their CRC first, then decoded
// record by record), so memory is bounded by two windows of records (the one
// being emitted and, while it fills, the next) plus, per open stream, about
// 200 KiB of buffers and, for zstd shards, the decoder's history (the zstd
// frame window: at most 8 MiB for shards written by this package).
//
// It is not safe for concurrent use.
type Shuffler struct {
	set    *Set
	shards []Info
	opts   ShuffleOptions

	epoch  int
	perm   []int
	groups int       // groups per epoch
	win    int       // index of the current window in the epoch
	next   int       // first shard (index into perm) of the next group
	slots  []*stream // open streams of the current group, in draw order
	start  Position  // the current window's start (Open, Next, Window, RNG)
	seed   uint64    // seed of the current window
	loaded bool      // the current window has been filled

	window  [][]byte
	order   []int32
	ends    []int
	emitted int
	avg     int64 // bytes per record (with its length prefix) in the split, rounded up

	free    []*shardReader // readers of closed streams, for reuse
	scratch []byte         // CRC buffer
}

// stream is one open shard: k indexes the epoch's shard order, off counts the
// records taken, rd reads from record off on (nil until first needed).
type stream struct {
	k      int
	off, n int64
	rd     *shardReader
}

// Shuffle returns a Shuffler over a split.
func (s *Set) Shuffle(split string, opts ShuffleOptions) (*Shuffler, error) {
	if opts.Buffer <= 0 {
		opts.Buffer = 1 << 18
	}
	if opts.Streams <= 0 {
		opts.Streams = DefaultStreams
	}
	if opts.Epochs < 0 {
		return nil, fmt.Errorf("shard: negative epochs %d", opts.Epochs)
	}
	sh := &Shuffler{set: s, shards: s.Shards(split), opts: opts}
	sh.groups = (len(sh.shards) + opts.Streams - 1) / opts.Streams
	var raw, recs int64
	for _, in := range sh.shards {
		raw, recs = raw+in.RawSize, recs+in.Records
	}
	if recs > 0 {
		sh.avg = (raw + recs - 1) / recs
	}
	sh.setEpoch(0)
	if p := opts.Resume; p != nil {
		if err := sh.resume(p); err != nil {
			sh.Close()
			return nil, err
		}
	}
	return sh, nil
}

// groupStart returns the index in the epoch's shard order of group g's first shard.
func (sh *Shuffler) groupStart(g int) int { return g * len(sh.shards) / sh.groups }

func (sh *Shuffler) resume(p *Position) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrPosition, fmt.Sprintf(format, a...))
	}
	if p.Version != PositionVersion {
		return bad("position layout version %d, this shuffler reads version %d (a position saved before cross-shard interleaving cannot be resumed exactly; start a new run)", p.Version, PositionVersion)
	}
	if p.Buffer != sh.opts.Buffer || p.Streams != sh.opts.Streams {
		return bad("saved with buffer %d and %d streams, options have %d and %d", p.Buffer, p.Streams, sh.opts.Buffer, sh.opts.Streams)
	}
	if p.Epoch < 0 || (sh.opts.Epochs > 0 && p.Epoch >= sh.opts.Epochs) || p.Window < 0 || p.Emitted < 0 || len(p.Open) == 0 {
		return bad("%+v does not fit %d epochs", *p, sh.opts.Epochs)
	}
	g := 1
	for g <= sh.groups && sh.groupStart(g) < p.Next {
		g++
	}
	if g > sh.groups || sh.groupStart(g) != p.Next {
		return bad("next shard %d is not the start of a group (%d shards, %d streams)", p.Next, len(sh.shards), sh.opts.Streams)
	}
	sh.setEpoch(p.Epoch)
	seen := map[int]bool{}
	sh.slots = sh.slots[:0]
	for _, o := range p.Open {
		if o.Shard < sh.groupStart(g-1) || o.Shard >= p.Next || seen[o.Shard] {
			return bad("stream of shard %d (group of shards %d..%d)", o.Shard, sh.groupStart(g-1), p.Next-1)
		}
		seen[o.Shard] = true
		recs := sh.shards[sh.perm[o.Shard]].Records
		if o.Offset < 0 || o.Offset >= recs {
			return bad("offset %d in a shard of %d records", o.Offset, recs)
		}
		sh.slots = append(sh.slots, &stream{k: o.Shard, off: o.Offset, n: recs})
	}
	sh.next, sh.win = p.Next, p.Window
	sh.mark()
	if sh.seed != p.RNG {
		return bad("window seed %d, saved %d (seed or data changed?)", sh.seed, p.RNG)
	}
	if err := sh.fill(); err != nil {
		return err
	}
	if p.Emitted > len(sh.window) {
		return bad("%d records emitted from a window of %d", p.Emitted, len(sh.window))
	}
	sh.emitted = p.Emitted
	return nil
}

// Position returns where the Shuffler stands: resuming from it continues with
// the record Next would return now. The result shares nothing with the Shuffler.
func (sh *Shuffler) Position() Position {
	p := sh.start
	p.Open = slices.Clone(p.Open)
	p.Emitted = sh.emitted
	return p
}

// Epoch returns the current epoch (from 0).
func (sh *Shuffler) Epoch() int { return sh.epoch }

// Next returns the next record, or io.EOF after the last epoch (never, when
// Epochs is 0, unless the split is empty). The record aliases a buffer of its
// window that the Shuffler does not reuse; it must not be modified.
func (sh *Shuffler) Next() ([]byte, error) {
	for sh.emitted >= len(sh.window) {
		if sh.loaded {
			if len(sh.slots) == 0 && !sh.openGroup() { // the epoch is done
				if sh.opts.Epochs > 0 && sh.epoch+1 >= sh.opts.Epochs {
					return nil, io.EOF
				}
				sh.setEpoch(sh.epoch + 1)
			} else {
				sh.win++
				sh.mark()
			}
		}
		if len(sh.slots) == 0 {
			return nil, io.EOF // the split has no records
		}
		if err := sh.fill(); err != nil {
			return nil, err
		}
	}
	rec := sh.window[sh.order[sh.emitted]]
	sh.emitted++
	return rec, nil
}

// Close releases the open shard files. The Shuffler must not be used after.
// (A Shuffler dropped without Close releases them when garbage collected.)
func (sh *Shuffler) Close() error {
	for _, s := range sh.slots {
		sh.closeStream(s)
	}
	sh.slots = nil
	for _, rd := range sh.free {
		if rd.zr != nil {
			rd.zr.Close()
		}
	}
	sh.free = nil
	return nil
}

// setEpoch starts epoch e: its shard order and its first group.
func (sh *Shuffler) setEpoch(e int) {
	for _, s := range sh.slots {
		sh.closeStream(s)
	}
	sh.epoch, sh.win, sh.next = e, 0, 0
	sh.perm = permutation(len(sh.shards), mix(sh.opts.Seed, 0x5348415244, uint64(e)))
	sh.slots = sh.slots[:0]
	sh.openGroup()
	sh.mark()
}

// openGroup makes the next group of the epoch with records the open streams
// and reports whether there was one. The current group must be done.
func (sh *Shuffler) openGroup() bool {
	for len(sh.slots) == 0 && sh.next < len(sh.shards) {
		g := 1
		for sh.groupStart(g) <= sh.next {
			g++
		}
		end := sh.groupStart(g)
		for k := sh.next; k < end; k++ {
			if n := sh.shards[sh.perm[k]].Records; n > 0 {
				sh.slots = append(sh.slots, &stream{k: k, n: n})
			}
		}
		sh.next = end
	}
	return len(sh.slots) > 0
}

// unopened returns the records of the epoch's shards not opened yet.
func (sh *Shuffler) unopened() int64 {
	var n int64
	for _, i := range sh.perm[sh.next:] {
		n += sh.shards[i].Records
	}
	return n
}

// mark records the current state as the start of the current (unfilled) window.
func (sh *Shuffler) mark() {
	sh.seed = mix(sh.opts.Seed, 0x57494e444f57, uint64(sh.epoch), uint64(sh.win))
	open := sh.start.Open[:0]
	for _, s := range sh.slots {
		open = append(open, StreamPos{Shard: s.k, Offset: s.off})
	}
	sh.start = Position{Version: PositionVersion, Epoch: sh.epoch, Window: sh.win, Next: sh.next, Open: open,
		Buffer: sh.opts.Buffer, Streams: sh.opts.Streams, RNG: sh.seed}
	sh.window, sh.emitted, sh.loaded = sh.window[:0], 0, false
}

// fill reads the current window from the open streams and permutes it.
func (sh *Shuffler) fill() error {
	r := splitmix64(sh.seed)
	var left int64 // records left in the open streams
	for _, s := range sh.slots {
		left += s.n - s.off
	}
	arena := make([]byte, 0, min(int64(sh.opts.Buffer), left+sh.unopened())*sh.avg+1024)
	sh.ends = sh.ends[:0]
	for len(sh.ends) < sh.opts.Buffer {
		if len(sh.slots) == 0 {
			if !sh.openGroup() {
				break // the epoch is done
			}
			for _, s := range sh.slots {
				left += s.n
			}
		}
		x := int64(r.below(int(left)))
		i := 0
		for ; x >= sh.slots[i].n-sh.slots[i].off; i++ {
			x -= sh.slots[i].n - sh.slots[i].off
		}
		s := sh.slots[i]
		if s.rd == nil {
			rd, err := sh.openStream(s)
			if err != nil {
				return err
			}
			s.rd = rd
		}
		var err error
		if arena, err = s.rd.next(arena); err != nil {
			return fmt.Errorf("%s: %w", s.rd.name, err)
		}
		sh.ends = append(sh.ends, len(arena))
		s.off++
		left--
		if s.off == s.n {
			if err := s.rd.finish(); err != nil {
				return fmt.Errorf("%s: %w", s.rd.name, err)
			}
			sh.closeStream(s)
			sh.slots = slices.Delete(sh.slots, i, i+1)
		}
	}
	sh.window = sh.window[:0]
	prev := 0
	for _, e := range sh.ends {
		sh.window = append(sh.window, arena[prev:e:e])
		prev = e
	}
	sh.order = permutationInto(sh.order, len(sh.window), mix(sh.seed, 1))
	sh.emitted, sh.loaded = 0, true
	return nil
}

func (sh *Shuffler) closeStream(s *stream) {
	if s.rd != nil {
		s.rd.release()
		sh.free = append(sh.free, s.rd)
		s.rd = nil
	}
}

// shardReader reads the records of one shard file in order without holding
// the file in memory. Its buffers and decoder are reused from shard to shard.
type shardReader struct {
	name   string
	f      *os.File
	body   *bufio.Reader // the stored body
	zr     *zstd.Decoder // decompresses body, for zstd shards
	zbr    *bufio.Reader // buffers zr
	br     *bufio.Reader // the records: body or zbr
	left   uint64        // records still to read
	raw    uint64        // raw body bytes read
	rawLen uint64
}

// release closes the file and drops the references to it.
func (rd *shardReader) release() {
	if rd.f == nil {
		return
	}
	if rd.zr != nil {
		_ = rd.zr.Reset(nil)
	}
	rd.body.Reset(nil)
	if rd.zbr != nil {
		rd.zbr.Reset(nil)
	}
	_ = rd.f.Close()
	rd.f, rd.br = nil, nil
}

// openStream opens the shard of s, checks it as Parse does (header, footer,
// CRC of the stored body) and skips to record s.off.
func (sh *Shuffler) openStream(s *stream) (_ *shardReader, err error) {
	info := sh.shards[sh.perm[s.k]]
	path := filepath.Join(sh.set.Dir, info.Name)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("shard: %w", err)
	}
	var rd *shardReader
	if n := len(sh.free); n > 0 {
		rd, sh.free = sh.free[n-1], sh.free[:n-1]
	} else {
		rd = &shardReader{body: bufio.NewReaderSize(nil, 1<<16)}
	}
	rd.name, rd.f, rd.raw = info.Name, f, 0
	defer func() {
		if err != nil {
			rd.release()
			sh.free = append(sh.free, rd)
			err = fmt.Errorf("%s: %w", path, err)
		}
	}()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	if size < headerSize+footerSize {
		return nil, ErrTruncated
	}
	var hb [headerSize + footerSize]byte
	if _, err := f.ReadAt(hb[:headerSize], 0); err != nil {
		return nil, err
	}
	if _, err := f.ReadAt(hb[headerSize:], size-footerSize); err != nil {
		return nil, err
	}
	h, err := parseHeader(hb[:headerSize])
	if err != nil {
		return nil, err
	}
	if sh.set.contract >= 0 && h.ContractVersion != sh.set.contract {
		return nil, fmt.Errorf("%w: shard has contract version %d, this program uses %d", ErrContractVersion, h.ContractVersion, sh.set.contract)
	}
	ft, err := parseFooter(hb[headerSize:])
	if err != nil {
		return nil, err
	}
	bodyLen := size - headerSize - footerSize
	if ft.bodyLen != uint64(bodyLen) {
		return nil, fmt.Errorf("%w: body is %d bytes, footer says %d", ErrTruncated, bodyLen, ft.bodyLen)
	}
	if int64(ft.records) != info.Records {
		return nil, fmt.Errorf("%w: %s has %d records, manifest says %d", ErrManifest, info.Name, ft.records, info.Records)
	}
	if ft.records > ft.rawLen {
		return nil, fmt.Errorf("%w: %d records in %d bytes", ErrCorrupt, ft.records, ft.rawLen)
	}
	if sh.scratch == nil {
		sh.scratch = make([]byte, 1<<18)
	}
	crc := crc32.New(castagnoli)
	if _, err := io.CopyBuffer(crc, io.NewSectionReader(f, headerSize, bodyLen), sh.scratch); err != nil {
		return nil, err
	}
	if crc.Sum32() != ft.checksum {
		return nil, ErrChecksum
	}
	rd.body.Reset(io.NewSectionReader(f, headerSize, bodyLen))
	rd.left, rd.rawLen = ft.records, ft.rawLen
	if h.Compression == CompressZstd {
		if rd.zr == nil {
			if rd.zr, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true)); err != nil {
				return nil, err
			}
			rd.zbr = bufio.NewReaderSize(nil, 1<<16)
		}
		if err := rd.zr.Reset(rd.body); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		rd.zbr.Reset(rd.zr)
		rd.br = rd.zbr
	} else {
		rd.br = rd.body
	}
	for range s.off {
		if err := rd.skip(); err != nil {
			return nil, err
		}
	}
	return rd, nil
}

// length reads the length prefix of the next record.
func (rd *shardReader) length() (int, error) {
	if rd.left == 0 {
		return 0, fmt.Errorf("%w: more records than the footer says", ErrCorrupt)
	}
	b, err := rd.br.Peek(binary.MaxVarintLen64)
	if len(b) == 0 {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return 0, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	n, k := binary.Uvarint(b)
	if k <= 0 || n > MaxRecordSize {
		return 0, fmt.Errorf("%w: bad record length", ErrCorrupt)
	}
	_, _ = rd.br.Discard(k)
	rd.left--
	rd.raw += uint64(k) + n
	return int(n), nil
}

// next appends the next record to dst.
func (rd *shardReader) next(dst []byte) ([]byte, error) {
	n, err := rd.length()
	if err != nil {
		return dst, err
	}
	l := len(dst)
	dst = slices.Grow(dst, n)[:l+n]
	if _, err := io.ReadFull(rd.br, dst[l:]); err != nil {
		return dst[:l], fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return dst, nil
}

func (rd *shardReader) skip() error {
	n, err := rd.length()
	if err != nil {
		return err
	}
	if m, err := rd.br.Discard(n); m != n {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return nil
}

// finish checks that the body ends after the last record.
func (rd *shardReader) finish() error {
	if _, err := rd.br.ReadByte(); !errors.Is(err, io.EOF) {
		if err == nil {
			err = errors.New("bytes after the last record")
		}
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if rd.raw != rd.rawLen {
		return fmt.Errorf("%w: raw body is %d bytes, footer says %d", ErrCorrupt, rd.raw, rd.rawLen)
	}
	return nil
}

// splitmix64 is the RNG of this package: fixed forever, so a seed means the
// same order in every Go version.
type splitmix64 uint64

func (s *splitmix64) next() uint64 {
	*s += 0x9e3779b97f4a7c15
	z := uint64(*s)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// below returns a value in [0, n) (multiply-shift; the tiny bias is irrelevant here).
func (s *splitmix64) below(n int) int {
	hi, _ := bits.Mul64(s.next(), uint64(n))
	return int(hi)
}

// mix hashes its arguments into one seed.
func mix(vs ...uint64) uint64 {
	s := splitmix64(0x6a09e667f3bcc908)
	var h uint64
	for _, v := range vs {
		s ^= splitmix64(v + h)
		h = s.next()
	}
	return h
}

func permutation(n int, seed uint64) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	r := splitmix64(seed)
	for i := n - 1; i > 0; i-- {
		j := r.below(i + 1)
		p[i], p[j] = p[j], p[i]
	}
	return p
}

func permutationInto(p []int32, n int, seed uint64) []int32 {
	p = p[:0]
	for i := 0; i < n; i++ {
		p = append(p, int32(i))
	}
	r := splitmix64(seed)
	for i := n - 1; i > 0; i-- {
		j := r.below(i + 1)
		p[i], p[j] = p[j], p[i]
	}
	return p
}
