//go:build cgo

package ort

/*
#cgo !windows LDFLAGS: -ldl
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <stdio.h>
#include <windows.h>

// The dlfcn calls probe needs, on Windows. The path is UTF-8.
static void* humchess_dlopen(const char* path) {
	int n = MultiByteToWideChar(CP_UTF8, 0, path, -1, NULL, 0);
	if (n <= 0) return NULL;
	wchar_t* w = (wchar_t*) malloc(n * sizeof(wchar_t));
	if (!w) return NULL;
	MultiByteToWideChar(CP_UTF8, 0, path, -1, w, n);
	HMODULE h = LoadLibraryExW(w, NULL, LOAD_WITH_ALTERED_SEARCH_PATH);
	free(w);
	return (void*) h;
}
static void* humchess_dlsym(void* h, const char* name) { return (void*) GetProcAddress((HMODULE) h, name); }
static void humchess_dlclose(void* h) { FreeLibrary((HMODULE) h); }
static const char* humchess_dlerror(void) {
	static char buf[512];
	DWORD code = GetLastError();
	int n = snprintf(buf, sizeof buf, "Windows error %lu: ", (unsigned long) code);
	if (n < 0 || n >= (int) sizeof buf) n = 0;
	FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, code, 0, buf + n, sizeof buf - n, NULL);
	return buf;
}
#else
#include <dlfcn.h>
static void* humchess_dlopen(const char* path) { return dlopen(path, RTLD_LAZY | RTLD_LOCAL); }
static void* humchess_dlsym(void* h, const char* name) { return dlsym(h, name); }
static void humchess_dlclose(void* h) { dlclose(h); }
static const char* humchess_dlerror(void) { return dlerror(); }
#endif

// The first two members of OrtApiBase (onnxruntime_c_api.h), the ABI-stable
// part every ONNX Runtime release shares.
typedef struct {
	const void* (*GetApi)(unsigned int version);
	const char* (*GetVersionString)(void);
} humchessOrtApiBase;

typedef const humchessOrtApiBase* (*humchessGetApiBaseFn)(void);

// humchess_ort_probe opens the library at path, copies its version string into
// ver (size n) and reports whether it offers API version api. It returns 0 on
// success, 1 when the library does not load, 2 when OrtGetApiBase is missing;
// err receives the system's error text. The library stays open when it offers
// the API (onnxruntime_go opens it again, which only bumps the reference
// count).
static int humchess_ort_probe(const char* path, unsigned int api, char* ver, size_t n, int* has_api, char* err, size_t errn) {
	void* h = humchess_dlopen(path);
	if (!h) {
		const char* e = humchess_dlerror();
		strncpy(err, e ? e : "unknown dlopen error", errn - 1);
		return 1;
	}
	humchessGetApiBaseFn fn = (humchessGetApiBaseFn) humchess_dlsym(h, "OrtGetApiBase");
	if (!fn) {
		const char* e = humchess_dlerror();
		strncpy(err, e ? e : "OrtGetApiBase not found", errn - 1);
		humchess_dlclose(h);
		return 2;
	}
	const humchessOrtApiBase* base = fn();
	if (!base) {
		strncpy(err, "OrtGetApiBase returned NULL", errn - 1);
		humchess_dlclose(h);
		return 2;
	}
	const char* v = base->GetVersionString ? base->GetVersionString() : NULL;
	strncpy(ver, v ? v : "unknown", n - 1);
	*has_api = base->GetApi && base->GetApi(api) != NULL;
	if (!*has_api) humchess_dlclose(h);
	return 0;
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// probe reports the version string of the library at path and whether it
// offers API version api.
func probe(path string, api int) (version string, hasAPI bool, err error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	const n = 256
	ver := (*C.char)(C.calloc(n, 1))
	defer C.free(unsafe.Pointer(ver))
	msg := (*C.char)(C.calloc(n*4, 1))
	defer C.free(unsafe.Pointer(msg))
	var has C.int
	switch C.humchess_ort_probe(cpath, C.uint(api), ver, n, &has, msg, n*4) {
	case 0:
		return C.GoString(ver), has != 0, nil
	case 1:
		return "", false, fmt.Errorf("cannot load %s: %s", path, C.GoString(msg))
	default:
		return "", false, fmt.Errorf("%s is not an ONNX Runtime library: %s", path, C.GoString(msg))
	}
}
