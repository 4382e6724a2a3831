package selfplay

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"

	"github.com/humchess/humchess/board"
)

// ErrNets means Config.Net names no usable net.
var ErrNets = errors.New("selfplay: nets")

// Band is one net of Config.Net and the rating band it plays.
type Band struct {
	File   string // the net file
	Rating int    // the band's lowest rating (maia-1500: 1500..1599); 0 for a single net file
}

// bandFile matches a band net's file name, as train/data/prep's band teacher
// reads a directory: maia-1500.pb.gz, my-1500.onnx.
var bandFile = regexp.MustCompile(`-(\d{3,4})\.(pb\.gz|onnx|safetensors)$`)

// Bands resolves Config.Net: a directory holds one net per rating band,
// named NAME-RATING.EXT (sorted by rating); a file is one net for every
// rating.
func Bands(spec string) ([]Band, error) {
	st, err := os.Stat(spec)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNets, err)
	}
	if !st.IsDir() {
		return []Band{{File: spec}}, nil
	}
	ents, err := os.ReadDir(spec)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNets, err)
	}
	var bs []Band
	for _, e := range ents {
		m := bandFile.FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() {
			continue
		}
		r, err := strconv.Atoi(m[1])
		if err != nil { // three or four digits always parse
			return nil, fmt.Errorf("%w: %s: %v", ErrNets, e.Name(), err)
		}
		for _, b := range bs {
			if b.Rating == r {
				return nil, fmt.Errorf("%w: two nets for band %d in %s: %s and %s", ErrNets, r, spec, filepath.Base(b.File), e.Name())
			}
		}
		bs = append(bs, Band{File: filepath.Join(spec, e.Name()), Rating: r})
	}
	if len(bs) == 0 {
		return nil, fmt.Errorf("%w: directory %s holds no band nets (NAME-RATING.pb.gz or .onnx, e.g. maia-1500.pb.gz)", ErrNets, spec)
	}
	sort.Slice(bs, func(i, j int) bool { return bs[i].Rating < bs[j].Rating })
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
