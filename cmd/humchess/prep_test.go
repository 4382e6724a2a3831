package main

import (
	"cmp"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/humchess/humchess/board"
	"github.com/humchess/humchess/nets/ort"
	"github.com/humchess/humchess/train/data/shard"

	"github.com/humchess/humchess/internal/testenv"
)

// maiaTeacher returns the path of maia-1100 (in $HUMCHESS_MAIA_DIR, else
// testdata/lc0), or skips t without it or without ONNX Runtime.
func maiaTeacher(t *testing.T) string {
	t.Helper()
	if _, err := ort.Resolve(""); err != nil {
		testenv.Missing(t, "ONNX Runtime not available (run make onnxruntime): %v", err)
	}
	net := filepath.Join(cmp.Or(os.Getenv("HUMCHESS_MAIA_DIR"), "../../testdata/lc0"), "maia-1100.pb.gz")
	if _, err := os.Stat(net); err != nil {
		testenv.Missing(t, "Maia net not available: %v", err)
	}
	return net
}

// TestPrepTeacherMaia preps 150 games of the lichess sample with
// -teacher maia-1100 and checks the manifest's teacher and that the stored
// distributions are Maia's: their most likely move is the move played far
// more often than a uniform choice among the legal moves would be (a
// distribution stored in the wrong move order would not be).
func TestPrepTeacherMaia(t *testing.T) {
	net := maiaTeacher(t)
	out := t.TempDir()
	err := runPrep([]string{"-teacher", net, "-teacher-batch", "100", "-o", out, "-quiet", "-plots=false", "-max-games", "150",
		"../../testdata/games/lichess-2022-06-2500.pgn.zst"})
	if err != nil {
		t.Fatal(err)
	}
	set, err := shard.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	tc := set.Manifest.Teacher
	if tc == nil || tc.Name != "maia-1100" || tc.File != net || tc.Kind != "lc0" || len(tc.Hash) != 64 {
		t.Fatalf("manifest teacher %+v", tc)
	}
	var e board.Encoded
	var tg board.Targets
	var p []float32
	var n, hits int
	var uniform float64
	for _, split := range set.Manifest.Splits() {
		r := set.Reader(split)
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if p, err = shard.DecodeSampleTeacher(rec, &e, &tg, p); err != nil {
				t.Fatal(err)
			}
			if len(p) != len(e.Legal) {
				t.Fatalf("record %d: %d teacher probabilities for %d legal moves", n, len(p), len(e.Legal))
			}
			best := 0
			for k := range p {
				if p[k] > p[best] {
					best = k
				}
			}
			if e.Legal[best] == uint16(tg.Move) {
				hits++
			}
			uniform += 1 / float64(len(e.Legal))
			n++
		}
	}
	if int64(n) != tc.Positions || n < 500 {
		t.Fatalf("%d records, manifest teacher labelled %d", n, tc.Positions)
	}
	acc := float64(hits) / float64(n)
	t.Logf("%d positions labelled by %s; the teacher's top move is the move played in %.1f%% (uniform %.1f%%)",
		n, filepath.Base(net), 100*acc, 100*uniform/float64(n))
	if acc < 0.35 {
		t.Errorf("teacher top-1 matches the played move in %.1f%% of positions, want >= 35%% (Maia's is about 50%%)", 100*acc)
	}
}
