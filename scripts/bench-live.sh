#!/usr/bin/env bash
# Many watchers of games played live (issue 55 point 8; figures in docs/benchmarks.md, "Watching
# games live"): a tournament of noughts & crosses bots that sleep PAUSE_S per answer, served on
# 127.0.0.1, watched by examples/live_load.rs from 127.0.0.2, 127.0.0.3, … Each case runs twice,
# without watchers and with them, to set the games' pace side by side. The bots are a few lines
# of C compiled here: asleep, they cost no CPU, so what the machine spends is the server's and
# the harness's (200 Python bots alone saturated its two cores).
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
# MOVE <cells>: after PAUSE_S seconds, the first free cell ('.'); every other line ignored.
cat > "$work/sleep_bot.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
int main(int argc, char **argv) {
  double pause = argc > 1 ? atof(argv[1]) : 0.2;
  struct timespec nap = {(time_t)pause, (long)((pause - (time_t)pause) * 1e9)};
  char line[4096];
  while (fgets(line, sizeof line, stdin)) {
    char cells[64];
    if (sscanf(line, "MOVE %63s", cells) != 1) continue;
    char *free_cell = strchr(cells, '.');
    nanosleep(&nap, NULL);
    printf("%ld\n", free_cell ? (long)(free_cell - cells) : 0L);
    fflush(stdout);
  }
  return 0;
}
C
gcc -O2 -o "$work/sleep_bot" "$work/sleep_bot.c"
run() { # GAMES WATCHERS ROUNDS PAUSE_S
  for watchers in 0 "$2"; do
    echo "== $1 games at once, $watchers watchers each, $3 rounds, bots sleep $4 s per answer"
    timeout 900 target/release/examples/live_load target/release/koth "$work/$1-$watchers" \
      games="$1" jobs="$1" watchers="$watchers" rounds="$3" pause_s="$4" timeout_s=800 \
      bot="$work/sleep_bot"
    rm -rf "$work/$1-$watchers"
  done
}
if [ $# -ge 2 ]; then
  run "$1" "$2" "${3:-6}" "${4:-0.2}"
else
  run 1 1000 4 0.2
  run 100 100 10 0.2
fi
