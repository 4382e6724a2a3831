// Package torch trains the HumChess transformer with libtorch through gotch
// (github.com/sugarme/gotch v0.9.1, patched for the local libtorch by
// scripts/patch-gotch.sh into build/gotch). It is a nested module so that the
// engine builds and tests without libtorch.
//
// It owns: the model in gotch with exactly the architecture and weight names
// of docs/ARCHITECTURE.md (the same Arch and names as nets/transformer, whose
// pure-Go forward pass and ONNX graph must agree with Model.Forward); the
// losses (move: cross-entropy over the legal moves, illegal logits pushed to
// -1e9, with a hard target or a teacher distribution; win/draw/loss;
// think-time bins of board.ThinkBin; from and to squares; with the optional
// legal-moves head, binary cross-entropy of each vocabulary move's legality;
// each weighted by Config); one typed Config with presets (presets/*.json: tiny, default,
// large), flags and a JSON overlay; its own AdamW (so its moments are saved
// and restored exactly) with linear warm-up, cosine decay, gradient clipping
// and accumulation; the data pipeline from train/data/shard's shuffle reader
// through board.Contract.Fill; metrics (JSONL, a progress line, a PNG);
// checkpoints (safetensors files holding weights, AdamW moments and the run's
// State, written atomically); Export to the safetensors and ONNX files the
// engine reads.
//
// It must not know PGN or how shards are made (train/data/prep), nor the engine.
//
// Random state: the weights are initialised from Config.Seed in Go, the data
// order comes from the shard shuffler (seed plus saved Position), and the model
// has no dropout, so a checkpoint's weights, moments, step and data position
// are the whole state of a run: Run with Options.Resume continues exactly.
//
// libtorch's grad mode is per OS thread, so Run locks its goroutine to its
// thread. On CPU, set OMP_NUM_THREADS to the core count (or Config.Threads) and
// preload jemalloc (see the README). Config.Precision "bf16" runs the training
// forward pass under libtorch's autocast to bfloat16 (amp.go, through the
// binding scripts/patch-gotch.sh adds to gotch, which has none), on CPU or
// CUDA; "auto", the default, is bf16 on CUDA and float32 on CPU. Weights,
// gradients and AdamW state stay float32 either way, and validation and
// export run in float32.
package torch
