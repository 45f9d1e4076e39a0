#!/usr/bin/env bash
# 50 hill workers claiming and recording on one PostgreSQL (issue 58): a throwaway server on
# 127.0.0.1 (scripts/postgres-server.sh), a shared hill of VERSIONS versions (default 10,000)
# with DONE games already played (default 1,000,000: a claim reads past them) and QUEUED games
# in its queue (default 20,000, two near versions a game), written with PostgreSQL's own
# generate_series; then `cargo bench --bench hill_workers` runs WORKERS threads (default 50),
# each claiming and recording through koth's own statements, for at most SECONDS (default 30),
# and prints the median and p95 of each claim and each record, and of a bare round trip
# (`SELECT 1`) and a bare durable commit (a row inserted) each worker makes halfway through
# each game: the floors every statement and every write that waits for the disk pay then. GAME_MS (default 0) is each game's time between its claim and its record, as a
# real worker plays it: 0 is the tight loop (the database's throughput), a game's time the
# latency a worker sees. docs/benchmarks.md.
# PAGES=1 first times the hill's pages on it (`koth serve --db`, `koth leaderboard --db`).
# STATEMENTS=1 loads PostgreSQL's pg_stat_statements and prints, after the workers' run, each
# statement they ran with its calls and its mean time inside the server (no round trip).
# BENCHES="BEFORE AFTER" runs those builds of the bench (`cargo bench --bench hill_workers
# --no-run` names each) in turn on the one hill instead, twice, alternated: before and after.
# PG_OPTIONS adds server settings (`-c track_wal_io_timing=on` fills the log's sync time below).
# At the end: the write-ahead log the workers wrote (pg_stat_wal: records, full pages, bytes,
# flushes and their time).
#   [VERSIONS=10000] [DONE=1000000] [QUEUED=20000] [WORKERS=50] [SECONDS_MAX=30] [GAME_MS=0] \
#     [PAGES=1] [STATEMENTS=1] [BENCHES="BIN ..."] [PG_OPTIONS="-c NAME=VALUE ..."] bash scripts/bench-hill-workers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
versions=${VERSIONS:-10000}
done_games=${DONE:-1000000}
queued=${QUEUED:-20000}
workers=${WORKERS:-50}
seconds=${SECONDS_MAX:-30}
game_ms=${GAME_MS:-0}
cargo build --release --quiet
koth=$PWD/target/release/koth
work=$(mktemp -d /tmp/koth-bench-hill-workers-XXXXXX)
source scripts/postgres-server.sh
# As many connections as workers, and some to spare.
options="-c max_connections=$((workers + 20))"
options="$options ${PG_OPTIONS:-}"
[ -n "${STATEMENTS:-}" ] && options="$options -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track_planning=on"
as_postgres "$bin/pg_ctl -D $work/data -w -o '-p $port -k $work -c listen_addresses=127.0.0.1 $options' restart >/dev/null"

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
# The last fit and a king, as the pages read them.
sql "INSERT INTO hill_fit (version, rating, half_width, games, fitted_games)
     SELECT v, 1000 + v, 20.0, 2 * $done_games / $versions, $done_games
     FROM generate_series(0, $versions - 1) v"
sql "INSERT INTO hill_kings (version, since_game, since) VALUES ($versions - 1, 100, 0)"
sql "ANALYZE"
# The bench's own table: each worker's bare durable commit, the floor of a record's.
sql "CREATE TABLE public.koth_bench_flush (n INT)"
echo "A shared hill of $versions versions, $done_games games played and $queued queued, written in $(( $(date +%s) - start )) s"
if [ -n "${PAGES:-}" ]; then
  # The hill's pages on this shared hill before the workers play: `koth serve --db` on
  # 127.0.0.1, /api/hill (the first read, then from the memo), a bot's record and `koth
  # leaderboard --db`, each the median of its runs.
  python3 - "$koth" "$url" "$name" "$versions" <<'PY'
