package board

import (
	"fmt"
	"math"
	"math/bits"
)

// RatingAnchors are the ratings (Elo) of the soft one-hot rating inputs.
// A rating between two anchors sets those two entries to weights that
// interpolate linearly (summing to 1); ratings outside are clamped to the
// first or last anchor.
var RatingAnchors = [...]float32{600, 800, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2400, 2600, 2800, 3000}

// NumRatingAnchors is len(RatingAnchors).
const NumRatingAnchors = len(RatingAnchors)

// RatingOneHot writes the soft one-hot of rating over RatingAnchors into dst
// (len(dst) >= NumRatingAnchors) and reports whether the rating is known
// (non-negative). An unknown rating writes zeros.
func RatingOneHot(rating float32, dst []float32) bool {
	dst = dst[:NumRatingAnchors]
	for i := range dst {
		dst[i] = 0
	}
	if !(rating >= 0) {
		return false
	}
	last := NumRatingAnchors - 1
	switch {
	case rating <= RatingAnchors[0]:
		dst[0] = 1
	case rating >= RatingAnchors[last]:
		dst[last] = 1
	default:
		for i := 0; i < last; i++ {
			lo, hi := RatingAnchors[i], RatingAnchors[i+1]
			if rating < hi {
				t := (rating - lo) / (hi - lo)
				dst[i], dst[i+1] = 1-t, t
				break
			}
		}
	}
	return true
}

// Derived-input bits of Contract.Derived: secondary inputs computed from an
// Encoded's tokens, each switchable.
const (
	// DerivedMaterial adds 11 global inputs: the mover's counts of pawns/8,
	// knights/2, bishops/2, rooks/2, queens/1, the opponent's likewise, and the
	// material difference (mover - opponent, 1/3/3/5/9 points) / 10.
	DerivedMaterial uint32 = 1 << iota
	// DerivedCheckers adds 1 square channel (1 on each opponent piece giving
	// check) and 2 global inputs (in check, double check).
	DerivedCheckers
	// DerivedAttacks adds 2 square channels: square attacked by the mover,
	// square attacked by the opponent (0/1).
	DerivedAttacks

	// DerivedAll is every derived input this version knows.
	DerivedAll = DerivedMaterial | DerivedCheckers | DerivedAttacks
)

// Contract turns an Encoded into the net's input tensors. Version must be
// ContractVersion; Derived is a set of Derived* bits. A net records both in
// its metadata, and training and play call the same Fill.
//
// Square channels, per square in the mover's frame (SquareDim of them):
//
//	0..15  history: channel 2k is 1 on the from square and channel 2k+1 on the
//	       to square of the k-th last move (k=0 the opponent's last move)
//	16     castling rook: 1 on each rook whose castling right is still held
//	       (a1/h1 for the mover, a8/h8 for the opponent)
//	17     en passant: 1 on the en-passant target square (rank 6) when an
//	       en-passant capture is legal
//	then   [DerivedCheckers] checkers: 1 on each opponent piece giving check
//	then   [DerivedAttacks] attacked by mover, attacked by opponent
//
// Global inputs (GlobalDim of them):
//
//	0..12  mover rating soft one-hot over RatingAnchors
//	13     mover rating unknown
//	14..26 opponent rating soft one-hot
//	27     opponent rating unknown
//	28     log(1+base seconds)/8
//	29     log(1+increment seconds)/8
//	30     time control unknown (base or increment negative; 28, 29 are 0)
//	31     log(1+mover clock seconds)/8
//	32     mover clock unknown
//	33     log(1+opponent clock seconds)/8
//	34     opponent clock unknown
//	35     clock share: mover / (mover + opponent); 0.5 when unknown or both 0
//	36     mover clock / base, clamped to [0,2]; 0 when either is unknown or base is 0
//	37     mover is white
//	38     half-move clock / 100, clamped to 1.5
//	39     position occurred before (repetition >= 1)
//	40     position occurred twice before (repetition >= 2)
//	41..44 castling: mover king side, mover queen side, opponent king side, opponent queen side
//	45     en-passant capture available
//	then   [DerivedMaterial] 11 material inputs (see DerivedMaterial)
//	then   [DerivedCheckers] in check, double check
type Contract struct {
	Version int    // ContractVersion
	Derived uint32 // Derived* bits
}

