package shard

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/humchess/humchess/board"
)

// Open opens the shard set in dir for this program's board.ContractVersion
// (see OpenContract). A set written under another contract version is refused
// with ErrContractVersion naming both versions.
func Open(dir string) (*Set, error) { return OpenContract(dir, board.ContractVersion) }

// AppendSample appends the record of one training position to dst: the
// position's binary form (board.Encoded.AppendBinary, which is
// self-delimiting) followed by its targets (board.Targets.AppendBinary).
// AppendTeacher may add a teacher distribution after it.
func AppendSample(dst []byte, e *board.Encoded, t *board.Targets) []byte {
	dst = e.AppendBinary(dst)
	return t.AppendBinary(dst)
}

// TeacherTag is the first byte of a record's optional teacher section (see
// AppendTeacher). A record that ends after its targets has no teacher.
const TeacherTag = 0x54 // 'T'

// TeacherScale is the quantisation step of a teacher probability: a
// probability p is stored as the uint16 round(p*TeacherScale).
const TeacherScale = 65535

// ErrTeacher reports a teacher distribution that cannot be stored: a length
// that differs from the number of legal moves, or a negative, NaN or
// infinite probability, or one that sums to zero.
var ErrTeacher = errors.New("shard: bad teacher distribution")

// AppendTeacher appends the teacher section of a record whose position has
// len(p) legal moves to dst (which must end with that record's AppendSample
// output): the tag byte TeacherTag, then one uint16 little-endian per legal
// move, in the order of board.Encoded.Legal, holding round(p_k/sum(p)*65535).
// The distribution is renormalised before quantising; probabilities below
// 1/131070 store as 0. It fails with ErrTeacher for an empty p, a negative or
// non-finite entry or a zero sum.
func AppendTeacher(dst []byte, p []float32) ([]byte, error) {
	if len(p) == 0 || len(p) > board.NumMoves {
		return dst, fmt.Errorf("%w: %d probabilities", ErrTeacher, len(p))
	}
	return appendQuantised(dst, TeacherTag, p, "probability")
}

// appendQuantised appends tag and p renormalised and quantised to uint16s
// (round(p_k/sum(p)*TeacherScale)); what names an entry in errors.
func appendQuantised(dst []byte, tag byte, p []float32, what string) ([]byte, error) {
	var sum float64
	for k, x := range p {
		if !(x >= 0) || math.IsInf(float64(x), 0) {
			return dst, fmt.Errorf("%w: %s %d is %v", ErrTeacher, what, k, x)
		}
		sum += float64(x)
	}
	if !(sum > 0) || math.IsInf(sum, 0) {
		return dst, fmt.Errorf("%w: %ss sum to %v", ErrTeacher, what, sum)
	}
	dst = append(dst, tag)
	for _, x := range p {
		q := math.Round(float64(x) / sum * TeacherScale)
		dst = binary.LittleEndian.AppendUint16(dst, uint16(min(q, TeacherScale)))
	}
	return dst, nil
}

// TeacherWDLTag is the first byte of a record's optional teacher value
// section (see AppendTeacherWDL), which follows its teacher section.
const TeacherWDLTag = 0x57 // 'W'

// AppendTeacherWDL appends the teacher's win/draw/loss probabilities for the
// mover to dst, which must end with a record's teacher section
// (AppendTeacher): the tag byte TeacherWDLTag, then three uint16
// little-endian holding round(p/sum*65535). It fails with ErrTeacher for a
// negative or non-finite entry or a zero sum.
func AppendTeacherWDL(dst []byte, wdl [3]float32) ([]byte, error) {
	return appendQuantised(dst, TeacherWDLTag, wdl[:], "win/draw/loss probability")
}

// Distill is what a record carries for distillation beyond its targets.
type Distill struct {
	// Moves holds the teacher's probability per legal move, in the order of
	// Encoded.Legal, summing to 1; nil when the record has no teacher.
	Moves []float32
	// WDL holds the teacher's win/draw/loss for the mover, summing to 1,
	// when HasWDL.
	WDL    [3]float32
	HasWDL bool
}

