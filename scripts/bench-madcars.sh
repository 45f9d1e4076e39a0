#!/usr/bin/env bash
# koth's own CPU time per Mad Cars tick (user + system of koth's process, every thread, the bots
# excluded: `koth madcars --report-cpu`), with two bots that answer at once: two copies of the C
# sample (bots/madcars-keepaway-c), which reads two numbers of each tick and prints a command.
# Whole 9-match games, seeds 1-5, each figure the median of the five games with their range:
# with koth and both bots kept to one CPU (`--cpu`, as tournaments place a game), and free to run
# on any CPU (`koth madcars`'s default). Physics alone is `cargo bench --bench madcars`.
# Usage: bash scripts/bench-madcars.sh   (from anywhere; builds koth in release mode first)
#        KOTH=/path/to/koth bash scripts/bench-madcars.sh   (another build, to compare two)
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z ${KOTH:-} ]]; then
  cargo build --release --quiet
  KOTH=$PWD/target/release/koth
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Two seats need two names: the same bot in two folders.
for n in 1 2; do
  cp -r bots/madcars-keepaway-c "$work/keepaway-$n"
  sed -i "s/^name = .*/name = \"Keep Away $n\"/" "$work/keepaway-$n/bot.toml"
done

median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.1f [%.1f–%.1f]", v[3], v[1], v[5] }'; }
runs() { # runs [extra koth args]: µs per tick of seeds 1-5, median [min–max]
  for seed in 1 2 3 4 5; do
    "$KOTH" madcars --bot "$work/keepaway-1" --bot "$work/keepaway-2" --seed "$seed" \
      --log-dir "$work/out" --report-cpu "$@" |
      sed -n 's|^koth cpu: .* = \([0-9.]*\) µs/tick|\1|p'
    rm -rf "$work/out"
  done | median
}
cpu=$(nproc --all); cpu=$((cpu - 1))
echo "koth's own CPU per tick (µs), two instant C bots, seeds 1-5: median [min–max]"
echo "  on CPU $cpu: $(runs --cpu "$cpu")"
echo "  free:     $(runs)"
