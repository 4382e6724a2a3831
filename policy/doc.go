// Package policy is HumChess's "no search": the short named pipeline that
// turns a net's opinion of one position into a human move and a human think
// time.
//
//	legal moves -> one batched Evaluate (nets.Net); with Guidance the batch
//	     holds the position at a contrast rating too, and Guide pushes the
//	     logits away from the contrast's
//	  -> Distribution: softmax over the legal logits with a temperature, then TopP
//	  -> Sample with an injected, seeded *rand.Rand (a pure function)
//	  -> blunder filter: the positions after the top-K candidates (and the
//	     sampled move) in one more batch through the value head; a sampled
//	     move losing more than Threshold(rating) expected score against the
//	     best candidate is resampled among the others
//	  -> ThinkTime: a draw from the net's think-time head (or a heuristic),
//	     never more than a safe share of the clock.
//
// GameClock states what a GUI reveals about a game (the ratings set, the
// clocks of each go, the first clocks of the game) as a board.GameInfo,
// whose Context, the mapping training and evaluation use too, is what the
// net sees; ContextClock bounds the think time by the same clocks.
//
// Everything here is deterministic given the RNG. The package must not know
// UCI text, files, ONNX Runtime or how a net is built.
package policy
