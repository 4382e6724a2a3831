package ort

// LibraryName is the file name of the library.
const LibraryName = "libonnxruntime.dylib"

// The embedded library's cached copy is cachePrefix + sha256 + cacheSuffix.
const (
	cachePrefix = "libonnxruntime-"
	cacheSuffix = ".dylib"
)
