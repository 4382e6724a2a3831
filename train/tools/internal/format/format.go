// Package format holds the number formatting the tools' text tables share.
package format

import (
	"fmt"
	"math"
	"strconv"
)

// Ratio is x/n, NaN when n is 0.
func Ratio(x float64, n int64) float64 {
	if n == 0 {
		return math.NaN()
	}
	return x / float64(n)
}

// Pct formats a fraction as a percentage with one decimal; "-" for NaN.
func Pct(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.1f", 100*x)
}

// Num formats x with prec decimals; "-" for NaN.
func Num(x float64, prec int) string {
	if math.IsNaN(x) {
		return "-"
	}
	return strconv.FormatFloat(x, 'f', prec, 64)
}

// Trunc cuts s to at most n bytes.
func Trunc(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
