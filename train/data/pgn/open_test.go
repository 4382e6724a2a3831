package pgn

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// zstdBytes compresses b with zstd.
func zstdBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil)
	require.NoError(t, err)
	defer enc.Close()
	return enc.EncodeAll(b, nil)
}

// gzipBytes compresses b with gzip.
func gzipBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	_, err := w.Write(b)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// eventsOf opens path and returns the events of its games.
func eventsOf(t *testing.T, path string) ([]string, error) {
	t.Helper()
	rc, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { assert.NoError(t, rc.Close()) }()
	r := NewReader(rc)
	var events []string
	for {
		g, err := r.Next()
		if errors.Is(err, io.EOF) {
			return events, nil
		}
		if err != nil {
			return events, err
		}
		events = append(events, g.Event)
	}
}

// TestOpen reads the same games through every container, including
// mislabeled files, and checks the errors for unreadable ones.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	fen := openFixture(t, "fen.pgn")
	clocks := openFixture(t, "clocks.pgn")
	both := append(append([]byte(nil), fen...), clocks...)
	want := []string{"From FEN", "From FEN, Black to move", "Clocks"}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	zst := zstdBytes(t, both)
	tests := []struct {
		name    string
		path    string
		want    []string
		wantErr error
	}{
		{"plain", write("a.pgn", both), want, nil},
		{"zstd", write("a.pgn.zst", zst), want, nil},
		{"gzip", write("a.pgn.gz", gzipBytes(t, both)), want, nil},
		{"bzip2 two streams", filepath.Join(fixtureDir, "multistream.pgn.bz2"), want, nil},
		{"zstd named .pgn", write("mislabeled.pgn", zst), want, nil},
		{"plain named .zst", write("plain.pgn.zst", both), want, nil},
		{"no extension", write("games", zst), want, nil},
		{"empty", write("empty.pgn", nil), nil, nil},
		{"binary named .zst", write("junk.pgn.zst", []byte{0, 1, 2, 3, 4, 5}), nil, ErrFormat},
		{"missing file", filepath.Join(dir, "nope.pgn"), nil, os.ErrNotExist},
		{"truncated zstd", write("cut.pgn.zst", zst[:len(zst)-30]), nil, io.ErrUnexpectedEOF},
		{"truncated zstd is corrupt", write("cut2.pgn.zst", zst[:len(zst)-30]), nil, ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := eventsOf(t, tt.path)
			if tt.wantErr != nil {
				require.Error(t, err, "%s: want an error wrapping %v", tt.path, tt.wantErr)
				assert.ErrorIs(t, err, tt.wantErr, "%s", tt.path)
				return
			}
			require.NoError(t, err, "%s", tt.path)
			assert.Equal(t, tt.want, got, "%s", tt.path)
		})
	}
}

// TestOpenTruncated cuts a real zstd file in half: the games before the cut
// read, then the error says the file is truncated or corrupt, with its name
// and the byte offset reached.
func TestOpenTruncated(t *testing.T) {
	full, err := os.ReadFile(vendoredGames)
	require.NoError(t, err)
	p := filepath.Join(t.TempDir(), "cut.pgn.zst")
	require.NoError(t, os.WriteFile(p, full[:len(full)/2], 0o644))
	events, err := eventsOf(t, p)
	require.ErrorIs(t, err, ErrCorrupt)
	assert.NotEmpty(t, events, "the games before the cut are read")
	msg := err.Error()
	assert.Contains(t, msg, "truncated or corrupt")
	assert.Contains(t, msg, "cut.pgn.zst")
	assert.Contains(t, msg, fmt.Sprintf("at byte %d of %d", len(full)/2, len(full)/2))
	assert.NotContains(t, msg, "pgn: read:", "one prefix, not two")
}

// TestOpenFormatError checks that the ErrFormat message names the claim.
func TestOpenFormatError(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.pgn.bz2")
	require.NoError(t, os.WriteFile(p, []byte{0x89, 'P', 'N', 'G', 0, 0}, 0o644))
	_, err := Open(p)
	require.ErrorIs(t, err, ErrFormat)
	assert.Contains(t, err.Error(), "bz2 data")
	assert.Contains(t, err.Error(), "89 50 4e 47")
}

// TestOpenStdin reads "-" from a replaced os.Stdin, which Close leaves open.
func TestOpenStdin(t *testing.T) {
	p := filepath.Join(t.TempDir(), "in.pgn.zst")
	require.NoError(t, os.WriteFile(p, zstdBytes(t, openFixture(t, "fen.pgn")), 0o644))
	f, err := os.Open(p)
	require.NoError(t, err)
	defer f.Close()
	old := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = old }()
	got, err := eventsOf(t, "-")
	require.NoError(t, err)
	assert.Equal(t, []string{"From FEN", "From FEN, Black to move"}, got)
	_, err = f.Stat()
	assert.NoError(t, err, "stdin still open after Close")
}

// TestFormatFromName covers the extension table.
func TestFormatFromName(t *testing.T) {
	tests := []struct {
		name string
		want Format
		ok   bool
	}{
		{"a.pgn", FormatPlain, true},
		{"a.PGN.ZST", FormatZstd, true},
		{"a.pgn.bz2", FormatBzip2, true},
		{"a.pgn.gz", FormatGzip, true},
		{"a.txt", FormatPlain, false},
		{"-", FormatPlain, false},
	}
	for _, tt := range tests {
		got, ok := FormatFromName(tt.name)
		assert.Equal(t, tt.want, got, "FormatFromName(%q)", tt.name)
		assert.Equal(t, tt.ok, ok, "FormatFromName(%q) ok", tt.name)
	}
}

func TestSourceName(t *testing.T) {
	for in, want := range map[string]string{
		"../shared/data/lichess-2022-06-2500.pgn.zst": "lichess-2022-06-2500",
		"games.pgn.bz2": "games",
		"games.pgn.gz":  "games",
		"dir/games.pgn": "games",
		"-":             "-",
		"notes.txt":     "notes.txt",
	} {
		assert.Equal(t, want, SourceName(in), in)
	}
}
