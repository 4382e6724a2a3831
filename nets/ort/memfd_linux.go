//go:build cgo

package ort

/*
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/mman.h>

#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 0x0001U
#endif
#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

// loadMemfd loads lib from a memfd.
func loadMemfd(lib []byte) (Location, string, *os.File, error) {
	mem, err := memfdWith(lib)
	if err != nil {
		return Location{}, "", nil, err
	}
	loc := Location{Path: fmt.Sprintf("/proc/self/fd/%d", mem.Fd()), Source: FromEmbedded}
	version, err := load(loc)
	if err != nil {
		_ = mem.Close() // not loadable: the load error matters
		return Location{}, "", nil, err
	}
	return loc, version, mem, nil
}

// memfdWith returns an anonymous, executable in-memory file (closed on
// exec) holding lib.
func memfdWith(lib []byte) (*os.File, error) {
	name := C.CString(LibraryName)
	defer C.free(unsafe.Pointer(name))
	fd, err := C.memfd_create(name, C.MFD_CLOEXEC|C.MFD_EXEC)
	if fd < 0 && errors.Is(err, syscall.EINVAL) {
		fd, err = C.memfd_create(name, C.MFD_CLOEXEC) // kernels before 6.3 do not know MFD_EXEC
	}
	if fd < 0 {
		return nil, fmt.Errorf("memfd_create: %w", err)
	}
	f := os.NewFile(uintptr(fd), "memfd:"+LibraryName)
	if _, err := f.Write(lib); err != nil {
		_ = f.Close() // the write error matters
		return nil, fmt.Errorf("writing the memfd: %w", err)
	}
	return f, nil
}
