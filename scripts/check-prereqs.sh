#!/usr/bin/env bash
# Checks what the make targets need before they spend minutes building and
# testing, and says what to install. Usage:
#   scripts/check-prereqs.sh engine   # make build/run/test-engine: Go 1.26, npm (or the ONNX Runtime library)
#   scripts/check-prereqs.sh train    # make test/train-*: also g++, libtorch-dev, libopenblas0-pthread, libjemalloc2
#   scripts/check-prereqs.sh release  # make release: Go, npm, gcc, the mingw-w64 cross-compiler
# Exits 1 and lists every missing piece; prints nothing else when all is there.
set -uo pipefail
level=${1:-engine}
root=$(cd "$(dirname "$0")/.." && pwd)
missing=()   # human-readable problems
apt=()       # Debian packages that fix them

need_go() {
  if ! command -v "${GO:-go}" >/dev/null; then
    missing+=("Go 1.26 or newer (go not found; .ci/run installs it, or see https://go.dev/dl)")
    return
  fi
  # Go 1.21 and later fetch the toolchain go.mod asks for by themselves.
  local v minor
  v=$("${GO:-go}" env GOVERSION 2>/dev/null)
  minor=$(sed -n 's/^go1\.\([0-9]*\).*/\1/p' <<<"$v")
  if [ -n "$minor" ] && [ "$minor" -lt 21 ]; then
    missing+=("Go 1.21 or newer, to fetch the 1.26 toolchain by itself (found $v)")
  fi
}

need_npm() {
  [ -f "$root/build/onnxruntime/libonnxruntime.so.1" ] && return
  command -v npm >/dev/null && return
  missing+=("npm, to fetch the ONNX Runtime library once (make onnxruntime)")
  apt+=(npm)
}

need_train() {
  command -v g++ >/dev/null || { missing+=("g++ (gotch's cgo code)"); apt+=(g++); }
  if [ -n "${LIBTORCH:-}" ]; then
    [ -f "$LIBTORCH/include/torch/csrc/api/include/torch/torch.h" ] ||
      missing+=("libtorch headers under LIBTORCH=$LIBTORCH (include/torch/csrc/api/include/torch/torch.h)")
  elif ! ls /usr/include/torch/csrc/api/include/torch/torch.h >/dev/null 2>&1; then
    missing+=("libtorch headers (/usr/include/torch/...; or set LIBTORCH=/path/to/libtorch)")
    apt+=(libtorch-dev)
  fi
  local libs # read once: grep -q closing a pipe early would fail it under pipefail
  libs=$(ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null)
  grep -q 'libopenblas.*\.so' <<<"$libs" || { missing+=("OpenBLAS"); apt+=(libopenblas0-pthread); }
  grep -q 'libjemalloc\.so\.2' <<<"$libs" || { missing+=("jemalloc"); apt+=(libjemalloc2); }
}

need_release() {
  command -v npm >/dev/null || { [ -f "$root/build/onnxruntime/libonnxruntime.so.1" ] && [ -f "$root/build/onnxruntime/onnxruntime.dll" ]; } ||
    { missing+=("npm, to fetch the ONNX Runtime libraries once"); apt+=(npm); }
  command -v gcc >/dev/null || { missing+=("gcc (cgo, for the Linux build)"); apt+=(gcc); }
  command -v x86_64-w64-mingw32-gcc >/dev/null ||
    { missing+=("x86_64-w64-mingw32-gcc (cgo, for the Windows build)"); apt+=(gcc-mingw-w64-x86-64); }
}

case $level in
  engine) need_go; need_npm ;;
  train) need_go; need_npm; need_train ;;
  release) need_go; need_release ;;
  *) echo "usage: $0 engine|train|release" >&2; exit 2 ;;
esac

[ ${#missing[@]} -eq 0 ] && exit 0
echo "Missing prerequisites for the $level targets:" >&2
for m in "${missing[@]}"; do echo "  - $m" >&2; done
if [ ${#apt[@]} -gt 0 ]; then
  echo "On Debian 12: sudo apt-get install --no-install-recommends ${apt[*]}" >&2
fi
if [ "$level" = train ]; then
  echo "(make test-engine runs the engine's tests without the trainer's prerequisites)" >&2
fi
echo "(.ci/run installs everything on a fresh Debian 12 machine)" >&2
exit 1
