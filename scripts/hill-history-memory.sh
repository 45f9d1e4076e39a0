#!/usr/bin/env bash
# What `hill run` holds once it has read matchmaking's history (docs/benchmarks.md, "the
# history at start"): a hill of two sample bots whose `hill_pairs` and `hill_lineups` are given
# PAIRS rows each (default 6,000,000: a hill of 10,000,000 games of two among 10,000 versions
# has that many pairs met), PAID_SHARE percent of the line-ups with a game that paid someone
# (default 98), then `hill run --games 1` timed by /usr/bin/time (wall, CPU, peak resident).
#   bash scripts/hill-history-memory.sh [KOTH ...]    (each binary in turn, on its own copy;
#                                                      default: this checkout's release build)
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${PAIRS:-6000000}
paid=${PAID_SHARE:-98}
if [ $# -eq 0 ]; then
  cargo build --release --quiet
  set -- "$PWD/target/release/koth"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'game = "tictactoe"\nrounds = 1\nseed = 1\njobs = 1\nsandbox = false\nplacement_games = 0\n' \
  > "$work/hill.toml"
"$1" hill create "$work/hill.toml" --dir "$work/made" > /dev/null
"$1" hill add bots/ttt-python bots/ttt-js --hill "$work/made" > /dev/null
# Versions 100.. against 10000..: keys no real version has, so the two bots' games are untouched.
sqlite3 "$work/made/results.sqlite" "
  WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < $pairs - 1)
  INSERT INTO hill_pairs (a, b, games, alike)
    SELECT 100 + i / 3000, 10000 + i % 3000, 1 + i % 7, i % 2 FROM n;
  WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < $pairs - 1)
  INSERT INTO hill_lineups (lineup, games, alike)
    SELECT (100 + i / 3000) || ',' || (10000 + i % 3000), 1 + i % 7,
           CASE WHEN i % 100 < $paid THEN 0 ELSE 1 + i % 7 END FROM n;"
for koth in "$@"; do
  rm -rf "$work/hill"
  cp -a "$work/made" "$work/hill"
  /usr/bin/time -f "$koth: %e s wall, %U s user, %S s system, peak resident %M KB" \
    "$koth" hill run "$work/hill" --games 1 2>&1 > /dev/null | tail -1
done
