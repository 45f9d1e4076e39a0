#!/usr/bin/env bash
# The rat race side by side on this machine: the challenge's own C++ controller with
# ColorScorePlayer compiled in, koth's built-in ColorScore, koth through the pipe with each
# sample bot in each protocol (text and lean), and koth calling the WASI sample
# (bots/wasi/ratrace-colorscore, ColorScore with first ties) directly, in one run.
#
# The C++ controller is not part of koth: it is published at
# https://github.com/m-ender/ppcg-genetic-algorithms, folder c++/ (main.cpp, gamelogic.cpp,
# magicnum.h). Give the path of that folder; it is built here with `g++ -std=c++11 -O2`, as its
# readme says, with its own main() (ColorScorePlayer), and timed board by board from its
# "Scored N in game i" lines (wall, and its CPU from /proc) for the first BOARDS boards.
#
# For each koth run the figures are medians per board from results.json: wall `seconds`, CPU
# (`cpu_seconds`: koth's job thread plus the bot), koth's own CPU (that minus the bot's
# `player_cpu_seconds`) and the bytes koth wrote to the bot (`bytes_sent`). "× C++ wall" and
# "× C++ CPU" are the C++ controller's median per board over this run's, in wall and in CPU time
# (on a loaded machine the CPU figures are the steadier); "own÷b-i" is koth's own CPU through
# the pipe over the built-in game's whole CPU (the built-in row above it: `colorscore` for the
# pipe, `colorscore-first` for the direct call, which plays the same boards; a WASI module runs
# in koth's own thread, so its "own" CPU is the whole game's). Boards differ in cost by 10× (a population that
# explodes), so compare medians, and check the load average printed first. Bots get 10 s a turn:
# on a busy machine a board of thousands of specimens can take more than the default second,
# and a benchmark measures speed, not faults.
#
# Usage: scripts/ratrace-versus-cpp.sh CPP_DIR [BOARDS] [PYTHON_BOARDS] [SEED]
#        (defaults: 15 boards for the C++ controller, the built-in player and the C bots;
#        5 for the Python bots; seed 1)
set -euo pipefail
if [ $# -lt 1 ] || [ ! -f "$1/main.cpp" ]; then
  echo "usage: $0 CPP_DIR [BOARDS] [PYTHON_BOARDS] [SEED]" >&2
  echo "  CPP_DIR: the c++/ folder of github.com/m-ender/ppcg-genetic-algorithms" >&2
  exit 2
fi
cpp=$(cd "$1" && pwd)
cd "$(dirname "$0")/.."
boards=${2:-15}
py_boards=${3:-5}
seed=${4:-1}
cargo build --release --quiet
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
g++ -std=c++11 -O2 -o "$work/controller" "$cpp/main.cpp"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# The C++ controller: median wall and CPU seconds between its "Scored" lines.
read -r cpp_wall cpp_cpu < <(python3 - "$work/controller" "$boards" <<'PY'
import os, statistics, subprocess, sys, time
controller, boards = sys.argv[1], int(sys.argv[2])
tick = os.sysconf("SC_CLK_TCK")
proc = subprocess.Popen([controller], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                        cwd=os.path.dirname(controller))
def cpu():
    fields = open(f"/proc/{proc.pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / tick  # utime + stime
walls, cpus = [], []
last_wall, last_cpu = time.monotonic(), 0.0
for line in proc.stderr:
    if line.startswith(b"Scored"):
        now_wall, now_cpu = time.monotonic(), cpu()
        walls.append(now_wall - last_wall)
        cpus.append(now_cpu - last_cpu)
        last_wall, last_cpu = now_wall, now_cpu
        if len(walls) == boards:
            break
proc.kill()
proc.wait()
print(f"{statistics.median(walls):.3f} {statistics.median(cpus):.3f}")
PY
)

row() { printf '%-32s %6s %7s %7s %8s %7s %8s %10s %9s\n' "$@"; }
ratio() { echo "$1 / $2" | bc -l | xargs printf '%.2f'; }
row "" boards wall CPU "koth own" own÷b-i bytes "× C++ wall" "× C++ CPU"
row "C++ controller, ColorScore" "$boards" "$cpp_wall" "$cpp_cpu" "" "" "" 1.00 1.00
reference_cpu=
runs=0
run() { # run LABEL BOARDS [koth ratrace args]
  local label=$1 count=$2
  shift 2
  runs=$((runs + 1))
  ./target/release/koth ratrace "$@" --boards "$count" --seed "$seed" \
    --log-dir "$work/run-$runs" >/dev/null 2>&1
  local figures
  figures=$(python3 - "$work/run-$runs/results.json" <<'PY'
import json, statistics, sys
boards = json.load(open(sys.argv[1]))["boards"]
assert all(b["error"] is None for b in boards), [b["error"] for b in boards if b["error"]]
median = lambda key: statistics.median(key(b) for b in boards)
own = median(lambda b: b["cpu_seconds"] - b["player_cpu_seconds"])
sent = boards[0]["bytes_sent"]
print(f'{median(lambda b: b["seconds"]):.3f} {median(lambda b: b["cpu_seconds"]):.3f} {own:.3f}',
      f'{median(lambda b: b["bytes_sent"]) / 1e6:.1f}MB' if sent is not None else "-")
PY
)
  read -r wall cpu own bytes <<<"$figures"
  if [ -z "$reference_cpu" ]; then
    reference_cpu=$cpu
    row "$label" "$count" "$wall" "$cpu" "" "" "$bytes" "$(ratio "$cpp_wall" "$wall")" \
      "$(ratio "$cpp_cpu" "$cpu")"
  else
    row "$label" "$count" "$wall" "$cpu" "$own" "$(ratio "$own" "$reference_cpu")" "$bytes" \
      "$(ratio "$cpp_wall" "$wall")" "$(ratio "$cpp_cpu" "$cpu")"
  fi
}
run "koth built in, colorscore" "$boards" --player colorscore
run "C bot, text protocol" "$boards" --bot bots/ratrace-colorscore-c --timeout-ms 10000
run "C bot, lean protocol" "$boards" --bot bots/ratrace-lean-c --timeout-ms 10000
run "Python bot, text protocol" "$py_boards" --bot bots/ratrace-colorscore-py --timeout-ms 10000
run "Python bot, lean protocol" "$py_boards" --bot bots/ratrace-lean-py --timeout-ms 10000
reference_cpu= # the next built-in row is the direct call's reference
run "koth built in, colorscore-first" "$boards" --player colorscore-first
run "WASI C, direct call" "$boards" --bot bots/wasi/ratrace-colorscore --timeout-ms 10000
# What the direct call costs per specimen over the built-in player: the two played the same
# boards move for move, so each board's CPU difference over its specimens' moves (counted from
# the population sampled every 100 turns) is the cost of a call and what the module does in it.
python3 - "$work/run-$((runs - 1))/results.json" "$work/run-$runs/results.json" <<'PY'
import json, statistics, sys
built_in, direct = (json.load(open(path))["boards"] for path in sys.argv[1:])
def moves(board):
    return sum(100 * s["population"] for s in board["history"] if s["turn"] % 100 == 0 and s["turn"])
per_move = [(d["cpu_seconds"] - b["cpu_seconds"]) / moves(d) * 1e9
            for b, d in zip(built_in, direct) if moves(d)]
print(f"direct call: {statistics.median(per_move):.1f} ns per specimen's move over the built-in "
      f"player's (median of {len(per_move)} boards; median board "
      f"{statistics.median(moves(d) for d in direct) / 1e6:.1f} million moves)")
PY
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
