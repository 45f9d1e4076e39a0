#!/usr/bin/env bash
# How fast the dashboard answers with a large tournament: builds a paths tournament of GAMES
# games (default 10,000) between two instant C bots at one round a game, serves it with
# `koth serve`, and times each address with curl: the median and the slowest of 20 requests.
# The figures go in docs/benchmarks.md.
#   bash scripts/bench-dashboard.sh [GAMES]
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-10000}
cargo build --release --quiet
koth=$PWD/target/release/koth
work=$(mktemp -d)
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
gcc -O2 -o "$work/instant" scripts/instant-bot.c
for i in 1 2; do
  mkdir -p "$work/instant$i"
  cp "$work/instant" "$work/instant$i/"
  printf 'name = "Instant %d"\nrun = "./instant"\ngames = ["paths"]\n' "$i" > "$work/instant$i/bot.toml"
done
cat > "$work/bench.toml" <<TOML
game = "paths"
bots = ["$work/instant1", "$work/instant2"]
games = $games
rounds = 1
sandbox = false
seed = 1
TOML
start=$(date +%s)
"$koth" tournament run "$work/bench.toml" --dir "$work/t" > /dev/null 2>&1
echo "a tournament of $games games built in $(( $(date +%s) - start )) s; cores: $(nproc)"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$koth" serve "$work/t" --addr "127.0.0.1:$port" > /dev/null 2>&1 &
server=$!
until curl -s -o /dev/null "http://127.0.0.1:$port/"; do sleep 0.1; done
for path in / /api/progress /api/leaderboard "/api/games" "/api/games?bot=Instant%201&outcome=finished" \
    /plots/ratings.svg /games/0; do
  for _ in $(seq 20); do
    curl -s -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$port$path"
  done | sort -n | awk -v p="$path" '{ t[NR] = $1 * 1000 } END {
    printf "%-45s median %6.1f ms   slowest %6.1f ms\n", p, (t[10] + t[11]) / 2, t[NR] }'
done
