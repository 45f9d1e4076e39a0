#!/usr/bin/env python3
"""Keep Away, a Mad Cars bot (protocol: docs/games/madcars.md).

Strategy: drive away from the enemy car, and when the car tilts past 0.6 rad turn it back
upright (in the air, left turns the body clockwise and right anticlockwise). A car that keeps its
distance is rarely rammed onto its roof, and one that stays upright never touches anything with
its button. It beats a random driver on most (map, car) pairs. The same decisions as the C and
JavaScript versions of it, to the last bit.
"""
import json
import math
import sys

TILT = 0.6


def upright_angle(angle):
    """The angle brought into [-pi, pi), with C's fmod as every version computes it."""
    a = math.fmod(angle + math.pi, 2 * math.pi)
    if a < 0:
        a += 2 * math.pi
    return a - math.pi


def decide(params):
    me, enemy = params["my_car"], params["enemy_car"]
    x = me[0][0]
    angle = upright_angle(me[1])
    if abs(angle) > TILT:
        return ("left" if angle > 0 else "right"), "upright"
    return ("left" if enemy[0][0] > x else "right"), "away"


for line in sys.stdin:
    message = json.loads(line)
    if message.get("type") != "tick":
        continue
    command, why = decide(message["params"])
    print(json.dumps({"command": command, "debug": why}), flush=True)
