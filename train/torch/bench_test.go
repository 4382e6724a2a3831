package torch

import (
	"runtime"
	"testing"

	"github.com/sugarme/gotch"

	"github.com/humchess/humchess/train/data/shard"
)

// BenchmarkTrainStep times one optimizer step (forward, backward, clip,
// AdamW) of the tiny and default presets at their batch sizes on the CPU, on
// real positions, in fp32 and under bf16 autocast. Reported: ns/op (one step)
// and positions/s.
func BenchmarkTrainStep(b *testing.B) {
	for _, name := range []string{"tiny", "default"} {
		for _, prec := range []string{"fp32", "bf16"} {
			b.Run(name+"/"+prec, func(b *testing.B) { benchStep(b, name, newAmp(prec, gotch.CPU)) })
		}
	}
}

func benchStep(b *testing.B, preset string, a amp) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c, err := Preset(preset)
	if err != nil {
		b.Fatal(err)
	}
	if c.Threads > 0 { // the tiny preset runs on one thread: faster for a model that small
		prev := Threads()
		SetThreads(c.Threads)
		defer SetThreads(prev)
	}
	set, err := shard.Open(testShards(b))
	if err != nil {
		b.Fatal(err)
	}
	exs, err := ReadExamples(set, "train", c.BatchSize)
	if err != nil {
		b.Fatal(err)
	}
	hb, err := fillBatch(c.Contract(), exs, 1, 0)
	if err != nil {
		b.Fatal(err)
	}
	m, err := NewModel(c.Arch, gotch.CPU, 1)
	if err != nil {
		b.Fatal(err)
	}
	opt, err := NewAdamW(m.params, gotch.CPU, c.Beta1, c.Beta2, c.AdamEps, c.WeightDecay)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%s preset: %d parameters, batch %d, %d libtorch threads, %s", preset, c.Arch.ParamCount(), c.BatchSize, Threads(), a)
	step := func() {
		var s scope
		db := hb.upload(&s, c.Arch, gotch.CPU)
		a.enter()
		o := m.Forward(&s, db.pieces, db.squares, db.global)
		lo := s.losses(o, db, c.weights(), 1)
		a.exit()
		lo.total.MustBackward()
		gn := opt.gradNorm(&s)
		s.drop()
		if err := opt.Update(1e-4, min(1, c.ClipNorm/gn)); err != nil {
			b.Fatal(err)
		}
	}
	step() // warm-up
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		step()
	}
	b.ReportMetric(float64(b.N*c.BatchSize)/b.Elapsed().Seconds(), "positions/s")
}
