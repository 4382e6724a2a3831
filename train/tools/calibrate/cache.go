package calibrate

import (
	"encoding/json"
	"fmt"
	"os"
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

func readHumans(path string, files []string) (profile.Profile, int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	var h humansFile
	if err := json.Unmarshal(b, &h); err != nil {
		return nil, 0, err
	}
	if !slices.Equal(h.Files, baseNames(files)) {
		return nil, 0, fmt.Errorf("calibrate: %s is for files %v", path, h.Files)
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
