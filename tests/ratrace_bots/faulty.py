#!/usr/bin/env python3
"""A ratrace player that misbehaves on board 0's first turn in the way named by its argument
(count, range, garbage, crash, slow; lean-count, lean-range, lean-garbage speak the lean
protocol) and on other boards moves every specimen off the left edge, which ends the board after
one turn with 1 point.

usage: faulty.py MODE [TURN] [board=B]: with TURN, board 0 is played up to turn TURN, where the
player misbehaves, by moving every specimen right (so that the board lives), saying so on stderr;
with board=B, board B is the one played so instead of board 0."""
import sys
import time

args = [a for a in sys.argv[1:] if "=" not in a]
named = dict(a.split("=", 1) for a in sys.argv[1:] if "=" in a)
mode = args[0]
fault_turn = int(args[1]) if len(args) > 1 else 1
fault_board = int(named.get("board", 0))
lean = mode.startswith("lean-")
mode = mode.removeprefix("lean-")
# (-1,0), and what breaks the answer, in each protocol.
left, right, out_of_range, garbage = ("3", "5", "9", "h") if lean else ("-1,0", "1,0", "2,0", "hello")
board = None
while True:
    line = sys.stdin.readline()
    if not line:
        break
    words = line.split()
    if words[0] == "RATRACE":
        board = int(words[1])
    elif words[0] == "TURN":
        n = int(words[2])
        # Lean: the newborns' genomes, then the line of cells; text: a line per specimen.
        for _ in range(int(words[3]) + 1 if lean else n):
            sys.stdin.readline()
        moves = [left] * n
        if board == fault_board and int(words[1]) < fault_turn:
            moves = [right] * n
            print(f"faulty player: turn {words[1]}, {n} specimens right", file=sys.stderr, flush=True)
        elif board == fault_board:
            if mode == "count":
                moves.pop()
            elif mode == "range":
                moves[0] = out_of_range
            elif mode == "garbage":
                moves[0] = garbage
            elif mode == "crash":
                sys.exit(3)
            elif mode == "slow":
                time.sleep(10)
        print(("" if lean else " ").join(moves), flush=True)
