#!/usr/bin/env bash
# The hill's verdict on the original Grid-Routing Battle bots (docs/hill.md, "The original
# Grid-Routing Battle bots"): a hill from config/hill-paths.toml with the eight original bots,
# contained (the hill's `languages` lends Funnelweb its Python 2 by full path), played in steps
# of STEP games; after each step, the share of games nobody scored, the king, and Kendall's
# tau-b of the table against the challenge's published "Final results" and against a koth
# tournament of the same format (players and rounds), played first with as many games.
#   [KEEP=DIR] [TOURNAMENT=DIR] bash scripts/hill-originals.sh CHECKOUT [GAMES] [STEP] [SEED]
# CHECKOUT is a checkout of github.com/iatorm/grid-routing-battle.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=${1:?a checkout of iatorm/grid-routing-battle}
games=${2:-60}
step=${3:-10}
seed=${4:-1}
echo "seed $seed"
cargo build --release --quiet
koth=$PWD/target/release/koth
# KEEP=DIR keeps the tournament and the hill in DIR, to read again (koth leaderboard DIR/hill).
if [ -n "${KEEP:-}" ]; then
    work=$KEEP
    mkdir -p "$work"
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi
source scripts/grid-routing-hill.sh
bots=$(bash scripts/grid-routing-originals.sh "$checkout" "$work/bots")
grid_routing_hill_file "$seed" "$work/hill-paths.toml"
players=$(sed -n 's/^players_per_game *= *\([0-9]*\).*/\1/p' config/hill-paths.toml)
rounds=$(sed -n 's/^rounds *= *\([0-9]*\).*/\1/p' config/hill-paths.toml)
printf 'game = "paths"\nbots_dir = "%s"\ngames = %s\nplayers_per_game = %s\nrounds = %s\nanswer_ms = 1000\nclock = "cpu"\nbackstop_ms = 5000\nseed = %s\n%s\n' \
    "$bots" "$games" "$players" "$rounds" "$seed" "$languages" > "$work/tournament.toml"
# TOURNAMENT=DIR compares against a tournament of the same format played before (one of 40
# games of seven takes about as long as the hill's 40).
if [ -n "${TOURNAMENT:-}" ]; then
    "$koth" leaderboard "$TOURNAMENT" --format json > "$work/tournament.json"
else
    "$koth" tournament run "$work/tournament.toml" --dir "$work/tournament" > /dev/null
    "$koth" leaderboard "$work/tournament" --format json > "$work/tournament.json"
fi
"$koth" hill create "$work/hill-paths.toml" --dir "$work/hill" > /dev/null
"$koth" hill add "$bots"/* --hill "$work/hill" > /dev/null
played=0
while [ "$played" -lt "$games" ]; do
    "$koth" hill run "$work/hill" --games "$step" > /dev/null 2>&1
    played=$((played + step))
    "$koth" leaderboard "$work/hill" --format json > "$work/hill.json"
    python3 - "$work/hill.json" "$work/tournament.json" "$work/hill/results.sqlite" "$checkout/graphical_log.txt" <<'PY'
import collections, itertools, json, sqlite3, sys
hill, tournament = (json.load(open(p)) for p in sys.argv[1:3])
games = collections.defaultdict(list)
for game, score in sqlite3.connect(sys.argv[3]).execute("SELECT game, score FROM results"):
    games[game].append(score)
lines = open(sys.argv[4]).read().split("Final results:")[1].splitlines()
# The ranking's lines, up to "The following bots were too slow:" and its own list.
published = [l.split(":")[0].strip()
             for l in itertools.takewhile(lambda l: l.startswith("  "), lines[1:])]
def tau(a, b):
    common = [n for n in a if n in b]
    ra, rb = ({n: k for k, n in enumerate(o)} for o in (a, b))
    s = sum((1 if (ra[x] - ra[y]) * (rb[x] - rb[y]) > 0 else -1)
            for i, x in enumerate(common) for y in common[i + 1:])
    pairs = len(common) * (len(common) - 1) / 2
    return s / pairs
order = [s["name"] for s in hill["standings"]]
played = [s["name"] for s in tournament["standings"]]
nobody = sum(1 for v in games.values() if max(v) == 0)
per_bot = sum(s["games"] for s in hill["standings"]) / max(len(order), 1)
lead = hill.get("lead")
lead = (f" ({lead['first']} leads {lead['second']} by {lead['by']:.0f} ± {lead['interval']:.0f})"
        if lead else "")
print(f"{len(games)} games ({per_bot:.0f} per bot): nobody scored in {nobody} "
      f"({100 * nobody / max(len(games), 1):.0f}%); king {hill['king']}{lead}; "
      f"tau-b against 2015 {tau(order, published):+.2f}, against the tournament "
      f"{tau(order, played):+.2f}; the tournament against 2015 {tau(played, published):+.2f}")
print("  hill:", ", ".join(order))
PY
done
