#!/usr/bin/env bash
# make-games.sh regenerates games.pgn.zst: the first 400 games of the Lichess
# 2500+ extract (testdata/games, a copy of the shared folder's file; or the
# file given) from which the trainer's tests prep shards.
set -euo pipefail
src=$(realpath "${1:-$(dirname "$0")/../games/lichess-2022-06-2500.pgn.zst}")
cd "$(dirname "$0")"
zstd -dc "$src" | awk '/^\[Event /{n++} n>400{exit} {print}' | zstd -19 -q -o games.pgn.zst -f
