"""Random Builder: a sample bot for koth's Grid-Routing Battle ("paths"), in Python.

Strategy: never destroys; activates a random inactive vertex, preferring one just above a vertex
it already owns (so its vertices tend to grow into paths), else a random source.

Protocol (one line per message on stdin; answer prompts with one line on stdout, flushed):
  BEGIN B T S          start of round: B bots, T turns, grid side S          (no answer)
  DESTROY t            answer "VERTEX x,y" or "NONE"
  BROKEN t C1 .. CB    what everyone broke; C1 is ours; Ci is "x,y" or "N"   (no answer)
  ACTIVATE t           answer "VERTEX x,y" or "NONE"
  OWNED t C1 .. CB     what everyone activated; C1 is ours                  (no answer)
  SCORE S1 .. SB       the round's points, ours first; exit now
The process is started afresh every round; data.txt in its folder survives between rounds.
"""
import random
import sys

# Seed from the round number kept in data.txt: the bot is then deterministic, so a game with the
# same koth --seed replays exactly, yet every round plays differently.
try:
    with open("data.txt") as f:
        round_number = int(f.read().strip() or 0)
except (OSError, ValueError):
    round_number = 0
with open("data.txt", "w") as f:
    f.write(str(round_number + 1))
rng = random.Random(round_number)

side = 0
taken = set()  # vertices known not to be inactive (active or broken): choosing them is wasted
mine = []      # vertices we own, in the order we got them


def parse(choice):
    x, y = choice.split(",")
    return int(x), int(y)


def pick():
    # Just above one of our own vertices (the grid wraps east-west), if any is free.
    candidates = [((x + dx) % side, y + 1) for x, y in mine if y + 1 < side for dx in (-1, 0, 1)]
    candidates = [v for v in candidates if v not in taken]
    if candidates:
        return rng.choice(candidates)
    sources = [(x, 0) for x in range(side) if (x, 0) not in taken]
    if sources:
        return rng.choice(sources)
    for _ in range(100):  # a random free vertex, if one turns up quickly
        v = (rng.randrange(side), rng.randrange(side))
        if v not in taken:
            return v
    return None


def answer(vertex):
    print("NONE" if vertex is None else "VERTEX %d,%d" % vertex, flush=True)


for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    kind = words[0]
    if kind == "BEGIN":
        side = int(words[3])
    elif kind == "DESTROY":
        answer(None)
    elif kind == "ACTIVATE":
        answer(pick())
    elif kind in ("BROKEN", "OWNED"):
        for i, choice in enumerate(words[2:]):
            if choice != "N":
                taken.add(parse(choice))
                if kind == "OWNED" and i == 0:
                    mine.append(parse(choice))
    elif kind == "SCORE":
        break
