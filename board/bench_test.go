package board

import (
	"github.com/notnil/chess"
	"testing"
)

// benchGame is a middlegame reached from the start by real moves.
func benchGame(b *testing.B) *Game {
	b.Helper()
	g, err := NewGame("")
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range []string{"e2e4", "c7c5", "g1f3", "d7d6", "d2d4", "c5d4", "f3d4", "g8f6", "b1c3", "a7a6", "c1e3", "e7e5", "d4b3", "c8e6"} {
		if err := g.Play(m); err != nil {
			b.Fatal(err)
		}
	}
	return g
}

func BenchmarkLegalMoves(b *testing.B) {
	g := benchGame(b)
	for b.Loop() {
		c := *g
		c.legal, c.cmoves = nil, nil
		c.pos = c.pos.Update(g.cmovesOrCompute()[0]) // fresh position each time
		_ = c.NumLegalMoves()
	}
}

func (g *Game) cmovesOrCompute() []*chess.Move {
	g.ensureLegal()
	return g.cmoves
}

func BenchmarkPlay(b *testing.B) {
	g := benchGame(b)
	for b.Loop() {
		c := g.Clone()
		if err := c.Play("f2f3"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPlaySAN(b *testing.B) {
	g := benchGame(b)
	for b.Loop() {
		c := g.Clone()
		if err := c.PlaySAN("f3"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkClone(b *testing.B) {
	g := benchGame(b)
	for b.Loop() {
		_ = g.Clone()
	}
}

func BenchmarkEncode(b *testing.B) {
	g := benchGame(b)
	ctx := Context{1500, 1600, 180, 2, 100, 90}
	var e Encoded
	for b.Loop() {
		EncodeTo(&e, g, ctx)
	}
}

func BenchmarkFill(b *testing.B) {
	g := benchGame(b)
	e := Encode(g, Context{1500, 1600, 180, 2, 100, 90})
	c := DefaultContract()
	pieces := make([]int64, 64)
	squares := make([]float32, 64*c.SquareDim())
	global := make([]float32, c.GlobalDim())
	for b.Loop() {
		if err := c.Fill(&e, pieces, squares, global); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendBinary(b *testing.B) {
	g := benchGame(b)
	e := Encode(g, UnknownContext())
	buf := make([]byte, 0, 512)
	for b.Loop() {
		buf = e.AppendBinary(buf[:0])
	}
}

func BenchmarkDecodeBinary(b *testing.B) {
	g := benchGame(b)
	e := Encode(g, UnknownContext())
	buf := e.AppendBinary(nil)
	var d Encoded
	for b.Loop() {
		if _, err := d.DecodeBinary(buf); err != nil {
			b.Fatal(err)
		}
	}
}
