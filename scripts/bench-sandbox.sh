#!/usr/bin/env bash
# What containment (`--sandbox`) costs, each figure contained beside uncontained, the two run in
# turn (A B A B …) so that the machine's drift hits both alike; five pairs, medians printed:
#  (1) one bot process's start and one answer's round trip: `cargo bench --bench sandbox`;
#  (2) a paths game among the sample bots (Python, C, JavaScript, bash), 10 rounds: each bot is
#      started afresh every round, so this is where process starts add up;
#  (3) koth's own CPU per turn in a paths game of 9 instant C bots (what each answer costs koth);
#  (4) the rat race through the pipe with the sample C player, 4 boards.
# Usage: bash scripts/bench-sandbox.sh   (from anywhere; needs bwrap)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
koth=$PWD/target/release/koth
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.3f", v[int((NR + 1) / 2)] }'; }
# pair LABEL COMMAND…: runs COMMAND with and without --sandbox in turn, prints both medians of
# wall seconds (or of the figure COMMAND prints, if FIGURE is set to a sed expression).
pair() {
  local label=$1; shift
  : > "$work/plain"; : > "$work/contained"
  for run in 1 2 3 4 5; do
    for mode in plain contained; do
      local extra=(); [ "$mode" = contained ] && extra=(--sandbox)
      rm -rf "$work/out"
      local start end
      start=$(date +%s.%N)
      out=$("$@" "${extra[@]}" --log-dir "$work/out" 2>/dev/null)
      end=$(date +%s.%N)
      if [ -n "${FIGURE:-}" ]; then
        sed -n "$FIGURE" <<< "$out" >> "$work/$mode"
      else
        awk -v s="$start" -v e="$end" 'BEGIN { print e - s }' >> "$work/$mode"
      fi
    done
  done
  local a b
  a=$(median < "$work/plain"); b=$(median < "$work/contained")
  awk -v l="$label" -v a="$a" -v b="$b" \
    'BEGIN { printf "  %-44s uncontained %9.3f  contained %9.3f  (%+.1f%%)\n", l, a, b, 100 * (b - a) / a }'
}

echo "(1) process start and answer round trip (criterion; see target/criterion/)"
cargo bench --quiet --bench sandbox 2>/dev/null | grep -E '^(start|answer)' -A1 | grep -v '^--' |
  paste - - | awk '{ printf "  %-20s %s %s\n", $1 " " $2, $6, $7 }'

echo "(2) paths, the sample bots, 10 rounds: wall seconds"
(cd "$work" && mkdir -p bots && cp -r "$OLDPWD"/bots/paths-* bots/ && rm -f bots/*/data.txt)
pair "sample bots" "$koth" paths --bot "$work/bots/paths-random-builder" \
  --bot "$work/bots/paths-column" --bot "$work/bots/paths-destroyer" \
  --bot "$work/bots/paths-checkpoint" --rounds 10 --seed 1

echo "(3) paths, 9 instant C bots, 20 rounds: koth's own CPU per turn (µs)"
mkdir -p "$work/instant"
gcc -O2 -o "$work/instant/instant" scripts/instant-bot.c
for i in 1 2 3 4 5 6 7 8 9; do printf 'Instant %d\ninstant\n./instant 0\n' "$i"; done > "$work/bots.txt"
mkdir -p "$work/bots/instant" && cp "$work/instant/instant" "$work/bots/instant/"
FIGURE='s|^koth cpu: .* = \([0-9.]*\) µs/turn|\1|p' \
  pair "instant bots" "$koth" paths --bots-file "$work/bots.txt" --rounds 20 --seed 1 --report-cpu

echo "(4) rat race through the pipe, the sample C player, 4 boards: wall seconds"
pair "C player" "$koth" ratrace --bot bots/ratrace-colorscore-c --boards 4 --seed 1
