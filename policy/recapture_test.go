package policy

import (
	"testing"

	"github.com/humchess/humchess/board"
)

func TestRecapture(t *testing.T) {
	for _, tc := range []struct {
		name  string
		moves []string // SAN from the start position; the last is the move judged
		want  bool
	}{
		{"takes back on the square", []string{"e4", "f5", "Nc3", "fxe4", "Nxe4"}, true},
		{"bishop for knight, pawn takes back", []string{"e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Bxc6", "dxc6"}, true},
		{"a capture, not a recapture", []string{"e4", "d5", "exd5"}, false},
		{"takes a piece that moved there without capturing", []string{"e4", "e5", "Nf3", "Qh4", "Nxh4"}, false},
		{"a quiet move after a capture", []string{"e4", "d5", "exd5", "Nf6"}, false},
		{"queen takes, bishop takes back", []string{"e4", "d5", "Nc3", "dxe4", "Nxe4", "Qxd2+", "Bxd2"}, true},
		{"after en passant", []string{"e4", "a6", "e5", "d5", "exd6", "Qxd6"}, true},
		{"first move", []string{"e4"}, false},
	} {
		g := board.MustNewGame("")
		for _, san := range tc.moves[:len(tc.moves)-1] {
			if err := g.PlaySAN(san); err != nil {
				t.Fatalf("%s: %s: %v", tc.name, san, err)
			}
		}
		m, err := g.ParseSAN(tc.moves[len(tc.moves)-1])
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := Recapture(g, m); got != tc.want {
			t.Errorf("%s: Recapture(%v) = %v, want %v", tc.name, tc.moves, got, tc.want)
		}
	}
}
