package torch

import (
	"fmt"
	"unsafe"

	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/ts"
)

// #cgo LDFLAGS: -ltorch -lc10 -ltorch_cpu
// #include <stdint.h>
// // Defined in gotch's libtch (torch_api.cpp), linked into the same binary;
// // the libraries are named here too since this package calls libtorch directly.
// void at_set_num_threads(int n_threads);
// int at_get_num_threads();
import "C"

// SetThreads sets libtorch's intra-op thread count (libtorch on CPU defaults
// to OMP_NUM_THREADS, or 1 in some builds).
func SetThreads(n int) {
	if n > 0 {
		C.at_set_num_threads(C.int(n))
	}
}

// Threads returns libtorch's intra-op thread count.
func Threads() int { return int(C.at_get_num_threads()) }

// recoverTorch turns a panic of a gotch Must* call into an error wrapping ErrTorch.
func recoverTorch(err *error) {
	if r := recover(); r != nil {
		if e, ok := r.(error); ok {
			*err = fmt.Errorf("%w: %w", ErrTorch, e)
			return
		}
		*err = fmt.Errorf("%w: %v", ErrTorch, r)
	}
}

// floatTensor copies v into a new float32 tensor of the given shape on dev.
func floatTensor(v []float32, shape []int64, dev gotch.Device) *ts.Tensor {
	var b []byte
	if len(v) > 0 {
		b = unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v))
	}
	return toDevice(ofBytes(b, shape, gotch.Float), dev)
}

// int64Tensor copies v into a new int64 tensor of the given shape on dev.
func int64Tensor(v []int64, shape []int64, dev gotch.Device) *ts.Tensor {
	var b []byte
	if len(v) > 0 {
		b = unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 8*len(v))
	}
	return toDevice(ofBytes(b, shape, gotch.Int64), dev)
}

func ofBytes(b []byte, shape []int64, dt gotch.DType) *ts.Tensor {
	t, err := ts.OfDataSize(b, shape, dt)
	if err != nil {
		panic(err)
	}
	return t
}

func toDevice(t *ts.Tensor, dev gotch.Device) *ts.Tensor {
	if dev.IsCuda() {
		return t.MustTo(dev, true)
	}
	return t
}

// hostFloats copies a float32 tensor to a new slice.
func hostFloats(t *ts.Tensor) []float32 {
	v := make([]float32, t.Numel())
	if len(v) > 0 {
		t.MustCopyData(v, uint(len(v)))
	}
	return v
}

// hostInt64s copies an int64 tensor to a new slice.
func hostInt64s(t *ts.Tensor) []int64 {
	v := make([]int64, t.Numel())
	if len(v) > 0 {
		t.MustCopyData(v, uint(len(v)))
	}
	return v
}

// scalarOf returns the value of a one-element float tensor.
func scalarOf(t *ts.Tensor) float64 {
	v := hostFloats(t)
	if len(v) != 1 {
		panic(fmt.Sprintf("torch: scalar tensor has %d elements", len(v)))
	}
	return float64(v[0])
}

// pickDevice resolves "cpu", "cuda" or "auto".
func pickDevice(name string) (gotch.Device, error) {
	switch name {
	case "cpu":
		return gotch.CPU, nil
	case "cuda":
		d := gotch.CudaIfAvailable()
		if !d.IsCuda() {
			return gotch.CPU, fmt.Errorf("%w: device cuda asked for, but libtorch sees no CUDA device", ErrConfig)
		}
		return d, nil
	default:
		return gotch.CudaIfAvailable(), nil
	}
}
