package selfplay

import (
	"errors"
	"fmt"
	"os"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/train/data/prep"
)

// ErrNets means Config.Net names no usable net.
var ErrNets = errors.New("selfplay: nets")

// Band is one net of Config.Net and the rating band it plays (Rating 0
// for a single net file).
type Band = prep.BandNet

// Bands resolves Config.Net: a directory holds one net per rating band,
// named NAME-RATING.EXT and read as train/data/prep's band teacher reads
// it (prep.BandNets, sorted by rating); a file is one net for every
// rating.
func Bands(spec string) ([]Band, error) {
	st, err := os.Stat(spec)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNets, err)
	}
	if !st.IsDir() {
		return []Band{{File: spec}}, nil
	}
	bs, err := prep.BandNets(spec)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNets, err)
	}
	return bs, nil
}

// PickBand returns the index of the band (bands sorted by rating) whose
// centre, Rating + board.RatingBandWidth/2, is nearest rating: below the
// first centre the first band, above the last the last. A tie goes to the
// higher band, so with contiguous bands a rating plays its own band
// (1500..1599 plays maia-1500).
func PickBand(bands []Band, rating int) int {
	best, dist := 0, -1
	for k, b := range bands {
		d := rating - (b.Rating + board.RatingBandWidth/2)
		if d < 0 {
			d = -d
		}
		if dist < 0 || d <= dist {
			best, dist = k, d
		}
	}
	return best
}
