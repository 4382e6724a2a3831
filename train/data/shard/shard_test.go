package shard

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testContract = 7

// testRecords returns n records of varying sizes whose bytes identify them.
func testRecords(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		r := binary.LittleEndian.AppendUint32(nil, uint32(i))
		for j := 0; j < i%300; j++ {
			r = append(r, byte(i*31+j))
		}
		out[i] = r
	}
	return out
}

// writeSet writes recs as a set with the given split sizes and a manifest.
func writeSet(t *testing.T, dir string, recs map[string][][]byte, opts SplitOptions) *Manifest {
	t.Helper()
	m := &Manifest{ContractVersion: opts.ContractVersion, Counts: map[string]Count{}}
	for _, split := range []string{SplitTrain, SplitValidation} {
		w := NewSplitWriter(dir, split, opts)
		for _, r := range recs[split] {
			require.NoError(t, w.Append(r))
		}
		infos, err := w.Close()
		require.NoError(t, err)
		m.Shards = append(m.Shards, infos...)
		m.Counts[split] = Count{Positions: int64(len(recs[split]))}
	}
	require.NoError(t, WriteManifest(dir, m))
	return m
}

func readAll(t *testing.T, next func() ([]byte, error)) [][]byte {
	t.Helper()
	var out [][]byte
	for {
		r, err := next()
		if errors.Is(err, io.EOF) {
			return out
		}
		require.NoError(t, err)
		out = append(out, append([]byte{}, r...))
	}
}

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name       string
		comp       Compression
		n          int
		maxRecords int64
		maxBytes   int64
		wantShards int
	}{
		{"none one shard", CompressNone, 100, 0, 0, 1},
		{"zstd one shard", CompressZstd, 100, 0, 0, 1},
		{"zstd by records", CompressZstd, 1000, 300, 0, 4},
		{"none by bytes", CompressNone, 1000, 0, 40_000, 0},
		{"empty record", CompressZstd, 1, 0, 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			recs := testRecords(tc.n)
			if tc.name == "empty record" {
				recs = [][]byte{{}}
			}
			opts := SplitOptions{WriterOptions{testContract, tc.comp}, tc.maxRecords, tc.maxBytes}
			m := writeSet(t, dir, map[string][][]byte{SplitTrain: recs, SplitValidation: recs[:1]}, opts)
			if tc.wantShards > 0 {
				assert.Len(t, m.Shards, tc.wantShards+1, "shards (train + 1 validation)")
			} else {
				assert.Greater(t, len(m.Shards), 2, "byte limit should roll shards")
			}
			set, err := OpenContract(dir, testContract)
			require.NoError(t, err)
			require.NoError(t, set.Verify())
			got := readAll(t, set.Reader(SplitTrain).Next)
			require.Equal(t, len(recs), len(got))
			for i := range recs {
				require.Equal(t, recs[i], got[i], "record %d", i)
			}
			assert.Equal(t, int64(len(recs)), set.Records(SplitTrain))
			assert.Len(t, readAll(t, set.Reader(SplitValidation).Next), 1)
			assert.Empty(t, readAll(t, set.Reader("nosuchsplit").Next))
			matches, _ := filepath.Glob(filepath.Join(dir, "*.tmp"))
			assert.Empty(t, matches, "no temporary files left")
		})
	}
}

