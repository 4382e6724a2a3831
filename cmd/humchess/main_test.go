package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// envMainArgs marks the child process of TestHelpExitsZero: it runs main
// with these arguments (separated by spaces).
const envMainArgs = "HUMCHESS_TEST_MAIN_ARGS"

// TestHelpExitsZero runs humchess COMMAND -h (and -help, --help) for every
// subcommand: each prints its usage and flags, exits 0 and does not call
// the request for help an error.
func TestHelpExitsZero(t *testing.T) {
	if args := os.Getenv(envMainArgs); args != "" {
		os.Args = append([]string{"humchess"}, strings.Fields(args)...)
		main() // os.Exit(1) on an error fails the parent's check
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"prep", "eval", "match", "stats", "selfplay", "bench"} {
		for _, h := range []string{"-h", "-help", "--help"} {
			c := exec.Command(exe, "-test.run=^TestHelpExitsZero$")
			c.Env = append(os.Environ(), envMainArgs+"="+cmd+" "+h)
			out, err := c.CombinedOutput()
			assert.NoError(t, err, "humchess %s %s: exit status; output:\n%s", cmd, h, out)
			assert.Contains(t, string(out), "usage: humchess "+cmd, "humchess %s %s", cmd, h)
			assert.Contains(t, string(out), "flags:\n", "humchess %s %s", cmd, h)
			assert.NotContains(t, string(out), "help requested", "humchess %s %s", cmd, h)
			assert.NotContains(t, string(out), "Usage of", "humchess %s %s", cmd, h)
		}
	}
}
