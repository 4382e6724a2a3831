package torch

import (
	"fmt"

	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/libtch"
)

// amp switches libtorch's autocast (automatic mixed precision) around the
// training forward pass, as torch.autocast does: matrix products and linear
// maps run in bfloat16, reductions, softmax and the losses in float32, and the
// weights, gradients and AdamW state stay float32. Backward runs outside it.
// The switch is per OS thread: the training goroutine is locked to its thread.
// The binding is added to gotch by scripts/patch-gotch.sh.
type amp struct {
	on   bool // bf16 autocast in use
	cuda bool // for CUDA ops (else CPU ops)
}

// newAmp resolves Config.Precision for a device.
func newAmp(precision string, dev gotch.Device) amp {
	switch precision {
	case "bf16":
		return amp{on: true, cuda: dev.IsCuda()}
	case "fp32":
		return amp{}
	default: // "auto", "": bf16 where it pays, on CUDA
		return amp{on: dev.IsCuda(), cuda: dev.IsCuda()}
	}
}

// String names the precision for the log.
func (a amp) String() string {
	if !a.on {
		return "fp32"
	}
	return "bf16 autocast (fp32 weights)"
}

// enter turns autocast on for this thread (a no-op in fp32).
func (a amp) enter() {
	if a.on {
		if err := libtch.AmpSet(a.cuda, true, true); err != nil {
			panic(fmt.Errorf("%w: %v", ErrTorch, err))
		}
	}
}

// exit turns autocast off again and drops its cache of cast weights.
func (a amp) exit() {
	if a.on {
		if err := libtch.AmpSet(a.cuda, false, true); err != nil {
			panic(fmt.Errorf("%w: %v", ErrTorch, err))
		}
	}
}
