#!/usr/bin/env bash
# The direct call against the built-in player, in rounds, for one or more koth binaries (issue
# 58's point 3: the WASI sample `bots/wasi/ratrace-colorscore` called directly at <= 1.15x the
# built-in `colorscore-first`'s CPU per board, which plays the same boards move for move).
#
# Each round runs, for each binary in turn, one direct run and one built-in run of the same
# boards; each run's figure is its median board by CPU (`cpu_seconds` in results.json). A
# single run on a shared machine moves by several hundredths, so compare the rounds' ratios
# (direct / built in, each round's pair taken together) and their median, binaries in turn.
# Every run must play the same points: a binary whose boards differ is reported and exits 1.
# Usage: scripts/ratrace-direct-pairs.sh ROUNDS KOTH... [-- BOARDS SEED]
#        (say a copy of target/release/koth from before a change and target/release/koth;
#        defaults: 15 boards, seed 1)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
rounds=$1
shift
binaries=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  [ -x "$1" ] || { echo "not a koth binary: $1" >&2; exit 2; }
  binaries+=("$(realpath "$1")")
  shift
done
[ "${1:-}" = "--" ] && shift
boards=${1:-15}
seed=${2:-1}
bot=bots/wasi/ratrace-colorscore
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
# The sample's module is built once, by its build step, before any run is timed.
"${binaries[0]}" ratrace --bot "$bot" --boards 1 --seed "$seed" --record-boards none \
  --log-dir "$logs/warm" >/dev/null
for round in $(seq 1 "$rounds"); do
  for n in "${!binaries[@]}"; do
    koth=${binaries[$n]}
    common=(ratrace --no-pin --boards "$boards" --seed "$seed" --record-boards none)
    "$koth" "${common[@]}" --bot "$bot" --timeout-ms 10000 \
      --log-dir "$logs/$n-direct-$round" >/dev/null
    "$koth" "${common[@]}" --player colorscore-first --log-dir "$logs/$n-built-in-$round" >/dev/null
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$logs" "$rounds" "${binaries[@]}" <<'EOF'
import json, statistics, sys

logs, rounds, binaries = sys.argv[1], int(sys.argv[2]), sys.argv[3:]

def run(path):
    boards = json.load(open(f"{path}/results.json"))["boards"]
    return statistics.median(b["cpu_seconds"] for b in boards), [b["points"] for b in boards]

same = True
points = None
print(f"{'binary':40} {'direct (median board)':>22} {'built in':>10} {'direct / built in':>18}")
for n, koth in enumerate(binaries):
    ratios = []
    for r in range(1, rounds + 1):
        direct, direct_points = run(f"{logs}/{n}-direct-{r}")
        built_in, built_in_points = run(f"{logs}/{n}-built-in-{r}")
        points = points or built_in_points
        same &= direct_points == points and built_in_points == points
        ratios.append(direct / built_in)
        print(f"{koth if r == 1 else '':40} {direct:22.4f} {built_in:10.4f} {direct / built_in:18.3f}")
    print(f"{'':40} {'median of ' + str(rounds) + ' rounds':>33} {statistics.median(ratios):18.3f}")
if not same:
    print("DIFFERENT: the runs did not all play the same points board by board")
    sys.exit(1)
print(f"every run played the same points ({sum(points)} over {len(points)} boards)")
EOF