// TestTruncatedNeverComplete cuts a finished shard at every length and checks
// that no prefix parses as a complete shard.
func TestTruncatedNeverComplete(t *testing.T) {
	for _, comp := range []Compression{CompressNone, CompressZstd} {
		dir := t.TempDir()
		w, err := Create(dir, "a.shard", SplitTrain, WriterOptions{testContract, comp})
		require.NoError(t, err)
		for _, r := range testRecords(20) {
			require.NoError(t, w.Append(r))
		}
		info, err := w.Close()
		require.NoError(t, err)
		data, err := os.ReadFile(filepath.Join(dir, info.Name))
		require.NoError(t, err)
		_, recs, err := Parse(data, testContract)
		require.NoError(t, err)
		require.Len(t, recs, 20)
		for n := 0; n < len(data); n++ {
			_, _, err := Parse(data[:n], testContract)
			require.Error(t, err, "compression %d: prefix of %d/%d bytes parsed as complete", comp, n, len(data))
		}
		// a flipped bit in the body is caught by the CRC
		bad := append([]byte(nil), data...)
		bad[headerSize+3] ^= 0x10
		_, _, err = Parse(bad, testContract)
		assert.ErrorIs(t, err, ErrChecksum)
	}
}

// TestKilledWriter simulates a run killed mid-write: shards never closed and no
// manifest. Open must refuse, and the unfinished file must not read as a shard.
func TestKilledWriter(t *testing.T) {
	dir := t.TempDir()
	sw := NewSplitWriter(dir, SplitTrain, SplitOptions{WriterOptions: WriterOptions{testContract, CompressZstd}, MaxRecords: 50})
	for _, r := range testRecords(120) { // two finished shards, one open
		require.NoError(t, sw.Append(r))
	}
	// killed: no Close, no manifest
	_, err := OpenContract(dir, testContract)
	require.ErrorIs(t, err, ErrNoManifest)
	_, err = os.Stat(filepath.Join(dir, ShardName(SplitTrain, 2)))
	assert.True(t, os.IsNotExist(err), "the open shard must not exist under its final name")
	sw.cur.buf.Flush()
	_, _, err = ReadFile(filepath.Join(dir, ShardName(SplitTrain, 2)+".tmp"), testContract)
	assert.ErrorIs(t, err, ErrTruncated)

	// a manifest listing a shard whose file was cut short is refused too
	m := &Manifest{ContractVersion: testContract, Shards: sw.done}
	require.NoError(t, WriteManifest(dir, m))
	p := filepath.Join(dir, sw.done[1].Name)
	require.NoError(t, os.Truncate(p, sw.done[1].Bytes-5))
	_, err = OpenContract(dir, testContract)
	assert.ErrorIs(t, err, ErrTruncated)
	require.NoError(t, RemoveManifest(dir))
	_, err = OpenContract(dir, testContract)
	assert.ErrorIs(t, err, ErrNoManifest)
}

func TestContractMismatch(t *testing.T) {
	dir := t.TempDir()
	writeSet(t, dir, map[string][][]byte{SplitTrain: testRecords(3)}, SplitOptions{WriterOptions: WriterOptions{ContractVersion: 3}})
	_, err := OpenContract(dir, 4)
	require.ErrorIs(t, err, ErrContractVersion)
	assert.Contains(t, err.Error(), "contract version 3")
	assert.Contains(t, err.Error(), "contract version 4")
	_, _, err = ReadFile(filepath.Join(dir, ShardName(SplitTrain, 0)), 4)
	assert.ErrorIs(t, err, ErrContractVersion)
	_, err = OpenContract(dir, -1)
	assert.NoError(t, err)
}

func TestBadInput(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrTruncated},
		{"not a shard", []byte("[Event \"Rated Blitz game\"]\n[Site \"x\"]\n\n1. e4 e5 *\n"), ErrBadMagic},
		{"header only", Header{FormatVersion, CompressNone, 1}.append(nil), ErrTruncated},
		{"future version", append(Header{FormatVersion + 1, CompressNone, 1}.append(nil), make([]byte, footerSize)...), ErrFormatVersion},
	}
	for _, tc := range tests {
		_, _, err := Parse(tc.data, -1)
		assert.ErrorIs(t, err, tc.want, tc.name)
	}
	dir := t.TempDir()
	w, err := Create(dir, "x.shard", SplitTrain, WriterOptions{})
	require.NoError(t, err)
	assert.ErrorIs(t, w.Append(make([]byte, MaxRecordSize+1)), ErrRecordSize)
	_, err = w.Close()
	require.NoError(t, err)
	assert.ErrorIs(t, w.Append(nil), ErrClosed)
	_, err = Create(dir, "../escape", SplitTrain, WriterOptions{})
	assert.Error(t, err)
}

