package engine

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/uci/client"
	"github.com/humchess/humchess/uci/client/clienttest"
)

const fakeEngineSrc = "../testdata/match/fakeengine"

func TestBenchExternal(t *testing.T) {
	ps, err := ParseBenchPositions(BenchPositions)
	require.NoError(t, err)
	bin := clienttest.FakeEngine(t, fakeEngineSrc)
	var each bytes.Buffer
	rep, err := BenchExternal(context.Background(), ps, ExternalBenchConfig{
		Command: []string{bin, "-name", "fakey"},
		Options: []client.Option{{Name: "UCI_Elo", Value: "1500"}},
		Go:      "nodes 1",
		N:       len(ps) + 3,
		Each:    &each,
	})
	require.NoError(t, err)
	assert.Equal(t, "fakey", rep.Engine)
	assert.Equal(t, "go nodes 1", rep.GoLine)
	assert.Len(t, rep.Go, len(ps)+3, "N cycles through the positions")
	assert.Equal(t, len(ps)+3, strings.Count(each.String(), "bestmove "))
	var out bytes.Buffer
	rep.Write(&out)
	assert.Contains(t, out.String(), "go to bestmove      p50 ")
	assert.Contains(t, out.String(), fmt.Sprintf("positions           %d", len(ps)+3))
}

func TestBenchExternalErrors(t *testing.T) {
	ps, err := ParseBenchPositions(BenchPositions)
	require.NoError(t, err)
	bin := clienttest.FakeEngine(t, fakeEngineSrc)
	for _, tc := range []struct {
		name string
		cfg  ExternalBenchConfig
		want string
	}{
		{"no command", ExternalBenchConfig{Go: "nodes 1"}, "no engine command"},
		{"no limit", ExternalBenchConfig{Command: []string{bin}, Go: " "}, "go arguments are empty"},
		{"missing binary", ExternalBenchConfig{Command: []string{"/nonexistent/engine"}, Go: "nodes 1"}, "starting"},
		{"refused option", ExternalBenchConfig{Command: []string{bin}, Go: "nodes 1", Options: []client.Option{{Name: "Hash", Value: "16"}}}, "refused"},
		{"illegal move", ExternalBenchConfig{Command: []string{bin, "-illegal-after", "3"}, Go: "nodes 1"}, "not legal"},
		{"crash", ExternalBenchConfig{Command: []string{bin, "-crash-after", "2"}, Go: "nodes 1"}, "position 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := BenchExternal(context.Background(), ps, tc.cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestMain(m *testing.M) { clienttest.Main(m) }
