// Package testenv says what a test does when something it needs from the
// machine is missing (Stockfish, the ONNX Runtime library, the shared data
// folder beside the checkout, a fixture): locally it skips with a message;
// under CI (CI=true), which provides every such precondition, it fails, so
// that a broken CI machine cannot pass by skipping.
//
// It is for tests only. A test skipped by choice (-short) calls t.Skip
// itself; so does one whose precondition CI does not provide.
package testenv

import (
	"os"
	"testing"
)

// OnCI reports whether the tests run under CI: the CI environment
// variable is "true".
func OnCI() bool { return os.Getenv("CI") == "true" }

// Missing reports that a precondition of tb is missing, in the words of
// format and args: under CI it fails tb, elsewhere it skips tb.
func Missing(tb testing.TB, format string, args ...any) {
	tb.Helper()
	if OnCI() {
		tb.Fatalf("precondition missing under CI=true: "+format, args...)
		return // Fatalf does not return; a stand-in TB's may
	}
	tb.Skipf(format, args...)
}
