//go:build unix

package pgn

import (
	"syscall"
	"time"
)

// cpuTime returns the process's user+system CPU time, which the
// benchmarks report beside wall time because a shared machine's wall
// time is noisy.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
