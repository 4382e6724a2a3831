//go:build !windows && !darwin

package ort

// LibraryName is the file name of the library.
const LibraryName = "libonnxruntime.so.1"

// The embedded library's cached copy is cachePrefix + sha256 + cacheSuffix.
const (
	cachePrefix = "libonnxruntime-"
	cacheSuffix = ".so"
)
