#!/usr/bin/env python3
"""A paths bot that misbehaves on purpose, for koth's fault tests.

usage: faulty.py MODE [MARKER]

It plays correctly (answers NONE to every prompt) until its 3rd prompt, then commits the fault
named by MODE (`polite` commits none: the reference the others are compared with; `chatty`
commits none either, but prints lines nobody asked for; `cpus` commits none, and first writes
the CPUs it may run on to stderr, e.g. `cpus 1`; `stall` commits none, except in the games of
a tournament numbered from the one its folder's file `stall_from` names on, where it never
answers: a game that lasts until koth is stopped). Before anything else it starts a child process that sleeps for ten minutes, so
tests can check that koth kills a bot's children too. MARKER, if given, is put on both command
lines so a test can look for survivors.
"""
import os
import subprocess
import sys
import time

mode = sys.argv[1]
marker = sys.argv[2] if len(sys.argv) > 2 else "koth-faulty"
FAULT_AT = 3

# The child keeps none of the bot's pipes, as a well-behaved helper process would: a child that
# held stdout open would hide the bot's own exit from koth until the time limit.
subprocess.Popen(
    [sys.executable, "-c", "import time; time.sleep(600)", marker],
    stdin=subprocess.DEVNULL,
    stdout=subprocess.DEVNULL,
    stderr=subprocess.DEVNULL,
)

if mode == "cpus":
    print("cpus", " ".join(map(str, sorted(os.sched_getaffinity(0)))), file=sys.stderr, flush=True)

if mode == "stall" and os.path.exists("stall_from"):
    # A tournament runs each game's bots in a copy of their folder, games/<index>/bots/<seat>
    # (a file, not an environment variable, reaches a bot however it is contained).
    folders = os.getcwd().split(os.sep)
    game = int(folders[len(folders) - 1 - folders[::-1].index("games") + 1])
    with open("stall_from") as stall_from:
        first_stalled = int(stall_from.read())
    if game >= first_stalled:
        print("faulty bot: stalling", file=sys.stderr, flush=True)
        time.sleep(600)

prompts = 0
for line in sys.stdin:
    if mode == "flood_stderr":
        sys.stderr.write("noise " * 20000 + "\n")
        sys.stderr.flush()
    if line.startswith("SCORE"):
        if mode == "chatty":
            # More than a pipe holds, after the last message: koth must read on while it waits
            # for the exit, or the bot would block here forever.
            sys.stdout.write("goodbye " * 50000 + "\n")
            sys.stdout.flush()
        if mode == "never_exit":
            while True:
                time.sleep(1)
        break
    if not (line.startswith("DESTROY") or line.startswith("ACTIVATE")):
        continue
    prompts += 1
    if mode == "chatty":
        # Every answer comes with a line nobody asked for, in the same write.
        sys.stdout.write(f"NONE\nthinking aloud after prompt {prompts}\n")
        sys.stdout.flush()
        continue
    if prompts < FAULT_AT or mode in ("polite", "cpus", "flood_stderr", "never_exit", "stall"):
        print("NONE", flush=True)
        continue
    sys.stderr.write(f"faulty bot: committing {mode} now\n")
    sys.stderr.flush()
    if mode == "late":
        time.sleep(30)
        print("NONE", flush=True)
    elif mode == "crash":
        sys.exit(3)
    elif mode == "close_stdout":
        os.close(1)
        time.sleep(600)
    elif mode == "garbage":
        sys.stdout.buffer.write(b"\xff\xfe\xfd not utf-8\n")
        sys.stdout.flush()
    elif mode == "endless_line":
        chunk = "x" * 65536
        while True:
            sys.stdout.write(chunk)
    elif mode == "bad_coordinates":
        print("VERTEX 999,999" if prompts % 2 else "HELLO THERE", flush=True)
    else:
        sys.exit(f"unknown mode {mode}")