// DecodeSampleDistill is DecodeSampleTeacher that also reads the optional
// teacher value section (AppendTeacherWDL). d.Moves reuses d.Moves' storage.
func DecodeSampleDistill(rec []byte, e *board.Encoded, t *board.Targets, d *Distill) error {
	n, err := e.DecodeBinary(rec)
	if err != nil {
		return fmt.Errorf("%w: position: %v", ErrCorrupt, err)
	}
	m, err := t.DecodeBinary(rec[n:])
	if err != nil {
		return fmt.Errorf("%w: targets: %v", ErrCorrupt, err)
	}
	rest := rec[n+m:]
	d.HasWDL = false
	if len(rest) == 0 {
		d.Moves = nil
		return nil
	}
	d.Moves, err = decodeTeacher(rest, len(e.Legal), d.Moves, true, &d.WDL, &d.HasWDL)
	return err
}

// DecodeSample decodes a record written by AppendSample (and, optionally,
// AppendTeacher) into e and t (reusing e.Legal's storage); a teacher section
// is checked but discarded (see DecodeSampleTeacher). It fails with an error
// wrapping ErrCorrupt when the record does not decode or has trailing bytes.
func DecodeSample(rec []byte, e *board.Encoded, t *board.Targets) error {
	_, err := decodeSample(rec, e, t, nil, false)
	return err
}

// DecodeSampleTeacher is DecodeSample that also returns the record's teacher
// distribution: one probability per legal move, in the order of e.Legal,
// renormalised to sum to 1, written into teacher's storage (teacher[:0]) when
// it is large enough. It returns nil when the record has no teacher section.
// A bad section (unknown tag, a length other than 1+2*len(e.Legal), all
// zeros) fails with an error wrapping ErrCorrupt.
func DecodeSampleTeacher(rec []byte, e *board.Encoded, t *board.Targets, teacher []float32) ([]float32, error) {
	return decodeSample(rec, e, t, teacher, true)
}

func decodeSample(rec []byte, e *board.Encoded, t *board.Targets, teacher []float32, keep bool) ([]float32, error) {
	n, err := e.DecodeBinary(rec)
	if err != nil {
		return nil, fmt.Errorf("%w: position: %v", ErrCorrupt, err)
	}
	m, err := t.DecodeBinary(rec[n:])
	if err != nil {
		return nil, fmt.Errorf("%w: targets: %v", ErrCorrupt, err)
	}
	rest := rec[n+m:]
	if len(rest) == 0 {
		return nil, nil
	}
	var wdl [3]float32
	var hasWDL bool
	return decodeTeacher(rest, len(e.Legal), teacher, keep, &wdl, &hasWDL)
}

// decodeTeacher checks the teacher section b of a record with nLegal legal
// moves (and the value section that may follow it, into wdl and hasWDL) and,
// when keep is set, returns its distribution in dst's storage.
func decodeTeacher(b []byte, nLegal int, dst []float32, keep bool, wdl *[3]float32, hasWDL *bool) ([]float32, error) {
	if b[0] != TeacherTag {
		return nil, fmt.Errorf("%w: %d trailing bytes after a sample (not a teacher section: tag %#x)", ErrCorrupt, len(b), b[0])
	}
	n := 1 + 2*nLegal
	if len(b) == n+7 && b[n] == TeacherWDLTag {
		w := b[n+1:]
		var sum uint32
		for k := range 3 {
			sum += uint32(binary.LittleEndian.Uint16(w[2*k:]))
		}
		if sum == 0 {
			return nil, fmt.Errorf("%w: teacher win/draw/loss are all zero", ErrCorrupt)
		}
		for k := range 3 {
			wdl[k] = float32(float64(binary.LittleEndian.Uint16(w[2*k:])) / float64(sum))
		}
		*hasWDL = true
		b = b[:n]
	}
	if len(b) != n || nLegal == 0 {
		return nil, fmt.Errorf("%w: teacher section of %d bytes for %d legal moves, want %d (or %d with win/draw/loss)", ErrCorrupt, len(b), nLegal, n, n+7)
	}
	q := b[1:]
	var sum uint64
	for k := 0; k < len(q); k += 2 {
		sum += uint64(binary.LittleEndian.Uint16(q[k:]))
	}
	if sum == 0 {
		return nil, fmt.Errorf("%w: teacher probabilities are all zero", ErrCorrupt)
	}
	if !keep {
		return nil, nil
	}
	if cap(dst) < nLegal {
		dst = make([]float32, nLegal)
	}
	dst = dst[:nLegal]
	inv := 1 / float64(sum)
	for k := range dst {
		dst[k] = float32(float64(binary.LittleEndian.Uint16(q[2*k:])) * inv)
	}
	return dst, nil
}
