#!/usr/bin/env bash
# make-games.sh regenerates games.pgn.zst: the first 400 games of the Lichess
# 2500+ extract in /work/shared/data (the trainer's tests prep shards from it).
set -euo pipefail
src="${1:-/work/shared/data/lichess-2022-06-2500.pgn.zst}"
cd "$(dirname "$0")"
zstd -dc "$src" | awk '/^\[Event /{n++} n>400{exit} {print}' | zstd -19 -q -o games.pgn.zst -f
