#!/usr/bin/env python3
"""Runs another bot (the command after MODE and MS) and relays its lines both ways, misbehaving
in time only, so that any game's bot can be made slow or late without changing its answers:

- `sleep MS`: waits MS milliseconds, sleeping (no CPU), before relaying the inner bot's second
  answer line;
- `linger MS`: after koth closes its input and the inner bot has exited, waits MS milliseconds
  before exiting;
- `plain 0`: only relays.
"""
import subprocess
import sys
import threading
import time

mode, ms, command = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
inner = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)


def relay_answers():
    for count, line in enumerate(inner.stdout, start=1):
        if mode == "sleep" and count == 2:
            time.sleep(ms / 1000)
        sys.stdout.write(line)
        sys.stdout.flush()


answers = threading.Thread(target=relay_answers)
answers.start()
for line in sys.stdin:
    try:
        inner.stdin.write(line)
        inner.stdin.flush()
    except BrokenPipeError:
        break
try:
    inner.stdin.close()
except BrokenPipeError:
    pass
inner.wait()
answers.join()
if mode == "linger":
    time.sleep(ms / 1000)
