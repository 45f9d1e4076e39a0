//! What the hill's pages read beyond its leaderboard ([`crate::board`]): the games played last
//! with why each was chosen, each bot's record (its versions, its rating after each game, its
//! results against each opponent, its faults), and a stamp that changes whenever any of it or
//! the leaderboard may have. Each read costs the games of one bot or a bounded number of games,
//! never the number of games of the hill (the indexes of [`super`] see to that).

use serde::Serialize;

use koth_tournament::store::Store;
pub use koth_tournament::store::sql::{Connection, Row};

use super::summary::{self, FAULTED, summed, when};
use super::{self as store, ACTIVE, Version, VersionState};
use koth_tournament::store::GameState;

/// What changes whenever the hill's leaderboard, kings, versions or games may have: a few sums
/// over the versions and the fit, and the last game chosen, so comparing it costs the number of
/// versions, not of games.
#[derive(Debug, Clone, PartialEq)]
pub struct Stamp(Row);

/// The hill's [`Stamp`] now.
pub fn stamp(db: &dyn Connection) -> anyhow::Result<Stamp> {
    let row = db
        .row(
            &format!(
                "SELECT (SELECT COUNT(*) FROM hill_versions),
                (SELECT COUNT(*) FROM hill_versions WHERE state = '{ACTIVE}' AND suspended IS NULL),
                (SELECT CAST(COALESCE(SUM(games), 0) AS BIGINT) FROM hill_versions),
                (SELECT COUNT(*) FROM hill_kings),
                (SELECT COUNT(*) FROM hill_fit),
                (SELECT COALESCE(SUM(rating), 0) FROM hill_fit),
                (SELECT COALESCE(MAX(idx), -1) FROM games),
                (SELECT COUNT(*) FROM hill_versions WHERE suspended IS NOT NULL)"
            ),
            &[],
        )?
        .unwrap_or_default();
    Ok(Stamp(row))
}

/// A seat of a listed game: its version, and its score and status once played.
#[derive(Debug, Clone, Serialize)]
pub struct Seat {
    pub name: String,
    pub version: u32,
    pub score: Option<f64>,
    pub status: Option<String>,
}

/// A game of the hill as its pages list it.
#[derive(Debug, Clone, Serialize)]
pub struct HillGame {
    pub index: u32,
    pub state: GameState,
    pub wall_ms: Option<f64>,
    /// Why matchmaking chose it.
    pub reason: Option<String>,
    pub seats: Vec<Seat>,
}

/// The `count` games done last (the highest numbers), newest first, each with why it was
/// chosen.
pub fn recent_games(store: &Store, count: u32) -> anyhow::Result<Vec<HillGame>> {
    let db: &dyn Connection = store;
    let versions = store::versions(db)?;
    store
        .last_done(count)?
        .into_iter()
        .map(|game| {
            let seats = game
                .seats
                .iter()
                .map(|seat| {
                    let version = versions.iter().find(|v| v.id == seat.bot);
                    Seat {
                        name: version.map_or_else(|| "?".into(), |v| v.name.clone()),
                        version: version.map_or(0, |v| v.version),
                        score: seat.score,
                        status: seat.status.clone(),
                    }
                })
                .collect();
            Ok(HillGame {
                index: game.index,
                reason: store::reason(db, game.index)?,
                state: game.state,
                wall_ms: game.wall_ms,
                seats,
            })
        })
        .collect()
}

/// A version of a bot as its page shows it.
#[derive(Debug, Clone, Serialize)]
pub struct VersionRecord {
    #[serde(flatten)]
    pub version: Version,
    /// Its ranking's figure (points per game or rating, as the hill's game ranks) and 95%
    /// interval, if the last fit covered it (its bot's current version only).
    pub rating: Option<f64>,
    pub low: Option<f64>,
    pub high: Option<f64>,
    /// For a replaced version, the version that replaced it: its bot's active version where
    /// its author rolled back to an older one, else its bot's next.
    pub replaced_by: Option<u32>,
    /// For the active version of a bot with newer ones (its author rolled back), the newest.
    pub rolled_back_from: Option<u32>,
    /// Its state as its page says it: `replaced by v2`, `active (rolled back from v3)`.
    pub status: String,
}

