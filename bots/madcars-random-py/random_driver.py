#!/usr/bin/env python3
"""Random Driver, a Mad Cars baseline bot (protocol: docs/games/madcars.md).

Strategy: none. Every tick it drives left, right or stops at random, holding each choice for a
few ticks so the car goes somewhere. A bot that does not beat it has a bug. Its generator has a
fixed seed, so a game against it can be played again exactly.
"""
import json
import random
import sys

rng = random.Random(2018)
command, left = "stop", 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] != "tick":
        continue
    if left == 0:
        command, left = rng.choice(["left", "right", "stop"]), rng.randint(5, 40)
    left -= 1
    print(json.dumps({"command": command, "debug": "%s for %d more" % (command, left)}),
          flush=True)
