package main

import (
	"fmt"
	"io"

	"github.com/humchess/humchess/nets/ort"
)

// warnNoRuntime writes one warning to w when the ONNX Runtime library cannot
// be loaded (initOrt's error): nets then run on their pure-Go forward pass,
// which gives the same moves but is many times slower, so a
// teacher-labelled prep, an eval or a bench would otherwise just crawl with
// no word of why. It reports whether the library is loaded.
func warnNoRuntime(w io.Writer, initOrt func(explicit string) error) bool {
	err := initOrt("")
	if err != nil {
		fmt.Fprintf(w, "humchess: warning: nets run on their pure-Go forward pass, many times slower than through ONNX Runtime: %v\n", err)
	}
	return err == nil
}

// checkRuntime is warnNoRuntime on stderr with nets/ort's library lookup,
// called by the commands that run nets before they open the first one.
func checkRuntime(w io.Writer) { warnNoRuntime(w, ort.Init) }
