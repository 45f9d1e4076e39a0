//! What the hill's pages read beyond its leaderboard ([`super::board`]): the games played last
//! with why each was chosen, each bot's record (its versions, its rating after each game, its
//! results against each opponent, its faults), and a stamp that changes whenever any of it or
//! the leaderboard may have. Each read costs the games of one bot or a bounded number of games,
//! never the number of games of the hill (the indexes of [`super::store`] see to that).

use serde::Serialize;

use crate::tournament::store::Store;
use crate::tournament::store::sql::{Connection, Row};

use super::store::{self, Version};

/// What changes whenever the hill's leaderboard, kings, versions or games may have: a few sums
/// over the versions and the fit, and the last game chosen, so comparing it costs the number of
/// versions, not of games.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Stamp(Row);

/// The hill's [`Stamp`] now.
pub(crate) fn stamp(db: &dyn Connection) -> anyhow::Result<Stamp> {
    let row = db
        .row(
            "SELECT (SELECT COUNT(*) FROM hill_versions),
                (SELECT COUNT(*) FROM hill_versions WHERE state = 'active' AND suspended IS NULL),
                (SELECT CAST(COALESCE(SUM(games), 0) AS BIGINT) FROM hill_versions),
                (SELECT COUNT(*) FROM hill_kings),
                (SELECT COUNT(*) FROM hill_fit),
                (SELECT COALESCE(SUM(rating), 0) FROM hill_fit),
                (SELECT COALESCE(MAX(idx), -1) FROM games),
                (SELECT COUNT(*) FROM hill_versions WHERE suspended IS NOT NULL)",
            &[],
        )?
        .unwrap_or_default();
    Ok(Stamp(row))
}

/// A seat of a listed game: its version, and its score and status once played.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Seat {
    pub name: String,
    pub version: u32,
    pub score: Option<f64>,
    pub status: Option<String>,
}

/// A game of the hill as its pages list it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct HillGame {
    pub index: u32,
    pub state: String,
    pub wall_ms: Option<f64>,
    /// Why matchmaking chose it.
    pub reason: Option<String>,
    pub seats: Vec<Seat>,
}

/// The `count` games done last (the highest numbers), newest first, each with why it was
/// chosen.
pub(crate) fn recent_games(store: &Store, count: u32) -> anyhow::Result<Vec<HillGame>> {
    let db = store.connection();
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
pub(crate) struct VersionRecord {
    #[serde(flatten)]
    pub version: Version,
    /// Its fitted rating and 95% interval, if the last fit covered it (active versions only).
    pub rating: Option<f64>,
    pub low: Option<f64>,
    pub high: Option<f64>,
}

/// A bot's results against one opponent (every version of each), game by game: it won if it
/// scored more than that opponent in the game.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Opponent {
    pub name: String,
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

/// A game in which a version of the bot faulted.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FaultedGame {
    pub game: u32,
    pub version: u32,
    /// The kinds of its faults in that game (`timed out`, `crashed`, `bad output`, `failed to
    /// start`).
    pub kinds: Vec<String>,
    /// The first fault's reason, as recorded (bounded by the recorder).
    pub reason: Option<String>,
}

