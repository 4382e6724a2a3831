//go:build !ortembed || !cgo || !(linux || windows)

package ort

// embeddedLib is empty without the ortembed build tag, and in builds that
// cannot load a library (CGO_ENABLED=0) or have none to embed (macOS).
var embeddedLib []byte
