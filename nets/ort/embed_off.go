//go:build !ortembed

package ort

// embeddedLib is empty without the ortembed build tag.
var embeddedLib []byte
