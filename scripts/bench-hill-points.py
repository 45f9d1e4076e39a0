"""Writes a points hill's games into a hill made by `koth hill create` (scripts/bench-hill.sh,
GAME=paths): VERSIONS versions and GAMES rated games of three seats, each seat scored 0-9
points, with the matchmaking's counts (`hill_pairs`, `hill_lineups`, `hill_presence`,
`hill_outcomes`) as the hill's own rating would have kept them.

A game seats a version drawn at random and two others among the WINDOW versions after it (a
hill seats near ratings; with 10,000 versions some 650 million line-ups can be drawn, so ten
million games are 99% distinct line-ups, as the hill's matchmaking plays them). The games
are made by SQLite itself (its random(): each run's differ) in one transaction, journal and
syncs off, the tables' own indexes built after the rows; each game is drawn once into a
temporary table that every table is then filled from. Not written: `hill_ratings` (the
per-game ratings a bot's rating plot reads; a points hill's run reads its fit) and the bots'
record summary (`hill_opponents`, left empty and marked filled).

    python3 scripts/bench-hill-points.py RESULTS.SQLITE VERSIONS GAMES
"""

import sqlite3
import sys

WINDOW = 360

db = sqlite3.connect(sys.argv[1], isolation_level=None)
V, G = int(sys.argv[2]), int(sys.argv[3])
window = min(WINDOW, V - 1)
assert window >= 2, "a game of three needs three versions"
for pragma in ("journal_mode = OFF", "synchronous = OFF", "cache_size = -2000000",
               "temp_store = FILE"):
    db.execute(f"PRAGMA {pragma}")
db.execute("BEGIN")
db.executemany("INSERT INTO bots (id, name, dir, command, build, origin, protocols, hash) VALUES (?, ?, 'versions/x', '[\"true\"]', NULL, 'bench', '{}', 'x')",
               ((v, f"bot{v} v1") for v in range(V)))
db.executemany("INSERT INTO hill_versions (id, name, version, digest, state, added_at, mu, sigma, games, faulted, counted_from) VALUES (?, ?, 1, 'x', 'active', 0, ?, 1.0, ?, 0, 0)",
               ((v, f"bot{v}", 25 + v / 100, 3 * G // V) for v in range(V)))
db.executemany("INSERT INTO hill_fit (version, rating, half_width, games, fitted_games) VALUES (?, ?, 0.5, ?, ?)",
               ((v, 3 + 3 * v / V, 3 * G // V, G) for v in range(V)))
db.execute("INSERT INTO hill_kings (version, since_game, since) VALUES (?, 100, 0)", (V - 1,))
indexes = db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL "
                     "AND tbl_name IN ('games', 'seats', 'results', 'hill_games')").fetchall()
for name, _ in indexes:
    db.execute(f"DROP INDEX {name}")
# Each game's draw, once: its first version, the two others' distances after it (1 to the
# window, apart), and the three seats' points.
db.execute("CREATE TEMP TABLE drawn (g INTEGER PRIMARY KEY, v, d1, d2, s0, s1, s2)")
db.execute("""WITH RECURSIVE n(g) AS (SELECT 0 UNION ALL SELECT g + 1 FROM n WHERE g + 1 < ?)
              INSERT INTO drawn SELECT g, abs(random() % ?), 1 + abs(random() % ?),
                  1 + abs(random() % ?), abs(random() % 10), abs(random() % 10),
                  abs(random() % 10) FROM n""", (G, V, window, window - 1))
db.execute("""CREATE TEMP TABLE lineup (g INTEGER PRIMARY KEY, a, b, c, s0, s1, s2, alike)""")
db.execute("""INSERT INTO lineup SELECT g, v, (v + d1) % ?1,
                  (v + CASE WHEN d2 >= d1 THEN d2 + 1 ELSE d2 END) % ?1, s0, s1, s2,
                  s0 = s1 AND s1 = s2 FROM drawn ORDER BY g""", (V,))
db.execute("DROP TABLE drawn")
db.execute("""INSERT INTO games (idx, seed, state, attempts, wall_ms)
              SELECT g, random() & 4611686018427387903, 'done', 1, 5.0 FROM lineup ORDER BY g""")
SEATS = "(SELECT 0 AS seat UNION ALL SELECT 1 UNION ALL SELECT 2)"
SEAT_BOT = "CASE s.seat WHEN 0 THEN l.a WHEN 1 THEN l.b ELSE l.c END"
SEAT_SCORE = "CASE s.seat WHEN 0 THEN l.s0 WHEN 1 THEN l.s1 ELSE l.s2 END"
db.execute(f"""INSERT INTO seats (game, seat, bot) SELECT l.g, s.seat, {SEAT_BOT}
               FROM lineup l CROSS JOIN {SEATS} s ORDER BY l.g, s.seat""")
db.execute(f"""INSERT INTO results (game, seat, bot, score, status, faults, answers, max_wall_ms,
                   total_wall_ms, near_misses)
               SELECT l.g, s.seat, {SEAT_BOT}, {SEAT_SCORE}, 'finished', '[]', 5, 1.0, 5.0, 0
               FROM lineup l CROSS JOIN {SEATS} s ORDER BY l.g, s.seat""")
db.execute("INSERT INTO hill_games (game, reason, rated, chosen_at) SELECT g, 'bench', 1, 0 FROM lineup ORDER BY g")
# The matchmaking's counts, as `store::rating` keeps them game by game.
db.execute("""INSERT INTO hill_lineups (lineup, games, alike)
              SELECT min(a, b, c) || ',' || (a + b + c - min(a, b, c) - max(a, b, c)) || ','
                  || max(a, b, c) AS k, COUNT(*), SUM(alike) FROM lineup GROUP BY k""")
db.execute("""INSERT INTO hill_pairs (a, b, games, alike)
              SELECT x, y, COUNT(*), SUM(same) FROM (
                  SELECT min(a, b) AS x, max(a, b) AS y, s0 = s1 AS same FROM lineup
                  UNION ALL SELECT min(a, c), max(a, c), s0 = s2 FROM lineup
                  UNION ALL SELECT min(b, c), max(b, c), s1 = s2 FROM lineup)
              GROUP BY x, y ORDER BY x, y""")
db.execute("""INSERT INTO hill_presence (version, games, alike)
              SELECT v, COUNT(*), SUM(alike) FROM (
                  SELECT a AS v, alike FROM lineup UNION ALL SELECT b, alike FROM lineup
                  UNION ALL SELECT c, alike FROM lineup)
              GROUP BY v""")
db.execute("""INSERT OR REPLACE INTO hill_outcomes (id, games, alike)
              SELECT 0, COUNT(*), SUM(alike) FROM lineup""")
db.execute("UPDATE hill_record_fill SET next_game = ?, done = 1 WHERE id = 0", (G,))
db.execute("DROP TABLE lineup")
for _, sql in indexes:
    db.execute(sql)
db.execute("COMMIT")
