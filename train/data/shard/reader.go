package shard

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ErrPosition reports a resume Position that does not fit the set or options.
var ErrPosition = errors.New("shard: resume position does not fit this shard set and options")

// Set is an opened, validated shard set.
type Set struct {
	Dir      string
	Manifest *Manifest
	contract int
}

// OpenContract opens the shard set in dir, checking that its manifest exists,
// that it was written for the given board contract version, and that every
// listed shard file exists with the listed size. A negative contract accepts
// any version.
func OpenContract(dir string, contract int) (*Set, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	if contract >= 0 && m.ContractVersion != contract {
		return nil, fmt.Errorf("%w: shard set %s was written with contract version %d, this program uses contract version %d; re-run prep",
			ErrContractVersion, dir, m.ContractVersion, contract)
	}
	for _, s := range m.Shards {
		if s.Name == "" || filepath.Base(s.Name) != s.Name {
			return nil, fmt.Errorf("%w: bad shard name %q", ErrManifest, s.Name)
		}
		st, err := os.Stat(filepath.Join(dir, s.Name))
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrManifest, err)
		}
		if st.Size() != s.Bytes {
			return nil, fmt.Errorf("%w: %s is %d bytes, manifest says %d", ErrTruncated, s.Name, st.Size(), s.Bytes)
		}
	}
	return &Set{Dir: dir, Manifest: m, contract: m.ContractVersion}, nil
}

// Shards returns the shards of a split in manifest order.
func (s *Set) Shards(split string) []Info {
	var out []Info
	for _, sh := range s.Manifest.Shards {
		if sh.Split == split {
			out = append(out, sh)
		}
	}
	return out
}

// Records returns the number of records of a split.
func (s *Set) Records(split string) int64 { return s.Manifest.Records(split) }

// readShard loads and checks one shard of the set.
func (s *Set) readShard(info Info) ([][]byte, error) {
	_, recs, err := ReadFile(filepath.Join(s.Dir, info.Name), s.contract)
	if err != nil {
		return nil, err
	}
	if int64(len(recs)) != info.Records {
		return nil, fmt.Errorf("%w: %s has %d records, manifest says %d", ErrManifest, info.Name, len(recs), info.Records)
	}
	return recs, nil
}

// Verify recomputes the sha256 of every shard and compares it with the manifest.
func (s *Set) Verify() error {
	for _, sh := range s.Manifest.Shards {
		sum, err := fileSHA256(filepath.Join(s.Dir, sh.Name))
		if err != nil {
			return err
		}
		if sum != sh.SHA256 {
			return fmt.Errorf("%w: %s has sha256 %s, manifest says %s", ErrChecksum, sh.Name, sum, sh.SHA256)
		}
	}
	return nil
}

// Reader iterates the records of one split in order, shard by shard.
type Reader struct {
	set    *Set
	shards []Info
	k      int
	recs   [][]byte
	i      int
}

// Reader returns a sequential reader of a split.
func (s *Set) Reader(split string) *Reader {
	return &Reader{set: s, shards: s.Shards(split)}
}

// Next returns the next record, or io.EOF after the last. The record aliases
// an internal buffer: copy it to keep it past the next shard.
func (r *Reader) Next() ([]byte, error) {
	for r.i >= len(r.recs) {
		if r.k >= len(r.shards) {
			return nil, io.EOF
		}
		recs, err := r.set.readShard(r.shards[r.k])
		if err != nil {
			return nil, err
		}
		r.recs, r.i = recs, 0
		r.k++
	}
	rec := r.recs[r.i]
	r.i++
	return rec, nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("shard: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("shard: read %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
