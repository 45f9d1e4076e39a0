#!/usr/bin/env bash
# The hill's figures (docs/hill.md):
#   1. `cargo bench --bench hill`: ranking speed of the hill's matchmaking against a round robin
#      and random pairs, a newcomer's placement against a gauntlet's, the cost of choosing a game among 1,000
#      versions and of the refit of 1,000 versions and 1,000,000 games (simulated games);
#   2. the leaderboard of a hill of 1,000 versions and 1,000,000 games (`koth leaderboard`,
#      median of 21 runs, the process's start included);
#   3. the hill's web pages on the same hill (`koth serve`): the time to answer `/api/hill` (the
#      leaderboard and the last games; the first read after a change, and from the memo),
#      a bot's record `/api/hill/bots/NAME`, its rating plot and the page itself;
#   4. games per second of a hill of 4 instant bots against a tournament of the same bots
#      and game (paths, 2 players a game, 10 rounds, 200 games).
#   bash scripts/bench-hill.sh
#   VERSIONS=10000 GAMES=10000000 bash scripts/bench-hill.sh   (another hill's size for 1-3;
#   WORK=DIR keeps the database there, and a database already there is used again;
#   PARTS="2 3" runs only those parts; GAME=paths makes the hill of 2 and 3 a points hill of
#   three seats a game instead of tictactoe's; FAR_SHARE=S seats that share of tictactoe's
#   games against any version rather than one of the 19 after it, 0 unless given: 0.62 spreads
#   10,000,000 games among 10,000 versions over some 6,000,000 pairs, the rest some 190,000)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
koth=$PWD/target/release/koth
versions=${VERSIONS:-1000}
games=${GAMES:-1000000}
if [ -n "${WORK:-}" ]; then
  work=$WORK
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi

parts=${PARTS:-1 2 3 4}
part() { [[ " $parts " == *" $1 "* ]]; }

if part 1; then
cargo bench --quiet --bench hill -- --versions="$versions" --games="$games"
fi

# 2. A hill database of that many versions and games, written directly: tictactoe's (a
# placement fit, two seats), or with GAME=paths a points hill (games of three, each seat scored
# 0-9 points, the line-ups mostly distinct as a hill's matchmaking makes them).
game=${GAME:-tictactoe}
case $game in
  tictactoe | paths) ;;
  *) echo "GAME=$game: part 2 writes a tictactoe or a paths hill" >&2; exit 2 ;;
esac
if (part 2 || part 3) && [ "$game" = paths ] && [ ! -f "$work/big/results.sqlite" ]; then
printf 'game = "paths"\nplayers_per_game = 3\nrounds = 10\nseed = 1\nsandbox = false\n' > "$work/hill-big.toml"
"$koth" hill create "$work/hill-big.toml" --dir "$work/big" > /dev/null
SQLITE_TMPDIR=$work python3 scripts/bench-hill-points.py "$work/big/results.sqlite" "$versions" "$games"
fi
if (part 2 || part 3) && [ ! -f "$work/big/results.sqlite" ]; then
printf 'game = "tictactoe"\nseed = 1\nsandbox = false\n' > "$work/hill-big.toml"
"$koth" hill create "$work/hill-big.toml" --dir "$work/big" > /dev/null
python3 - "$work/big/results.sqlite" "$versions" "$games" "${FAR_SHARE:-0}" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
far = round(float(sys.argv[4]) * 1_000_000)
db.execute("PRAGMA journal_mode = OFF")
db.execute("PRAGMA synchronous = OFF")
db.execute("PRAGMA cache_size = -1000000")
V, G = int(sys.argv[2]), int(sys.argv[3])
db.executemany("INSERT INTO bots (id, name, dir, command, build, origin, protocols, hash) VALUES (?, ?, 'versions/x', '[\"true\"]', NULL, 'bench', '{}', 'x')",
               ((v, f"bot{v} v1") for v in range(V)))
