"""Grid-Routing Battle bot that plays a fixed plan, one role a round, for koth's hill tests: the
points each pair of planned bots scores against the other is known exactly. PLAN (the first
argument) has a letter per round of the game; in a game of two (a 5 x 5 grid, 4 turns):

  L  builds column 0 from the bottom: (0,0), (0,1), (0,2), (0,3)
  T  takes the top vertex (0,4), then nothing
  U  builds column 0 from the top: (0,4), (0,3), (0,2), (0,1)
  I  does nothing

L with T completes the column: L scores 8 and T 2. L with U completes it too, sharing (0,2): 6
each. Any other pair completes nothing: 0 each. The bot never breaks anything. It counts rounds
in its private file, data.txt, which koth empties when a game starts.

Protocol (docs/games/paths.md): `BEGIN B T S`, `DESTROY t`, `BROKEN ...`, `ACTIVATE t`,
`OWNED ...`, `SCORE ...`.
"""
import sys

plan = sys.argv[1]
with open("data.txt", "a+") as notes:
    notes.seek(0)
    round_number = len(notes.read())
    notes.write(".")
role = plan[round_number % len(plan)]
side = 0
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "BEGIN":
        side = int(words[3])
    elif words[0] == "DESTROY":
        print("NONE", flush=True)
    elif words[0] == "ACTIVATE":
        turn = int(words[1])
        if role == "L":
            answer = f"VERTEX 0,{turn}"
        elif role == "U":
            answer = f"VERTEX 0,{side - 1 - turn}"
        elif role == "T" and turn == 0:
            answer = f"VERTEX 0,{side - 1}"
        else:
            answer = "NONE"
        print(answer, flush=True)
    elif words[0] == "SCORE":
        break