/// A bot's results against one opponent (every version of each), game by game: it won if it
/// scored more than that opponent in the game.
#[derive(Debug, Clone, Serialize)]
pub struct Opponent {
    pub name: String,
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

/// A game in which a version of the bot faulted.
#[derive(Debug, Clone, Serialize)]
pub struct FaultedGame {
    pub game: u32,
    pub version: u32,
    /// The kinds of its faults in that game (`timed_out`, `crashed`, `bad_output`,
    /// `failed_to_start`).
    pub kinds: Vec<String>,
    /// The first fault's reason, as recorded (bounded by the recorder).
    pub reason: Option<String>,
}

/// A bot's faults: games faulted by kind over all its versions, and the latest faulted games.
#[derive(Debug, Clone, Serialize)]
pub struct Faults {
    pub timed_out: u32,
    pub crashed: u32,
    pub bad_output: u32,
    pub failed_to_start: u32,
    /// The last [`FAULTED_GAMES`] games in which it faulted, newest first.
    pub latest: Vec<FaultedGame>,
}

/// Faulted games listed on a bot's page at most.
pub(crate) const FAULTED_GAMES: u32 = 50;

/// Everything a bot's page shows but its rating plot.
#[derive(Debug, Clone, Serialize)]
pub struct BotRecord {
    pub name: String,
    /// First to last.
    pub versions: Vec<VersionRecord>,
    /// By name.
    pub opponents: Vec<Opponent>,
    pub faults: Faults,
    pub reigns: Vec<BotReign>,
}

/// A reign of a version of the bot as king.
#[derive(Debug, Clone, Serialize)]
pub struct BotReign {
    pub version: u32,
    /// Games recorded when it was crowned, and when (unix seconds).
    pub since_game: u32,
    pub since: i64,
    /// The same when the next king was crowned; none while it reigns.
    pub until_game: Option<u32>,
    pub until: Option<i64>,
}

/// A point of a version's figure over time: (the hill's last game at the fit, the ranking's
/// figure, the half-width of its 95% interval), on the table's scale.
pub(crate) type Rated = (u32, f64, f64);

/// A version's figure over time: its label (`v2`) and its points.
pub(crate) type RatingLine = (String, Vec<Rated>);

/// The record of the bot called `name`; `None` if the hill has no such bot.
pub fn bot(db: &dyn Connection, name: &str) -> anyhow::Result<Option<BotRecord>> {
    let versions = store::versions_named(db, name)?;
    if versions.is_empty() {
        return Ok(None);
    }
    let ids = id_list(&versions);
    Ok(Some(BotRecord {
        name: name.to_string(),
        versions: version_records(&versions, &store::fit(db)?),
        opponents: opponents(db, name, &ids)?,
        faults: faults(db, &versions, &ids)?,
        reigns: reigns(db, &versions)?,
    }))
}

/// Each of a bot's `versions` with its fitted figure and its status in words: replaced by
/// which version, or rolled back from which.
fn version_records(versions: &[Version], fit: &[store::StoredFit]) -> Vec<VersionRecord> {
    let active = versions
        .iter()
        .find(|v| v.state == VersionState::Active)
        .map(|v| v.version);
    let newest = versions.iter().map(|v| v.version).max();
    versions
        .iter()
        .map(|v| {
            let fitted = fit.iter().find(|f| f.version == v.id);
            let next = versions
                .iter()
                .filter(|n| n.version > v.version)
                .map(|n| n.version)
                .min();
            let replaced_by = match active {
                Some(active) if active < v.version => Some(active),
                _ => next,
            }
            .filter(|_| v.state == VersionState::Replaced);
            let rolled_back_from =
                newest.filter(|&n| v.state == VersionState::Active && n > v.version);
            let status = match (replaced_by, rolled_back_from) {
                (Some(by), _) => format!("replaced by v{by}"),
                (None, Some(from)) => format!("{} (rolled back from v{from})", v.state),
                (None, None) => v.state.to_string(),
            };
            VersionRecord {
                version: v.clone(),
                rating: fitted.map(|f| f.value),
                low: fitted.map(|f| f.value - f.half_width),
                high: fitted.map(|f| f.value + f.half_width),
                replaced_by,
                rolled_back_from,
                status,
            }
        })
        .collect()
}

/// The games of the versions `ids` of the bot called `name` against each other bot: from the
/// summary and the games not rated yet once the summary holds every rated game, else from
/// every result of the versions.
fn opponents(db: &dyn Connection, name: &str, ids: &str) -> anyhow::Result<Vec<Opponent>> {
    let each_game = |from: &str| {
        format!(
            "SELECT o.name, 1 AS games, {} AS wins, {} AS draws, {} AS losses
             FROM {from} JOIN results b ON b.game = a.game AND b.seat <> a.seat
             JOIN hill_versions o ON o.id = b.bot
             WHERE a.bot IN ({ids}) AND o.name <> ?1",
            when("a.score > b.score"),
            when("a.score = b.score"),
            when("a.score < b.score"),
        )
    };
    let rows = if summary::ready(db)? {
        format!(
            "SELECT o.name, s.games, s.wins, s.draws, s.losses
             FROM hill_opponents s JOIN hill_versions o ON o.id = s.opponent
             WHERE s.version IN ({ids}) AND o.name <> ?1
             UNION ALL {}",
            each_game("hill_games h JOIN results a ON a.game = h.game AND h.rated = 0")
        )
    } else {
        each_game("results a")
    };
    db.query(
        &format!(
            "SELECT name, {} AS games, {} AS wins, {} AS draws, {} AS losses FROM ({rows}) t
             GROUP BY name ORDER BY name",
            summed("games"),
            summed("wins"),
            summed("draws"),
            summed("losses"),
        ),
        &[name.into()],
    )?
    .iter()
    .map(|r| {
        Ok(Opponent {
            name: r.text("name")?,
            games: r.int("games")? as u32,
            wins: r.int("wins")? as u32,
            draws: r.int("draws")? as u32,
            losses: r.int("losses")? as u32,
        })
    })
    .collect()
}

/// How many games of the versions `ids` had each kind of fault, and the latest such games:
/// the totals from the summary and the games not rated yet once the summary holds every rated
/// game, else from every result of the versions.
fn faults(db: &dyn Connection, versions: &[Version], ids: &str) -> anyhow::Result<Faults> {
    let kinds = |from: &str| {
        format!(
            "SELECT {} AS timed_out, {} AS crashed, {} AS bad_output, {} AS failed_to_start
             FROM {from} WHERE r.bot IN ({ids})",
            when("r.timed_out_faults > 0"),
            when("r.crashed_faults > 0"),
            when("r.bad_output_faults > 0"),
            when("r.failed_to_start_faults > 0"),
        )
    };
    let rows = if summary::ready(db)? {
        format!(
            "SELECT timed_out, crashed, bad_output, failed_to_start FROM hill_faults
             WHERE version IN ({ids})
             UNION ALL {}",
            kinds("hill_games h JOIN results r ON r.game = h.game AND h.rated = 0")
        )
    } else {
        kinds("results r")
    };
    let totals = db.row(
        &format!(
            "SELECT {} AS timed_out, {} AS crashed, {} AS bad_output, {} AS failed_to_start
             FROM ({rows}) t",
            summed("timed_out"),
            summed("crashed"),
            summed("bad_output"),
            summed("failed_to_start"),
        ),
        &[],
    )?;
    let at = |kind: &str| totals.as_ref().map_or(Ok(0), |row| row.count(kind));
    Ok(Faults {
        timed_out: at("timed_out")?,
        crashed: at("crashed")?,
        bad_output: at("bad_output")?,
        failed_to_start: at("failed_to_start")?,
        latest: latest_faulted(db, versions, ids)?,
    })
}

/// The latest games of the versions `ids` with a fault, each with its kinds and first reason.
fn latest_faulted(
    db: &dyn Connection,
    versions: &[Version],
    ids: &str,
) -> anyhow::Result<Vec<FaultedGame>> {
    let label = |id: i64| {
        versions
            .iter()
            .find(|v| v.id as i64 == id)
            .map(|v| v.version)
    };
    db.query(
        &format!(
            "SELECT game, bot, timed_out_faults, crashed_faults, bad_output_faults,
                 failed_to_start_faults, faults
             FROM results WHERE bot IN ({ids}) AND {FAULTED}
             ORDER BY game DESC LIMIT {FAULTED_GAMES}"
        ),
        &[],
    )?
    .iter()
    .map(|r| {
        let kinds = store::FAULT_KINDS
            .iter()
            .filter(|kind| r.int(&format!("{kind}_faults")).is_ok_and(|n| n > 0))
            .map(|kind| kind.to_string())
            .collect();
        let reason = r.text("faults").ok().and_then(|faults| {
            let faults: serde_json::Value = serde_json::from_str(&faults).ok()?;
            faults.get(0)?.get("reason")?.as_str().map(str::to_string)
        });
        Ok(FaultedGame {
            game: r.int("game")? as u32,
            version: label(r.int("bot")?).unwrap_or(0),
            kinds,
            reason,
        })
    })
    .collect()
}

/// The reigns as king of any of a bot's `versions`, each until the next king's.
fn reigns(db: &dyn Connection, versions: &[Version]) -> anyhow::Result<Vec<BotReign>> {
    let kings = store::kings(db)?;
    Ok(kings
        .iter()
        .enumerate()
        .filter_map(|(k, &(id, since_game, since))| {
            let next = kings.get(k + 1);
            Some(BotReign {
                version: versions.iter().find(|v| v.id == id)?.version,
                since_game,
                since,
                until_game: next.map(|k| k.1),
                until: next.map(|k| k.2),
            })
        })
        .collect())
}

/// The fitted figure of each version of the bot called `name` over time, as the table shows
/// it (points per game, or an Elo-scale rating) with its 95% interval: per version (`v1`,
/// `v2`…), a point at each fit after it played, in game order; `None` if there is no such bot.
pub fn rating_history(db: &dyn Connection, name: &str) -> anyhow::Result<Option<Vec<RatingLine>>> {
    let versions = store::versions_named(db, name)?;
    if versions.is_empty() {
        return Ok(None);
    }
    let mut lines: Vec<RatingLine> = versions
        .iter()
        .map(|v| (format!("v{}", v.version), Vec::new()))
        .collect();
    let rows = db.query(
        &format!(
            "SELECT version, game, rating, half_width FROM hill_fit_history
             WHERE version IN ({}) ORDER BY version, game",
            id_list(&versions)
        ),
        &[],
    )?;
    for r in &rows {
        let id = r.int("version")? as usize;
        if let Some(k) = versions.iter().position(|v| v.id == id) {
            lines[k].1.push((
                r.int("game")? as u32,
                r.real("rating")?,
                r.real("half_width")?,
            ));
        }
    }
    Ok(Some(lines))
}

/// The ids of `versions`, for an SQL `IN (…)` (numbers, never text from outside).
fn id_list(versions: &[Version]) -> String {
    versions
        .iter()
        .map(|v| v.id.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hill of A v1 (replaced), A v2 and B v1, and three games of A (seat 0) against B: A v1
    /// wins game 0; A v2 draws game 1, timing out once, and loses game 2, crashing twice. B was
    /// crowned at game 1, A v2 at game 3.
    fn hill(dir: &std::path::Path) -> Store {
        let meta = [("name", "h".to_string()), ("game", "tictactoe".to_string())];
        let store = Store::create(&dir.join("results.sqlite"), &meta, &[], &[]).unwrap();
        let db: &dyn Connection = &store;
        store::create_tables(db).unwrap();
        for (id, name, version, state) in [
            (0usize, "A", 1u32, "replaced"),
            (1, "A", 2, "active"),
            (2, "B", 1, "active"),
        ] {
            let label = format!("{name} v{version}");
            db.execute(
                "INSERT INTO bots (id, name, dir, command, origin) VALUES (?1, ?2, 'x', '[]', 't')",
                &[id.into(), label.into()],
            )
            .unwrap();
            db.execute(
                "INSERT INTO hill_versions (id, name, version, digest, state, added_at, mu, sigma,
                     games, faulted, counted_from)
                 VALUES (?1, ?2, ?3, 'd', ?4, 0, 25.0, 8.0, 0, 0, 0)",
                &[id.into(), name.into(), version.into(), state.into()],
            )
            .unwrap();
        }
        let games = [
            (0usize, 1.0, 0.0, 0i64, 0i64),
            (1, 0.5, 0.5, 1, 0),
            (1, 0.0, 1.0, 0, 2),
        ];
        for (game, &(a, score_a, score_b, timed_out, crashed)) in games.iter().enumerate() {
            db.execute(
                "INSERT INTO games (idx, seed, state, attempts) VALUES (?1, 0, 'done', 1)",
                &[game.into()],
            )
            .unwrap();
            db.execute(
                "INSERT INTO hill_games (game, reason, rated, chosen_at) VALUES (?1, ?2, 1, 0)",
                &[game.into(), format!("reason {game}").into()],
            )
            .unwrap();
            let faults = match timed_out + crashed {
                0 => "[]".to_string(),
                _ => r#"[{"kind": "timed_out", "reason": "no answer in 100 ms"}]"#.to_string(),
            };
            for (seat, bot, score, timed_out, crashed, faults) in [
                (0u32, a, score_a, timed_out, crashed, faults),
                (1, 2, score_b, 0, 0, "[]".to_string()),
            ] {
                db.execute(
                    "INSERT INTO seats (game, seat, bot) VALUES (?1, ?2, ?3)",
                    &[game.into(), seat.into(), bot.into()],
                )
                .unwrap();
                db.execute(
                    "INSERT INTO results (game, seat, bot, score, status, faults, answers,
                         max_wall_ms, total_wall_ms, near_misses, timed_out_faults,
                         crashed_faults)
                     VALUES (?1, ?2, ?3, ?4, 'finished', ?5, 1, 1.0, 1.0, 0, ?6, ?7)",
                    &[
                        game.into(),
                        seat.into(),
                        bot.into(),
                        score.into(),
                        faults.into(),
                        timed_out.into(),
                        crashed.into(),
                    ],
                )
                .unwrap();
                db.execute(
                    "INSERT INTO hill_ratings (game, version, mu, sigma) VALUES (?1, ?2, ?3, 5.0)",
                    &[game.into(), bot.into(), (20.0 + score).into()],
                )
                .unwrap();
            }
        }
        // Its games are marked rated without being rated: a hill rated before the bots'
        // records were summed, whose summary is not filled yet.
        db.execute("UPDATE hill_record_fill SET next_game = 0, done = 0", &[])
            .unwrap();
        for (version, since_game, since) in [(2usize, 1u32, 100i64), (1, 3, 200)] {
            db.execute(
                "INSERT INTO hill_kings (version, since_game, since) VALUES (?1, ?2, ?3)",
                &[version.into(), since_game.into(), since.into()],
            )
            .unwrap();
        }
        store
    }

