#!/usr/bin/env python3
"""Plays one Mad Cars game on the organisers' own server code (MailRuChamps/miniaicups,
madcars/Runners) with pymunk 5.3.2, both players driven by the scripted schedule of
tests/madcars/bots/schedule.py, and writes every line their server sent player 1 — exactly as it
sent them — for koth's physics to be compared with, byte for byte.

Their code is from 2018: its coroutines are generator functions under `asyncio.coroutine`, which
Python 3.11 no longer has, so they are run here as plain generators, one after the other.

Usage: madcars-reference-run.py RUNNERS_DIR PYMUNK_DIR OUT_FILE MAP,CAR [MAP,CAR ...]
"""
import asyncio
import json
import os
import sys
import tempfile

runners, pymunk_dir, out_file, matches = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
sys.path[:0] = [runners, pymunk_dir, os.path.join(os.path.dirname(__file__), "..", "tests", "madcars", "bots")]
asyncio.coroutine = lambda f: f


def run_all(generators):
    """`asyncio.wait` for generators: each runs to its end, player 1's first (the order of two
    answers does not matter: they only set motors before the step)."""
    for generator in generators:
        yield from generator
    return set(), set()


asyncio.ensure_future = lambda generator: generator
asyncio.wait = run_all
os.chdir(tempfile.mkdtemp())

from schedule import command  # noqa: E402
from mechanic.game import Game  # noqa: E402


class ScriptedClient:
    """A player following the schedule, counting the ticks it is sent."""

    def __init__(self, player, sent):
        self.player, self.sent, self.ticks = player, sent, 0

    def send_message(self, kind, params):
        line = json.dumps({"type": kind, "params": params})
        if self.player == 1:
            self.sent.write(line + "\n")
        if kind == "tick":
            self.ticks += 1
        if False:
            yield

    def get_command(self):
        if False:
            yield
        return {"command": command(self.player, self.ticks)}

    def close(self):
        pass

    def save_log_to_disk(self, log, path):
        return {}

    def get_solution_id(self):
        return self.player


with open(out_file, "w") as sent:
    game = Game([ScriptedClient(1, sent), ScriptedClient(2, sent)], matches, extended_save=False)
    for _ in game.game_loop():
        pass
