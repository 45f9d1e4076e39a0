#!/usr/bin/env python3
"""A ratrace player that writes the CPUs it may run on to stderr (one line, e.g. `cpus 1`) and
moves every specimen off the left edge, which ends each board after one turn."""
import os
import sys

print("cpus", " ".join(map(str, sorted(os.sched_getaffinity(0)))), file=sys.stderr, flush=True)
for line in sys.stdin:
    words = line.split()
    if words[0] == "TURN":
        n = int(words[2])
        for _ in range(n):
            sys.stdin.readline()
        print(" ".join(["-1,0"] * n), flush=True)
