package pgn

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/humchess/humchess/internal/testenv"
)

// benchFile is the real file the benchmarks read.
const benchFile = "lichess-rapid-4756-players-59k.pgn.zst"

// benchRead reads every game of the PGN text from open, reporting games/s
// and MB/s of PGN text (decompressed), per wall second and per CPU second.
func benchRead(b *testing.B, open func() (io.Reader, func()), headersOnly bool) {
	b.ReportAllocs()
	var games, bytesRead int64
	cpu0 := cpuTime()
	for b.Loop() {
		in, done := open()
		r := NewReader(in)
		for {
			var err error
			if headersOnly {
				_, err = r.NextHeaders()
			} else {
				_, err = r.Next()
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		done()
		st := r.Stats()
		games += st.Games
		bytesRead += st.Bytes
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(games)/sec, "games/s")
	b.ReportMetric(float64(bytesRead)/sec/1e6, "MB/s")
	if cpu := (cpuTime() - cpu0).Seconds(); cpu > 0 {
		// Per CPU-second (all threads): steadier than wall time on a busy machine.
		b.ReportMetric(float64(games)/cpu, "games/cpu-s")
		b.ReportMetric(float64(bytesRead)/cpu/1e6, "MB/cpu-s")
	}
}

// BenchmarkReadZstd reads the rapid file from disk, zstd and all.
func BenchmarkReadZstd(b *testing.B) {
	path := filepath.Join(realDataDir, benchFile)
	benchRead(b, func() (io.Reader, func()) {
		rc, err := Open(path)
		if err != nil {
			testenv.Missing(b, "%v", err)
		}
		return rc, func() { _ = rc.Close() }
	}, false)
}

// decompressed returns the rapid file's PGN text.
func decompressed(b *testing.B) []byte {
	rc, err := Open(filepath.Join(realDataDir, benchFile))
	if err != nil {
		testenv.Missing(b, "%v", err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkParse reads the rapid file's PGN text from memory (no
// decompression): splitting, headers and movetext.
func BenchmarkParse(b *testing.B) {
	data := decompressed(b)
	b.ResetTimer()
	benchRead(b, func() (io.Reader, func()) { return bytes.NewReader(data), func() {} }, false)
}

// BenchmarkHeadersOnly reads the rapid file's PGN text from memory without
// tokenizing movetext (what a Filter that rejects everything costs).
func BenchmarkHeadersOnly(b *testing.B) {
	data := decompressed(b)
	b.ResetTimer()
	benchRead(b, func() (io.Reader, func()) { return bytes.NewReader(data), func() {} }, true)
}
