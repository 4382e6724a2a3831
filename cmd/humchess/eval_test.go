package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEvalNetRatingMapErrors checks that -net-rating-map refuses a name
// that is no contestant and a map that does not load, before any game is read.
func TestEvalNetRatingMapErrors(t *testing.T) {
	for _, tc := range []struct{ arg, want string }{
		{"other=none", "NAME a contestant"},
		{"a", "want NAME=MAP"},
		{"a=no-such-map.json", "-net-rating-map \"a=no-such-map.json\""},
	} {
		err := runEval([]string{"-quiet", "-net", "a=default", "-net-rating-map", tc.arg, "no-such-games.pgn"})
		require.Error(t, err, tc.arg)
		assert.Contains(t, err.Error(), tc.want, tc.arg)
	}
}
