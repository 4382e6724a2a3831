#!/usr/bin/env bash
# Builds the release files into OUT (default build/release): one
# self-contained executable per platform, the default net inside, and
# SHA256SUMS. Usage: scripts/release.sh [OUT [NAME...]]   (make release)
# With NAMEs, only those files are built (CI builds the two it tests).
#
#   humchess-linux-amd64        cgo, ONNX Runtime embedded (-tags ortembed); glibc 2.34+
#   humchess-linux-amd64-static CGO_ENABLED=0, pure-Go forward pass; any x86-64 Linux
#   humchess-linux-arm64        CGO_ENABLED=0, pure-Go forward pass
#   humchess-windows-amd64.exe  cgo with mingw-w64, onnxruntime.dll embedded; pure Go
#                               where the DLL cannot load
#   humchess-macos-arm64        CGO_ENABLED=0, pure-Go forward pass (a cgo build for
#                               macOS needs Apple's SDK, which this machine lacks)
#
# The ONNX Runtime libraries come from npm, sha256-pinned
# (scripts/install-onnxruntime.sh); nothing is downloaded at run time.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/release}
GO=${GO:-go}
version=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
ldflags="-s -w -X main.version=$version"

./scripts/check-prereqs.sh release
./scripts/install-onnxruntime.sh build/onnxruntime linux-x64 win32-x64
mkdir -p nets/ort/embedded
cp build/onnxruntime/libonnxruntime.so.1 build/onnxruntime/onnxruntime.dll nets/ort/embedded/

tmp=$out.tmp
rm -rf "$tmp"
mkdir -p "$tmp"
shift $(($# > 0 ? 1 : 0))
# The files: name, build tags, the platform's variables.
targets=(
  "humchess-linux-amd64|ortembed|GOOS=linux GOARCH=amd64 CGO_ENABLED=1"
  "humchess-linux-amd64-static||GOOS=linux GOARCH=amd64 CGO_ENABLED=0"
  "humchess-linux-arm64||GOOS=linux GOARCH=arm64 CGO_ENABLED=0"
  "humchess-windows-amd64.exe|ortembed|GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc"
  "humchess-macos-arm64||GOOS=darwin GOARCH=arm64 CGO_ENABLED=0"
)
names=" ${targets[*]%%|*} "
for want in "$@"; do
  [[ $names == *" $want "* ]] || { echo "release: no file $want (want one of$names)" >&2; exit 2; }
done
for t in "${targets[@]}"; do
  IFS='|' read -r name tags vars <<<"$t"
  [[ $# -eq 0 || " $* " == *" $name "* ]] || continue
  echo "release: $name ($vars${tags:+, -tags $tags})"
  # shellcheck disable=SC2086 # vars is a list of VAR=VALUE words
  env $vars "$GO" build -trimpath -tags "$tags" -ldflags "$ldflags" -o "$tmp/$name" ./cmd/humchess
done
(cd "$tmp" && sha256sum humchess-* >SHA256SUMS)
rm -rf "$out"
mv "$tmp" "$out"
echo "release $version in $out:"
(cd "$out" && ls -l humchess-* | awk '{printf "  %-30s %6.1f MB\n", $NF, $5/1e6}')
