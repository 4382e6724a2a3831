#!/bin/sh
# Makes the compressed fixtures of train/data/pgn's tests from the plain ones.
# (The .zst and .gz fixtures are made by the tests themselves in temp files;
# Go's standard library has no bzip2 writer, hence this committed one.)
# multistream.pgn.bz2: fen.pgn and clocks.pgn as two concatenated bzip2
# streams, as pbzip2 and lbzip2 write them.
set -eu
cd "$(dirname "$0")"
{ bzip2 -9 -c fen.pgn; bzip2 -9 -c clocks.pgn; } > multistream.pgn.bz2
