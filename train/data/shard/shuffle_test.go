package shard

import (
	"encoding/binary"
	"encoding/json"
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

// sizedSet writes a train split whose shards hold the given numbers of
// records (ids counting up from 0 across shards, in manifest order).
func sizedSet(t testing.TB, comp Compression, sizes ...int) *Set {
	t.Helper()
	dir := t.TempDir()
	m := &Manifest{ContractVersion: testContract, Counts: map[string]Count{}}
	id := 0
	total := 0
	for i, n := range sizes {
		w, err := Create(dir, ShardName(SplitTrain, i), SplitTrain, WriterOptions{testContract, comp})
		require.NoError(t, err)
		for range n {
			r := binary.LittleEndian.AppendUint32(nil, uint32(id))
			r = append(r, make([]byte, id%37)...)
			require.NoError(t, w.Append(r))
			id++
		}
		info, err := w.Close()
		require.NoError(t, err)
		m.Shards = append(m.Shards, info)
		total += n
	}
	m.Counts[SplitTrain] = Count{Positions: int64(total)}
	require.NoError(t, WriteManifest(dir, m))
	set, err := OpenContract(dir, testContract)
	require.NoError(t, err)
	return set
}

func shuffled(t testing.TB, set *Set, opts ShuffleOptions) []int {
	t.Helper()
	sh, err := set.Shuffle(SplitTrain, opts)
	require.NoError(t, err)
	defer sh.Close()
	var out []int
	for {
		r, err := sh.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		id := int(binary.LittleEndian.Uint32(r))
		if len(r) != 4+id%37 {
			t.Fatalf("record %d has %d bytes", id, len(r))
		}
		out = append(out, id)
	}
}

// TestShuffleEveryRecordOnce checks, for several shard layouts, window sizes
// and stream counts, that each epoch returns every record exactly once and
// that the order depends on the seed only.
func TestShuffleEveryRecordOnce(t *testing.T) {
	layouts := map[string][]int{
		"even":        {50, 50, 50, 50, 50, 50, 50, 50},
		"uneven":      {1, 200, 3, 77, 0, 150, 9, 64, 2, 120},
		"one shard":   {333},
		"many shards": {7, 13, 5, 11, 9, 3, 17, 6, 8, 10, 12, 4, 14, 2, 16, 1, 15, 7, 7, 7, 30, 1, 1, 1, 40, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5},
	}
	for name, sizes := range layouts {
		n := 0
		for _, s := range sizes {
			n += s
		}
		for _, comp := range []Compression{CompressNone, CompressZstd} {
			set := sizedSet(t, comp, sizes...)
			for _, buf := range []int{1, 7, 64, 1000, 1 << 18} {
				for _, streams := range []int{1, 2, 5, 0} {
					t.Run(fmt.Sprintf("%s/comp%d/buf%d/streams%d", name, comp, buf, streams), func(t *testing.T) {
						opts := ShuffleOptions{Buffer: buf, Streams: streams, Seed: 9, Epochs: 3}
						a := shuffled(t, set, opts)
						require.Len(t, a, 3*n)
						for e := range 3 {
							ep := append([]int(nil), a[e*n:(e+1)*n]...)
							sort.Ints(ep)
							for i := range ep {
								require.Equal(t, i, ep[i], "epoch %d is not a permutation of the records", e)
							}
						}
						assert.Equal(t, a, shuffled(t, set, opts), "same seed, same order")
						if n > 10 && (buf > 1 || (streams != 1 && len(sizes) > 1)) { // else the order is the shard order
							o := opts
							o.Seed++
							assert.NotEqual(t, a, shuffled(t, set, o), "another seed, another order")
							assert.NotEqual(t, a[:n], a[n:2*n], "epochs differ")
						}
					})
				}
			}
		}
	}
}

// TestShuffleStreamsInWindow checks the interleave itself: the first window
// holds records of every shard of the first group (40 shards in groups of at
// most Streams, of near-equal count), each about equally (the shards are of
// equal size and none runs out within the window).
func TestShuffleStreamsInWindow(t *testing.T) {
	sizes := make([]int, 40)
	for i := range sizes {
		sizes[i] = 1000
	}
	set := sizedSet(t, CompressZstd, sizes...)
	for _, streams := range []int{1, 4, 32, 100} {
		a := shuffled(t, set, ShuffleOptions{Buffer: 800, Streams: streams, Seed: 3, Epochs: 1})
		per := map[int]int{}
		for _, id := range a[:800] {
			per[id/1000]++
		}
		want := 40 / ((40 + streams - 1) / streams)
		assert.Len(t, per, want, "streams %d: shards in the first window", streams)
		for k, c := range per {
			assert.LessOrEqual(t, c, 800/want*5/2, "streams %d: records of shard %d in the first window", streams, k)
		}
	}
}

// TestShuffleMixesSources is the reason for the interleave: a split whose
// first half of shards holds one kind of data (say games without clocks) and
// second half another must give batches that mix both kinds in about their
// proportion, at every point of every epoch. A shuffler that fills a window
// from consecutive shards fails it (windows of one or two kinds).
func TestShuffleMixesSources(t *testing.T) {
	const shards, per, batch = 64, 100, 128
	sizes := make([]int, shards)
	for i := range sizes {
		sizes[i] = per
	}
	set := sizedSet(t, CompressZstd, sizes...)
	const n = shards * per
	for seed := uint64(1); seed <= 5; seed++ {
		a := shuffled(t, set, ShuffleOptions{Buffer: 1024, Seed: seed, Epochs: 2})
		require.Len(t, a, 2*n)
		lo, hi := 1.0, 0.0
		for i := 0; i+batch <= len(a); i += batch {
			kindA := 0
			for _, id := range a[i : i+batch] {
				if id < n/2 {
					kindA++
				}
			}
			f := float64(kindA) / batch
			lo, hi = min(lo, f), max(hi, f)
			assert.True(t, f >= 0.25 && f <= 0.75, "seed %d: batch at %d has %.0f%% of kind A, want 25..75%%", seed, i, 100*f)
		}
		t.Logf("seed %d: share of kind A per batch of %d: %.2f..%.2f", seed, batch, lo, hi)
	}
}

// TestShuffleResumeEverywhere resumes at every point of three epochs (mid
// window, window and epoch boundaries, before the first and after the last
// record), through the Position's JSON form as the trainer stores it.
func TestShuffleResumeEverywhere(t *testing.T) {
	set := sizedSet(t, CompressZstd, 40, 1, 90, 33, 0, 71, 12, 55, 60, 7)
	n := 40 + 1 + 90 + 33 + 71 + 12 + 55 + 60 + 7
	for _, tc := range []struct{ buf, streams int }{{64, 3}, {1, 4}, {100, 1}, {1000, 0}, {50, 10}} {
		t.Run(fmt.Sprintf("buf%d/streams%d", tc.buf, tc.streams), func(t *testing.T) {
			opts := ShuffleOptions{Buffer: tc.buf, Streams: tc.streams, Seed: 77, Epochs: 3}
			sh, err := set.Shuffle(SplitTrain, opts)
			require.NoError(t, err)
			var all []int
			var pos [][]byte
			for {
				js, err := json.Marshal(sh.Position())
				require.NoError(t, err)
				pos = append(pos, js)
				r, err := sh.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				require.NoError(t, err)
				all = append(all, int(binary.LittleEndian.Uint32(r)))
			}
			require.Len(t, all, 3*n)
			for at := range pos {
				var p Position
				require.NoError(t, json.Unmarshal(pos[at], &p))
				o := opts
				o.Resume = &p
				got := append([]int{}, shuffled(t, set, o)...)
				if !assert.Equal(t, all[at:], got, "resume at %d from %s", at, pos[at]) {
					return
				}
			}
		})
	}
}

// TestShuffleResumeEndless resumes an endless Shuffler across epochs.
func TestShuffleResumeEndless(t *testing.T) {
	set := sizedSet(t, CompressZstd, 30, 30, 30, 30, 25)
	opts := ShuffleOptions{Buffer: 40, Streams: 2, Seed: 5}
	sh, err := set.Shuffle(SplitTrain, opts)
	require.NoError(t, err)
	var all []int
	var pos []Position
	for range 145 * 5 {
		pos = append(pos, sh.Position())
		r, err := sh.Next()
		require.NoError(t, err)
		all = append(all, int(binary.LittleEndian.Uint32(r)))
	}
	assert.Equal(t, 4, sh.Epoch())
	for e := range 5 {
		ep := append([]int(nil), all[e*145:(e+1)*145]...)
		sort.Ints(ep)
		for i := range ep {
			require.Equal(t, i, ep[i], "epoch %d", e)
		}
	}
	for _, at := range []int{0, 39, 40, 144, 145, 146, 300, 579, 580, 700} {
		o := opts
		o.Resume = &pos[at]
		sh, err := set.Shuffle(SplitTrain, o)
		require.NoError(t, err)
		for i := at; i < len(all); i++ {
			r, err := sh.Next()
			require.NoError(t, err)
			require.Equal(t, all[i], int(binary.LittleEndian.Uint32(r)), "resume at %d, record %d", at, i)
		}
	}
}

// TestShuffleRefusedPositions: positions that do not fit the options or the
// set are refused, among them those of the single-stream shuffler.
func TestShuffleRefusedPositions(t *testing.T) {
	set := sizedSet(t, CompressZstd, 30, 30, 30, 30)
	opts := ShuffleOptions{Buffer: 16, Streams: 2, Seed: 1, Epochs: 2}
	sh, err := set.Shuffle(SplitTrain, opts)
	require.NoError(t, err)
	for range 20 {
		_, err := sh.Next()
		require.NoError(t, err)
	}
	good := sh.Position()
	o := opts
	o.Resume = &good
	_, err = set.Shuffle(SplitTrain, o)
	require.NoError(t, err)

	var old Position // a checkpoint of the single-stream shuffler
	require.NoError(t, json.Unmarshal([]byte(`{"epoch":0,"shard":1,"offset":20,"emitted":2,"buffer":16,"rng":12345}`), &old))
	o.Resume = &old
	_, err = set.Shuffle(SplitTrain, o)
	require.ErrorIs(t, err, ErrPosition)
	assert.Contains(t, err.Error(), "version 0")

	for name, edit := range map[string]func(p *Position){
		"buffer":      func(p *Position) { p.Buffer = 32 },
		"streams":     func(p *Position) { p.Streams = 3 },
		"rng":         func(p *Position) { p.RNG++ },
		"epoch":       func(p *Position) { p.Epoch = 2 },
		"next":        func(p *Position) { p.Next = 5 },
		"shard":       func(p *Position) { p.Open[0].Shard = p.Next },
		"twice":       func(p *Position) { p.Open[1].Shard = p.Open[0].Shard },
		"offset":      func(p *Position) { p.Open[0].Offset = 30 },
		"emitted":     func(p *Position) { p.Emitted = 17 },
		"no streams":  func(p *Position) { p.Open = nil },
		"other group": func(p *Position) { p.Open[0].Shard = 3 },
	} {
		p := good
		p.Open = append([]StreamPos(nil), good.Open...)
		edit(&p)
		o := opts
		o.Resume = &p
		_, err := set.Shuffle(SplitTrain, o)
		assert.ErrorIs(t, err, ErrPosition, name)
	}
	o = opts
	o.Streams = 3
	o.Resume = &good
	_, err = set.Shuffle(SplitTrain, o)
	assert.ErrorIs(t, err, ErrPosition, "other stream count")
}

// TestShuffleBadShard: a shard whose body changed after the manifest was
// written is caught before any of its records is returned.
func TestShuffleBadShard(t *testing.T) {
	set := sizedSet(t, CompressZstd, 20, 20)
	p := filepath.Join(set.Dir, ShardName(SplitTrain, 1))
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	data[headerSize+5] ^= 0x40
	require.NoError(t, os.WriteFile(p, data, 0o644))
	sh, err := set.Shuffle(SplitTrain, ShuffleOptions{Buffer: 4, Streams: 2, Epochs: 1})
	require.NoError(t, err)
	for {
		r, err := sh.Next()
		if err != nil {
			assert.ErrorIs(t, err, ErrChecksum)
			break
		}
		assert.Less(t, int(binary.LittleEndian.Uint32(r)), 20, "record of the bad shard returned")
	}

	// a manifest whose record count disagrees with the shard
	set = sizedSet(t, CompressNone, 20, 20)
	set.Manifest.Shards[0].Records = 21
	sh, err = set.Shuffle(SplitTrain, ShuffleOptions{Buffer: 4, Streams: 2, Epochs: 1})
	require.NoError(t, err)
	_, err = sh.Next()
	assert.ErrorIs(t, err, ErrManifest)
}
