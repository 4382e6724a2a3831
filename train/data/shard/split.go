package shard

import (
	"fmt"
)

// SplitOptions configures a SplitWriter.
type SplitOptions struct {
	WriterOptions
	MaxRecords int64 // start a new shard after this many records; 0 = no limit
	MaxBytes   int64 // start a new shard after this many uncompressed body bytes; 0 = no limit
}

// SplitWriter writes the records of one split as a numbered series of shards
// (SPLIT-00000.shard, SPLIT-00001.shard, ...), starting a new shard when the
// current one reaches MaxRecords or MaxBytes. It is not safe for concurrent use.
type SplitWriter struct {
	dir, split string
	opts       SplitOptions
	cur        *Writer
	done       []Info
}

// NewSplitWriter returns a writer for split in dir. No file is created until
// the first record.
func NewSplitWriter(dir, split string, opts SplitOptions) *SplitWriter {
	return &SplitWriter{dir: dir, split: split, opts: opts}
}

// ShardName returns the file name of the i-th shard of a split.
func ShardName(split string, i int) string { return fmt.Sprintf("%s-%05d.shard", split, i) }

// Append adds one record, rolling over to a new shard when the current one is full.
func (s *SplitWriter) Append(rec []byte) error {
	if s.cur == nil {
		w, err := Create(s.dir, ShardName(s.split, len(s.done)), s.split, s.opts.WriterOptions)
		if err != nil {
			return err
		}
		s.cur = w
	}
	if err := s.cur.Append(rec); err != nil {
		return err
	}
	if (s.opts.MaxRecords > 0 && s.cur.Records() >= s.opts.MaxRecords) ||
		(s.opts.MaxBytes > 0 && s.cur.RawSize() >= s.opts.MaxBytes) {
		return s.finish()
	}
	return nil
}

func (s *SplitWriter) finish() error {
	info, err := s.cur.Close()
	s.cur = nil
	if err != nil {
		return err
	}
	s.done = append(s.done, info)
	return nil
}

// Close finishes the current shard and returns every shard written.
func (s *SplitWriter) Close() ([]Info, error) {
	if s.cur != nil {
		if err := s.finish(); err != nil {
			return s.done, err
		}
	}
	return s.done, nil
}

// Abort discards the shard being written (finished shards stay; without a
// manifest they belong to no set).
func (s *SplitWriter) Abort() {
	if s.cur != nil {
		s.cur.Abort()
		s.cur = nil
	}
}
