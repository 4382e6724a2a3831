// Package cli holds the small pieces the pipeline's command-line tools
// share: a comma-separated list flag and the terminal test of their
// progress lines. It knows nothing of chess, nets or data.
package cli

import (
	"io"
	"os"
	"strings"
)

// ListFlag is a comma-separated list flag writing into *P: blanks around
// the items and empty items are dropped.
type ListFlag struct{ P *[]string }

// String joins the list with commas.
func (l ListFlag) String() string {
	if l.P == nil {
		return ""
	}
	return strings.Join(*l.P, ",")
}

// Set replaces the list with the items of s.
func (l ListFlag) Set(s string) error {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	*l.P = out
	return nil
}

// IsTerminal reports whether w is a character device (a terminal).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
