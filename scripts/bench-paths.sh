#!/usr/bin/env bash
# Benchmarks of `koth paths` with bots that cost nothing, so that what is measured is koth:
#  (a) koth's own CPU time per turn (children excluded) with N instant bots, N = 4, 9, 16;
#  (b) phase concurrency: N bots each sleeping 100 ms per answer; a round should take
#      N²·2·0.1 s (phases in parallel), not N times that.
# Scoring alone (c) is `cargo bench --bench paths`.
# Usage: bash scripts/bench-paths.sh   (from anywhere; builds koth in release mode first)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
koth=$PWD/target/release/koth
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A bot that answers every prompt NONE after an optional delay, so that koth is what is measured.
mkdir -p "$work/bots/instant"
gcc -O2 -o "$work/bots/instant/instant" scripts/instant-bot.c

# bots.txt with N copies of the bot, all in the same folder.
roster() { # roster N DELAY_MS
  for ((i = 1; i <= $1; i++)); do printf 'Instant %d\ninstant\n./instant %d\n' "$i" "$2"; done \
    > "$work/bots.txt"
}

# Five runs per N: the figure moves with the machine's load, so the median and the range are
# printed rather than one run. Each figure twice: with koth and the bots free to run anywhere
# (the default), and with koth and every bot kept to one CPU (`--cpu`, as tournaments place
# games when there is a CPU per game). Beside koth, the same turns played by
# scripts/controller-floor.c, a controller that does nothing but start the bots each round,
# write the prompts and read the answers: the least any controller of separate bot processes
# can spend on this machine (kept to one CPU with taskset).
gcc -O2 -o "$work/controller-floor" scripts/controller-floor.c
median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.1f [%.1f–%.1f]", v[3], v[1], v[5] }'; }
cpu=$(nproc --all); cpu=$((cpu - 1))
koth_runs() { # koth_runs N ROUNDS [extra koth args]
  local n=$1 rounds=$2; shift 2
  for run in 1 2 3 4 5; do
    "$koth" paths --bots-file "$work/bots.txt" --rounds "$rounds" --seed 1 \
      --log-dir "$work/out-a$n-$run" --report-cpu "$@" | sed -n 's|^koth cpu: .* = \([0-9.]*\) µs/turn|\1|p'
    rm -rf "$work/out-a$n-$run"
  done | median
}
floor_runs() { # floor_runs N ROUNDS [command prefix]
  local n=$1 rounds=$2; shift 2
  for run in 1 2 3 4 5; do
    "$@" "$work/controller-floor" "$n" "$rounds" "$work/bots/instant/instant"
  done | median
}
echo "(a) CPU time per turn (µs), instant bots, 5 runs each: median [min–max]"
for spec in 4:60 9:20 16:4; do
  n=${spec%:*} rounds=${spec#*:}
  roster "$n" 0
  printf '  N=%-2d (%d rounds): koth %s; floor %s\n' "$n" "$rounds" \
    "$(koth_runs "$n" "$rounds")" "$(floor_runs "$n" "$rounds" env)"
  printf '  N=%-2d on CPU %d:     koth %s; floor %s\n' "$n" "$cpu" \
    "$(koth_runs "$n" "$rounds" --cpu "$cpu")" "$(floor_runs "$n" "$rounds" taskset -c "$cpu")"
done
echo "(b) one round with N bots each answering after 100 ms"
for n in 2 3; do
  roster "$n" 100
  start=$(date +%s.%N)
  "$koth" paths --bots-file "$work/bots.txt" --rounds 1 --seed 1 --log-dir "$work/out-b$n" >/dev/null
  end=$(date +%s.%N)
  awk -v n="$n" -v s="$start" -v e="$end" 'BEGIN {
    ideal = n * n * 2 * 0.1; took = e - s
    printf "  N=%d: %.2f s, ideal %.1f s, ratio %.3f\n", n, took, ideal, took / ideal }'
done
