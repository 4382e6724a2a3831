// Package shard owns the on-disk training data format: compact binary shard
// files of opaque records, the JSON manifest that describes a shard set, atomic
// writes, and readers (sequential and a deterministic, resumable shuffle).
//
// It knows the encoding contract only through board.ContractVersion, which every
// shard and manifest carries, and the Sample helpers that pack a board.Encoded
// and its board.Targets into one record. It must not know PGN, filters or
// sampling: those belong to train/data/prep.
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
// # Records
//
// A training record (AppendSample) is a board.Encoded's binary form, then
// its board.Targets (9 bytes), then optionally a teacher section
// (AppendTeacher, for distillation):
//
//	tag     1 byte, TeacherTag ('T')
//	probs   n x uint16 little-endian, n = the position's number of legal
//	        moves, in the order of Encoded.Legal: round(p*65535) of the
//	        teacher's probability p of that move
//
// A teacher section may be followed by the teacher's value (AppendTeacherWDL):
//
//	tag     1 byte, TeacherWDLTag ('W')
//	wdl     3 x uint16 little-endian: round(p*65535) of the teacher's win,
//	        draw and loss probabilities for the mover
//
// The decoder (DecodeSampleTeacher, DecodeSampleDistill) divides by the sum of the stored values,
// so the distribution sums to 1 again. A record ending after its targets has
// no teacher, so sets written before teacher sections existed read unchanged;
// a set whose records carry one names the labelling net in Manifest.Teacher.
// Any other trailing bytes, a section whose length is not 1+2n (1+2n+7 with
// the value section), or one whose values are all zero fail with ErrCorrupt.
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
// Shuffler is a windowed ("block") shuffle over interleaved shards: each epoch
// puts the shards of a split in a seeded random order and cuts it into groups
// of at most Streams shards (default 32, groups of near-equal count); the
// shards of a group are read at once, as a uniformly random interleave (each
// record drawn from a shard with probability proportional to its records
// left); that record stream is cut into windows of Buffer records, each
// emitted in a seeded random order. Shards that each hold one kind of data
// (prep writes its inputs in order, so one file's games fill consecutive
// shards) thus mix in every batch. Shards are streamed, not loaded whole:
// memory is the window plus about 8 MiB per open shard. Its Position (epoch,
// window, the group's open shards with their record offsets, records emitted
// from the window, RNG seed of the window) is enough to resume exactly where a
// checkpoint stopped; Positions saved by the earlier single-stream shuffler
// (no version) are refused with ErrPosition.
package shard
