#!/usr/bin/env bash
# Per-board time of ColorScorePlayer: built into koth (1 and 2 jobs) and as the compiled C
# subprocess bot. Same seed for all, so every variant plays the same boards. CPU seconds (koth
# and its bots, user + system) are printed beside wall time: on a shared machine they are the
# steadier figure.
# Usage: scripts/ratrace-bench.sh [BOARDS] [SEED]   (defaults: 20 boards, seed 1)
set -euo pipefail
cd "$(dirname "$0")/.."
boards=${1:-20}
seed=${2:-1}
cargo build --release --quiet
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
TIMEFORMAT='%R %U %S'
run() {
  local label=$1
  shift
  local times wall cpu
  times=$({ time ./target/release/koth ratrace "$@" --seed "$seed" --log-dir "$logs/x" \
    >"$logs/out" 2>/dev/null; } 2>&1)
  read -r wall user sys <<<"$times"
  cpu=$(echo "$user + $sys" | bc)
  printf '%-24s wall %6.3f s/board (%5.2f boards/s), CPU %6.3f s/board\n' "$label" \
    "$(echo "$wall / $boards" | bc -l)" "$(echo "$boards / $wall" | bc -l)" \
    "$(echo "$cpu / $boards" | bc -l)"
}
run "built-in, --jobs 1" --player colorscore --boards "$boards" --jobs 1
run "built-in, --jobs 2" --player colorscore --boards "$boards" --jobs 2
run "C subprocess, --jobs 1" --bot bots/ratrace-colorscore-c --boards "$boards" --jobs 1
