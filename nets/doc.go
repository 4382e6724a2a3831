// Package nets defines what the engine asks of a neural net: the Net
// interface, its Input and Output, and Info, the facts a net file carries
// about itself (kind, encoding contract version, heads, think-time bins,
// content hash). It also holds Fake, a deterministic Net for the tests of the
// packages above it (policy, uci, match), and small helpers every Net
// implementation shares (CheckContract, Info.Validate, Softmax, ValidateInputs).
//
// This package must not know how any net is built: ONNX, ONNX Runtime, Lc0
// weights and the transformer live in the subpackages.
package nets