    #[test]
    fn a_bot_s_record_counts_its_versions_results_faults_and_reigns() {
        let tmp = tempfile::tempdir().unwrap();
        let store = hill(tmp.path());
        let a = bot(&store, "A").unwrap().unwrap();
        let versions: Vec<(u32, &str)> = a
            .versions
            .iter()
            .map(|v| (v.version.version, v.version.state.as_str()))
            .collect();
        assert_eq!(versions, [(1, "replaced"), (2, "active")]);
        let replaced_by: Vec<Option<u32>> = a.versions.iter().map(|v| v.replaced_by).collect();
        assert_eq!(replaced_by, [Some(2), None]);
        assert_eq!(a.opponents.len(), 1);
        let b = &a.opponents[0];
        assert_eq!(
            (b.name.as_str(), b.games, b.wins, b.draws, b.losses),
            ("B", 3, 1, 1, 1)
        );
        assert_eq!((a.faults.timed_out, a.faults.crashed), (1, 1));
        let latest: Vec<(u32, u32, String)> = a
            .faults
            .latest
            .iter()
            .map(|g| (g.game, g.version, g.kinds.join(",")))
            .collect();
        assert_eq!(
            latest,
            [(2, 2, "crashed".into()), (1, 2, "timed_out".into())]
        );
        assert_eq!(
            a.faults.latest[1].reason.as_deref(),
            Some("no answer in 100 ms")
        );
        let reigns: Vec<(u32, u32, Option<u32>)> = a
            .reigns
            .iter()
            .map(|r| (r.version, r.since_game, r.until_game))
            .collect();
        assert_eq!(reigns, [(2, 3, None)]);
        let b = bot(&store, "B").unwrap().unwrap();
        assert_eq!(
            (b.reigns[0].until_game, b.reigns[0].until),
            (Some(3), Some(200))
        );
        assert_eq!(b.opponents[0].losses, 1);
        assert!(bot(&store, "Nobody").unwrap().is_none());
    }

