package calibrate

import (
	"path/filepath"

	"github.com/humchess/humchess/train/data/games"
)

// Human game files of ../shared/data that the human profile is read from
// by default: lichess games of every time class, whose players' ratings
// are of one pool.
const (
	HumansLichessSample = "lichess-2022-06-2500.pgn.zst"           // the lichess database's first games of June 2022
	HumansLichessMisc   = "online-misc-18k.pgn.zst"                // archives of a dozen players (lichess and chess.com)
	HumansLichessRapid  = "lichess-rapid-4756-players-59k.pgn.zst" // rated rapid games of 4,756 lichess players, no clocks
)

// DefaultHumans returns the human game files in dataDir that the profile
// of class is measured on. Every class reads the two lichess files with
// clocks; rapid also reads the rapid archive, which has no games of any
// other class: the two files alone hold a handful of rapid games at the
// bands below 900 and above 2300 (251 and 411 judged moves at 800 and
// 2400), too few for a rate to be compared within 20%. The profile takes
// the first games of each band in file order, so the rapid archive only
// fills the bands the other two leave short.
func DefaultHumans(dataDir string, class games.TimeClass) []string {
	names := []string{HumansLichessSample, HumansLichessMisc}
	if class == games.Rapid {
		names = append(names, HumansLichessRapid)
	}
	files := make([]string, len(names))
	for i, n := range names {
		files[i] = filepath.Join(dataDir, n)
	}
	return files
}
