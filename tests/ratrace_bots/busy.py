#!/usr/bin/env python3
"""A ratrace player that spends about 0.3 s of CPU on each turn, then moves every specimen off
the left edge, which ends each board after one turn."""
import sys
import time

for line in sys.stdin:
    words = line.split()
    if words[0] == "TURN":
        n = int(words[2])
        for _ in range(n):
            sys.stdin.readline()
        start = time.process_time()
        while time.process_time() - start < 0.3:
            pass
        print(" ".join(["-1,0"] * n), flush=True)
