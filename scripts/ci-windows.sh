#!/usr/bin/env bash
# CI: the Windows release file, run under Wine (../shared/tools/wine/run).
# Builds humchess-windows-amd64.exe as make release does (into
# build/ci-release) and bin/humchess (make build), then
#   1. TestReleaseEngine (cmd/humchess): uci, isready, a bestmove for each
#      bench position (promotions, en passant, castling, checks), each
#      checked legal, and go to bestmove timed;
#   2. two short games of the Windows file against bin/humchess through
#      humchess match, which fails an engine on an illegal move, a crash, a
#      stall or a flag: both must end with no failure;
#   3. the embedded DLL was loaded from one copy named by its sha256 in the
#      user's cache folder, with no copy per start.
# Anything missing is an error, not a skip. Usage: scripts/ci-windows.sh
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
wine_run=${WINE_RUN:-../shared/tools/wine/run}
out=build/ci-release
export WINEPREFIX=${WINEPREFIX:-$PWD/build/wineprefix} # the Wine prefix wine/run makes and uses
t0=$SECONDS

[ -x "$wine_run" ] || { echo "ci-windows: $wine_run not found (the shared tools beside the checkout)" >&2; exit 1; }
./scripts/release.sh "$out" humchess-windows-amd64.exe
make build GO="$GO"
exe=$PWD/$out/humchess-windows-amd64.exe
linux=$PWD/bin/humchess
# The engines run in a scratch folder: from the checkout, the Windows file
# would find build/onnxruntime/onnxruntime.dll and not use its own copy.
run=$(mktemp -d)
trap 'rm -rf "$run"' EXIT
# A fresh cache, so that step 3 sees what these runs wrote.
cache_dirs() { find "$WINEPREFIX/drive_c/users" -type d -path '*/AppData/Local/humchess' 2>/dev/null || true; }
for d in $(cache_dirs); do rm -rf "$d"; done
echo "ci-windows: built in $((SECONDS - t0)) s"

wine_run=$(readlink -f "$wine_run")
HUMCHESS_RELEASE_ENGINE="$wine_run $exe" HUMCHESS_RELEASE_DIR=$run "$GO" test -count=1 -run '^TestReleaseEngine$' -v ./cmd/humchess
echo "ci-windows: positions done at $((SECONDS - t0)) s"

(cd "$run" && "$linux" match -engine1 "$wine_run $exe" -engine2 "$linux" -name1 windows -name2 linux \
  -options1 HumanTiming=false -options2 HumanTiming=false \
  -games 2 -tc 30+0.3 -max-plies 200 -ready-timeout 2m -quiet -pgn "$OLDPWD/$out/windows-linux.pgn") | tee "$out/match.txt"
for side in windows linux; do
  grep -q "failures of $side: none" "$out/match.txt" || { echo "ci-windows: the $side engine failed in the match" >&2; exit 1; }
done
echo "ci-windows: match done at $((SECONDS - t0)) s"

dlls=$(find "$WINEPREFIX/drive_c/users" -path '*/AppData/Local/humchess/*' -type f)
sum=$(sha256sum build/onnxruntime/onnxruntime.dll | cut -d' ' -f1)
if [ "$(wc -l <<<"$dlls")" != 1 ] || [[ $dlls != */onnxruntime-$sum.dll ]]; then
  echo "ci-windows: want one cached onnxruntime-$sum.dll, found: ${dlls:-nothing}" >&2
  exit 1
fi
echo "ci-windows: passed in $((SECONDS - t0)) s (one cached DLL: ${dlls##*/})"
