// Package load opens any network file the engine can play: a HumChess ONNX
// net (.onnx), HumChess safetensors weights (.safetensors, built into ONNX on
// the fly) or an Lc0/Maia weights file (.pb.gz). It chooses by the file's
// content, not its name, and it holds the engine's embedded default net.
//
// It owns the choice of implementation; it must not know how any net is
// evaluated.
package load
