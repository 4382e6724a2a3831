#!/usr/bin/env bash
# Installs the ONNX Runtime 1.24.1 shared library that onnxruntime_go v1.27.0
# needs, taken from the npm package onnxruntime-node@1.24.1 (no postinstall
# script runs: the package is only packed and unpacked). Idempotent; verifies
# each library's sha256. Usage:
#   scripts/install-onnxruntime.sh [DEST] [PLATFORM...]
# PLATFORM is linux-x64 (the default: DEST/libonnxruntime.so.1) or win32-x64
# (DEST/onnxruntime.dll, for the Windows release build); DEST defaults to
# build/onnxruntime.
set -euo pipefail
dest=${1:-build/onnxruntime}
shift $(($# > 0 ? 1 : 0))
[ $# -gt 0 ] || set -- linux-x64
declare -A file=([linux-x64]=libonnxruntime.so.1 [win32-x64]=onnxruntime.dll)
declare -A want=(
  [linux-x64]=53ef1ac028dd1b05554b8da28d9159eb3876f99868193d2aaa6e67f0243c23d4
  [win32-x64]=be46630a10f6ed3897fd9d1ec83f6e2577e34851fb1024d685884ed40faed3a7
)
todo=()
for p in "$@"; do
  [ -n "${file[$p]:-}" ] || { echo "install-onnxruntime: unknown platform $p (want ${!file[*]})" >&2; exit 2; }
  lib="$dest/${file[$p]}"
  if [ -f "$lib" ] && echo "${want[$p]}  $lib" | sha256sum -c --status; then
    echo "onnxruntime: $lib already installed"
  else
    todo+=("$p")
  fi
done
[ ${#todo[@]} -gt 0 ] || exit 0
command -v npm >/dev/null || { echo "install-onnxruntime: npm not found (apt-get install npm)" >&2; exit 1; }
echo "onnxruntime: fetching onnxruntime-node@1.24.1 from npm (once per checkout)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent onnxruntime-node@1.24.1 >/dev/null)
mkdir -p "$dest"
for p in "${todo[@]}"; do
  src=package/bin/napi-v6/${p%-*}/${p#*-}/${file[$p]}
  tar -xzf "$tmp"/onnxruntime-node-1.24.1.tgz -C "$tmp" "$src"
  got=$(sha256sum "$tmp/$src" | cut -d' ' -f1)
  if [ "$got" != "${want[$p]}" ]; then
    echo "install-onnxruntime: $src: sha256 mismatch: got $got, want ${want[$p]}" >&2
    exit 1
  fi
  lib="$dest/${file[$p]}"
  install -m 0644 "$tmp/$src" "$lib.tmp"
  mv "$lib.tmp" "$lib"
  echo "onnxruntime: installed $lib"
done
