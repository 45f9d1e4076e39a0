#!/usr/bin/env python3
"""A Mad Cars test bot: answers every tick with a command drawn from a seeded generator, or
misbehaves from tick FROM on in the way MODE names:
  random   never misbehaves;
  still    never misbehaves, and always answers stop;
  garbage  answers a line that is not JSON (the organisers drive its car at random), and says
           so once on stderr;
  unknown  answers {"command": "jump"} (the same);
  empty    answers {} (the organisers disconnect it);
  crash    exits with status 3;
  silent   stops answering (sleeps);
  cpus     never misbehaves, and first writes the CPUs it may run on to stderr;
  spin     never misbehaves, and at end of input loops on its last line for ever, as a C++ bot
           of 2018 did (`while (true) { getline(cin, line); ... }`): the organisers' server
           never asked a bot to exit.
Usage: player.py MODE SEED [FROM]"""
import json
import random
import sys
import time

mode, seed = sys.argv[1], int(sys.argv[2])
start = int(sys.argv[3]) if len(sys.argv) > 3 else 0
rng = random.Random(seed)
if mode == "cpus":
    import os
    print("cpus " + " ".join(str(c) for c in sorted(os.sched_getaffinity(0))), file=sys.stderr,
          flush=True)
ticks = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] != "tick":
        continue
    ticks += 1
    if mode not in ("random", "cpus", "still", "spin") and ticks >= start:
        if mode == "garbage":
            if ticks == start:
                print("garbage from tick %d" % ticks, file=sys.stderr, flush=True)
            print("not json", flush=True)
            continue
        if mode == "unknown":
            print(json.dumps({"command": "jump"}), flush=True)
            continue
        if mode == "empty":
            print("{}", flush=True)
            continue
        if mode == "crash":
            sys.exit(3)
        if mode == "silent":
            time.sleep(60)
    command = "stop" if mode == "still" else rng.choice(["left", "right", "stop"])
    print(json.dumps({"command": command, "debug": "tick %d" % ticks}), flush=True)
if mode == "spin":
    while True:
        json.loads(line)
