#!/usr/bin/env bash
# A hill's first hour through its door (docs/hill.md, "The original Grid-Routing Battle bots"):
# a hill from config/hill-paths.toml served by `hill run --serve`, the eight original bots sent
# one after another by four authors with `hill submit --wait`; prints each bot's time from
# upload to active (or refused), then the hill's status after GAMES more rated games.
#   bash scripts/hill-door-originals.sh CHECKOUT [GAMES] [SEED]
# CHECKOUT is a checkout of github.com/iatorm/grid-routing-battle.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=${1:?a checkout of iatorm/grid-routing-battle}
games=${2:-20}
seed=${3:-1}
echo "seed $seed"
cargo build --release --quiet
koth=$PWD/target/release/koth
work=$(mktemp -d)
run=
trap '[ -n "$run" ] && kill "$run" 2> /dev/null; wait; rm -rf "$work"' EXIT
source scripts/grid-routing-hill.sh
bots=$(bash scripts/grid-routing-originals.sh "$checkout" "$work/bots")
grid_routing_hill_file "$seed" "$work/hill-paths.toml"
"$koth" hill create "$work/hill-paths.toml" --dir "$work/hill" > /dev/null
for author in ada bob cy dee; do
    "$koth" hill author add "$author" --hill "$work/hill" | tail -1 > "$work/$author.token"
done
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$koth" hill run "$work/hill" --serve "127.0.0.1:$port" > "$work/run.out" 2> "$work/run.err" &
run=$!
until curl -sf "http://127.0.0.1:$port/api/hill" > /dev/null; do sleep 0.2; done
authors=(ada ada bob bob cy cy dee dee)
k=0
for bot in randombuilder checkpoint connector funnelweb annoyance explorer watermelon peacemaker; do
    author=${authors[$k]}
    k=$((k + 1))
    start=$(date +%s.%N)
    if said=$("$koth" hill submit "$bots/$bot" --to "http://127.0.0.1:$port" \
        --token "$(cat "$work/$author.token")" --wait 2>&1); then
        outcome=active
    else
        outcome=refused
    fi
    end=$(date +%s.%N)
    printf '%-14s %-8s %5.1f s  (%s)\n' "$bot" "$outcome" "$(echo "$end - $start" | bc)" "$author"
    [ "$outcome" = active ] || printf '%s\n' "$said" | tail -5
done
target=$(($(sqlite3 "$work/hill/results.sqlite" "SELECT COUNT(*) FROM hill_games WHERE rated = 1") + games))
while [ "$(sqlite3 "$work/hill/results.sqlite" "SELECT COUNT(*) FROM hill_games WHERE rated = 1")" -lt "$target" ]; do
    sleep 2
done
"$koth" hill status "$work/hill"
echo "seats per game: $(sqlite3 "$work/hill/results.sqlite" \
    "SELECT GROUP_CONCAT(n, ' ') FROM (SELECT COUNT(*) AS n FROM seats GROUP BY game ORDER BY game)")"
