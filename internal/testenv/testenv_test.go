package testenv

import (
	"fmt"
	"testing"
)

// recorder is a testing.TB that records Fatalf and Skipf instead of
// stopping the test.
type recorder struct {
	testing.TB
	fatal, skip string
}

func (r *recorder) Helper()                           {}
func (r *recorder) Fatalf(format string, args ...any) { r.fatal = fmt.Sprintf(format, args...) }
func (r *recorder) Skipf(format string, args ...any)  { r.skip = fmt.Sprintf(format, args...) }

// TestMissing checks that Missing fails under CI=true and skips otherwise,
// with the message given.
func TestMissing(t *testing.T) {
	for _, tc := range []struct {
		ci          string
		fatal, skip string
	}{
		{"true", "precondition missing under CI=true: no stockfish at /x", ""},
		{"", "", "no stockfish at /x"},
		{"false", "", "no stockfish at /x"},
		{"1", "", "no stockfish at /x"},
	} {
		t.Setenv("CI", tc.ci)
		r := &recorder{TB: t}
		Missing(r, "no stockfish at %s", "/x")
		if r.fatal != tc.fatal || r.skip != tc.skip {
			t.Errorf("CI=%q: Fatalf %q, Skipf %q; want Fatalf %q, Skipf %q", tc.ci, r.fatal, r.skip, tc.fatal, tc.skip)
		}
	}
}
