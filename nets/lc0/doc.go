// Package lc0 runs Leela Chess Zero networks, Maia among them, without any
// Lc0 binary.
//
// It reads Lc0's gzipped protobuf weight files (net.proto, LINEAR16
// quantised layers) by hand with protowire, folds batch norm into the
// convolutions as Lc0's loader does, encodes positions into Lc0's 112 input
// planes (INPUT_CLASSICAL_112_PLANE, 8 positions of history), maps the
// policy to and from Lc0's 1858-entry move index (castling king-to-rook
// inside, king-to-destination outside), and evaluates the SE-ResNet either
// with a pure-Go reference forward pass or as an ONNX graph (built with
// nets/onnx, run with nets/ort). Net implements nets.Net on top of that.
//
// Supported: residual towers with or without squeeze-excitation, classical
// or convolutional policy heads, classical or WDL value heads. Attention
// bodies and the canonical input formats are refused with ErrUnsupported.
//
// This package must not know the HumChess encoding contract: it speaks only
// Lc0's formats and takes positions from board.Game.
package lc0
