package load

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/humchess/humchess/nets"
)

// defaultFS holds the engine's default net: the one .onnx file in default/,
// named by the first 12 hex digits of its weights' sha256 (hc-<sha12>.onnx),
// and its model card (README.md).
//
//go:embed default
var defaultFS embed.FS

// ErrNoDefault is returned by Default when the build embeds no net.
var ErrNoDefault = errors.New("load: this build embeds no default net")

// DefaultName is the file name of the embedded default net, or "" when there
// is none.
func DefaultName() string {
	name, _ := defaultFile()
	return name
}

func defaultFile() (string, error) {
	entries, err := fs.ReadDir(defaultFS, "default")
	if err != nil {
		return "", fmt.Errorf("load: embedded default net: %w", err)
	}
	var found []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".onnx") {
			found = append(found, e.Name())
		}
	}
	switch len(found) {
	case 0:
		return "", ErrNoDefault
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("load: %d default nets embedded (%s); keep one", len(found), strings.Join(found, ", "))
}

// Default opens the embedded default net.
func Default(opts Options) (nets.Net, error) {
	name, err := defaultFile()
	if err != nil {
		return nil, err
	}
	data, err := defaultFS.ReadFile(path.Join("default", name))
	if err != nil {
		return nil, fmt.Errorf("load: embedded default net: %w", err)
	}
	return OpenBytes(data, strings.TrimSuffix(name, ".onnx"), opts)
}
