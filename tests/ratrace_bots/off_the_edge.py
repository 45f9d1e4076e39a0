#!/usr/bin/env python3
"""A ratrace player that moves every specimen off the left edge, which ends each board after one
turn, and does one more thing named by its argument:
  cpus  writes the CPUs it may run on to stderr first (one line, e.g. `cpus 1`);
  busy  spends about 0.3 s of CPU on each turn before answering;
  slow-exit  spends about 0.3 s of CPU after its input ends, before it exits;
  gate DIR  does what `cpus` does, then creates DIR/started-<its pid> and waits for DIR/go
        before its first answer (so that a test holds several runs alive at once)."""
import os
import sys
import time

mode = sys.argv[1]
if mode in ("cpus", "gate"):
    print("cpus", " ".join(map(str, sorted(os.sched_getaffinity(0)))), file=sys.stderr, flush=True)
if mode == "gate":
    gate = sys.argv[2]
    open(os.path.join(gate, f"started-{os.getpid()}"), "w").close()
    while not os.path.exists(os.path.join(gate, "go")):
        time.sleep(0.02)
for line in sys.stdin:
    words = line.split()
    if words[0] == "TURN":
        n = int(words[2])
        for _ in range(n):
            sys.stdin.readline()
        if mode == "busy":
            start = time.process_time()
            while time.process_time() - start < 0.3:
                pass
        print(" ".join(["-1,0"] * n), flush=True)
if mode == "slow-exit":
    start = time.process_time()
    while time.process_time() - start < 0.3:
        pass
