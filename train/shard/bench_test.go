package shard

import (
	"testing"
)

// BenchmarkShuffle reads a zstd shard set of 200,000 records of 170 bytes
// through the Shuffler (window 65,536); ns/op is per record.
func BenchmarkShuffle(b *testing.B) {
	dir := b.TempDir()
	w := NewSplitWriter(dir, SplitTrain, SplitOptions{WriterOptions: WriterOptions{testContract, CompressZstd}, MaxRecords: 50000})
	rec := make([]byte, 170)
	for i := range 200000 {
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
