#!/usr/bin/env bash
# Two `koth ratrace` runs side by side, against one run alone: the speed each keeps when two
# koth processes share a machine (docs/cpu-placement.md).
#
# Every run plays the same BOARDS boards (same seed) through the C sample bot with one job, so
# it pins its job and its bot to one CPU. Three ways, REPEATS times each, in turn:
#   alone          one run;
#   side by side   two runs started together, claiming CPUs as koth does (the second takes the
#                  CPU the first left free);
#   uncoordinated  two runs started together that cannot see each other's claims (each its own
#                  runtime folder): both pin to the first CPU, as every koth did before it
#                  claimed CPUs.
# Prints the median wall time of a run (for a pair, of the slower of the two) and its speed
# against a run alone. Each way gets a runtime folder of its own, so runs of other koth
# processes on the machine do not take its CPUs. Measure on a quiet machine: the script prints
# the load average before and after.
# Usage: scripts/bench-share-cpus.sh [BOARDS] [REPEATS] [SEED]   (defaults: 8 boards, 7, seed 1)
set -euo pipefail
cd "$(dirname "$0")/.."
boards=${1:-8}
repeats=${2:-7}
seed=${3:-1}
cargo build --release --quiet
koth=$PWD/target/release/koth
bot=$PWD/bots/ratrace-colorscore-c
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -m 700 "$work/shared" "$work/own-a" "$work/own-b"

# run RUNTIME_DIR LOG: one run; prints its wall time in ms and where it says its job runs.
# The bot is started as a command, built once below: `--bot` would run its build step every
# run, and two runs building one folder at once start a half-written binary.
run() {
  local start end output
  start=$(date +%s%N)
  output=$(XDG_RUNTIME_DIR=$1 "$koth" ratrace --bot-cmd "$bot/colorscore" --boards "$boards" \
    --seed "$seed" --log-dir "$2" 2>&1)
  end=$(date +%s%N)
  # Runs are in subshells: a failed one leaves a note that stops the script after its round.
  if grep -q 'ended by a player fault' <<<"$output"; then
    echo "a run failed: $output" >"$work/failed"
  fi
  local banner
  banner=$(grep '^player' <<<"$output")
  echo "$(( (end - start) / 1000000 )) ${banner#*job(s) }" | sed 's/; logs in.*//'
}

median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# The bot's build step, once, before anything is timed.
"$koth" ratrace --bot "$bot" --boards 1 --seed "$seed" --log-dir "$work/warm" >/dev/null
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
alone=() side=() apart=()
for i in $(seq "$repeats"); do
  alone+=("$(run "$work/shared" "$work/alone-$i" | cut -d' ' -f1)")

  run "$work/shared" "$work/side-a-$i" >"$work/side-a" &
  run "$work/shared" "$work/side-b-$i" >"$work/side-b"
  wait
  side+=("$(cat "$work/side-a" "$work/side-b" | cut -d' ' -f1 | sort -n | tail -1)")
  echo "side by side $i: $(cut -d' ' -f2- "$work/side-a") | $(cut -d' ' -f2- "$work/side-b")"

  run "$work/own-a" "$work/apart-a-$i" >"$work/apart-a" &
  run "$work/own-b" "$work/apart-b-$i" >"$work/apart-b"
  wait
  apart+=("$(cat "$work/apart-a" "$work/apart-b" | cut -d' ' -f1 | sort -n | tail -1)")
  echo "uncoordinated $i: $(cut -d' ' -f2- "$work/apart-a") | $(cut -d' ' -f2- "$work/apart-b")"
  if [[ -e $work/failed ]]; then
    cat "$work/failed" >&2
    exit 1
  fi
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
a=$(printf '%s\n' "${alone[@]}" | median)
s=$(printf '%s\n' "${side[@]}" | median)
u=$(printf '%s\n' "${apart[@]}" | median)
echo "runs of $boards boards (seed $seed), median of $repeats, wall ms (all: alone ${alone[*]}; side by side ${side[*]}; uncoordinated ${apart[*]})"
printf '%-40s %8s ms\n' "one run alone" "$a"
printf '%-40s %8s ms  %s%% of alone speed\n' "two side by side, the slower" "$s" "$(awk "BEGIN { printf \"%.0f\", 100 * $a / $s }")"
printf '%-40s %8s ms  %s%% of alone speed\n' "two uncoordinated, the slower" "$u" "$(awk "BEGIN { printf \"%.0f\", 100 * $a / $u }")"