// Fixed parts of the tensors.
const (
	baseSquareDim = 2*HistoryLen + 2
	baseGlobalDim = 2*(NumRatingAnchors+1) + 18
	logScale      = 8 // divisor of log(1+seconds)
)

// DefaultContract returns the contract of this version with every derived input on.
func DefaultContract() Contract {
	return Contract{Version: ContractVersion, Derived: DerivedAll}
}

// Validate reports whether this package can honour c; errors wrap ErrContract.
func (c Contract) Validate() error {
	if c.Version != ContractVersion {
		return fmt.Errorf("%w: version %d, this build knows %d", ErrContract, c.Version, ContractVersion)
	}
	if c.Derived&^DerivedAll != 0 {
		return fmt.Errorf("%w: unknown derived bits %#x", ErrContract, c.Derived&^DerivedAll)
	}
	return nil
}

// SquareDim returns the number of per-square channels.
func (c Contract) SquareDim() int {
	n := baseSquareDim
	if c.Derived&DerivedCheckers != 0 {
		n++
	}
	if c.Derived&DerivedAttacks != 0 {
		n += 2
	}
	return n
}

// GlobalDim returns the number of global inputs.
func (c Contract) GlobalDim() int {
	n := baseGlobalDim
	if c.Derived&DerivedMaterial != 0 {
		n += 11
	}
	if c.Derived&DerivedCheckers != 0 {
		n += 2
	}
	return n
}

// SquareFeatureNames names the per-square channels in order.
func (c Contract) SquareFeatureNames() []string {
	var names []string
	for k := 0; k < HistoryLen; k++ {
		names = append(names, fmt.Sprintf("history%d_from", k), fmt.Sprintf("history%d_to", k))
	}
	names = append(names, "castling_rook", "en_passant")
	if c.Derived&DerivedCheckers != 0 {
		names = append(names, "checker")
	}
	if c.Derived&DerivedAttacks != 0 {
		names = append(names, "attacked_by_mover", "attacked_by_opponent")
	}
	return names
}

// GlobalFeatureNames names the global inputs in order.
func (c Contract) GlobalFeatureNames() []string {
	var names []string
	for _, who := range []string{"mover", "opp"} {
		for _, a := range RatingAnchors {
			names = append(names, fmt.Sprintf("%s_rating_%g", who, a))
		}
		names = append(names, who+"_rating_unknown")
	}
	names = append(names, "tc_base_log", "tc_inc_log", "tc_unknown",
		"mover_clock_log", "mover_clock_unknown", "opp_clock_log", "opp_clock_unknown",
		"clock_share", "mover_clock_of_base", "mover_is_white", "half_move_clock",
		"repetition1", "repetition2",
		"castle_mover_king", "castle_mover_queen", "castle_opp_king", "castle_opp_queen", "en_passant")
	if c.Derived&DerivedMaterial != 0 {
		for _, who := range []string{"mover", "opp"} {
			for _, p := range []string{"pawns", "knights", "bishops", "rooks", "queens"} {
				names = append(names, who+"_"+p)
			}
		}
		names = append(names, "material_diff")
	}
	if c.Derived&DerivedCheckers != 0 {
		names = append(names, "in_check", "double_check")
	}
	return names
}

func logSec(x float32) float32 { return float32(math.Log1p(float64(x))) / logScale }

func b2f(b bool) float32 {
	if b {
		return 1
	}
	return 0
}

