package ort

// LibraryName is the file name of the library.
const LibraryName = "onnxruntime.dll"

// The embedded library's cached copy is cachePrefix + sha256 + cacheSuffix.
const (
	cachePrefix = "onnxruntime-"
	cacheSuffix = ".dll"
)
