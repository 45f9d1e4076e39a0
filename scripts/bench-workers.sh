#!/usr/bin/env bash
# Games per second of one tournament played by 1, 2 and 3 `koth worker` processes through a
# PostgreSQL server started for the run, against SQLite in one process; the database's own cost
# per game (claim + result, from the workers' logs); and, with bots that sleep 50 ms per answer
# (so the cores are not the limit), throughput for 1 to 4 workers; and many workers at once
# (3, then 50 processes on this machine) against the server's default settings: the most
# connections the server had open, any worker's connection error, and the database's cost per
# game of each. Figures go in README.md and docs/workers.md.
#   bash scripts/bench-workers.sh [GAMES] [SLEEPY_GAMES] [MANY_GAMES]
#   (default 60, 32 and 300; seed 1)
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-60}
sleepy_games=${2:-32}
many_games=${3:-300}
cargo build --release --quiet
koth=$PWD/target/release/koth
work=$(mktemp -d /tmp/koth-bench-workers-XXXXXX)
source scripts/postgres-server.sh

# Four paths bots that answer at once (or after a sleep): what is measured is koth.
gcc -O2 -o "$work/instant-bot" scripts/instant-bot.c
tournament() { # NAME GAMES DELAY_MS
  local root="$work/$1"
  mkdir -p "$root"
  local list=""
  for i in 1 2 3 4; do
    mkdir -p "$root/bot$i"
    cp "$work/instant-bot" "$root/bot$i/instant"
    printf 'name = "Bot %d"\nrun = "./instant %d"\ngames = ["paths"]\n' "$i" "$3" > "$root/bot$i/bot.toml"
    list+="\"bot$i\", "
  done
  cat > "$root/t.toml" <<TOML
game = "paths"
bots = [${list%, }]
players_per_game = 2
games = $2
rounds = 3
answer_ms = 1000
clock = "wall"
jobs = 1
seed = 1
sandbox = false
TOML
  echo "$root"
}
seconds() { python3 -c "import time; print(time.monotonic())"; }

# WORKERS ROOT: submits ROOT's tournament to a fresh database and plays it with WORKERS workers
# of one game at a time; prints the seconds it took.
with_workers() {
  local db="w$RANDOM$RANDOM" root=$2
  local url; url=$(pg_database "$db")
  "$koth" tournament submit "$root/t.toml" --db "$url" >/dev/null
  local start; start=$(seconds)
  local pids=()
  for i in $(seq "$1"); do
    "$koth" worker --db "$url" --root "$root" --dir "$root/$db-$i" --jobs 1 >/dev/null 2>&1 &
    pids+=($!)
  done
  wait "${pids[@]}"
  local end; end=$(seconds)
  grep -ho 'db_ms=[0-9.]*' "$root"/"$db"-*/tournament.log | cut -d= -f2 >> "$work/db_ms.txt"
  python3 -c "print(f'{$end - $start:.2f}')"
}

echo "$(nproc) cores; $games games of 3 rounds between 2 of 4 instant C bots; seed 1"
root=$(tournament instant "$games" 0)
start=$(seconds)
"$koth" tournament run "$root/t.toml" --dir "$root/sqlite" >/dev/null 2>&1
end=$(seconds)
python3 -c "print(f'SQLite, one process, 1 game at a time: {$games / ($end - $start):.1f} games/s')"
: > "$work/db_ms.txt"
for workers in 1 2 3; do
  s=$(with_workers "$workers" "$root")
  python3 -c "print(f'PostgreSQL, {$workers} worker(s) of 1 game at a time: {$games / $s:.1f} games/s')"
done
python3 - "$work/db_ms.txt" <<'PY'
import statistics, sys
ms = [float(x) for x in open(sys.argv[1]) if x.strip()]
print(f"database cost per game (claim + result, {len(ms)} games): median {statistics.median(ms):.2f} ms, "
      f"p95 {sorted(ms)[int(0.95 * (len(ms) - 1))]:.2f} ms")
