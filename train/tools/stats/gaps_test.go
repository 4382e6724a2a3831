package stats

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/humchess/humchess/train/data/games"
	"github.com/humchess/humchess/train/tools/match"
)

// gapGame is one game's tags and a move, so the reader keeps it.
func gapGame(site string, white, black int, result, tc string) string {
	elo := func(tag string, r int) string {
		if r <= 0 {
			return ""
		}
		return fmt.Sprintf("[%s \"%d\"]\n", tag, r)
	}
	return fmt.Sprintf("[Event \"t\"]\n[Site \"%s\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"%s\"]\n%s%s[TimeControl \"%s\"]\n\n1. e4 %s\n\n",
		site, result, elo("WhiteElo", white), elo("BlackElo", black), tc, result)
}

func TestRunGaps(t *testing.T) {
	var b strings.Builder
	lichess := "https://lichess.org/x"
	// Blitz, gap about 400: the higher-rated player wins twice (once as
	// Black), draws once and loses once.
	b.WriteString(gapGame(lichess, 1600, 1200, "1-0", "180+2"))
	b.WriteString(gapGame(lichess, 1210, 1600, "0-1", "180+0"))
	b.WriteString(gapGame(lichess, 1800, 1430, "1/2-1/2", "300+0"))
	b.WriteString(gapGame(lichess, 1000, 1420, "1-0", "180+0"))
	// Blitz, gap 20 (bucket 0): White, the higher, loses.
	b.WriteString(gapGame(lichess, 1520, 1500, "0-1", "180+0"))
	// Bullet, gap 100.
	b.WriteString(gapGame(lichess, 1500, 1600, "0-1", "60+0"))
	// Left out: no result, one rating missing, another site.
	b.WriteString(gapGame(lichess, 1500, 1900, "*", "180+0"))
	b.WriteString(gapGame(lichess, 1500, 0, "1-0", "180+0"))
	b.WriteString(gapGame("Chess.com", 1500, 1900, "0-1", "180+0"))
	path := filepath.Join(t.TempDir(), "g.pgn")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := RunGaps("humans", []string{path}, "lichess")
	if err != nil {
		t.Fatal(err)
	}
	want := map[games.TimeClass]map[int]match.Score{
		games.Blitz:  {400: {Wins: 2, Draws: 1, Losses: 1}, 0: {Losses: 1}},
		games.Bullet: {100: {Wins: 1}},
	}
	for c, buckets := range want {
		for k, w := range buckets {
			if got := g.Score[c][k]; got == nil || *got != w {
				t.Errorf("%v gap %d: %+v, want %+v", c, k, got, w)
			}
		}
		if len(g.Score[c]) != len(buckets) {
			t.Errorf("%v: buckets %v, want %v", c, g.Score[c], buckets)
		}
	}
	if len(g.Score) != len(want) {
		t.Errorf("classes %v, want blitz and bullet", g.Score)
	}
	if m := g.MeanGap(games.Blitz, 400); math.Abs(m-(400+390+370+420)/4.0) > 1e-9 {
		t.Errorf("mean gap %v", m)
	}
	// Without the site filter the chess.com game counts too.
	all, err := RunGaps("all", []string{path}, "")
	if err != nil {
		t.Fatal(err)
	}
	if s := all.Score[games.Blitz][400]; s == nil || s.Games() != 5 {
		t.Errorf("no site filter: blitz 400 %+v, want 5 games", s)
	}

	var out bytes.Buffer
	if err := WriteGapsText(&out, []*Gaps{g}, 1, 0); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	// 2.5 of 4: 62.5%; the Elo formula at the mean gap 395 gives 91.0%.
	for _, s := range []string{"humans:", "2-1-1", "62.5%", fmt.Sprintf("%.1f%%", 100*match.ExpectedFraction(395))} {
		if !strings.Contains(text, s) {
			t.Errorf("WriteGapsText lacks %q:\n%s", s, text)
		}
	}
	out.Reset()
	if err := WriteGapsText(&out, []*Gaps{g}, 2, 0); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "bullet") {
		t.Errorf("WriteGapsText with 2 games a bucket shows the 1-game bullet bucket:\n%s", out.String())
	}
}
