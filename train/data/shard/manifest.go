package shard

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// ManifestName is the file name of a shard set's manifest.
const ManifestName = "manifest.json"

// ManifestFormat is the value of Manifest.Format.
const ManifestFormat = "humchess-shards"

// Split names used by train/data/prep.
const (
	SplitTrain      = "train"
	SplitValidation = "validation"
)

var (
	// ErrNoManifest reports a directory without a manifest: an unfinished or
	// killed run, or not a shard set at all.
	ErrNoManifest = errors.New("shard: no manifest (the shard set is incomplete or missing)")
	// ErrManifest reports a manifest that does not match its shard files.
	ErrManifest = errors.New("shard: manifest does not match the shard files")
)

// Count is a number of games and positions.
type Count struct {
	Games     int64 `json:"games"`
	Positions int64 `json:"positions"`
}

// Manifest describes a finished shard set. It is written last; its presence
// means every shard it lists was completely written.
type Manifest struct {
	Format          string           `json:"format"`           // ManifestFormat
	FormatVersion   int              `json:"format_version"`   // FormatVersion
	ContractVersion int              `json:"contract_version"` // board.ContractVersion of every record
	Created         time.Time        `json:"created"`
	Tool            string           `json:"tool,omitempty"`    // program and version that wrote the set
	Config          json.RawMessage  `json:"config,omitempty"`  // the full configuration of the run that wrote the set
	Counts          map[string]Count `json:"counts"`            // per split
	Skipped         map[string]int64 `json:"skipped,omitempty"` // per reason (games or positions; the reason says which)
	Stats           json.RawMessage  `json:"stats,omitempty"`   // extra statistics of the writer (free form)
	Teacher         *Teacher         `json:"teacher,omitempty"` // the net whose move distributions the records carry; nil = none
	Shards          []Info           `json:"shards"`
}

// Teacher names the net that labelled a shard set's records with teacher
// distributions (AppendTeacher). A set without one has none (older sets
// included); with one, every record carries a teacher section.
type Teacher struct {
	File      string `json:"file"`                // the net file as given ("default" for the embedded net)
	Name      string `json:"name"`                // the net's own name (nets.Info.Name), e.g. "maia-1500"
	Kind      string `json:"kind,omitempty"`      // nets.Info.Kind, e.g. "lc0"
	Hash      string `json:"hash,omitempty"`      // hex sha256 of the net's weights (nets.Info.Hash)
	Positions int64  `json:"positions,omitempty"` // records labelled
}

// Records returns the total number of records of a split.
func (m *Manifest) Records(split string) int64 {
	var n int64
	for _, s := range m.Shards {
		if s.Split == split {
			n += s.Records
		}
	}
	return n
}

// Splits returns the split names present in the shard list, sorted.
func (m *Manifest) Splits() []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range m.Shards {
		if !seen[s.Split] {
			seen[s.Split] = true
			out = append(out, s.Split)
		}
	}
	sort.Strings(out)
	return out
}

// WriteManifest writes m as dir/manifest.json atomically (temporary file,
// fsync, rename, fsync of the directory). Format and FormatVersion are filled
// in when empty.
func WriteManifest(dir string, m *Manifest) error {
	if m.Format == "" {
		m.Format = ManifestFormat
	}
	if m.FormatVersion == 0 {
		m.FormatVersion = FormatVersion
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("shard: manifest: %w", err)
	}
	return WriteFileAtomic(filepath.Join(dir, ManifestName), append(data, '\n'))
}

// WriteFileAtomic writes data to path through path.tmp, fsync and rename.
func WriteFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("shard: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("shard: write %s: %w", tmp, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("shard: fsync %s: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("shard: close %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("shard: rename %s: %w", tmp, err)
	}
	return syncDir(filepath.Dir(path))
}

// ReadManifest reads dir/manifest.json without checking the shard files.
func ReadManifest(dir string) (*Manifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNoManifest, dir)
	}
	if err != nil {
		return nil, fmt.Errorf("shard: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrManifest, dir, err)
	}
	if m.Format != ManifestFormat {
		return nil, fmt.Errorf("%w: %s: format %q, want %q", ErrManifest, dir, m.Format, ManifestFormat)
	}
	if m.FormatVersion != FormatVersion {
		return nil, fmt.Errorf("%w: manifest in %s has format version %d, this reader reads %d", ErrFormatVersion, dir, m.FormatVersion, FormatVersion)
	}
	return &m, nil
}

// RemoveManifest deletes dir/manifest.json if present, marking the set
// incomplete before it is rewritten.
func RemoveManifest(dir string) error {
	err := os.Remove(filepath.Join(dir, ManifestName))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("shard: %w", err)
	}
	if err == nil {
		return syncDir(dir)
	}
	return nil
}
