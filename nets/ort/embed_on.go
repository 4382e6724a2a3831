//go:build ortembed && cgo && linux

package ort

import _ "embed" // for go:embed

// embeddedLib is the ONNX Runtime library that `make build-embed` copies into
// embedded/ before building with -tags ortembed.
//
//go:embed embedded/libonnxruntime.so.1
var embeddedLib []byte