// Fill writes the net's inputs for e: pieces (64 square tokens), squares
// (64*SquareDim, square-major: squares[s*SquareDim+ch]) and global
// (GlobalDim). Every element of the three slices is written. It returns an
// error wrapping ErrContract when c is not valid or a slice has the wrong
// length, and writes nothing then.
func (c Contract) Fill(e *Encoded, pieces []int64, squares []float32, global []float32) error {
	if err := c.Validate(); err != nil {
		return err
	}
	sd, gd := c.SquareDim(), c.GlobalDim()
	if len(pieces) != 64 || len(squares) != 64*sd || len(global) != gd {
		return fmt.Errorf("%w: tensor sizes %d/%d/%d, want 64/%d/%d", ErrContract,
			len(pieces), len(squares), len(global), 64*sd, gd)
	}
	var mb [64]Piece // tokens read as pieces: the mover is "White" and plays up
	for s, t := range e.Squares {
		if t >= NumTokens {
			t = TokEmpty
		}
		pieces[s] = int64(t)
		mb[s] = Piece(t)
	}
	// Squares.
	clear(squares)
	for k, h := range e.History {
		if h[0] < 64 && h[1] < 64 {
			squares[int(h[0])*sd+2*k] = 1
			squares[int(h[1])*sd+2*k+1] = 1
		}
	}
	rook := []struct {
		bit uint8
		sq  int
	}{{EncMoverKingSide, 7}, {EncMoverQueenSide, 0}, {EncOppKingSide, 63}, {EncOppQueenSide, 56}}
	for _, r := range rook {
		if e.Castling&r.bit != 0 {
			squares[r.sq*sd+2*HistoryLen] = 1
		}
	}
	if e.EPFile >= 0 && e.EPFile < 8 {
		squares[(40+int(e.EPFile))*sd+2*HistoryLen+1] = 1
	}
	ch := baseSquareDim
	var checkers uint64
	if c.Derived&DerivedCheckers != 0 {
		if k := kingSquare(&mb, White); k != NoSquare {
			checkers = attackers(&mb, k, Black)
		}
		for m := checkers; m != 0; m &= m - 1 {
			squares[bits.TrailingZeros64(m)*sd+ch] = 1
		}
		ch++
	}
	if c.Derived&DerivedAttacks != 0 {
		for m := attackMap(&mb, White); m != 0; m &= m - 1 {
			squares[bits.TrailingZeros64(m)*sd+ch] = 1
		}
		for m := attackMap(&mb, Black); m != 0; m &= m - 1 {
			squares[bits.TrailingZeros64(m)*sd+ch+1] = 1
		}
	}
	// Global.
	clear(global)
	x := e.Ctx
	global[NumRatingAnchors] = b2f(!RatingOneHot(x.MoverRating, global[0:]))
	global[2*NumRatingAnchors+1] = b2f(!RatingOneHot(x.OppRating, global[NumRatingAnchors+1:]))
	g := global[2*(NumRatingAnchors+1):]
	if x.Base >= 0 && x.Inc >= 0 {
		g[0], g[1] = logSec(x.Base), logSec(x.Inc)
	} else {
		g[2] = 1
	}
	moverKnown, oppKnown := x.MoverClock >= 0, x.OppClock >= 0
	if moverKnown {
		g[3] = logSec(x.MoverClock)
	} else {
		g[4] = 1
	}
	if oppKnown {
		g[5] = logSec(x.OppClock)
	} else {
		g[6] = 1
	}
	g[7] = 0.5
	if moverKnown && oppKnown && x.MoverClock+x.OppClock > 0 {
		g[7] = x.MoverClock / (x.MoverClock + x.OppClock)
	}
	if moverKnown && x.Base > 0 {
		g[8] = min(x.MoverClock/x.Base, 2)
	}
	g[9] = b2f(e.MoverIsWhite)
	g[10] = min(float32(e.HalfMove)/100, 1.5)
	g[11] = b2f(e.Repetition >= 1)
	g[12] = b2f(e.Repetition >= 2)
	for i := 0; i < 4; i++ {
		g[13+i] = b2f(e.Castling&(1<<i) != 0)
	}
	g[17] = b2f(e.EPFile >= 0 && e.EPFile < 8)
	g = g[18:]
	if c.Derived&DerivedMaterial != 0 {
		var cnt [13]int
		for _, t := range e.Squares {
			if t < NumTokens {
				cnt[t]++
			}
		}
		scale := [5]float32{8, 2, 2, 2, 1}
		value := [5]int{1, 3, 3, 5, 9}
		diff := 0
		for i := 0; i < 5; i++ {
			mine, theirs := cnt[TokMover+1+i], cnt[TokOpp+1+i]
			g[i] = float32(mine) / scale[i]
			g[5+i] = float32(theirs) / scale[i]
			diff += value[i] * (mine - theirs)
		}
		g[10] = float32(diff) / 10
		g = g[11:]
	}
	if c.Derived&DerivedCheckers != 0 {
		n := bits.OnesCount64(checkers)
		g[0] = b2f(n >= 1)
		g[1] = b2f(n >= 2)
	}
	return nil
}
