package main

import "testing"

func TestParseSet(t *testing.T) {
	tests := []struct {
		in, player              string // the -set value and the -player default
		name, files, wantPlayer string
	}{
		{"games.pgn", "", "games.pgn", "games.pgn", ""},
		{"h=a.pgn,b.pgn.zst", "", "h", "a.pgn,b.pgn.zst", ""},
		{"h=a.pgn", "hc", "h", "a.pgn", "hc"},
		{"e=match.pgn@HumChess dev", "", "e", "match.pgn", "HumChess dev"},
		{"e=match.pgn@sf", "hc", "e", "match.pgn", "sf"},
		{"match.pgn@sf", "", "match.pgn", "match.pgn", "sf"},
		{"e=dir@x/m.pgn@hc", "", "e", "dir@x/m.pgn", "hc"},
	}
	for _, tt := range tests {
		name, files, player := parseSet(tt.in, tt.player)
		if name != tt.name || files != tt.files || player != tt.wantPlayer {
			t.Errorf("parseSet(%q, %q) = %q, %q, %q; want %q, %q, %q", tt.in, tt.player, name, files, player, tt.name, tt.files, tt.wantPlayer)
		}
	}
}
