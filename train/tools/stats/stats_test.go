package stats

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/humchess/humchess/uci/client"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/humchess/humchess/internal/testenv"
)

// statsPGN holds three games: two identical 60+0 openings (for variety), a
// 180+2 game, and one carrying %eval comments with a blunder by Black.
const statsPGN = `[Event "a"]
[WhiteElo "1500"]
[BlackElo "1450"]
[TimeControl "60+0"]

1. e4 { [%clk 0:01:00] } e5 { [%clk 0:00:58] } 2. Nf3 { [%clk 0:00:55] } Nc6 { [%clk 0:00:50] } 3. Bc4 { [%clk 0:00:45] } Bc5 { [%clk 0:00:49] } 4. O-O { [%clk 0:00:44] } Nf6 { [%clk 0:00:40] } 5. d3 { [%clk 0:00:40] } d6 { [%clk 0:00:39] } 6. c3 { [%clk 0:00:30] } O-O { [%clk 0:00:38] } 1-0

[Event "b"]
[WhiteElo "1500"]
[BlackElo "1450"]
[TimeControl "60+0"]

1. e4 { [%clk 0:01:00] } e5 { [%clk 0:00:59] } 2. Nf3 { [%clk 0:00:58] } Nc6 { [%clk 0:00:57] } 3. Bc4 { [%clk 0:00:56] } Bc5 { [%clk 0:00:56] } 4. O-O { [%clk 0:00:55] } Nf6 { [%clk 0:00:55] } 5. d3 { [%clk 0:00:54] } d6 { [%clk 0:00:54] } 6. c3 { [%clk 0:00:53] } h6 { [%clk 0:00:53] } 0-1

[Event "c"]
[WhiteElo "1720"]
[BlackElo "1190"]
[TimeControl "180+2"]

1. d4 { [%eval 0.2] [%clk 0:03:00] } d5 { [%eval 0.3] [%clk 0:03:00] } 2. c4 { [%eval 0.2] [%clk 0:02:52] } Qd6 { [%eval 0.6] [%clk 0:02:40] } 3. cxd5 { [%eval 0.7] [%clk 0:02:50] } Qxd5 { [%eval 0.6] [%clk 0:02:41] } 4. Nc3 { [%eval 0.7] [%clk 0:02:51] } Qxd4 { [%eval 9.0] [%clk 0:02:00] } 1-0
`

func TestStatsSynthetic(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.pgn")
	require.NoError(t, os.WriteFile(path, []byte(statsPGN), 0o644))
	s, err := Run(context.Background(), "synthetic", []string{path}, Config{Blunders: BlundersEvals})
	require.NoError(t, err)
	assert.Equal(t, int64(3), s.Games)

	// Lengths: 12, 12, 8 plies.
	assert.InDelta(t, 32.0/3, s.Lengths.Mean(), 1e-9)
	assert.Equal(t, 12.0, s.Lengths.Quantile(0.5))

	// Variety: games a and b reach ply 10 and share their first 10 plies.
	v := s.Variety[10]
	assert.Equal(t, int64(2), v.Games)
	assert.Equal(t, int64(1), v.Distinct)
	assert.Equal(t, int64(0), s.Variety[20].Games)

	// Think times of the 60+0 games (bullet): game a spends
	// 0,2,5,8,10,1,1,9,4,1,10,1; game b 0,1,2,2,2,1,1,1,1,1,1,1. 24 values.
	var q60 *Quantiles
	for c, q := range s.Think {
		if c.String() == "bullet" {
			q60 = q
		}
	}
	require.NotNil(t, q60, "bullet think times")
	assert.Equal(t, 24, q60.N())
	assert.Equal(t, 1.0, q60.Quantile(0.5))
	// 90th percentile of the 24 sorted values: position 20.7, between 8 and 9.
	assert.InDelta(t, 8.7, q60.Quantile(0.9), 1e-9)
	// 180+2: 8 moves; the increment is added: d4 0+2... check one: Qxd4 spent 2:41-2:00+2 = 43.
	var q180 *Quantiles
	for c, q := range s.Think {
		if c.String() == "blitz" {
			q180 = q
		}
	}
	require.NotNil(t, q180)
	assert.Equal(t, 8, q180.N())
	assert.Equal(t, 43.0, q180.Quantile(1))

	// Blunders from %eval: game c has evaluations; Black's Qxd4?? goes
	// from -0.7 to -9.0 for Black: a loss of about 0.57 expected score.
	assert.Equal(t, map[string]int64{"evals": 1}, s.BlunderSrc)
	black := s.Blunders[1100]
	require.NotNil(t, black)
	assert.Equal(t, int64(4), black[0], "four Black moves judged")
	assert.Equal(t, int64(1), black[1], "one blunder")
	white := s.Blunders[1700]
	require.NotNil(t, white)
	assert.Equal(t, int64(4), white[0], "White's first move is judged from the start position's +0.2")
	assert.Equal(t, int64(0), white[1])

	var out strings.Builder
	require.NoError(t, WriteText(&out, []*Set{s, s}))
	assert.Contains(t, out.String(), "bullet med/p90")
	assert.Contains(t, out.String(), "1.0 / 8.7 (n=24)")
	assert.Contains(t, out.String(), "distinct @10 %")
}