import socket, statistics, subprocess, sys, time, urllib.request
koth, url, name, versions = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
def timed(address):
    start = time.perf_counter()
    with urllib.request.urlopen(address, timeout=60) as answer:
        answer.read()
    return (time.perf_counter() - start) * 1000
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
start = time.perf_counter()
server = subprocess.Popen([koth, "serve", "--db", url, name, "--addr", f"127.0.0.1:{port}"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    for _ in range(600):
        try:
            socket.create_connection(("127.0.0.1", port)).close()
            break
        except OSError:
            time.sleep(0.1)
    else:
        sys.exit("koth serve never listened")
    listening = (time.perf_counter() - start) * 1000
    base = f"http://127.0.0.1:{port}"
    rows = {
        "koth serve --db, start until it listens": [listening],
        "/api/hill, first read": [timed(base + "/api/hill")],
        "/api/hill, from the memo (20)": [timed(base + "/api/hill") for _ in range(20)],
        "/api/hill/bots/NAME (20 bots)": [timed(f"{base}/api/hill/bots/bot{(versions // 20) * k}") for k in range(20)],
    }
finally:
    server.terminate()
    server.wait()
board = []
for _ in range(11):
    start = time.perf_counter()
    subprocess.run([koth, "leaderboard", "--db", url, name, "--format", "json"], check=True,
                   stdout=subprocess.DEVNULL)
    board.append((time.perf_counter() - start) * 1000)
rows["koth leaderboard --db (11 runs, process start included)"] = board
print(f"The hill's pages on PostgreSQL, {versions:,} versions (median ms):")
for what, times in rows.items():
    print(f"  {what}: {statistics.median(times):.1f} ms")
PY
fi
if [ -n "${BENCHES:-}" ]; then
  benches=($BENCHES)
else
  cargo bench --quiet --bench hill_workers --no-run
  benches=(cargo bench --quiet --bench hill_workers --)
fi
sql "SELECT pg_stat_reset_shared('wal')" >/dev/null
if [ -n "${STATEMENTS:-}" ]; then
  sql "CREATE EXTENSION IF NOT EXISTS pg_stat_statements SCHEMA public; SELECT public.pg_stat_statements_reset()" >/dev/null
fi
if [ -n "${BENCHES:-}" ]; then
  # Each build's bench in turn on this one hill, twice over, its queue shared (alternated, so
  # that neither always meets the other's dead rows): before against after in the same minutes.
  for round in 1 2; do
    for bench in "${benches[@]}"; do
      echo "$bench (round $round, load $(cut -d' ' -f1-3 /proc/loadavg)):"
      "$bench" --url "$url" --name "$name" --workers "$workers" --seconds "$seconds" \
        --game-ms "$game_ms"
    done
    benches=($(printf '%s\n' "${benches[@]}" | tac))
  done
else
  "${benches[@]}" --url "$url" --name "$name" --workers "$workers" --seconds "$seconds" \
    --game-ms "$game_ms"
fi
if [ -n "${STATEMENTS:-}" ]; then
  # Those the workers ran (each worker's open and its statements), dearest in all first.
  psql -q -h 127.0.0.1 -p "$port" -U koth -d hill -c "
    SELECT calls, round(mean_exec_time::NUMERIC, 3) AS mean_ms, plans,
        round(mean_plan_time::NUMERIC, 3) AS plan_ms,
        round(total_exec_time::NUMERIC) AS total_ms, shared_blks_hit / calls AS hits,
        shared_blks_read / calls AS reads,
        left(regexp_replace(query, '\s+', ' ', 'g'), 110) AS statement
    FROM public.pg_stat_statements WHERE calls >= $workers ORDER BY total_exec_time DESC LIMIT 15"
fi
# The write-ahead log the workers wrote: its records, full-page images and bytes.
sql "SELECT wal_records, wal_fpi, pg_size_pretty(wal_bytes) AS wal_bytes, wal_write, wal_sync,
         round(wal_sync_time::NUMERIC) AS sync_ms FROM pg_stat_wal"
