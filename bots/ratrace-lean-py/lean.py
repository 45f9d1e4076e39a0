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
    """For each cell's token (its number, as bytes), the forward moves whose target is on the
    track: (the shift of the target colour's score in the genome, the move's digit)."""
    targets = {}
    for cell in range(WIDTH * HEIGHT):
        x, y = cell % WIDTH, cell // WIDTH
        targets[str(cell).encode()] = tuple(
            (6 * colours[ty * WIDTH + x + 1], digit)
            for ty, digit in zip((y - 1, y, y + 1), DIGITS)
            if x + 1 < WIDTH and 0 <= ty < HEIGHT)
    return targets


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
                if cell == b"x":
                    continue
                alive.append(genome)
                # Inlined, with each cell's targets found by its token and their shifts made
                # once per board: half the time of a function call per specimen converting the
                # cell and colours. Tied digits gather in a string; rng.choice draws from it
                # exactly as the text bot draws from its list of tokens.
                best = -1
                for shift, digit in targets[cell]:
                    score = (genome >> shift) & 63
                    if score > best:
                        best, tied = score, digit
                    elif score == best:
                        tied += digit
                moves.append(tied if len(tied) == 1 else rng.choice(tied))
            genomes = alive
            write("".join(moves) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