func TestStatsBadConfig(t *testing.T) {
	_, err := Run(context.Background(), "x", []string{"nope"}, Config{Blunders: "sometimes"})
	assert.ErrorIs(t, err, ErrConfig)
	_, err = Run(context.Background(), "x", []string{"nope"}, Config{Blunders: BlundersStockfish})
	assert.ErrorIs(t, err, ErrConfig)
	_, err = Run(context.Background(), "x", []string{filepath.Join(t.TempDir(), "missing.pgn")}, Config{})
	assert.Error(t, err)
}

// TestStatsStockfish judges the synthetic games with Stockfish: Black's
// queen blunder in game c must be found.
func TestStatsStockfish(t *testing.T) {
	const sf = "/usr/games/stockfish"
	if _, err := os.Stat(sf); err != nil {
		testenv.Missing(t, "no stockfish at %s: %v", sf, err)
	}
	path := filepath.Join(t.TempDir(), "s.pgn")
	require.NoError(t, os.WriteFile(path, []byte(statsPGN), 0o644))
	s, err := Run(context.Background(), "sf", []string{path}, Config{Blunders: BlundersStockfish,
		Engine: client.Config{Path: sf, Options: []client.Option{{Name: "Threads", Value: "1"}}}, EngineLimits: client.Limits{Depth: 8}})
	require.NoError(t, err)
	assert.Equal(t, map[string]int64{"stockfish": 3}, s.BlunderSrc)
	black := s.Blunders[1100]
	require.NotNil(t, black)
	assert.Equal(t, int64(4), black[0])
	assert.GreaterOrEqual(t, black[1], int64(1), "Qxd4 is a blunder")
}

// playerPGN holds four games of the players "hc" and "sf" (and one of two
// others) with %eval comments. hc blunders once in game 1 (Nxe5) and once in
// game 4 (f6); sf blunders in game 1 (Qg5) and game 2 (Nc3). Game 4 starts
// from a FEN with Black (hc) to move, so move parity is not colour there.
const playerPGN = `[Event "g1"]
[White "hc"]
[Black "sf"]
[WhiteElo "1100"]
[BlackElo "1350"]
[TimeControl "60+0"]
[Result "1-0"]

1. e4 { [%eval 0.3] [%clk 0:01:00] } e5 { [%eval 0.3] [%clk 0:01:00] } 2. Nf3 { [%eval 0.3] [%clk 0:00:58] } Nc6 { [%eval 0.3] [%clk 0:00:57] } 3. Bc4 { [%eval 0.3] [%clk 0:00:50] } Nd4 { [%eval 0.5] [%clk 0:00:55] } 4. Nxe5 { [%eval -3.0] [%clk 0:00:45] } Qg5 { [%eval 3.0] [%clk 0:00:50] } 1-0

[Event "g2"]
[White "sf"]
[Black "HC"]
[WhiteElo "1350"]
[BlackElo "1100"]
[Result "0-1"]

1. d4 { [%eval 0.2] } d5 { [%eval 0.2] } 2. c4 { [%eval 0.2] } e6 { [%eval 0.2] } 3. Nc3 { [%eval -4.0] } Nf6 { [%eval -4.0] } 0-1

[Event "g3"]
[White "x"]
[Black "y"]
[Result "1-0"]

1. e4 { [%eval 0.3] } e5 { [%eval 5.0] } 1-0

[Event "g4"]
[White "sf"]
[Black "hc"]
[WhiteElo "1350"]
[BlackElo "1100"]
[SetUp "1"]
[FEN "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"]
[Result "1/2-1/2"]

1... e5 { [%eval 0.3] } 2. Nf3 { [%eval 0.3] } f6 { [%eval 4.0] } 3. Nxe5 { [%eval 4.0] } 1/2-1/2
`

