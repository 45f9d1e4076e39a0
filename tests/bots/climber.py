#!/usr/bin/env python3
"""A deterministic paths bot for koth's tests: it never breaks anything and activates one column.

usage: climber.py up|down [COLUMN [pause=MS] [MARKER]]

`up` activates (COLUMN, 0), (COLUMN, 1), ... one per turn; `down` activates from the sink row
downwards. Two climbers on the same column build a path together, so a game's scores depend
only on the rules — the fixed reference against which fault tests check that a misbehaving
bot did not change anybody else's score. With `pause=MS` it sleeps MS milliseconds before
each DESTROY answer, for tests that need games to last; MARKER, any other word, only marks its
command line.
"""
import sys
import time

direction = sys.argv[1]
column = int(sys.argv[2]) if len(sys.argv) > 2 else 0
pause = next((int(a[6:]) / 1000 for a in sys.argv[3:] if a.startswith("pause=")), 0)
side = 0
placed = 0

for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "BEGIN":
        side = int(words[3])
        placed = 0
    elif words[0] == "DESTROY":
        time.sleep(pause)
        print("NONE", flush=True)
    elif words[0] == "ACTIVATE":
        y = placed if direction == "up" else side - 1 - placed
        placed += 1
        print(f"VERTEX {column},{y}" if 0 <= y < side else "NONE", flush=True)
    elif words[0] == "SCORE":
        break
