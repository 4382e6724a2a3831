#!/usr/bin/env bash
# Plays HumChess through lichess-bot, the way most engines reach lichess.org:
# several whole games at once, each with ../shared/tools/lichess-bot/run-game
# (lichess-bot on its own mocked lichess.org, no network; HumChess plays
# Black against Stockfish at Skill Level 0). Usage:
#
#   scripts/ci-lichess-bot.sh [ENGINE] [OUT]    # or: make lichess-bot-test
#
# ENGINE defaults to bin/humchess, OUT (logs, one folder per game) to
# build/lichess-bot. The games: bullet 60+0 and blitz 180+2, each with
# pondering on and off, and bullet 30+0 pondering; UCI_Elo set through
# lichess-bot's engine options. HumanTiming sleeps like a human, so a game
# takes minutes of wall time and little CPU: the games run concurrently.
#
# Fails when a precondition is missing (say what to install), and when a game
# shows an illegal move or no move (illegal_or_no_move in run-game's JSON), a
# flag (bot_flagged), a hang (no move within the clock plus 10 s, or the game
# outliving its time limit), an engine error line (anything on the engine's
# stderr, or "info string error" on its stdout), or a game that did not drive
# the engine as asked (no UCI_Elo setoption; go ponder with pondering off, or
# none with it on), or that never starts (no position for the engine within
# 2 minutes, 3 times: a game that stalls so is started again). A game that is
# over (checkmate, a draw, the engine quit) while the mock has not ended it
# for 90 s is also started again, up to 3 attempts in all: run-game's mock
# then waits without end, because Stockfish, its opponent, did not exit within
# python-chess's 10 s (seen once in CI, bullet 30+0 hung after the game). If
# it hangs so a third time (CI saw blitz 180+2 do it three times running;
# here bullet 30+0 hung twice in one run, both times after the engine's own
# checkmating move, with Stockfish already gone and the mock's opponent
# thread ended without sending the final state), the game is judged on the
# engine's own UCI record instead of run-game's JSON
# (scripts/lichess-bot-record.py): every go answered by a legal bestmove, its
# clock never at zero when asked to move, the game over by its last move or
# the engine quit cleanly when told; the hang is a note, with the game's
# processes and Python stacks at the hang kept for a look.
# Each game's folder keeps run-game's log and JSON and the engine's UCI
# input, output and stderr.
#
# Environment: LICHESS_BOT_GAMES (names of the games to play; default all),
# HUMCHESS_SHARED (default ../shared), PYTHON (default /usr/bin/python3,
# Debian's, as run-game), OPPONENT (default /usr/games/stockfish), STALL_SECS
# (how long a game may wait for its first position; default 120), QUIT_SECS
# (how long the mock may leave a finished game idle; default 90).
set -uo pipefail
cd "$(dirname "$0")/.."
engine=$(readlink -f "${1:-bin/humchess}")
out=${2:-build/lichess-bot}
run_game=${HUMCHESS_SHARED:-../shared}/tools/lichess-bot/run-game
python=${PYTHON:-/usr/bin/python3}
opponent=${OPPONENT:-/usr/games/stockfish}

