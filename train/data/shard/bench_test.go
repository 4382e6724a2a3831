package shard

import (
	"testing"
)

// BenchmarkShuffle reads a zstd shard set of 200,000 records of 170 bytes
// in 4 shards through the Shuffler (window 65,536); ns/op is per record.
func BenchmarkShuffle(b *testing.B) { benchShuffle(b, 200000, 170, 50000) }

// BenchmarkShuffleManyShards reads 400,000 records of 150 bytes in 40 shards
// (window 65,536, default streams: two groups of 20 shards); ns/op is per record.
func BenchmarkShuffleManyShards(b *testing.B) { benchShuffle(b, 400000, 150, 10000) }

func benchShuffle(b *testing.B, records, size int, perShard int64) {
	dir := b.TempDir()
	w := NewSplitWriter(dir, SplitTrain, SplitOptions{WriterOptions: WriterOptions{testContract, CompressZstd}, MaxRecords: perShard})
	rec := make([]byte, size)
	for i := range records {
		for j := range rec {
			rec[j] = byte(i>>(j%3*8)) ^ byte(j)
		}
		if err := w.Append(rec); err != nil {
			b.Fatal(err)
		}
	}
	infos, err := w.Close()
	if err != nil {
		b.Fatal(err)
	}
	if err := WriteManifest(dir, &Manifest{ContractVersion: testContract, Shards: infos}); err != nil {
		b.Fatal(err)
	}
	set, err := OpenContract(dir, testContract)
	if err != nil {
		b.Fatal(err)
	}
	sh, err := set.Shuffle(SplitTrain, ShuffleOptions{Buffer: 1 << 16, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(rec)))
	b.ResetTimer()
	for range b.N {
		if _, err := sh.Next(); err != nil {
			b.Fatal(err)
		}
	}
}
