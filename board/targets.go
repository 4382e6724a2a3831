package board

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Targets is what the net is trained to predict for one position.
type Targets struct {
	Move    int16   // vocabulary index of the move played; -1 unknown
	Result  int8    // game result from the mover's side: +1 win, 0 draw, -1 loss
	Seconds float32 // seconds the mover spent on the move; negative = unknown
	From    uint8   // from square of the move, mover's frame; 64 = unknown
	To      uint8   // to square of the move, mover's frame; 64 = unknown
}

// TargetsSize is the size in bytes of the binary form of Targets.
//
// Layout (little-endian): 0..1 Move int16, 2 Result int8, 3..6 Seconds
// float32, 7 From, 8 To.
const TargetsSize = 9

// NewTargets builds the Targets of move m played by the side given by
// whiteToMove, with the game's result from that side (+1/0/-1) and the
// seconds spent (negative = unknown). It wraps ErrBadMove when m has no
// vocabulary index and ErrCorrupt for a result outside -1..1.
func NewTargets(m Move, whiteToMove bool, result int, seconds float64) (Targets, error) {
	i, ok := MoveToIndex(m, whiteToMove)
	if !ok {
		return Targets{}, fmt.Errorf("%w: %s has no vocabulary index", ErrBadMove, m)
	}
	if result < -1 || result > 1 {
		return Targets{}, fmt.Errorf("%w: result %d", ErrCorrupt, result)
	}
	if seconds < 0 || math.IsNaN(seconds) {
		seconds = -1
	}
	mv := vocab[i]
	return Targets{Move: int16(i), Result: int8(result), Seconds: float32(seconds), From: uint8(mv.From), To: uint8(mv.To)}, nil
}

// MoverResult converts a PGN result ("1-0", "0-1", "1/2-1/2") to the result
// from the side to move's point of view; ok is false for "*" or anything else.
func MoverResult(pgnResult string, whiteToMove bool) (result int, ok bool) {
	switch pgnResult {
	case "1-0":
		result = 1
	case "0-1":
		result = -1
	case "1/2-1/2":
		result = 0
	default:
		return 0, false
	}
	if !whiteToMove {
		result = -result
	}
	return result, true
}

// AppendBinary appends t's binary form to dst.
func (t *Targets) AppendBinary(dst []byte) []byte {
	dst = binary.LittleEndian.AppendUint16(dst, uint16(t.Move))
	dst = append(dst, byte(t.Result))
	dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(t.Seconds))
	return append(dst, t.From, t.To)
}

// DecodeBinary reads Targets from the front of b and returns the bytes used.
// Errors wrap ErrTruncated or ErrCorrupt.
func (t *Targets) DecodeBinary(b []byte) (int, error) {
	if len(b) < TargetsSize {
		return 0, fmt.Errorf("%w: targets need %d bytes, have %d", ErrTruncated, TargetsSize, len(b))
	}
	mv := int16(binary.LittleEndian.Uint16(b))
	res := int8(b[2])
	sec := math.Float32frombits(binary.LittleEndian.Uint32(b[3:]))
	from, to := b[7], b[8]
	switch {
	case mv < -1 || int(mv) >= NumMoves:
		return 0, fmt.Errorf("%w: move index %d", ErrCorrupt, mv)
	case res < -1 || res > 1:
		return 0, fmt.Errorf("%w: result %d", ErrCorrupt, res)
	case sec != sec || math.IsInf(float64(sec), 0):
		return 0, fmt.Errorf("%w: seconds %v", ErrCorrupt, sec)
	case from > 64 || to > 64:
		return 0, fmt.Errorf("%w: squares %d,%d", ErrCorrupt, from, to)
	}
	*t = Targets{Move: mv, Result: res, Seconds: sec, From: from, To: to}
	return TargetsSize, nil
}

// NumThinkBins is the number of think-time classes.
const NumThinkBins = 8

// ThinkBinEdges are the upper edges, in seconds, of the first seven
// think-time classes: class k holds times in [edge[k-1], edge[k]), class 0
// below 0.5 s, class 7 from 59.5 s.
var ThinkBinEdges = [NumThinkBins - 1]float64{0.5, 1.5, 2.5, 4.5, 9.5, 19.5, 59.5}

// ThinkBin returns the think-time class (0..7) of sec seconds, or -1 when
// sec is negative (unknown) or NaN.
func ThinkBin(sec float64) int {
	if !(sec >= 0) {
		return -1
	}
	for k, e := range ThinkBinEdges {
		if sec < e {
			return k
		}
	}
	return NumThinkBins - 1
}

// ThinkSpent returns the seconds the mover spent on a move: the mover's clock
// before the move minus the clock after it plus the increment, clamped at 0;
// -1 when either clock is unknown (negative). A negative increment counts as 0.
func ThinkSpent(prevClock, curClock, increment float64) float64 {
	if !(prevClock >= 0) || !(curClock >= 0) {
		return -1
	}
	if !(increment > 0) {
		increment = 0
	}
	return max(prevClock-curClock+increment, 0)
}
