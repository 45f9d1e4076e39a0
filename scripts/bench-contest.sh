#!/usr/bin/env bash
# The pace of a contest's final on this machine (docs/benchmarks.md, "Contests"): a hill of a
# field of 100 bots on a PostgreSQL server started for the run, ranked for RANKED games, closed
# by hand, and its final among the top 16 (paths, 2 a game, 3 rounds; a round is 240 games)
# played for one round by its `hill run` alone and with 1 and 2 `koth worker`s beside it, each
# playing one game at a time; with bots that answer at once (the cores are the limit) and bots
# that sleep 20 ms an answer (they are not). Prints games per second and the wall time of the
# round; `cargo bench --bench hill -- final` says how many rounds a final needs.
#   bash scripts/bench-contest.sh [RANKED]   (default 300; seed 1)
set -euo pipefail
cd "$(dirname "$0")/.."
ranked=${1:-300}
cargo build --release --quiet
koth=$PWD/target/release/koth
work=$(mktemp -d /tmp/koth-bench-contest-XXXXXX)
source scripts/postgres-server.sh
gcc -O2 -o "$work/instant-bot" scripts/instant-bot.c
seconds() { python3 -c "import time; print(time.monotonic())"; }

field() { # DELAY_MS: a field of 100 bots answering after DELAY_MS; prints its folder
    local root="$work/field-$1"
    for i in $(seq 100); do
        mkdir -p "$root/bot$i"
        cp "$work/instant-bot" "$root/bot$i/instant"
        printf 'name = "Bot %d"\nrun = "./instant %d"\ngames = ["paths"]\n' "$i" "$1" > "$root/bot$i/bot.toml"
    done
    echo "$root"
}

final() { # DELAY_MS WORKERS: one round of the final, timed
    local root="$work/field-$1" db="c$1w$2"
    local url; url=$(pg_database "$db")
    mkdir -p "$work/$db-root"
    cat > "$work/$db.toml" <<TOML
game = "paths"
players_per_game = 2
rounds = 3
answer_ms = 1000
clock = "wall"
seed = 1
sandbox = false
jobs = 1
placement_games = 2
[contest]
closes = "2100-01-01T00:00:00Z"
finalists = 16
budget = 240
TOML
    "$koth" hill create "$work/$db.toml" --db "$url" > /dev/null
    "$koth" hill add "$root"/bot* --db "$url" "$db" --dir "$work/$db-adder" > /dev/null
    "$koth" hill run --db "$url" "$db" --games "$ranked" --jobs 2 --dir "$work/$db-ranked" > /dev/null 2>&1
    "$koth" contest close "$db" --db "$url" > /dev/null
    local pids=()
    for i in $(seq "$2"); do
        "$koth" worker --db "$url" --root "$work/$db-root" --jobs 1 --wait \
            --dir "$work/$db-w$i" > /dev/null 2>&1 &
        pids+=($!)
    done
    local start; start=$(seconds)
    "$koth" hill run --db "$url" "$db" --jobs 1 --dir "$work/$db-run" > /dev/null 2>&1
    local end; end=$(seconds)
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2> /dev/null || true; done
    wait "${pids[@]}" 2> /dev/null || true
    local games; games=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["games"])' "$work/$db-run/contest/final.json")
    python3 -c "print(f'  hill run + {$2} worker(s): {$games} games in {$end - $start:.1f} s, {$games / ($end - $start):.1f} games/s')"
}

echo "$(nproc) cores; a field of 100 paths bots, $ranked ranked games, then one round of a top-16 final (240 games); seed 1"
for delay in 0 20; do
    field "$delay" > /dev/null
    echo "bots answering after $delay ms:"
    for workers in 0 1 2; do
        final "$delay" "$workers"
    done
done
