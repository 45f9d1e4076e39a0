#!/usr/bin/env python3
"""A ratrace player that misbehaves on board 0's first turn in the way named by its argument
(count, range, garbage, crash, slow) and on later boards moves every specimen off the left
edge, which ends the board after one turn with 1 point."""
import sys
import time

mode = sys.argv[1]
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
        for _ in range(n):
            sys.stdin.readline()
        moves = ["-1,0"] * n
        if board == 0:
            if mode == "count":
                moves.pop()
            elif mode == "range":
                moves[0] = "2,0"
            elif mode == "garbage":
                moves[0] = "hello"
            elif mode == "crash":
                sys.exit(3)
            elif mode == "slow":
                time.sleep(10)
        print(" ".join(moves), flush=True)
