package board

import (
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
	first := g.LegalMoves()[0]
	buf := make([]Move, 0, 256)
	for b.Loop() {
		c := *g
		c.legal, c.legalOK = buf[:0], false
		c.play(first) // fresh position each time
		_ = c.NumLegalMoves()
	}
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

// benchSAN is a real 60-ply game (lichess), replayed by BenchmarkReplay.
var benchSAN = []string{"e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5", "Bb3", "d6", "c3", "O-O",
	"h3", "Nb8", "d4", "Nbd7", "c4", "c6", "cxb5", "axb5", "Nc3", "Bb7", "Bg5", "b4", "Nb1", "h6", "Bh4", "c5", "dxe5", "Nxe4",
	"Bxe7", "Qxe7", "exd6", "Qf6", "Nbd2", "Nxd6", "Nc4", "Nxc4", "Bxc4", "Nb6", "Ne5", "Rae8", "Bxf7+", "Rxf7", "Nxf7", "Rxe1+",
	"Qxe1", "Kxf7", "Qe3", "Qg5", "Qxg5", "hxg5", "b3", "Ke6", "a3", "Kd6"}

// BenchmarkReplay is the prep pipeline's per-position work: decode a SAN
// move, encode the position (legal moves included) and serialise it.
func BenchmarkReplay(b *testing.B) {
	var e Encoded
	buf := make([]byte, 0, 512)
	ctx := Context{1500, 1600, 180, 2, 100, 90}
	for b.Loop() {
		g := MustNewGame("")
		for _, san := range benchSAN {
			EncodeTo(&e, g, ctx)
			buf = e.AppendBinary(buf[:0])
			if err := g.PlaySAN(san); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(benchSAN)), "ns/position")
}
