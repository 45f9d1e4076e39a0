"""A Reach the Flag solver bot for koth: depth-first search over (position, tiles left).

Protocol (see docs/games/flag.md): koth sends
    LEVEL <width> <height> <flag-value>
    <height map rows: 1 yellow, 2 dark yellow, # grey, . hole, S/s start, F flag>
    SOLVE
and reads one line of moves (U D L R). An unsolvable level gets an empty line.
"""
import sys

MOVES = (("U", -1, 0), ("D", 1, 0), ("L", 0, -1), ("R", 0, 1))
GREY = 255


def solve(width, rows):
    left, start, flag = [], None, None
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            at = r * width + c
            if ch in "S1":
                left.append(1)
            elif ch == "2":
                left.append(2)
            elif ch in "#sF":
                left.append(GREY)
            else:
                left.append(0)
            if ch in "Ss":
                start = at
            if ch == "F":
                flag = at
    height = len(rows)
    neighbours = []
    for at in range(width * height):
        r, c = divmod(at, width)
        here = []
        for letter, dr, dc in MOVES:
            rr, cc = r + dr, c + dc
            if 0 <= rr < height and 0 <= cc < width:
                here.append((letter, rr * width + cc))
        neighbours.append(here)
    remaining = sum(v for v in left if v != GREY)
    seen = set()
    path = []

    def reachable(pos):
        # Every standing tile and the flag must still be reachable through standing tiles.
        stack, found = [pos], {pos}
        while stack:
            for _, n in neighbours[stack.pop()]:
                if n not in found and left[n] > 0:
                    found.add(n)
                    stack.append(n)
        return flag in found and all(
            v == 0 or v == GREY or i in found for i, v in enumerate(left)
        )

    def dfs(pos, remaining):
        if remaining == 0 and pos == flag:
            return True
        key = (pos, tuple(left))
        if key in seen or not reachable(pos):
            return False
        seen.add(key)
        for letter, n in neighbours[pos]:
            if left[n] == 0:
                continue
            falls = left[n] != GREY
            if falls:
                left[n] -= 1
            path.append(letter)
            if dfs(n, remaining - 1 if falls else remaining):
                return True
            path.pop()
            if falls:
                left[n] += 1
        return False

    sys.setrecursionlimit(100000)
    return "".join(path) if dfs(start, remaining) else ""


def main():
    lines = iter(sys.stdin)
    for line in lines:
        words = line.split()
        if not words or words[0] != "LEVEL":
            continue
        width, height = int(words[1]), int(words[2])
        rows = [next(lines).strip() for _ in range(height)]
        next(lines)  # SOLVE
        print(solve(width, rows), flush=True)


if __name__ == "__main__":
    main()
