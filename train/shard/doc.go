// Package shard owns the on-disk training data format: compact binary shard
// files of opaque records, the JSON manifest that describes a shard set, atomic
// writes, and readers (sequential and a deterministic, resumable shuffle).
//
// It knows the encoding contract only through board.ContractVersion, which every
// shard and manifest carries, and the Sample helpers that pack a board.Encoded
// and its board.Targets into one record. It must not know PGN, filters or
// sampling: those belong to train/prep.
//
// # Shard file (format version 1)
//
// All integers little-endian.
//
//	header  16 bytes: magic "HCSHARD1", format version u16, compression u8,
//	        reserved u8, contract version u32
//	body    the records, each a uvarint length followed by that many bytes;
//	        zstd-compressed as one stream when compression is 1
//	footer  32 bytes: record count u64, body length (stored bytes) u64,
//	        uncompressed body length u64, CRC-32C of the stored body u32,
//	        magic "HCF1"
//
// A file without a valid footer, whose size disagrees with the footer, or whose
// CRC does not match is rejected (ErrTruncated, ErrChecksum): a partly written
// shard never reads as complete.
//
// # Atomic writes
//
// A Writer writes NAME.tmp, and Close writes the footer, fsyncs, renames to NAME
// and fsyncs the directory. The manifest (manifest.json) is written last, also
// through a temporary file and a rename, and Open refuses a directory without
// one (ErrNoManifest), so a run killed at any point leaves a set that reports
// itself incomplete rather than one that silently reads short.
//
// # Shuffle
//
// Shuffler is a windowed ("block") shuffle: each epoch visits the shards of a
// split in a seeded random order, cuts the resulting record stream into windows
// of Buffer records, and emits each window in a seeded random order. Its
// Position (epoch, shard, record offset, records emitted from the window, RNG
// seed of the window) is enough to resume exactly where a checkpoint stopped.
package shard
