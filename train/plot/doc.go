// Package plot draws small PNG charts with the standard library only: a 5x7
// bitmap font (font.go, the one train/data/prep started with, exported here so
// that tools share it) and line charts with one line per series (Lines).
//
// It knows nothing of chess or of the data it draws.
package plot
