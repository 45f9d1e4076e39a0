#!/usr/bin/env python3
"""ColorScorePlayer, the Genetic Rat Race's example player, over koth's subprocess protocol.

Of the three forward moves whose target is on the track, take the one whose colour scores
highest in the genome (the 6 bits at 6*colour), ties broken at random (seeded per board).
"""
import random
import sys

HEX = {ord(c): int(c, 16) for c in "0123456789abcdef"}
FORWARD = ((8, "1,-1"), (13, "1,0"), (18, "1,1"))  # view index of each target, and the move


def move(genome, view, rng):
    best, choices = -1, []
    for index, token in FORWARD:
        colour = HEX.get(view[index])
        if colour is None:  # 'x': beyond the edge
            continue
        score = (genome >> (6 * colour)) & 63
        if score > best:
            best, choices = score, [token]
        elif score == best:
            choices.append(token)
    return choices[0] if len(choices) == 1 else rng.choice(choices)


def main():
    read, write = sys.stdin.buffer.readline, sys.stdout.write
    rng = random.Random()
    while True:
        line = read()
        if not line:
            return
        words = line.split()
        if words[0] == b"RATRACE":
            rng.seed(int(words[2]))
        elif words[0] == b"TURN":
            moves = []
            for _ in range(int(words[2])):
                genome, view = read().split()
                moves.append(move(int(genome, 16), view, rng))
            write(" ".join(moves) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
