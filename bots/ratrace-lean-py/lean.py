#!/usr/bin/env python3
"""ColorScorePlayer, the Genetic Rat Race's example player, over koth's lean protocol.

Of the three forward moves whose target is on the track, take the one whose colour scores
highest in the genome (the 6 bits at 6*colour), ties broken at random (seeded per board): the
same decisions, and the same random draws, as ../ratrace-colorscore-py over the text protocol.

The board comes once; each specimen's genome once, when it is born; then each turn one line of
cells, a token per specimen of the last turn (`x` if it died) and per newborn. The bot keeps its
specimens' genomes in koth's order and answers one digit per living specimen.
"""
import random
import sys

WIDTH, HEIGHT = 53, 15
# The answer digit, 3*(dy+1) + (dx+1), of the forward moves (1,-1), (1,0), (1,1).
DIGITS = "258"


def forward_targets(colours):
    """Each cell's three forward targets' colours, None off the track."""
    targets = []
    for cell in range(WIDTH * HEIGHT):
        x, y = cell % WIDTH, cell // WIDTH
        targets.append(tuple(
            colours[ty * WIDTH + x + 1] if x + 1 < WIDTH and 0 <= ty < HEIGHT else None
            for ty in (y - 1, y, y + 1)))
    return targets


def move(genome, targets, rng):
    best, choices = -1, []
    for colour, digit in zip(targets, DIGITS):
        if colour is None:
            continue
        score = (genome >> (6 * colour)) & 63
        if score > best:
            best, choices = score, [digit]
        elif score == best:
            choices.append(digit)
    return choices[0] if len(choices) == 1 else rng.choice(choices)


def main():
    read, write = sys.stdin.buffer.readline, sys.stdout.write
    rng = random.Random()
    genomes, targets = [], []  # genomes: the last turn's specimens in koth's order, then newborns
    while True:
        line = read()
        if not line:
            return
        words = line.split()
        if words[0] == b"RATRACE":
            rng.seed(int(words[2]))
            genomes = []
        elif words[0] == b"BOARD":
            targets = forward_targets([int(c, 16) for c in words[1].decode()])
        elif words[0] == b"TURN":
            genomes.extend(int(read(), 16) for _ in range(int(words[3])))
            alive, moves = [], []
            for genome, cell in zip(genomes, read().split()):
                if cell != b"x":
                    alive.append(genome)
                    moves.append(move(genome, targets[int(cell)], rng))
            genomes = alive
            write("".join(moves) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
