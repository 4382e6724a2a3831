#!/usr/bin/env python3
"""Writes testdata/bench/positions.txt, the positions of `humchess bench`.

Usage: python3 testdata/bench/make-positions.py testdata/lc0/reference.jsonl > testdata/bench/positions.txt

The first 40 lines are the 40 distinct positions of the Maia parity reference
(testdata/lc0/reference.jsonl, a copy of the shared maia/reference.jsonl;
real lichess games: openings, middlegames, endgames, en passant, partial castling
rights, promotions, checks, few legal moves), given as the game's moves from the
start position, so that nets reading history see it. Each gets a rating pair and a
clock in a fixed rotation. The last lines are hand-written FEN positions (no
history) for the FEN path. engine/bench.go holds a copy (BenchPositions);
TestBenchPositionsFixture checks that the two agree.

Line format, fields separated by " | ":
  name | elo opponent-elo | go clock arguments ("-" = none) | fen or "startpos" | moves ("-" = none)
"""
import json
import sys

ELOS = [(1100, 1150), (1500, 1500), (1900, 1850), (800, 900), (1300, 1200), (2200, 2250), (1700, 1600), (600, 650)]
CLOCKS = [
    "wtime 60000 btime 60000",                       # 1+0, fresh
    "wtime 180000 btime 175000 winc 2000 binc 2000",  # 3+2
    "wtime 600000 btime 590000",                      # 10+0
    "-",                                              # no clock
    "wtime 12000 btime 9000",                         # 1+0, time trouble
    "wtime 300000 btime 300000 winc 3000 binc 3000 movestogo 20",
]

EXTRA = [
    # name, fen, tags
    ("fen-promotion-choice", "8/1P4k1/8/8/8/8/6K1/8 w - - 0 1"),
    ("fen-underpromotion-capture", "1n1r2k1/P4ppp/8/8/8/8/5PPP/6K1 w - - 0 1"),
    ("fen-black-promotes", "8/8/8/8/8/1k6/p7/4K3 b - - 0 1"),
    ("fen-castling-both", "r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R3K2R w KQkq - 4 8"),
    ("fen-en-passant", "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"),
    ("fen-one-legal-move", "7k/8/8/8/8/8/6q1/7K w - - 0 1"),
    ("fen-check-few-moves", "4k3/8/8/8/8/8/3q4/4K3 w - - 0 1"),
    ("fen-kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
]


def main():
    seen = set()
    out = []
    for line in open(sys.argv[1]):
        d = json.loads(line)
        if d["fen"] in seen:
            continue
        seen.add(d["fen"])
        moves = d["moves_uci_from_startpos"]
        if isinstance(moves, list):
            moves = " ".join(moves)
        tags = [t for t in d["tags"] if t not in ("white_to_move", "black_to_move")]
        name = "%s-%s" % (d["game_id"], "-".join(t.split(":")[0] for t in tags) or "plain")
        out.append((name, "startpos", moves or "-"))
    for name, fen in EXTRA:
        out.append((name, fen, "-"))
    print("# humchess bench positions; made by testdata/bench/make-positions.py (see there). Do not edit by hand.")
    print("# name | elo opponent-elo | go clock arguments | fen or startpos | moves")
    for i, (name, fen, moves) in enumerate(out):
        elo, opp = ELOS[i % len(ELOS)]
        clock = CLOCKS[i % len(CLOCKS)]
        print(" | ".join([name, "%d %d" % (elo, opp), clock, fen, moves]))


if __name__ == "__main__":
    main()
