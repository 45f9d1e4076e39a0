"""Noughts & crosses bot of known strength, for koth's hill benchmarks and tests: each move is
the perfect one (minimax) with probability P, else a random legal square. P is the first
argument (default 1.0): a pool of these with P evenly spread has a known true order.

Protocol (see docs/games/menace.md): `START X|O`, `MOVE <9-char board>` -> answer a square 0..8,
`END WIN|LOSS|DRAW`.
"""
import functools
import random
import sys

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def winner(board):
    for a, b, c in LINES:
        if board[a] != "." and board[a] == board[b] == board[c]:
            return board[a]
    return None


@functools.lru_cache(maxsize=None)
def value(board, mover):
    """The value of `board` for `mover`, to move: 1 win, 0 draw, -1 loss with best play."""
    if winner(board) is not None:
        return -1
    free = [s for s in range(9) if board[s] == "."]
    if not free:
        return 0
    other = "O" if mover == "X" else "X"
    return max(-value(board[:s] + mover + board[s + 1:], other) for s in free)


def choose(board, me, p):
    free = [s for s in range(9) if board[s] == "."]
    if random.random() >= p:
        return random.choice(free)
    other = "O" if me == "X" else "X"
    best = max(-value(board[:s] + me + board[s + 1:], other) for s in free)
    return random.choice([s for s in free if -value(board[:s] + me + board[s + 1:], other) == best])


def main():
    p = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    me = "X"
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "START":
            me = words[1]
        elif words[0] == "MOVE":
            print(choose(words[1], me, p), flush=True)


if __name__ == "__main__":
    main()
