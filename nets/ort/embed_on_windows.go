//go:build ortembed && cgo

package ort

import _ "embed" // for go:embed

// embeddedLib is the ONNX Runtime DLL that `make release` copies into
// embedded/ before building for Windows with -tags ortembed.
//
//go:embed embedded/onnxruntime.dll
var embeddedLib []byte
