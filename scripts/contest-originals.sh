#!/usr/bin/env bash
# A contest's final on the original Grid-Routing Battle bots (docs/contest.md, "Measured"): a
# hill from config/hill-paths.toml with a [contest] of 8 finalists, the eight original bots
# added, closed by hand and its final played by `hill run` until it stops by its rule or its
# budget. Prints the final's table against the challenge's published "Final results" (Kendall's
# tau-b, the pairs it declared tied) and, for the same number of games, a koth tournament of
# the same format (a round robin: 7 of the 8 a game) read by the same rule: which adjacent
# pairs of its table are apart at 95% (ROUND_ROBIN=no leaves it out: it takes as long again).
#   [KEEP=DIR] [ROUND_ROBIN=no] bash scripts/contest-originals.sh CHECKOUT [BUDGET] [SEED]
# CHECKOUT is a checkout of github.com/iatorm/grid-routing-battle; BUDGET the final's most games
# (default 560, ten rounds of 56).
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=${1:?a checkout of iatorm/grid-routing-battle}
budget=${2:-560}
seed=${3:-1}
echo "seed $seed"
cargo build --release --quiet
koth=$PWD/target/release/koth
if [ -n "${KEEP:-}" ]; then
    work=$KEEP
    mkdir -p "$work"
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi
source scripts/grid-routing-hill.sh
bots=$(bash scripts/grid-routing-originals.sh "$checkout" "$work/bots")
grid_routing_hill_file "$seed" "$work/contest.toml"
# Closed by hand below: the close in the file is only a far date.
printf '[contest]\ncloses = "2100-01-01T00:00:00Z"\nfinalists = 8\nbudget = %s\n' "$budget" \
    >> "$work/contest.toml"
"$koth" hill create "$work/contest.toml" --dir "$work/hill" > /dev/null
"$koth" hill add "$bots"/* --hill "$work/hill" > /dev/null
"$koth" contest close "$work/hill" > /dev/null
started=$(date +%s)
"$koth" hill run "$work/hill" > "$work/final.log" 2>&1
seconds=$(($(date +%s) - started))
games=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["games"])' "$work/hill/contest/final.json")
echo "the final: $games games in $seconds s"
players=$(sed -n 's/^players_per_game *= *\([0-9]*\).*/\1/p' config/hill-paths.toml)
rounds=$(sed -n 's/^rounds *= *\([0-9]*\).*/\1/p' config/hill-paths.toml)
if [ "${ROUND_ROBIN:-yes}" = no ]; then
    echo '{"standings": []}' > "$work/tournament.json"
else
    printf 'game = "paths"\nbots_dir = "%s"\ngames = %s\nplayers_per_game = %s\nrounds = %s\nanswer_ms = 1000\nclock = "cpu"\nbackstop_ms = 5000\nseed = %s\n%s\n' \
        "$bots" "$games" "$players" "$rounds" "$seed" "$languages" > "$work/tournament.toml"
    started=$(date +%s)
    "$koth" tournament run "$work/tournament.toml" --dir "$work/tournament" > /dev/null 2>&1
    echo "the tournament: $games games in $(($(date +%s) - started)) s"
    "$koth" leaderboard "$work/tournament" --format json > "$work/tournament.json"
fi
python3 - "$work/hill/contest/final.json" "$work/tournament.json" "$checkout/graphical_log.txt" <<'PY'
import itertools, json, sys
final, tournament = (json.load(open(p)) for p in sys.argv[1:3])
lines = open(sys.argv[3]).read().split("Final results:")[1].splitlines()
published = [l.split(":")[0].strip()
             for l in itertools.takewhile(lambda l: l.startswith("  "), lines[1:])]
def tau(a, b):
    common = [n for n in a if n in b]
    ra, rb = ({n: k for k, n in enumerate(o)} for o in (a, b))
    s = sum((1 if (ra[x] - ra[y]) * (rb[x] - rb[y]) > 0 else -1)
            for i, x in enumerate(common) for y in common[i + 1:])
    return s / (len(common) * (len(common) - 1) / 2)
def bare(name):  # "Funnelweb v1" -> "Funnelweb"
    return name.rsplit(" v", 1)[0]
names = [bare(n) for n in final["finalists"]]
table = final["table"]["lines"]
order = [names[l["finalist"]] for l in table]
print(f"final: {final['stopped']}; {final['rounds']} rounds, {final['games']} games, "
      f"{final['replayed']} played again")
for l in table:
    print(f"  {l['place']:2}. {names[l['finalist']]:15} {l['value']:8.1f} ± {l['interval']:6.1f}"
          f"  {'apart from the next' if l['apart_from_next'] else ('tied with the next' if l['apart_from_next'] is False else '')}")
ties = [f"{bare(a)} and {bare(b)}" for a, b in final["ties"]]
print(f"  tau-b against 2015 {tau(order, published):+.2f}; declared tied: "
      f"{', '.join(ties) if ties else 'none'}")
standings = tournament["standings"]
if not standings:
    sys.exit(0)
apart = [s["figure"] - (s["figure_interval"] or 0) > n["figure"] + (n["figure_interval"] or 0)
         for s, n in zip(standings, standings[1:])]
played = [s["name"] for s in standings]
print(f"tournament of as many games: adjacent pairs apart {sum(apart)} of {len(apart)} "
      f"(the final: {sum(1 for l in table if l['apart_from_next'])} of {len(table) - 1}); "
      f"tau-b against 2015 {tau(played, published):+.2f}")
for s, a in zip(standings, apart + [None]):
    print(f"  {s['rank']:2}. {s['name']:15} {s['figure']:8.1f} ± {s['figure_interval'] or 0:6.1f}"
          f"  {'apart from the next' if a else ('not apart from the next' if a is False else '')}")
PY