func shuffleSet(t *testing.T, n int) *Set {
	t.Helper()
	dir := t.TempDir()
	writeSet(t, dir, map[string][][]byte{SplitTrain: testRecords(n)},
		SplitOptions{WriterOptions: WriterOptions{testContract, CompressZstd}, MaxRecords: 97})
	set, err := OpenContract(dir, testContract)
	require.NoError(t, err)
	return set
}

func ids(recs [][]byte) []int {
	out := make([]int, len(recs))
	for i, r := range recs {
		out[i] = int(binary.LittleEndian.Uint32(r))
	}
	return out
}

func TestShuffle(t *testing.T) {
	const n = 1000
	set := shuffleSet(t, n)
	read := func(opts ShuffleOptions) []int {
		sh, err := set.Shuffle(SplitTrain, opts)
		require.NoError(t, err)
		return ids(readAll(t, sh.Next))
	}
	a := read(ShuffleOptions{Buffer: 250, Seed: 1, Epochs: 2})
	require.Len(t, a, 2*n)
	assert.Equal(t, a, read(ShuffleOptions{Buffer: 250, Seed: 1, Epochs: 2}), "same seed, same order")
	assert.NotEqual(t, a, read(ShuffleOptions{Buffer: 250, Seed: 2, Epochs: 2}), "another seed, another order")
	assert.NotEqual(t, a[:n], a[n:], "epochs differ")
	for e := 0; e < 2; e++ {
		ep := append([]int(nil), a[e*n:(e+1)*n]...)
		sort.Ints(ep)
		for i := range ep {
			require.Equal(t, i, ep[i], "epoch %d is not a permutation of the records", e)
		}
	}
	// displacement: a shuffled epoch should not be near the identity
	inPlace := 0
	for i, v := range a[:n] {
		if v == i {
			inPlace++
		}
	}
	assert.Less(t, inPlace, 50)
}

func TestShuffleResume(t *testing.T) {
	const n = 700
	set := shuffleSet(t, n)
	opts := ShuffleOptions{Buffer: 128, Seed: 42, Epochs: 3}
	sh, err := set.Shuffle(SplitTrain, opts)
	require.NoError(t, err)
	var all []int
	var pos []Position
	for {
		pos = append(pos, sh.Position())
		r, err := sh.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		all = append(all, ids([][]byte{r})[0])
	}
	require.Len(t, all, 3*n)
	for _, at := range []int{0, 1, 127, 128, 129, 500, n - 1, n, n + 1, 2*n + 300, 3*n - 1, 3 * n} {
		t.Run(fmt.Sprint(at), func(t *testing.T) {
			o := opts
			p := pos[at]
			o.Resume = &p
			sh, err := set.Shuffle(SplitTrain, o)
			require.NoError(t, err)
			got := ids(readAll(t, sh.Next))
			assert.Equal(t, all[at:], got, "resume at %d from %+v", at, p)
		})
	}
	bad := pos[300]
	bad.RNG++
	o := opts
	o.Resume = &bad
	_, err = set.Shuffle(SplitTrain, o)
	assert.ErrorIs(t, err, ErrPosition)
	o.Resume = &Position{Buffer: 64}
	_, err = set.Shuffle(SplitTrain, o)
	assert.ErrorIs(t, err, ErrPosition)
}

func TestShuffleEmpty(t *testing.T) {
	set := shuffleSet(t, 5)
	sh, err := set.Shuffle(SplitValidation, ShuffleOptions{})
	require.NoError(t, err)
	_, err = sh.Next()
	assert.ErrorIs(t, err, io.EOF)
}
