#!/usr/bin/env bash
# How fast the dashboard answers with a large tournament: builds a paths tournament of GAMES
# games (default 10,000) between two instant C bots at one round a game, serves it with
# `koth serve`, and times each address with curl: the median and the slowest of 20 requests.
# Then the same tournament in PostgreSQL (a server started for the run, the games played by
# `koth worker`), served with `koth serve --db`: its first request, which copies what the page
# needs from the database, is timed apart. The figures go in docs/benchmarks.md.
#   bash scripts/bench-dashboard.sh [GAMES]
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-10000}
cargo build --release --quiet
koth=$PWD/target/release/koth
work=$(mktemp -d /tmp/koth-bench-dashboard-XXXXXX)
source scripts/postgres-server.sh
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; as_postgres "$bin/pg_ctl -D $work/data -m immediate stop" >/dev/null 2>&1; rm -rf "$work"' EXIT
gcc -O2 -o "$work/instant" scripts/instant-bot.c
for i in 1 2; do
  mkdir -p "$work/instant$i"
  cp "$work/instant" "$work/instant$i/"
  printf 'name = "Instant %d"\nrun = "./instant"\ngames = ["paths"]\n' "$i" > "$work/instant$i/bot.toml"
done
cat > "$work/bench.toml" <<TOML
game = "paths"
bots = ["instant1", "instant2"]
games = $games
rounds = 1
sandbox = false
seed = 1
TOML

# ARGS...: serves the tournament ARGS name, and times each address.
time_addresses() {
  local port
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "$koth" serve "$@" --addr "127.0.0.1:$port" > /dev/null 2>&1 &
  server=$!
  until curl -s -o /dev/null "http://127.0.0.1:$port/"; do sleep 0.1; done
  curl -s -o /dev/null -w 'first /api/progress: %{time_total}\n' "http://127.0.0.1:$port/api/progress" |
    awk '{ printf "%-45s %6.1f ms\n", $1 " " $2, $3 * 1000 }'
  for path in / /api/progress /api/leaderboard "/api/games" "/api/games?bot=Instant%201&outcome=finished" \
      /plots/ratings.svg /games/0; do
    for _ in $(seq 20); do
      curl -s -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$port$path"
    done | sort -n | awk -v p="$path" '{ t[NR] = $1 * 1000 } END {
      printf "%-45s median %6.1f ms   slowest %6.1f ms\n", p, (t[10] + t[11]) / 2, t[NR] }'
  done
  kill "$server"
  server=""
}

start=$(date +%s)
"$koth" tournament run "$work/bench.toml" --dir "$work/t" > /dev/null 2>&1
echo "SQLite: a tournament of $games games built in $(( $(date +%s) - start )) s; cores: $(nproc)"
time_addresses "$work/t"

url=$(pg_database dashboard)
name=$("$koth" tournament submit "$work/bench.toml" --db "$url" | tail -1)
start=$(date +%s)
"$koth" worker --db "$url" --root "$work" --dir "$work/worker" > /dev/null 2>&1
echo "PostgreSQL: the same tournament played by a worker in $(( $(date +%s) - start )) s"
time_addresses --db "$url" "$name"
