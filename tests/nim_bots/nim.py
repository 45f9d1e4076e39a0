#!/usr/bin/env python3
"""A Nim bot for koth's tests: `perfect` leaves a multiple of 4 when it can (else takes 1),
`one` always takes 1, `greedy` always answers 3 (a fault once fewer than 3 stones are left).
Each says on stderr what it takes."""
import sys

mode = sys.argv[1]
for line in sys.stdin:
    words = line.split()
    if words[0] == "TAKE":
        heap = int(words[1])
        if mode == "perfect":
            take = heap % 4 or 1
        elif mode == "one":
            take = 1
        else:
            take = 3
        print(f"heap {heap}: taking {take}", file=sys.stderr, flush=True)
        print(take, flush=True)
