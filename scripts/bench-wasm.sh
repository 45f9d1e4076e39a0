#!/usr/bin/env bash
# What a WASI bot costs against a process (figures in docs/benchmarks.md, "WASI bots"):
#  (1) starting one for a game, one answer's round trip, and fuel metering's cost on a C bot's
#      work: `cargo bench --bench wasm`;
#  (2) a 100-round paths game of the sample C bot Column, as a contained process
#      (bots/paths-column, --sandbox) and as WASI (bots/wasi/paths-column, the same source), the
#      two run in turn by farm-bench, medians of wall seconds.
# Usage: bash scripts/bench-wasm.sh   (from anywhere; needs clang for wasm32-wasi, gcc, bwrap)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
koth=$PWD/target/release/koth
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The two bots, built from the same source into a folder of their own.
cp -r bots/paths-column "$work/native"
mkdir -p "$work/wasi/paths-column"
cp bots/wasi/paths-column/bot.toml "$work/wasi/paths-column/"
mkdir -p "$work/paths-column" && cp bots/paths-column/column.c "$work/paths-column/"
(cd "$work/native" && gcc -O2 -o column column.c)
(cd "$work/wasi/paths-column" && clang --target=wasm32-wasi -O2 -o column.wasm ../../paths-column/column.c)

cargo bench --bench wasm -- --noplot 2>&1 | grep -E '^(start|answer|work)|time:'
farm-bench -n 5 --timeout 600 \
  --vs "$koth paths --bot $work/native --rounds 100 --seed 1 --sandbox --log-dir $work/out-native" \
  -- "$koth" paths --bot "$work/wasi/paths-column" --rounds 100 --seed 1 --log-dir "$work/out-wasi"
