package calibrate

import (
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"slices"

	"github.com/humchess/humchess/train/tools/internal/profile"
)

// humansFile is the cached human profile: the same files, class, judge
// nodes and games per band give the same profile, so it is measured once.
type humansFile struct {
	Files   []string        `json:"files"`
	Games   int             `json:"games"`
	Profile profile.Profile `json:"profile"`
}

// shippedHumans holds human profiles measured once and committed (the
// default human files and judge; Debian 12's Stockfish), so a fresh machine
// need not judge the humans again: about 17 minutes of both cores. A profile
// is found by the cache file's name, which holds the time class, judge nodes,
// games per band and opening plies, and must be for the same files.
//
//go:embed humans/*.json
var shippedHumans embed.FS

func readHumans(path string, files []string) (profile.Profile, int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	return parseHumans(path, b, files)
}

// readShippedHumans reads the shipped profile of the cache file name.
func readShippedHumans(name string, files []string) (profile.Profile, int, error) {
	b, err := shippedHumans.ReadFile(path.Join("humans", name))
	if err != nil {
		return nil, 0, err
	}
	return parseHumans("shipped "+name, b, files)
}

func parseHumans(path string, b []byte, files []string) (profile.Profile, int, error) {
	var h humansFile
	if err := json.Unmarshal(b, &h); err != nil {
		return nil, 0, err
	}
	if !slices.Equal(h.Files, baseNames(files)) {
		return nil, 0, fmt.Errorf("calibrate: %s is for files %v", path, h.Files)
	}
	for k, c := range h.Profile {
		if c.Moves > 0 && c.Games == 0 {
			return nil, 0, fmt.Errorf("calibrate: %s was written before games were counted (band %d): its intervals would treat moves as independent", path, k.Band)
		}
	}
	return h.Profile, h.Games, nil
}

func writeHumans(path string, files []string, p profile.Profile, games int) error {
	b, err := json.MarshalIndent(humansFile{Files: baseNames(files), Games: games, Profile: p}, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
