#!/usr/bin/env python3
"""A paths bot that answers a line of 1 MiB (1048575 bytes and the newline) at every prompt, for
koth's tests of bounded records.

usage: huge_lines.py every|after_first [MARKER]

`every`: every answer is the huge line; `after_first`: the first answer of each process is a
valid `NONE`, every later one the huge line. The line is an `x` and then two-byte characters
(`é`), so a cut at an even number of bytes falls inside a character. It exits after SCORE, as
the rules ask. MARKER, if given, only marks the command line.
"""
import sys

mode = sys.argv[1]
HUGE = ("x" + "é" * 524287 + "\n").encode()
assert len(HUGE) == 1 << 20

out = sys.stdout.buffer
answered = 0
for line in sys.stdin:
    if line.startswith("SCORE"):
        break
    if not (line.startswith("DESTROY") or line.startswith("ACTIVATE")):
        continue
    answered += 1
    if mode == "after_first" and answered == 1:
        out.write(b"NONE\n")
    elif mode in ("every", "after_first"):
        out.write(HUGE)
    else:
        sys.exit(f"unknown mode {mode}")
    out.flush()
