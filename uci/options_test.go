package uci

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/humchess/humchess/internal/testenv"
)

// TestREADMEListsOptions keeps the README's options table in step with the
// table in options.go.
func TestREADMEListsOptions(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		testenv.Missing(t, "no README: %v", err)
	}
	for _, o := range OptionTable() {
		def := o.Default
		if def == "" {
			def = "(empty)"
		}
		rng := ""
		if o.Type == kindSpin {
			rng = fmt.Sprintf("%d..%d", o.Min, o.Max)
		}
		row := fmt.Sprintf("| `%s` | %s | %s | %s |", o.Name, o.Type, def, rng)
		if !strings.Contains(string(readme), row) {
			t.Errorf("README.md lacks the row %q", row)
		}
	}
}

func TestDefaultsAndRanges(t *testing.T) {
	o := DefaultOptions()
	if o.Elo != 1500 || o.Temperature != 100 || o.TopP != 100 || !o.HumanTiming || !o.BlunderFilter || o.MultiPV != 1 || o.Seed != 0 || o.NetFile != "" {
		t.Errorf("DefaultOptions() = %+v", o)
	}
	for _, opt := range table {
		if opt.kind != kindSpin {
			continue
		}
		for _, v := range []int{opt.min - 1, opt.max + 1} {
			c := o
			if err := c.Set(strings.ToUpper(opt.name), fmt.Sprint(v)); err == nil {
				t.Errorf("setoption %s %d: accepted, want out of range", opt.name, v)
			} else if c != o {
				t.Errorf("setoption %s %d failed but changed the options", opt.name, v)
			}
		}
		c := o
		if err := c.Set(strings.ToLower(opt.name), fmt.Sprint(opt.max)); err != nil {
			t.Errorf("setoption %s %d: %v", opt.name, opt.max, err)
		}
		if got, _ := c.Get(opt.name); got != fmt.Sprint(opt.max) {
			t.Errorf("Get(%s) = %q after setting %d", opt.name, got, opt.max)
		}
	}
}
