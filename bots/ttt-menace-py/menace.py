"""MENACE, Donald Michie's matchbox learner, as a koth noughts & crosses bot that learns from
game to game: its matchboxes live in data/ (the folder koth keeps for a bot whose bot.toml
asks for `data`), so every game starts from what the games before it taught.

The rules are koth's own MENACE (`koth menace`, src/games/menace/matchbox.rs), for either mark:
- a matchbox per position on which it is to move, up to the board's 8 symmetries (its own
  marks written X, the opponent's O, so a box serves it as X and as O alike);
- a new box holds, on each free square, 4, 3, 2 or 1 beads by its move number (1st, 2nd, 3rd,
  4th and later: Michie's schedule); an empty box is refilled with 3 beads on random squares;
- it moves by drawing a bead at random from the box (one free square: forced, no box);
- at the game's end each drawn bead goes back with one more after a win, goes back after a
  draw, and stays out after a loss.

Its randomness is seeded by the number of games it has played (kept in data/), so a game
played again from the same data, with the same lines, gives the same answers
(`koth replay --drive`).

Protocol (docs/games/menace.md): `START X|O`, `MOVE <9-char board>` -> a square 0..8,
`END WIN|LOSS|DRAW`.
"""
import json
import os
import random
import sys

DATA = "data"
BOXES = os.path.join(DATA, "matchboxes.json")
SCHEDULE = [4, 3, 2, 1]
REFILL = 3

# The 8 symmetries of the board, as maps from a square of the transformed board to a square
# of the original: rotations and reflections.
def _symmetries():
    rotate = [6, 3, 0, 7, 4, 1, 8, 5, 2]
    reflect = [2, 1, 0, 5, 4, 3, 8, 7, 6]
    maps, m = [], list(range(9))
    for _ in range(4):
        maps.append(m)
        maps.append([m[reflect[i]] for i in range(9)])
        m = [m[rotate[i]] for i in range(9)]
    return maps


SYMMETRIES = _symmetries()


def canonical(board):
    """The least of the board's 8 images, and the map from its squares to the board's."""
    return min(("".join(board[m[i]] for i in range(9)), m) for m in SYMMETRIES)


def load():
    try:
        with open(BOXES) as f:
            state = json.load(f)
        return state["games"], {k: v for k, v in state["boxes"].items()}
    except FileNotFoundError:
        return 0, {}


def save(games, boxes):
    """Written beside and renamed into place: the folder never holds half a file."""
    os.makedirs(DATA, exist_ok=True)
    tmp = BOXES + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"games": games, "boxes": boxes}, f, sort_keys=True, separators=(",", ":"))
    os.replace(tmp, BOXES)


def main():
    games, boxes = load()
    rng = random.Random(games)
    me, drawn = "X", []
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "START":
            me, drawn = words[1], []
        elif words[0] == "MOVE":
            board = words[1]
            # Its own marks as X, the opponent's as O.
            mine = "".join("X" if c == me else ("." if c == "." else "O") for c in board)
            free = [s for s in range(9) if mine[s] == "."]
            if len(free) == 1:
                print(free[0], flush=True)
                continue
            key, m = canonical(mine)
            beads = boxes.get(key)
            if beads is None:
                move = min(key.count("X") + 1, 4)
                beads = [SCHEDULE[move - 1] if key[s] == "." else 0 for s in range(9)]
                boxes[key] = beads
            if sum(beads) == 0:
                open_squares = [s for s in range(9) if key[s] == "."]
                for _ in range(REFILL):
                    beads[rng.choice(open_squares)] += 1
            pick = rng.randrange(sum(beads))
            square = 0
            while pick >= beads[square]:
                pick -= beads[square]
                square += 1
            beads[square] -= 1
            drawn.append((key, square))
            print(m[square], flush=True)
        elif words[0] == "END":
            back = {"WIN": 2, "DRAW": 1, "LOSS": 0}[words[1]]
            for key, square in drawn:
                boxes[key][square] += back
            drawn = []
            games += 1
            rng = random.Random(games)
            save(games, boxes)


if __name__ == "__main__":
    main()