// TestStatsPlayer restricts the statistics to one player: only that
// player's games, moves, think times and results count.
func TestStatsPlayer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.pgn")
	require.NoError(t, os.WriteFile(path, []byte(playerPGN), 0o644))
	type band struct {
		band          int
		judged, blund int64
	}
	tests := []struct {
		player     string
		games      int64
		score      [3]int64
		bands      []band
		thinkN     int     // bullet think times (game 1 only has clocks)
		thinkMax   float64 // seconds
		lengthMean float64
	}{
		// hc: g1 Nf3 Bc4 e4 Nxe5 (4 judged, 1 blunder), g2 d5 e6 Nf6 (3, 0),
		// g4 f6 only (e5 has no evaluation before it; 1, 1). Think: 0, 2, 8, 5.
		{player: "hc", games: 3, score: [3]int64{2, 1, 0}, bands: []band{{1100, 8, 2}},
			thinkN: 4, thinkMax: 8, lengthMean: (8 + 6 + 4) / 3.0},
		// sf: g1 4 moves (Qg5 a blunder), g2 3 (Nc3), g4 Nf3 Nxe5 (2, 0).
		// Think: e5 0, Nc6 3, Nd4 2 (57 -> 55), Qg5 5.
		{player: "SF", games: 3, score: [3]int64{0, 1, 2}, bands: []band{{1300, 9, 2}},
			thinkN: 4, thinkMax: 5, lengthMean: (8 + 6 + 4) / 3.0},
		// Nobody: every game and move; g3's players have no rating (band -1).
		// The FEN game g4 counts for length but not variety (none reach ply 10).
		{player: "", games: 4, bands: []band{{1100, 8, 2}, {1300, 9, 2}, {-1, 2, 1}},
			thinkN: 8, thinkMax: 8, lengthMean: (8 + 6 + 2 + 4) / 4.0},
		{player: "nobody", games: 0},
	}
	for _, tt := range tests {
		t.Run("player="+tt.player, func(t *testing.T) {
			s, err := Run(context.Background(), "p", []string{path}, Config{Blunders: BlundersEvals, Player: tt.player})
			require.NoError(t, err)
			assert.Equal(t, tt.games, s.Games, "games")
			assert.Equal(t, tt.score, s.Score, "W-D-L")
			assert.Len(t, s.Blunders, len(tt.bands), "bands %v", s.Blunders)
			for _, b := range tt.bands {
				c := s.Blunders[b.band]
				if assert.NotNil(t, c, "band %d", b.band) {
					assert.Equal(t, [2]int64{b.judged, b.blund}, *c, "band %d: {judged, blunders}", b.band)
				}
			}
			var n int
			maxThink := 0.0
			for _, q := range s.Think {
				n += q.N()
				if q.N() > 0 {
					maxThink = max(maxThink, q.Quantile(1))
				}
			}
			assert.Equal(t, tt.thinkN, n, "think times")
			assert.Equal(t, tt.thinkMax, maxThink, "longest think")
			if tt.games > 0 {
				assert.InDelta(t, tt.lengthMean, s.Lengths.Mean(), 1e-9, "mean plies")
			}
		})
	}

	s, err := Run(context.Background(), "hc-only", []string{path}, Config{Blunders: BlundersEvals, Player: "hc"})
	require.NoError(t, err)
	var out strings.Builder
	require.NoError(t, WriteText(&out, []*Set{s}))
	for _, want := range []string{"player W-D-L", "2-1-0", "25.00 (2/8)"} {
		assert.Contains(t, out.String(), want)
	}
}

// TestStatsMatchThinkTimes reads think times from cutechess-cli and
// fastchess comments, which carry no [%clk].
func TestStatsMatchThinkTimes(t *testing.T) {
	const games = `[Event "cutechess"]
[White "A"]
[Black "B"]
[TimeControl "60+0"]

1. e4 {book} e5 {book} 2. Nf3 {+0.31/12 0.52s} Nc6 {-0.20/11 1.2s} 3. Bb5 {+0.40/14 3.5s} a6 {-0.35/12 2s} 1-0

[Event "fastchess"]
[White "A"]
[Black "B"]
[TimeControl "60+0"]

1. d4 {+0.25/16 0.512s, tl=59.488s} d5 {-0.18/15 0.400s, tl=59.600s} 1/2-1/2
`
	path := filepath.Join(t.TempDir(), "match.pgn")
	require.NoError(t, os.WriteFile(path, []byte(games), 0o644))
	s, err := Run(context.Background(), "match", []string{path}, Config{})
	require.NoError(t, err)
	var q *Quantiles
	for c, qq := range s.Think {
		if c.String() == "bullet" {
			q = qq
		}
	}
	require.NotNil(t, q, "think times read from the match comments")
	assert.Equal(t, 6, q.N(), "4 cutechess moves and 2 fastchess moves with times (book moves have none)")
	assert.Equal(t, 3.5, q.Quantile(1))
	assert.Equal(t, 0.4, q.Quantile(0))
}
