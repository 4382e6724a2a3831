"""The game as the engine's own UCI record shows it, in a folder of
scripts/ci-lichess-bot.sh (engine.in, engine.out, engine.exited). Run with
run-game's python-chess on PYTHONPATH.

  lichess-bot-record.py over DIR    exit 0 when the game is over: the engine
                                    has exited, or the last position it was
                                    sent followed by its last bestmove is a
                                    finished game (or MAX_PLIES, 300, long)
  lichess-bot-record.py judge DIR   for a game whose mock hung after the end
                                    (no result.json): each go answered by one
                                    bestmove, legal in the position it was
                                    asked about; never asked to move with its
                                    own clock (Black's) at zero or below; the
                                    game over by its last move, or the engine
                                    told to quit and exited with 0. Prints
                                    "fault ..." lines and one "summary ..." line.
"""
import os
import sys

import chess

MAX_PLIES = 300


def position(cmd):
    """The board of a UCI position command, split into words."""
    b = chess.Board() if cmd[1] == "startpos" else chess.Board(" ".join(cmd[2:8]))
    if "moves" in cmd:
        for m in cmd[cmd.index("moves") + 1:]:
            b.push_uci(m)
    return b


def ends(board, move):
    """Whether move, legal on board, finishes the game."""
    after = board.copy()
    after.push_uci(move)
    return after.is_game_over() or len(after.move_stack) >= MAX_PLIES


def over(cmds, out, exited):
    if exited is not None:
        return True
    pos = [c for c in cmds if c[0] == "position"]
    if not pos or not out or out[-1][0] != "bestmove":
        return False
    return ends(position(pos[-1]), out[-1][1])


def judge(cmds, best, exited):
    faults, board, gos, plies = [], None, 0, 0
    for c in cmds:
        if c[0] == "position":
            board = position(c)
        elif c[0] == "go":
            if board is None:
                faults.append("go before any position")
                break
            if "ponder" not in c and "btime" in c and int(c[c.index("btime") + 1]) <= 0:
                faults.append("asked to move with its clock at %s ms (a flag)" % c[c.index("btime") + 1])
            if gos < len(best):
                m = best[gos][1] if len(best[gos]) > 1 else "(none)"
                legal = {x.uci() for x in board.legal_moves}
                if m not in legal and not (m in ("(none)", "0000") and not legal):
                    faults.append("illegal bestmove %s in %s" % (m, board.fen()))
                plies = len(board.move_stack) + 1
            gos += 1
    if len(best) != gos:
        faults.append("%d go commands, %d bestmoves" % (gos, len(best)))
    finished = (best and board is not None and len(best[-1]) > 1
                and best[-1][1] in {x.uci() for x in board.legal_moves} and ends(board, best[-1][1]))
    quit_clean = bool(cmds) and cmds[-1][0] == "quit" and exited == "0"
    if exited not in (None, "0"):
        faults.append("the engine exited with %s" % exited)
    if not (finished or quit_clean):
        faults.append("the record shows no finished game (last move not final, engine not told to quit)")
    for f in faults:
        print("fault", f)
    how = "its last move ended it" if finished else "the engine quit cleanly when told" if quit_clean else "not finished"
    print("summary %d plies in the engine's record, %d moves of its own%s; %s"
          % (plies, len(best), "" if faults else ", each legal", how))


def main():
    mode, d = sys.argv[1], sys.argv[2]
    cmds = [l.split() for l in open(os.path.join(d, "engine.in")) if l.strip()]
    out = [l.split() for l in open(os.path.join(d, "engine.out")) if l.strip()]
    path = os.path.join(d, "engine.exited")
    exited = open(path).read().strip() if os.path.exists(path) else None
    if mode == "over":
        sys.exit(0 if over(cmds, out, exited) else 1)
    judge(cmds, [o for o in out if o[0] == "bestmove"], exited)


if __name__ == "__main__":
    main()