/// A bot's faults: games faulted by kind over all its versions, and the latest faulted games.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Faults {
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
pub(crate) struct BotRecord {
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
pub(crate) struct BotReign {
    pub version: u32,
    /// Games recorded when it was crowned, and when (unix seconds).
    pub since_game: u32,
    pub since: i64,
    /// The same when the next king was crowned; none while it reigns.
    pub until_game: Option<u32>,
    pub until: Option<i64>,
}

/// A point of a rating over time: (game number, μ, σ).
pub(crate) type Rated = (u32, f64, f64);

/// A version's rating over time: its label (`v2`) and its points.
pub(crate) type RatingLine = (String, Vec<Rated>);

/// The record of the bot called `name`; `None` if the hill has no such bot.
pub(crate) fn bot(store: &Store, name: &str) -> anyhow::Result<Option<BotRecord>> {
    let db = store.connection();
    let versions: Vec<Version> = store::versions(db)?
        .into_iter()
        .filter(|v| v.name == name)
        .collect();
    if versions.is_empty() {
        return Ok(None);
    }
    let ids = id_list(&versions);
    let fit = store::fit(db)?;
    let records = versions
        .iter()
        .map(|v| {
            let fitted = fit.iter().find(|f| f.0 == v.id);
            VersionRecord {
                version: v.clone(),
                rating: fitted.map(|f| f.1),
                low: fitted.map(|f| f.1 - f.2),
                high: fitted.map(|f| f.1 + f.2),
            }
        })
        .collect();
    let opponents = db
        .query(
            &format!(
                "SELECT o.name, COUNT(*), {}, {}, {}
                 FROM results a JOIN results b ON b.game = a.game AND b.seat <> a.seat
                 JOIN hill_versions o ON o.id = b.bot
                 WHERE a.bot IN ({ids}) AND o.name <> ?1
                 GROUP BY o.name ORDER BY o.name",
                counted("a.score > b.score"),
                counted("a.score = b.score"),
                counted("a.score < b.score"),
            ),
            &[name.into()],
        )?
        .iter()
        .map(|r| {
            Ok(Opponent {
                name: r[0].text()?,
                games: r[1].int()? as u32,
                wins: r[2].int()? as u32,
                draws: r[3].int()? as u32,
                losses: r[4].int()? as u32,
            })
        })
        .collect::<anyhow::Result<_>>()?;
    let totals = db
        .row(
            &format!(
                "SELECT {}, {}, {}, {} FROM results WHERE bot IN ({ids})",
                counted("timed_out_faults > 0"),
                counted("crashed_faults > 0"),
                counted("bad_output_faults > 0"),
                counted("failed_to_start_faults > 0"),
            ),
            &[],
        )?
        .unwrap_or_default();
    let label = |id: i64| {
        versions
            .iter()
            .find(|v| v.id as i64 == id)
            .map(|v| v.version)
    };
    let latest = db
        .query(
            &format!(
                "SELECT game, bot, timed_out_faults, crashed_faults, bad_output_faults,
                     failed_to_start_faults, faults
                 FROM results WHERE bot IN ({ids}) AND timed_out_faults + crashed_faults
                     + bad_output_faults + failed_to_start_faults > 0
                 ORDER BY game DESC LIMIT {FAULTED_GAMES}"
            ),
            &[],
        )?
        .iter()
        .map(|r| {
            let kinds = ["timed out", "crashed", "bad output", "failed to start"]
                .iter()
                .enumerate()
                .filter(|(k, _)| r[2 + k].int().is_ok_and(|n| n > 0))
                .map(|(_, kind)| kind.to_string())
                .collect();
            let reason = r[6].text().ok().and_then(|faults| {
                let faults: serde_json::Value = serde_json::from_str(&faults).ok()?;
                faults.get(0)?.get("reason")?.as_str().map(str::to_string)
            });
            Ok(FaultedGame {
                game: r[0].int()? as u32,
                version: label(r[1].int()?).unwrap_or(0),
                kinds,
                reason,
            })
        })
        .collect::<anyhow::Result<_>>()?;
    let at = |k: usize| totals.get(k).map_or(Ok(0), |n| n.int().map(|n| n as u32));
    let faults = Faults {
        timed_out: at(0)?,
        crashed: at(1)?,
        bad_output: at(2)?,
        failed_to_start: at(3)?,
        latest,
    };
    let kings = store::kings(db)?;
    let reigns = kings
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
        .collect();
    Ok(Some(BotRecord {
        name: name.to_string(),
        versions: records,
        opponents,
        faults,
        reigns,
    }))
}

/// The online rating of each version of the bot called `name` after each of its games: per
/// version (`v1`, `v2`…), (game number, μ, σ) in game order; `None` if there is no such bot.
pub(crate) fn rating_history(store: &Store, name: &str) -> anyhow::Result<Option<Vec<RatingLine>>> {
    let db = store.connection();
    let versions: Vec<Version> = store::versions(db)?
        .into_iter()
        .filter(|v| v.name == name)
        .collect();
    if versions.is_empty() {
        return Ok(None);
    }
    let mut lines: Vec<RatingLine> = versions
        .iter()
        .map(|v| (format!("v{}", v.version), Vec::new()))
        .collect();
    let rows = db.query(
        &format!(
            "SELECT version, game, mu, sigma FROM hill_ratings WHERE version IN ({})
             ORDER BY version, game",
            id_list(&versions)
        ),
        &[],
    )?;
    for r in &rows {
        let id = r[0].int()? as usize;
        if let Some(k) = versions.iter().position(|v| v.id == id) {
            lines[k]
                .1
                .push((r[1].int()? as u32, r[2].real()?, r[3].real()?));
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

/// SQL counting the rows where `condition` holds, as an integer in SQLite and PostgreSQL
/// alike (a sum over no rows is NULL, and PostgreSQL sums integers as NUMERIC).
fn counted(condition: &str) -> String {
    format!("CAST(COALESCE(SUM(CASE WHEN {condition} THEN 1 ELSE 0 END), 0) AS BIGINT)")
}