    /// Bot `name`'s record as its page shows it, as JSON: from the summary and the games not
    /// rated yet, and from every result of its versions (the summary set aside).
    fn summed_and_counted(db: &dyn Connection, name: &str) -> (String, String) {
        assert!(summary::ready(db).unwrap());
        let shown = |db| serde_json::to_string(&bot(db, name).unwrap().unwrap()).unwrap();
        let summed = shown(db);
        db.execute("UPDATE hill_record_fill SET done = 0", &[])
            .unwrap();
        let counted = shown(db);
        db.execute("UPDATE hill_record_fill SET done = 1", &[])
            .unwrap();
        (summed, counted)
    }

    #[test]
    fn a_bot_s_record_from_its_summary_is_the_one_its_games_give() {
        let tmp = tempfile::tempdir().unwrap();
        let store = hill(tmp.path());
        let db: &dyn Connection = &store;
        let names = ["A", "B"];
        let counted: Vec<String> = names
            .iter()
            .map(|name| serde_json::to_string(&bot(db, name).unwrap().unwrap()).unwrap())
            .collect();
        // Filled once from the rated games, then read from the summary: the same record.
        let mut filled = Vec::new();
        summary::fill(db, |next| filled.push(next)).unwrap();
        assert_eq!(filled, [3]);
        for (name, counted) in names.iter().zip(&counted) {
            assert_eq!(&summed_and_counted(db, name).0, counted, "{name}");
        }
        // Games recorded and not rated yet count at once; then rated, through the summary. A
        // three-seat game of A v2, B and a new bot C, a draw, with bad outputs of B and C; a
        // game of C against B that B wins.
        db.execute(
            "INSERT INTO hill_versions (id, name, version, digest, state, added_at, mu, sigma,
                 games, faulted, counted_from)
             VALUES (3, 'C', 1, 'd', 'active', 0, 25.0, 8.0, 0, 0, 0)",
            &[],
        )
        .unwrap();
        super::super::fixture::record_unrated(db, 3, &[(2, 0.5, 2), (1, 0.5, 0), (3, 0.5, 1)]);
        super::super::fixture::record_unrated(db, 4, &[(3, 0.0, 0), (2, 1.0, 0)]);
        let suspension = crate::config::Suspension {
            share: 1.0,
            window: 1000,
        };
        for rated in [0, 1, 1] {
            store::rate_recorded(db, suspension, rated).unwrap();
            for name in names.iter().chain(&["C"]) {
                let (summed, counted) = summed_and_counted(db, name);
                assert_eq!(summed, counted, "{name} after rating {rated} more");
            }
        }
        let a = bot(db, "A").unwrap().unwrap();
        let b = &a.opponents[0];
        assert_eq!((b.games, b.wins, b.draws, b.losses), (4, 1, 2, 1));
        let b = bot(db, "B").unwrap().unwrap();
        assert_eq!(b.faults.bad_output, 1);
        let opponents: Vec<(&str, u32)> = b
            .opponents
            .iter()
            .map(|o| (o.name.as_str(), o.wins))
            .collect();
        assert_eq!(opponents, [("A", 1), ("C", 1)]);
        let kept = db
            .value("SELECT COUNT(*) FROM hill_opponents", &[])
            .unwrap()
            .int()
            .unwrap();
        // A v1 and B, A v2 and B, A v2 and C, B and C, each way.
        assert_eq!(kept, 8);
    }

    #[test]
    fn a_bot_s_ratings_are_kept_per_version_and_the_last_games_newest_first() {
        let tmp = tempfile::tempdir().unwrap();
        let store = hill(tmp.path());
        // Fits after games 0, 1 and 2, and one more after game 2: a version is kept at each
        // fit after it played, on the table's scale.
        let fitted = |version, value, games| store::Fitted {
            version,
            strength: koth_ranking::Strength {
                theta: 0.0,
                value,
                interval: 50.0,
            },
            games,
        };
        for (fit, last_game) in [
            ([fitted(0, 1510.0, 1), fitted(2, 1490.0, 1)], 0),
            ([fitted(1, 1450.0, 1), fitted(2, 1550.0, 2)], 1),
            ([fitted(1, 1400.0, 2), fitted(2, 1600.0, 3)], 2),
            ([fitted(1, 1401.0, 2), fitted(2, 1599.0, 3)], 2),
        ] {
            let written = store::FitWritten {
                fitted: &fit,
                games: last_game + 1,
                last_game: Some(last_game),
                crowned: None,
                lead: None,
                unplayed: 500.0,
                placement_games: 0,
            };
            store::write_fit(&store, &written).unwrap();
        }
        let lines = rating_history(&store, "A").unwrap().unwrap();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0], ("v1".to_string(), vec![(0, 1510.0, 50.0)]));
        assert_eq!(
            lines[1],
            ("v2".to_string(), vec![(1, 1450.0, 50.0), (2, 1400.0, 50.0)])
        );
        let last = recent_games(&store, 2).unwrap();
        let shown: Vec<(u32, Option<&str>, &str, u32)> = last
            .iter()
            .map(|g| {
                (
                    g.index,
                    g.reason.as_deref(),
                    g.seats[0].name.as_str(),
                    g.seats[0].version,
                )
            })
            .collect();
        assert_eq!(
            shown,
            [(2, Some("reason 2"), "A", 2), (1, Some("reason 1"), "A", 2)]
        );
    }

    #[test]
    fn the_stamp_moves_when_a_king_is_crowned_or_a_game_is_rated() {
        let tmp = tempfile::tempdir().unwrap();
        let store = hill(tmp.path());
        let db: &dyn Connection = &store;
        let before = stamp(&store).unwrap();
        assert_eq!(stamp(&store).unwrap(), before);
        db.execute(
            "INSERT INTO hill_kings (version, since_game, since) VALUES (2, 4, 300)",
            &[],
        )
        .unwrap();
        let crowned = stamp(&store).unwrap();
        assert_ne!(crowned, before);
        db.execute(
            "UPDATE hill_versions SET games = games + 1 WHERE id = 2",
            &[],
        )
        .unwrap();
        assert_ne!(stamp(&store).unwrap(), crowned);
    }
}
