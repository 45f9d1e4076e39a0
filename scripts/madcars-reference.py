#!/usr/bin/env python3
"""Writes tests/madcars/protos.json: the organisers' proto_map and proto_car messages, made by
their own code (MailRuChamps/miniaicups, madcars/Runners/mechanic), which koth's must equal
byte for byte. Their map and car classes need pymunk only for the physics, so a stand-in that
does Vec2d's arithmetic is enough to print their prototypes.

Usage: scripts/madcars-reference.py PATH/TO/miniaicups/madcars/Runners > tests/madcars/protos.json
"""
import json
import sys
import types


class Vec2d(tuple):
    def __new__(cls, x, y=None):
        if y is None:
            x, y = x
        return tuple.__new__(cls, (x, y))

    def __add__(self, other):
        return Vec2d(self[0] + other[0], self[1] + other[1])


def unused(*args, **kwargs):
    return 0


pymunk = types.ModuleType("pymunk")
pymunk.Vec2d = Vec2d
for name in ["Body", "Segment", "Poly", "Circle", "GrooveJoint", "DampedSpring", "SimpleMotor",
             "ShapeFilter", "moment_for_poly", "moment_for_circle", "moment_for_box"]:
    setattr(pymunk, name, unused)
sys.modules["pymunk"] = pymunk
sys.path.insert(0, sys.argv[1])

from mechanic.game_objects.cars import Buggy, Bus, SquareWheelsBuggy  # noqa: E402
from mechanic.game_objects.maps import (IslandHoleMap, IslandMap, PillCarcassMap,  # noqa: E402
                                        PillHillMap, PillHubbleMap, PillMap)

maps = [PillMap, PillHubbleMap, PillHillMap, PillCarcassMap, IslandMap, IslandHoleMap]
cars = [Buggy, Bus, SquareWheelsBuggy]
print(json.dumps({
    "maps": {m.__name__: json.dumps(m.get_proto()) for m in maps},
    "cars": {c.__name__: json.dumps(c.proto_dump()) for c in cars},
}, indent=1))