db.executemany("INSERT INTO hill_versions (id, name, version, digest, state, added_at, mu, sigma, games, faulted, counted_from) VALUES (?, ?, 1, 'x', 'active', 0, ?, 1.0, ?, 0, 0)",
               ((v, f"bot{v}", 25 + v / 100, 2 * G // V) for v in range(V)))
db.executemany("INSERT INTO hill_fit (version, rating, half_width, games, fitted_games) VALUES (?, ?, 20.0, ?, ?)",
               ((v, 1000 + v, 2 * G // V, G) for v in range(V)))
db.execute("INSERT INTO hill_kings (version, since_game, since) VALUES (?, 100, 0)", (V - 1,))
db.execute("INSERT OR REPLACE INTO hill_outcomes (id, games, alike) VALUES (0, ?, 0)", (G,))
# The games are made by SQLite itself (its random(), so each run's differ; ten million games
# through Python took over an hour on this machine), the tables' own indexes built after the
# rows, as a sort, instead of row by row.
indexes = db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL "
                     "AND tbl_name IN ('games', 'seats', 'results', 'hill_games', 'hill_ratings')").fetchall()
for name, _ in indexes:
    db.execute(f"DROP INDEX {name}")
db.execute("""WITH RECURSIVE n(g) AS (SELECT 0 UNION ALL SELECT g + 1 FROM n WHERE g + 1 < ?)
              INSERT INTO games (idx, seed, state, attempts, wall_ms)
              SELECT g, random() & 4611686018427387903, 'done', 1, 5.0 FROM n""", (G,))
# Two near in id a game, as the hill pairs near ratings; FAR_SHARE of them any two.
db.execute("INSERT INTO seats (game, seat, bot) SELECT idx, 0, abs(random() % ?) FROM games", (V,))
db.execute("""INSERT INTO seats (game, seat, bot)
              SELECT game, 1, (bot + 1 + CASE WHEN abs(random() % 1000000) < ? THEN abs(random() % (? - 1))
                                              ELSE abs(random() % 19) END) % ?
              FROM seats WHERE seat = 0 ORDER BY game""", (far, V, V))
db.execute("""INSERT INTO results (game, seat, bot, score, status, faults, answers, max_wall_ms, total_wall_ms, near_misses)
              SELECT game, seat, bot, seat, 'finished', '[]', 5, 1.0, 5.0, 0 FROM seats ORDER BY game, seat""")
db.execute("INSERT INTO hill_games (game, reason, rated, chosen_at) SELECT idx, 'bench', 1, 0 FROM games")
db.execute("""INSERT INTO hill_ratings (game, version, mu, sigma)
              SELECT game, bot, 25.0 + (game % 100) / 50.0, 1.0 FROM results ORDER BY game, bot""")
for _, sql in indexes:
    db.execute(sql)
db.commit()
PY
fi
part 2 && python3 - "$koth" "$work/big" "$versions" "$games" <<'PY'
import statistics, subprocess, sys, time
times = []
for _ in range(21):
    start = time.perf_counter()
    subprocess.run([sys.argv[1], "leaderboard", sys.argv[2], "--format", "json"], check=True, stdout=subprocess.DEVNULL)
    times.append((time.perf_counter() - start) * 1000)
print(f"Leaderboard of a hill of {int(sys.argv[3]):,} versions and {int(sys.argv[4]):,} games: median {statistics.median(times):.1f} ms (21 runs, process start included)")
PY

# 3. The hill's pages on that hill: each address asked in turn, the median of its times.
part 3 && python3 - "$koth" "$work/big" "$versions" "$games" <<'PY'
import socket, statistics, subprocess, sys, time, urllib.request
def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
def timed(url):
    start = time.perf_counter()
    with urllib.request.urlopen(url) as answer:
        answer.read()
    return (time.perf_counter() - start) * 1000
starts = []
def serving():
    port = free_port()
    start = time.perf_counter()
    server = subprocess.Popen([sys.argv[1], "serve", sys.argv[2], "--addr", f"127.0.0.1:{port}"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(3000):
        try:
            socket.create_connection(("127.0.0.1", port)).close()
            starts.append((time.perf_counter() - start) * 1000)
            return server, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.1)
    sys.exit("koth serve never listened")
# The first read of /api/hill after the server starts (it reads the hill into its memo before
# it listens; the start's own time is shown apart).
first = []
for _ in range(5):
    server, base = serving()
    first.append(timed(base + "/api/hill"))
    server.terminate(); server.wait()
server, base = serving()
rows = {
    "koth serve, start until it listens (6 starts)": starts,
    "/api/hill, first read (5 starts)": first,
    "/api/hill, from the memo": [timed(base + "/api/hill") for _ in range(50)],
    "/api/hill/bots/NAME (50 bots)": [timed(f"{base}/api/hill/bots/bot{7 * k}") for k in range(50)],
    "/bots/NAME/ratings.svg (20 bots)": [timed(f"{base}/bots/bot{11 * k}/ratings.svg") for k in range(20)],
    "/ (the page)": [timed(base + "/") for _ in range(50)],
}
server.terminate(); server.wait()
print(f"The hill's pages, {int(sys.argv[3]):,} versions and {int(sys.argv[4]):,} games (median ms):")
for what, times in rows.items():
    print(f"  {what}: {statistics.median(times):.1f} ms")
PY

# 4. Games per second: a hill against a tournament of the same instant bots.
part 4 || exit 0
gcc -O2 -o "$work/instant" scripts/instant-bot.c
list=""
for i in 1 2 3 4; do
  mkdir -p "$work/instant$i"
  cp "$work/instant" "$work/instant$i/"
  printf 'name = "Instant %d"\nrun = "./instant"\ngames = ["paths"]\n' "$i" > "$work/instant$i/bot.toml"
  list+="\"$work/instant$i\", "
done
common='game = "paths"
rounds = 10
answer_ms = 1000
players_per_game = 2
seed = 1
jobs = 2'
printf '%s\nbots = [%s]\ngames = 200\n' "$common" "${list%, }" > "$work/tournament.toml"
printf '%s\n' "$common" > "$work/hill-fast.toml"
"$koth" hill create "$work/hill-fast.toml" --dir "$work/hill" > /dev/null
"$koth" hill add "$work"/instant? --hill "$work/hill" > /dev/null
start=$(date +%s.%N)
"$koth" tournament run "$work/tournament.toml" --dir "$work/t" > /dev/null 2>&1
tournament=$(echo "$(date +%s.%N) - $start" | bc)
start=$(date +%s.%N)
"$koth" hill run "$work/hill" --games 200 > /dev/null 2>&1
hill=$(echo "$(date +%s.%N) - $start" | bc)
echo "200 games of 4 instant bots (paths, 2 a game, 10 rounds, 2 at once, contained):"
echo "  tournament: $(echo "scale=1; 200 / $tournament" | bc) games/s"
echo "  hill:       $(echo "scale=1; 200 / $hill" | bc) games/s ($(echo "scale=2; $tournament / $hill" | bc)x the tournament's)"
