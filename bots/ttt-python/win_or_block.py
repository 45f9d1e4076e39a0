"""Noughts & crosses bot for koth: wins if it can, blocks the opponent's win if it must,
otherwise takes the centre, then a corner, then any free square.

Protocol (see docs/games/menace.md): `START X|O`, `MOVE <9-char board>` -> answer a square 0..8,
`END WIN|LOSS|DRAW`.
"""
import sys

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def completing_square(board, mark):
    """A free square that gives `mark` three in a line, if there is one."""
    for line in LINES:
        cells = [board[s] for s in line]
        if cells.count(mark) == 2 and cells.count(".") == 1:
            return line[cells.index(".")]
    return None


def choose(board, me):
    other = "O" if me == "X" else "X"
    for square in (completing_square(board, me), completing_square(board, other)):
        if square is not None:
            return square
    for square in (4, 0, 2, 6, 8, 1, 3, 5, 7):
        if board[square] == ".":
            return square


def main():
    me = "X"
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "START":
            me = words[1]
        elif words[0] == "MOVE":
            print(choose(words[1], me), flush=True)


if __name__ == "__main__":
    main()
