package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/train/tools/selfplay"
)

// TestSelfplayArgs checks that humchess selfplay refuses bad command lines
// before opening any net, each with an error that names the problem.
func TestSelfplayArgs(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "sp.pgn")
	tests := []struct {
		args  []string
		is    error // nil: only the words are checked
		words string
	}{
		{[]string{"-openings", "x.pgn", "-o", out, "stray"}, nil, `unexpected arguments ["stray"]`},
		{[]string{"-ratings", "2600-1900"}, nil, `ratings "2600-1900"`},
		{[]string{"-ratings", "abc"}, nil, "want LO-HI"},
		{[]string{"-openings", "x.pgn", "-o", out}, selfplay.ErrConfig, "no net"},
		{[]string{"-net", filepath.Join(dir, "maia"), "-openings", "x.pgn", "-o", out}, selfplay.ErrNets, "maia"},
		{[]string{"-net", dir, "-openings", "x.pgn", "-o", out}, selfplay.ErrNets, "holds no band nets"},
		{[]string{"-net", dir, "-openings", "x.pgn", "-games", "0", "-o", out}, selfplay.ErrConfig, "games 0"},
	}
	for _, tc := range tests {
		err := runSelfplay(tc.args)
		require.Error(t, err, "%q", tc.args)
		if tc.is != nil {
			assert.ErrorIs(t, err, tc.is, "%q", tc.args)
		}
		assert.Contains(t, err.Error(), tc.words, "%q", tc.args)
	}
	assert.NoFileExists(t, out)
}
