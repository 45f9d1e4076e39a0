#!/usr/bin/env bash
# Many watchers of games played live (issue 55 point 8; figures in docs/benchmarks.md, "Watching
# games live"): a tournament of noughts & crosses bots that sleep PAUSE_S per answer, served on
# 127.0.0.1, watched by examples/live_load.rs from 127.0.0.2, 127.0.0.3, … Each case runs twice,
# without watchers and with them, to set the games' pace side by side.
#   bash scripts/bench-live.sh             (a) 1,000 watchers of one game, (b) 100 games x 100
#   bash scripts/bench-live.sh GAMES WATCHERS_PER_GAME [ROUNDS] [PAUSE_S]   one case
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
cargo build --release --quiet --example live_load
# 10,000 streams are 10,000 sockets in koth and as many in the harness.
ulimit -n "$(ulimit -Hn)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() { # GAMES WATCHERS ROUNDS PAUSE_S
  for watchers in 0 "$2"; do
    echo "== $1 games at once, $watchers watchers each, $3 rounds, bots sleep $4 s per answer"
    timeout 900 target/release/examples/live_load target/release/koth "$work/$1-$watchers" \
      games="$1" jobs="$1" watchers="$watchers" rounds="$3" pause_s="$4" timeout_s=800
    rm -rf "$work/$1-$watchers"
  done
}
if [ $# -ge 2 ]; then
  run "$1" "$2" "${3:-6}" "${4:-0.2}"
else
  run 1 1000 4 0.2
  run 100 100 10 0.2
fi
