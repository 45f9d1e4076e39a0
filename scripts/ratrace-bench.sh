#!/usr/bin/env bash
# Per-board time of ColorScorePlayer: built into koth (1 and 2 jobs) and as the compiled C
# subprocess bot. Same seed for all, so every variant plays the same boards.
#
# Boards' costs are wildly uneven (a population that explodes to thousands of specimens costs
# ten times the median board), so each line gives the median and the mean per board, both in
# wall time and in CPU time (user + system, koth's job thread plus the bot process), as the
# `per board:` line koth prints at the end gives them. On a shared machine the CPU figures are the steadier ones. The last column
# is boards per second over the whole run, which is what --jobs 2 should double. The C bot
# runs twice: as koth runs it by default (the job and its bot on one CPU) and with --no-pin;
# then the C bot of the lean protocol. Against the challenge's C++ controller, and with koth's
# own CPU and bytes per board: scripts/ratrace-versus-cpp.sh.
# Usage: scripts/ratrace-bench.sh [BUILT_IN_BOARDS] [SUBPROCESS_BOARDS] [SEED]
#        (defaults: 40 boards built in, 15 through the C bot, seed 1)
set -euo pipefail
cd "$(dirname "$0")/.."
boards=${1:-40}
bot_boards=${2:-15}
seed=${3:-1}
cargo build --release --quiet
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-26s %-6s %-23s %-23s %s\n' "" boards "wall median / mean" "CPU median / mean" "boards/s"
runs=0
run() { # run LABEL BOARDS [koth ratrace args]
  local label=$1 count=$2
  shift 2
  runs=$((runs + 1))
  # The line koth prints at the end:
  # per board: wall median W s, mean W s; CPU median C s, mean C s; B boards/s overall
  local line
  line=$(./target/release/koth ratrace "$@" --boards "$count" --seed "$seed" \
    --log-dir "$logs/run-$runs" 2>/dev/null | grep '^per board:')
  read -r wall_median wall_mean cpu_median cpu_mean rate < <(echo "$line" |
    sed -E 's/.*wall median ([0-9.]+) s, mean ([0-9.]+) s; CPU median ([0-9.]+) s, mean ([0-9.]+) s; ([0-9.]+) boards.*/\1 \2 \3 \4 \5/')
  printf '%-26s %-6s %-23s %-23s %s\n' "$label" "$count" "$wall_median / $wall_mean s" \
    "$cpu_median / $cpu_mean s" "$rate"
}
run "built-in, --jobs 1" "$boards" --player colorscore --jobs 1
run "built-in, --jobs 2" "$boards" --player colorscore --jobs 2
run "C subprocess, --jobs 1" "$bot_boards" --bot bots/ratrace-colorscore-c --jobs 1
run "C subprocess, --no-pin" "$bot_boards" --bot bots/ratrace-colorscore-c --jobs 1 --no-pin
run "C lean subprocess, --jobs 1" "$bot_boards" --bot bots/ratrace-lean-c --jobs 1
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
