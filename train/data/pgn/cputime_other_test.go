//go:build !unix

package pgn

import "time"

// cpuTime is unavailable here; the CPU metrics read zero.
func cpuTime() time.Duration { return 0 }
