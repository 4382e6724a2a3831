#!/usr/bin/env bash
# Installs the ONNX Runtime 1.24.1 shared library that onnxruntime_go v1.27.0
# needs, taken from the npm package onnxruntime-node@1.24.1 (no postinstall
# script runs: the package is only packed and unpacked). Idempotent; verifies
# the library's sha256.
set -euo pipefail
dest=${1:-build/onnxruntime}
want=53ef1ac028dd1b05554b8da28d9159eb3876f99868193d2aaa6e67f0243c23d4
lib="$dest/libonnxruntime.so.1"
if [ -f "$lib" ] && echo "$want  $lib" | sha256sum -c --status; then
  echo "onnxruntime: $lib already installed"
  exit 0
fi
command -v npm >/dev/null || { echo "install-onnxruntime: npm not found (apt-get install npm)" >&2; exit 1; }
echo "onnxruntime: fetching onnxruntime-node@1.24.1 from npm (once per checkout)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent onnxruntime-node@1.24.1 >/dev/null)
tar -xzf "$tmp"/onnxruntime-node-1.24.1.tgz -C "$tmp" package/bin/napi-v6/linux/x64/libonnxruntime.so.1
got=$(sha256sum "$tmp/package/bin/napi-v6/linux/x64/libonnxruntime.so.1" | cut -d' ' -f1)
if [ "$got" != "$want" ]; then
  echo "install-onnxruntime: sha256 mismatch: got $got, want $want" >&2
  exit 1
fi
mkdir -p "$dest"
install -m 0644 "$tmp/package/bin/napi-v6/linux/x64/libonnxruntime.so.1" "$lib.tmp"
mv "$lib.tmp" "$lib"
echo "onnxruntime: installed $lib"
