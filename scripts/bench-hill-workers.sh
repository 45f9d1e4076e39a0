#!/usr/bin/env bash
# 50 hill workers claiming and recording on one PostgreSQL (issue 58): a throwaway server on
# 127.0.0.1 (scripts/postgres-server.sh), a shared hill of VERSIONS versions (default 10,000)
# with DONE games already played (default 1,000,000: a claim reads past them) and QUEUED games
# in its queue (default 20,000, two near versions a game), written with PostgreSQL's own
# generate_series; then `cargo bench --bench hill_workers` runs WORKERS threads (default 50),
# each claiming and recording through koth's own statements, for at most SECONDS (default 30),
# and prints the median and p95 of each claim and each record. docs/benchmarks.md.
#   [VERSIONS=10000] [DONE=1000000] [QUEUED=20000] [WORKERS=50] [SECONDS_MAX=30] \
#     bash scripts/bench-hill-workers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
versions=${VERSIONS:-10000}
done_games=${DONE:-1000000}
queued=${QUEUED:-20000}
workers=${WORKERS:-50}
seconds=${SECONDS_MAX:-30}
cargo build --release --quiet
koth=$PWD/target/release/koth
work=$(mktemp -d /tmp/koth-bench-hill-workers-XXXXXX)
source scripts/postgres-server.sh
# As many connections as workers, and some to spare.
as_postgres "$bin/pg_ctl -D $work/data -w -o '-p $port -k $work -c listen_addresses=127.0.0.1 -c max_connections=$((workers + 20))' restart >/dev/null"

url=$(pg_database hill)
printf 'game = "tictactoe"\nseed = 1\nsandbox = false\n' > "$work/hill.toml"
"$koth" hill create "$work/hill.toml" --db "$url" >/dev/null
read -r name schema < <(psql -qtA -F ' ' -h 127.0.0.1 -p "$port" -U koth -d hill \
  -c "SELECT name, schema_name FROM public.koth_tournaments ORDER BY id DESC LIMIT 1")
sql() { psql -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U koth -d hill -c "SET search_path = $schema; $1"; }
start=$(date +%s)
sql "INSERT INTO bots (id, name, dir, command, build, origin, protocols, hash)
     SELECT v, 'bot' || v || ' v1', 'versions/x', '[\"true\"]', NULL, 'bench', '{}', 'x'
     FROM generate_series(0, $versions - 1) v"
sql "INSERT INTO hill_versions (id, name, version, digest, state, added_at, mu, sigma, games,
         faulted, counted_from)
     SELECT v, 'bot' || v, 1, 'x', 'active', 0, 25 + v / 100.0, 1.0, 0, 0, 0
     FROM generate_series(0, $versions - 1) v"
# The games played, then those queued, each seating two versions near in id.
for part in "0 $done_games done" "$done_games $((done_games + queued)) pending"; do
  set -- $part
  sql "INSERT INTO games (idx, seed, state, attempts, wall_ms)
       SELECT g, g::BIGINT * 7919, '$3', CASE WHEN '$3' = 'done' THEN 1 ELSE 0 END, 5.0
       FROM generate_series($1, $2 - 1) g"
  sql "INSERT INTO seats (game, seat, bot)
       SELECT g, s, (g * 13 + s * (1 + g % 19)) % $versions
       FROM generate_series($1, $2 - 1) g, generate_series(0, 1) s"
  sql "INSERT INTO hill_games (game, reason, rated, chosen_at)
       SELECT g, 'bench', CASE WHEN '$3' = 'done' THEN 1 ELSE 0 END, 0
       FROM generate_series($1, $2 - 1) g"
done
sql "INSERT INTO results (game, seat, bot, score, status, faults, answers, max_wall_ms,
         total_wall_ms, near_misses)
     SELECT game, seat, bot, seat, 'finished', '[]', 5, 1.0, 5.0, 0 FROM seats
     WHERE game < $done_games"
sql "ANALYZE"
echo "A shared hill of $versions versions, $done_games games played and $queued queued, written in $(( $(date +%s) - start )) s"
cargo bench --quiet --bench hill_workers -- --url "$url" --name "$name" --workers "$workers" \
  --seconds "$seconds"
