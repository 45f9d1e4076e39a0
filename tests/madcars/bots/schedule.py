#!/usr/bin/env python3
"""A scripted Mad Cars player: its command at each tick is a fixed function of the player and
of how many ticks it has been sent, so koth and the organisers' own server, driving both cars by
it, must send the same car states. Run as a bot: `schedule.py PLAYER` (1 or 2)."""
import json
import sys


def command(player, tick):
    """Held for 23 ticks at a time, drawn from a small linear congruential sequence."""
    state = (player * 7919 + (tick // 23) * 104729) % 2147483647
    state = (state * 48271) % 2147483647
    return ("left", "right", "stop")[state % 3]


if __name__ == "__main__":
    player, ticks = int(sys.argv[1]), 0
    for line in sys.stdin:
        if json.loads(line)["type"] == "tick":
            ticks += 1
            print(json.dumps({"command": command(player, ticks)}), flush=True)