PY

echo "$sleepy_games games whose bots sleep 50 ms per answer:"
root=$(tournament sleepy "$sleepy_games" 50)
one=""
for workers in 1 2 3 4; do
  s=$(with_workers "$workers" "$root")
  rate=$(python3 -c "print($sleepy_games / $s)")
  [ -z "$one" ] && one=$rate
  python3 -c "print(f'  {$workers} worker(s): {$rate:.2f} games/s = {$rate / $one:.2f} x one worker (ideal {$workers})')"
done

echo "$many_games games of instant bots, many workers of 1 game at a time at once, server defaults" \
  "(max_connections $(psql -qtA -h 127.0.0.1 -p "$port" -U koth -d postgres -c 'SHOW max_connections'))":
root=$(tournament many "$many_games" 0)
# The server's CPU time so far, in ms: the postmaster's, its reaped backends' and its live
# processes' (each connection is a backend process that ends with it).
server_cpu() {
  python3 - "$(head -1 "$work/data/postmaster.pid")" <<'PY'
import os, sys
tick = os.sysconf("SC_CLK_TCK")
def fields(pid):
    return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
master = sys.argv[1]
f = fields(master)
total = sum(int(x) for x in f[11:15])  # utime stime cutime cstime
for pid in os.listdir("/proc"):
    try:
        c = fields(pid)
    except (OSError, ValueError):
        continue
    if pid.isdigit() and c[1] == master:
        total += int(c[11]) + int(c[12])
print(total * 1000 / tick)
PY
}
for workers in 3 50; do
  db="m$workers"
  url=$(pg_database "$db")
  "$koth" tournament submit "$root/t.toml" --db "$url" >/dev/null
  # The server's open connections to the database, sampled every 50 ms while the workers play.
  (
    while :; do
      psql -qtA -h 127.0.0.1 -p "$port" -U koth -d postgres \
        -c "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = '$db'" 2>/dev/null
      sleep 0.05
    done
  ) > "$work/connections-$db.txt" &
  sampler=$!
  cpu_before=$(server_cpu)
  start=$(seconds)
  pids=()
  for i in $(seq "$workers"); do
    "$koth" worker --db "$url" --root "$root" --dir "$root/$db-$i" --jobs 1 >/dev/null \
      2>"$root/$db-$i.err" &
    pids+=($!)
  done
  failed=0
  for pid in "${pids[@]}"; do wait "$pid" || failed=$((failed + 1)); done
  end=$(seconds)
  kill "$sampler"; wait "$sampler" 2>/dev/null || true
  sleep 1 # the workers' backends exit and are reaped
  cpu_ms=$(python3 -c "print(($(server_cpu) - $cpu_before) / $many_games)")
  errors=$(cat "$root"/"$db"-*.err | grep -ci 'connect\|too many clients' || true)
  done_games=$(psql -qtA -h 127.0.0.1 -p "$port" -U koth -d "$db" \
    -c "SELECT COUNT(*) FROM koth_t1.games WHERE state = 'done'")
  grep -ho 'db_ms=[0-9.]*' "$root"/"$db"-*/tournament.log \
    2>/dev/null | cut -d= -f2 > "$work/db_ms-$db.txt"
  python3 - "$work/db_ms-$db.txt" "$work/connections-$db.txt" <<PY
import statistics, sys
ms = [float(x) for x in open(sys.argv[1]) if x.strip()]
peak = max([int(x) for x in open(sys.argv[2]) if x.strip().isdigit()] or [0])
print(f"  {$workers} workers: {$done_games} of $many_games games done in {$end - $start:.1f} s, "
      f"{$failed} worker(s) failed, {$errors} connection error line(s), at most {peak} connections; "
      f"the server's CPU per game {$cpu_ms:.2f} ms; a game's wait on the database median {statistics.median(ms):.2f} ms, "
      f"p95 {sorted(ms)[int(0.95 * (len(ms) - 1))]:.2f} ms ({len(ms)} games)")
PY
done
