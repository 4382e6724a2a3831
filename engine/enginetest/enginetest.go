// Package enginetest holds the test doubles shared by the tests of the
// engine and of what wires it (cmd/humchess): Fake nets behind an
// engine.Opener. It must not be imported by non-test code.
package enginetest

import (
	"fmt"

	"github.com/humchess/humchess/nets"
)

// NoWDL is the NetFile for which OpenFake opens a Fake without value and
// time heads.
const NoWDL = "nowdl.fake"

// OpenFake has the shape of engine.Opener and opens nets.Fake nets: for
// NetFile "" one of seed 1 with both heads, for NoWDL one of seed 1 without
// value and time heads. Any other path fails with an error naming it.
func OpenFake(path string, threads int) (nets.Net, error) {
	switch path {
	case "":
		return nets.NewFake(1), nil
	case NoWDL:
		return &nets.Fake{Seed: 1, NoWDL: true, NoTime: true}, nil
	}
	return nil, fmt.Errorf("no such test net: %s", path)
}
