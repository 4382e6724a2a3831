package board

import (
	"slices"
	"testing"

	"github.com/notnil/chess"
)

func FuzzNewGame(f *testing.F) {
	for _, s := range []string{"", StartFEN, "8/8/8/8/8/8/8/8 w - - 0 1", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
		"rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3", "4k3/8/8/8/8/8/8/4K2r b - - 0 1", "kK w - -"} {
		f.Add(s)
	}
	for _, c := range perftCases {
		f.Add(c.fen)
	}
	f.Fuzz(func(t *testing.T, fen string) {
		g, err := NewGame(fen)
		if err != nil {
			return
		}
		// An accepted FEN must give a playable, encodable game.
		_ = g.Status()
		e := Encode(g, UnknownContext())
		c := DefaultContract()
		if err := c.Fill(&e, make([]int64, 64), make([]float32, 64*c.SquareDim()), make([]float32, c.GlobalDim())); err != nil {
			t.Fatal(err)
		}
		// The generator agrees with notnil/chess, move for move, except when
		// the side to move is in check: notnil does not look for the check in
		// a position read from a FEN (see TestMoveGenInCheckCastling).
		if !g.InCheck() {
			pos := &chess.Position{}
			if err := pos.UnmarshalText([]byte(g.FEN())); err != nil {
				t.Fatalf("%s: notnil rejects %q: %v", fen, g.FEN(), err)
			}
			if got, want := g.LegalMoves(), notnilMoves(pos); !slices.Equal(got, want) {
				t.Fatalf("%s: legal moves\n%v\nnotnil\n%v", fen, got, want)
			}
		}
		for _, m := range g.LegalMoves() {
			if _, ok := MoveToIndex(m, g.WhiteToMove()); !ok {
				t.Fatalf("%s: legal move %s has no index", fen, m)
			}
			c := g.Clone()
			if err := c.PlayMove(m); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := NewGame(g.FEN()); err != nil {
			t.Fatalf("FEN %q -> %q does not parse back: %v", fen, g.FEN(), err)
		}
	})
}

func FuzzDecodeBinary(f *testing.F) {
	e := Encode(MustNewGame(""), Context{1500, 1600, 180, 2, 100, 90})
	f.Add(e.AppendBinary(nil))
	f.Add([]byte{})
	f.Add([]byte{1, 2, 3})
	tg := Targets{Move: 5, Result: -1, Seconds: 2, From: 1, To: 2}
	f.Add(tg.AppendBinary(nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		var d Encoded
		if n, err := d.DecodeBinary(b); err == nil {
			if n > len(b) || n != d.BinarySize() {
				t.Fatalf("n=%d len=%d size=%d", n, len(b), d.BinarySize())
			}
			// What decodes re-encodes to the same bytes (the flags' unused bits are zero).
			if got := d.AppendBinary(nil); string(got) != string(b[:n]) {
				t.Fatalf("re-encoding differs:\n%x\n%x", got, b[:n])
			}
			c := DefaultContract()
			if err := c.Fill(&d, make([]int64, 64), make([]float32, 64*c.SquareDim()), make([]float32, c.GlobalDim())); err != nil {
				t.Fatal(err)
			}
		}
		var tt Targets
		_, _ = tt.DecodeBinary(b)
	})
}
