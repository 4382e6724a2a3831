// Package ort loads the ONNX Runtime shared library once per process and runs
// ONNX models through it.
//
// The library is looked up in this order (Resolve):
//
//  1. an explicit path (a flag or an option; Init's argument);
//  2. the environment variable ONNXRUNTIME_SHARED_LIBRARY_PATH;
//  3. the project's install location build/onnxruntime/libonnxruntime.so.1,
//     searched upwards from the working directory, then beside and above the
//     executable, then $XDG_DATA_HOME/humchess/libonnxruntime.so.1
//     (~/.local/share/humchess when XDG_DATA_HOME is unset);
//  4. a copy embedded in the binary with the build tag ortembed (make
//     build-embed, make release), loaded on Linux from an anonymous
//     in-memory file (memfd, as /proc/self/fd/N) that the kernel frees with
//     the process, however it ends; where a memfd cannot load (a kernel or
//     policy that forbids executable memfds, no /proc) and on Windows, which
//     cannot load a DLL from memory, from one copy in the user's cache folder
//     ($XDG_CACHE_HOME/humchess, ~/.cache/humchess; %LocalAppData%\humchess)
//     named by the library's sha256, written atomically and reused by every
//     later start.
//
// The library's file name is libonnxruntime.so.1 (onnxruntime.dll on
// Windows, libonnxruntime.dylib on macOS). A build without cgo
// (CGO_ENABLED=0) cannot load a shared library: there every entry point
// returns ErrNoLibrary, which the nets take as the signal to run their
// pure-Go forward pass.
//
// An explicit path or environment variable that names a missing file is an
// error, not a reason to fall through: the user asked for that file. Every
// failure says what to do (run `make onnxruntime` or set
// ONNXRUNTIME_SHARED_LIBRARY_PATH); a library of the wrong version is named
// with the version found and the version required.
//
// Session wraps an onnxruntime_go DynamicAdvancedSession built from model
// bytes: Run takes named tensors with any batch size and returns every output.
//
// This package must not know chess; it only knows tensors.
package ort