# name initial(s) increment(s) UCI_Elo ponder. No UCI_Elo is the default
# (1500): python-chess sends no setoption for a default value.
games=(
  "bullet-1100         60 0 1100 false"
  "bullet-1900-pond    60 0 1900 true"
  "bullet30-2400-pond  30 0 2400 true"
  "blitz-1300-pond    180 2 1300 true"
  "blitz-2200         180 2 2200 false"
)
if [ -n "${LICHESS_BOT_GAMES:-}" ]; then # names to play, e.g. "bullet-1100"
  all=("${games[@]}")
  games=()
  for g in "${all[@]}"; do
    [[ " $LICHESS_BOT_GAMES " == *" ${g%% *} "* ]] && games+=("$g")
  done
  [ ${#games[@]} -gt 0 ] || { echo "ci-lichess-bot: no game named $LICHESS_BOT_GAMES" >&2; exit 2; }
fi

missing=()
[ -x "$engine" ] || missing+=("the engine $engine (make build)")
[ -x "$run_game" ] || missing+=("$run_game (the shared folder beside the checkout; or set HUMCHESS_SHARED)")
[ -x "$opponent" ] || missing+=("Stockfish at $opponent (apt-get install stockfish)")
if ! "$python" -c 'import requests, yaml, backoff, rich, pytest, pytest_timeout' 2>/dev/null; then
  missing+=("$python with lichess-bot's modules (apt-get install --no-install-recommends python3 python3-requests python3-yaml python3-backoff python3-rich python3-pytest python3-pytest-timeout)")
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "ci-lichess-bot: missing:" >&2
  printf '  - %s\n' "${missing[@]}" >&2
  exit 1
fi

rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)

# play NAME INITIAL INC ELO PONDER: one game in $out/NAME, started again (up
# to 3 attempts in all) when it never starts or its mock hangs after the
# game; those attempts keep their logs in $out/NAME.stalled-N and
# $out/NAME.mockhang-N.
play() {
  local name=$1 attempt
  for attempt in 1 2 3; do
    rm -rf "$out/$name"
    attempt "$@"
    [ "$attempt" = 3 ] && break
    if [ -f "$out/$name/stalled" ]; then
      mv "$out/$name" "$out/$name.stalled-$attempt"
    elif [ -f "$out/$name/mockhang" ]; then
      mv "$out/$name" "$out/$name.mockhang-$attempt"
    else
      break
    fi
  done
  echo "$attempt" >"$out/$name/attempts"
}

# idle_for DIR SECS: the engine has read and written nothing for SECS.
idle_for() {
  local now
  now=$(date +%s)
  [ -f "$1/engine.in" ] && [ -f "$1/engine.out" ] || return 1
  [ $((now - $(stat -c %Y "$1/engine.in"))) -ge "$2" ] && [ $((now - $(stat -c %Y "$1/engine.out"))) -ge "$2" ]
}

# game_over DIR: the engine has exited, or its last bestmove finished the
# game (scripts/lichess-bot-record.py over).
game_over() {
  record over "$1" 2>/dev/null
}

# record MODE DIR: scripts/lichess-bot-record.py on the game's UCI record.
record() {
  PYTHONPATH=${run_game%/*}/python-chess "$python" scripts/lichess-bot-record.py "$@"
}

# hang_diagnose GAME DIR: before a hung game is ended, keep what shows where
# it hangs: its processes (DIR/mockhang.ps: is Stockfish still there, is the
# engine?) and every Python thread's stack (run-game's Python runs with
# PYTHONFAULTHANDLER=1: SIGABRT makes each Python process of the game write
# its threads' tracebacks to run.log before it dies).
hang_diagnose() {
  local game=$1 dir=$2 pids
  # the game's process and all its descendants (python-chess may start the
  # engine and Stockfish in process groups of their own)
  ps -e -o pid=,ppid=,stat=,etime=,args= | awk -v g="$game" '
    { line[$1] = $0; parent[$1] = $2; order[NR] = $1 }
    END {
      for (i = 1; i <= NR; i++) {
        p = order[i]
        for (a = p; a != "" && a != 0 && a != 1; a = parent[a]) if (a == g) { print line[p]; break }
      }
    }' >"$dir/mockhang.ps"
  pids=$(awk '$5 ~ /python/ {print $1}' "$dir/mockhang.ps")
  # shellcheck disable=SC2086
  [ -n "$pids" ] && kill -ABRT $pids 2>/dev/null && sleep 3
}

# attempt NAME INITIAL INC ELO PONDER: one try at the game. The engine
# run-game starts is a wrapper that logs the engine's UCI input and output
# (tee) and its stderr. It ends the input's tee when the engine exits:
# python-chess counts the engine gone only when every pipe to it has closed.
attempt() {
  local name=$1 initial=$2 inc=$3 elo=$4 ponder=$5
  local dir=$out/$name
  mkdir -p "$dir"
  {
    printf '#!/usr/bin/env bash\nengine=%q\ndir=%q\n' "$engine" "$dir"
    cat <<'EOF'
fifo=$dir/engine.fifo.$$
mkfifo "$fifo"
"$engine" "$@" <"$fifo" 2>>"$dir/engine.stderr" > >(exec tee -a "$dir/engine.out" 2>/dev/null) &
pid=$!
exec 3<&0 # a job put in the background reads /dev/null, unless told otherwise
tee -a "$dir/engine.in" <&3 3<&- >"$fifo" 2>/dev/null &
tee_pid=$!
trap 'kill $pid 2>/dev/null' TERM INT HUP
rc=0
wait $pid || rc=$?
kill $tee_pid 2>/dev/null
rm -f "$fifo"
echo "$rc" >"$dir/engine.exited"
exit $rc
EOF
  } >"$dir/engine"
  chmod +x "$dir/engine"
  : >"$dir/engine.stderr"
  mkdir -p "$dir/pgn"
  # A game lasts at most the engine's clock over MAX_PLIES (300) plies, plus
  # Stockfish's 0.05 s a move and lichess-bot's own time: give it that and 5
  # minutes more before calling it a hang.
  local limit=$((initial + 150 * inc + 150 + 300))
  local start=$SECONDS rc=0
  CLOCK_INITIAL=$initial CLOCK_INC=$inc PONDER=$ponder OPPONENT=$opponent PYTHON=$python \
    ENGINE_UCI_OPTIONS="{\"UCI_Elo\": $elo}" TIMEOUT=$limit PGN_DIR="$dir/pgn" \
    PYTHONFAULTHANDLER=1 timeout -k 30 $((limit + 60)) "$run_game" "$dir/engine" "$dir/result.json" >"$dir/run.log" 2>&1 &
  local game=$!
  # run-game's mock starts Stockfish outside its error handling: when that
  # fails (python-chess allows its handshake 10 s, short on a loaded machine)
  # the mock waits for a move that never comes until the time limit. Such a
  # game never sends the engine a position: end it after 2 minutes (a started
  # game sends the first one within seconds: the engine plays Black).
  while kill -0 "$game" 2>/dev/null; do
    if [ $((SECONDS - start)) -gt "${STALL_SECS:-120}" ] && ! grep -q '^position' "$dir/engine.in" 2>/dev/null; then
      echo "stalled" >"$dir/stalled"
      kill "$game"
      break
    fi
    # When the game is over the mock quits Stockfish, then tells lichess-bot
    # (which quits the engine) and writes result.json. A game over (the
    # engine quit, or its last bestmove ended the game) with the engine idle
    # for QUIT_SECS means the mock's wait for Stockfish failed: it would wait
    # until its time limit. End it.
    if [ ! -s "$dir/result.json" ] && idle_for "$dir" "${QUIT_SECS:-90}" && game_over "$dir"; then
      echo "the game was over and the engine idle for ${QUIT_SECS:-90} s, but the mock had not ended it" >"$dir/mockhang"
      hang_diagnose "$game" "$dir"
      kill "$game" 2>/dev/null # gone already when the aborted Python was all it waited for
      break
    fi
    sleep 2
  done
  wait "$game" || rc=$?
  echo "$rc $((SECONDS - start))" >"$dir/status"
}

# verdict NAME PONDER ELO: prints the game's line and its faults; returns 1 on
# any fault.
verdict() {
  local name=$1 ponder=$2 elo=$3 dir=$out/$1 rc secs faults=() notes=()
  read -r rc secs <"$dir/status"
  if [ -f "$dir/stalled" ]; then
    printf '%-19s %4s s  never started\n' "$name" "$secs"
    echo "  FAULT lichess-bot sent the engine no position in ${STALL_SECS:-120} s, 3 times: a machine too busy to start Python and Stockfish, or run-game's mock failed to start Stockfish (logs in $dir and $dir.stalled-*)"
    return 1
  fi
  local summary="no result.json"
  # A mock that hung after the game three times is run-game's fault, not the
  # engine's: the game is judged on the engine's own UCI record instead.
  if [ -f "$dir/mockhang" ] && [ ! -s "$dir/result.json" ]; then
    local rec
    rec=$(record judge "$dir") || faults+=("engine record unreadable")
    while IFS= read -r l; do
      case $l in
        "fault "*) faults+=("${l#fault } (from the engine's record; run-game's mock hung after the game)") ;;
        "summary "*) summary=${l#summary } ;;
      esac
    done <<<"$rec"
    notes+=("run-game's mock hung after the game, 3 times: $(cat "$dir/mockhang"), so there is no result.json; judged on the engine's record (processes at the hang in $dir/mockhang.ps, Python stacks in run.log; logs in $dir and $dir.mockhang-*)")
  fi
  { [ "$rc" = 124 ] || [ "$rc" = 137 ]; } && faults+=("hang: the game outlived its time limit (killed after ${secs} s)")
  grep -q 'Failed: Timeout >' "$dir/run.log" && faults+=("hang: lichess-bot still waited when the game's time limit ran out (after ${secs} s)")
  if [ -s "$dir/result.json" ]; then
    local j
    j=$("$python" - "$dir/result.json" "$dir/pgn" "$dir/engine.exited" <<'EOF'
import json, os, sys
r = json.load(open(sys.argv[1]))
bad = r["illegal_or_no_move"]
if bad == "timeout":
    print("fault no move reached lichess.org within the clock plus 10 s (a hang, or a move lichess-bot refused)")
elif bad is not None:
    print("fault illegal move:", bad, "in", r["final_fen"])
if r["bot_flagged"]:
    print("fault flag: lost on time (clock left %.2f s)" % r["btime_left_s"])
if r["simulator_error"]:
    print("fault simulator error:", r["simulator_error"])
# run-game looks for lichess-bot's PGN 0.2 s after the game; on a loaded
# machine lichess-bot may write it later: it counts if it is there by the
# time run-game has exited. lichess-bot also terminates its PGN writer
# process as soon as a one-game run returns, so a finished game's PGN may
# never be written (seen once beside a training run on both cores:
# checkmate, engine exit 0). A missing PGN is a fault only when the engine
# did not exit cleanly.
if not r["pgn_written"] and not any(f.endswith(".pgn") for f in os.listdir(sys.argv[2])):
    clean = os.path.exists(sys.argv[3]) and open(sys.argv[3]).read().strip() == "0"
    if clean:
        print("note lichess-bot wrote no PGN (its writer was ended before the record; the engine exited cleanly)")
    else:
        print("fault lichess-bot wrote no PGN")
if r["plies"] < 2:
    print("fault the game stopped after %d plies" % r["plies"])
print("summary %s %s, %d plies, clock left %.1f s" % (r["result"], r["termination"], r["plies"], r["btime_left_s"]))
EOF
    ) || faults+=("result.json unreadable")
    while IFS= read -r l; do
      case $l in
        "fault "*) faults+=("${l#fault }") ;;
        "note "*) notes+=("${l#note }") ;;
        "summary "*) summary=${l#summary } ;;
      esac
    done <<<"$j"
  elif [ ! -f "$dir/mockhang" ]; then
    faults+=("run-game wrote no result.json")
  fi
  # lichess-bot refuses an illegal bestmove itself: the mock then sees no move.
  local illegal
  illegal=$(grep -A1 'illegal uci:' "$dir/run.log" | tr -s ' \n' ' ' | grep -o "illegal uci: '[^']*'")
  [ -n "$illegal" ] && faults+=("illegal move: lichess-bot refused the engine's move (${illegal})")
  # with no fault but the note, run-game's only failed check was the PGN's
  [ "$rc" = 0 ] || [ ${#faults[@]} -gt 0 ] || [ ${#notes[@]} -gt 0 ] || faults+=("run-game exited $rc")
  [ -s "$dir/engine.stderr" ] && faults+=("engine stderr: $(head -c 300 "$dir/engine.stderr" | tr '\n' ' ')")
  local errs
  errs=$(grep -m 3 '^info string error' "$dir/engine.out" 2>/dev/null | tr '\n' ' ')
  [ -n "$errs" ] && faults+=("engine error line: $errs")
  grep -qi "^setoption name UCI_Elo value $elo\$" "$dir/engine.in" 2>/dev/null ||
    faults+=("lichess-bot never set UCI_Elo $elo")
  local ponders
  ponders=$(grep -c '^go ponder' "$dir/engine.in" 2>/dev/null)
  if [ "$ponder" = true ] && [ "${ponders:-0}" = 0 ]; then
    faults+=("pondering on, but lichess-bot never sent go ponder")
  elif [ "$ponder" = false ] && [ "${ponders:-0}" != 0 ]; then
    faults+=("pondering off, but lichess-bot sent go ponder $ponders times")
  fi
  local attempts
  attempts=$(cat "$dir/attempts" 2>/dev/null || echo 1)
  [ "$attempts" = 1 ] && attempts="" || attempts=" (started on attempt $attempts)"
  printf '%-19s %4s s  %s, %s go ponder%s\n' "$name" "$secs" "$summary" "${ponders:-0}" "$attempts"
  [ ${#notes[@]} -gt 0 ] && printf '  note: %s\n' "${notes[@]}"
  if [ ${#faults[@]} -gt 0 ]; then
    printf '  FAULT %s\n' "${faults[@]}"
    echo "  (logs in $dir; the end of run.log:)"
    tail -n 30 "$dir/run.log" | sed 's/^/    /'
    return 1
  fi
}

echo "lichess-bot: ${#games[@]} games at once with $engine (logs in $out)"
start=$SECONDS
pids=()
for g in "${games[@]}"; do
  # shellcheck disable=SC2086
  play $g &
  pids+=($!)
  sleep 5 # five Pythons and Stockfishes starting at once stalled a game in CI
done
# timeout puts each game in its own process group: on an interrupt, end them.
trap 'trap - INT TERM; for p in "${pids[@]}"; do pkill -TERM -P "$p"; done; exit 130' INT TERM
wait
failed=0
for g in "${games[@]}"; do
  read -r name _ _ elo ponder <<<"$g"
  verdict "$name" "$ponder" "$elo" || failed=$((failed + 1))
done
echo "lichess-bot: ${#games[@]} games in $((SECONDS - start)) s, $failed failed"
[ "$failed" = 0 ]
