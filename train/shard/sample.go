package shard

import (
	"fmt"

	"github.com/humchess/humchess/board"
)

// Open opens the shard set in dir for this program's board.ContractVersion
// (see OpenContract). A set written under another contract version is refused
// with ErrContractVersion naming both versions.
func Open(dir string) (*Set, error) { return OpenContract(dir, board.ContractVersion) }

// AppendSample appends the record of one training position to dst: the
// position's binary form (board.Encoded.AppendBinary, which is
// self-delimiting) followed by its targets (board.Targets.AppendBinary).
func AppendSample(dst []byte, e *board.Encoded, t *board.Targets) []byte {
	dst = e.AppendBinary(dst)
	return t.AppendBinary(dst)
}

// DecodeSample decodes a record written by AppendSample into e and t (reusing
// e.Legal's storage). It fails with an error wrapping ErrCorrupt when the
// record does not decode or has trailing bytes.
func DecodeSample(rec []byte, e *board.Encoded, t *board.Targets) error {
	n, err := e.DecodeBinary(rec)
	if err != nil {
		return fmt.Errorf("%w: position: %v", ErrCorrupt, err)
	}
	m, err := t.DecodeBinary(rec[n:])
	if err != nil {
		return fmt.Errorf("%w: targets: %v", ErrCorrupt, err)
	}
	if n+m != len(rec) {
		return fmt.Errorf("%w: %d trailing bytes after a sample", ErrCorrupt, len(rec)-n-m)
	}
	return nil
}
