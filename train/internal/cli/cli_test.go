package cli

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestListFlag(t *testing.T) {
	var got []string
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.Var(ListFlag{&got}, "files", "")
	require.NoError(t, fs.Parse([]string{"-files", " a.pgn, ,b.pgn ,"}))
	assert.Equal(t, []string{"a.pgn", "b.pgn"}, got)
	assert.Equal(t, "a.pgn,b.pgn", ListFlag{&got}.String())
	assert.Equal(t, "", ListFlag{}.String())
}

func TestIsTerminal(t *testing.T) {
	assert.False(t, IsTerminal(&bytes.Buffer{}))
	f, err := os.CreateTemp(t.TempDir(), "x")
	require.NoError(t, err)
	defer f.Close()
	assert.False(t, IsTerminal(f), "a regular file")
}
