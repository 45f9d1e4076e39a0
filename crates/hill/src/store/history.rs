//! What matchmaking reads of the games so far: the games per pair of versions, per version and
//! per line-up whose games all ended alike, and in all; counted once from the rated games for a
//! hill made before those tables existed.

use std::collections::HashMap;

use anyhow::Context;

use super::{Connection, Row};
use crate::matchmaking::{History, Met};

/// The rated games numbered `?1` to `?2` (excluded), each with whether every seat scored
/// alike, as SQL.
const RATED_OUTCOMES: &str =
    "SELECT x.game, CASE WHEN MAX(x.score) = MIN(x.score) THEN 1 ELSE 0 END
     AS alike FROM results x JOIN hill_games h ON h.game = x.game AND h.rated = 1
     WHERE x.game >= ?1 AND x.game < ?2 GROUP BY x.game";

/// Games whose results a count of an older hill's rated games ([`count_presence`],
/// [`count_pairs`], [`count_lineups`]) reads at once: its memory, and SQLite's sorting of them,
/// is a batch's, whatever the hill's size (one statement over 10,000,000 games sorted through
/// temporary files for more than 15 minutes).
const COUNT_BATCH: u32 = 100_000;

/// Whether `table` is empty while the hill has rated games: an older hill's, to count once.
fn to_count(db: &dyn Connection, table: &str) -> anyhow::Result<bool> {
    let counted = db.row(&format!("SELECT 1 AS one FROM {table} LIMIT 1"), &[])?;
    let rated = db.row(
        "SELECT 1 AS one FROM hill_games WHERE rated = 1 LIMIT 1",
        &[],
    )?;
    Ok(counted.is_none() && rated.is_some())
}

/// Runs `count` on each batch of [`COUNT_BATCH`] games, in game order, all in one transaction
/// (so what it counts into is whole or empty).
fn in_batches(
    db: &dyn Connection,
    count: impl Fn(&dyn Connection, u32, u32) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let end = super::next_game(db)?;
    db.transaction(|db| {
        let mut from = 0;
        while from < end {
            let to = from.saturating_add(COUNT_BATCH).min(end);
            count(db, from, to)?;
            from = to;
        }
        Ok(())
    })
}

/// A hill made before `hill_presence` and `hill_outcomes` existed: counted once from its rated
/// games, a batch at a time.
pub(super) fn count_presence(db: &dyn Connection) -> anyhow::Result<()> {
    if to_count(db, "hill_presence")? {
        in_batches(db, |db, from, to| {
            db.execute(
                &format!(
                    "INSERT INTO hill_presence (version, games, alike)
                     SELECT r.bot, COUNT(*), SUM(g.alike)
                     FROM (SELECT DISTINCT game, bot FROM results
                         WHERE game >= ?1 AND game < ?2) r
                     JOIN ({RATED_OUTCOMES}) g ON g.game = r.game
                     GROUP BY r.bot
                     ON CONFLICT (version) DO UPDATE SET
                         games = hill_presence.games + excluded.games,
                         alike = hill_presence.alike + excluded.alike"
                ),
                &[from.into(), to.into()],
            )?;
            Ok(())
        })?;
    }
    // Without a group, the totals are one row even of no game (then 0 and 0).
    db.execute(
        &format!(
            "INSERT INTO hill_outcomes (id, games, alike)
             SELECT 0, COUNT(*), COALESCE(SUM(g.alike), 0) FROM ({RATED_OUTCOMES}) g
             WHERE NOT EXISTS (SELECT 1 FROM hill_outcomes)
             ON CONFLICT (id) DO NOTHING"
        ),
        &[0u32.into(), super::next_game(db)?.into()],
    )?;
    Ok(())
}

/// A hill made before `hill_pairs` existed: its pairs counted once from its rated games, a
/// batch at a time.
pub(super) fn count_pairs(db: &dyn Connection) -> anyhow::Result<()> {
    if !to_count(db, "hill_pairs")? {
        return Ok(());
    }
    in_batches(db, |db, from, to| {
        db.execute(
            "INSERT INTO hill_pairs (a, b, games, alike)
             SELECT x.bot, y.bot, COUNT(*), SUM(CASE WHEN x.score = y.score THEN 1 ELSE 0 END)
             FROM results x JOIN results y ON y.game = x.game AND y.bot > x.bot
             JOIN hill_games h ON h.game = x.game AND h.rated = 1
             WHERE x.game >= ?1 AND x.game < ?2
             GROUP BY x.bot, y.bot
             ON CONFLICT (a, b) DO UPDATE SET games = hill_pairs.games + excluded.games,
                 alike = hill_pairs.alike + excluded.alike",
            &[from.into(), to.into()],
        )?;
        Ok(())
    })
}

/// A line-up's key in `hill_lineups`: its versions' ids, ascending, joined by commas.
pub(super) fn lineup_key(versions: &[usize]) -> String {
    let mut ids = versions.to_vec();
    ids.sort_unstable();
    ids.dedup();
    ids.iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// A hill made before `hill_lineups` existed: its rated games' line-ups counted once, a batch
/// at a time: its memory is a batch's rows and line-ups, whatever the hill's size.
pub(super) fn count_lineups(db: &dyn Connection) -> anyhow::Result<()> {
    if !to_count(db, "hill_lineups")? {
        return Ok(());
    }
    in_batches(db, |db, from, to| {
        for (lineup, met) in lineups_of(db, from, to)? {
            db.execute(
                "INSERT INTO hill_lineups (lineup, games, alike) VALUES (?1, ?2, ?3)
                 ON CONFLICT (lineup) DO UPDATE SET games = hill_lineups.games + ?2,
                     alike = hill_lineups.alike + ?3",
                &[lineup.as_str().into(), met.games.into(), met.alike.into()],
            )?;
        }
        Ok(())
    })
}

/// The line-ups of the rated games numbered `from` to `to` (excluded), each with its games and
/// how many of them ended alike.
fn lineups_of(db: &dyn Connection, from: u32, to: u32) -> anyhow::Result<HashMap<String, Met>> {
    let rows = db.query(
        "SELECT r.game, r.bot, r.score FROM results r
         JOIN hill_games h ON h.game = r.game AND h.rated = 1
         WHERE r.game >= ?1 AND r.game < ?2 ORDER BY r.game",
        &[from.into(), to.into()],
    )?;
    let mut lineups: HashMap<String, Met> = HashMap::new();
    let mut count = |seats: &[(usize, f64)]| {
        let versions: Vec<usize> = seats.iter().map(|s| s.0).collect();
        let met = lineups.entry(lineup_key(&versions)).or_default();
        met.games += 1;
        met.alike += u32::from(seats.iter().all(|s| s.1 == seats[0].1));
    };
    let mut game = None;
    let mut seats: Vec<(usize, f64)> = Vec::new();
    for r in &rows {
        let this = r.int("game")?;
        if game != Some(this) && !seats.is_empty() {
            count(&seats);
            seats.clear();
        }
        game = Some(this);
        seats.push((r.int("bot")? as usize, r.real("score")?));
    }
    if !seats.is_empty() {
        count(&seats);
    }
    Ok(lineups)
}

/// The games played so far per pair of versions, per version, per line-up (whether it was
/// tried, and whether its games all ended alike), and in all, for matchmaking.
pub(crate) fn history(db: &dyn Connection) -> anyhow::Result<History> {
    history_in_pages(db, PAGE_ROWS)
}

/// [`history`], its pairs and line-ups read `page` rows at a time.
pub(crate) fn history_in_pages(db: &dyn Connection, page: usize) -> anyhow::Result<History> {
    let mut history = History::default();
    // One walk of each table: the line-ups' two counts in one.
    let count = |row: &Option<Row>, column: &str| -> usize {
        let n = row.as_ref().and_then(|r| r.int(column).ok());
        n.and_then(|n| usize::try_from(n).ok()).unwrap_or(0)
    };
    let pairs = db.row("SELECT COUNT(*) AS n FROM hill_pairs", &[])?;
    let lineups = db.row(
        "SELECT COALESCE(SUM(CASE WHEN games = alike THEN 1 ELSE 0 END), 0) AS barren,
             COALESCE(SUM(CASE WHEN games > alike THEN 1 ELSE 0 END), 0) AS paid
         FROM hill_lineups",
        &[],
    )?;
    history.reserve(count(&pairs, "n"), count(&lineups, "barren"));
    history.read_lineups(count(&lineups, "paid"), |add| {
        super::in_pages(
            db,
            page,
            "SELECT lineup, games, alike FROM hill_lineups",
            "lineup",
            |r| Ok(vec![r.text("lineup")?.into()]),
            |r| {
                let key = r.text("lineup")?;
                let versions = key
                    .split(',')
                    .map(str::parse)
                    .collect::<Result<Vec<usize>, _>>()
                    .with_context(|| {
                        format!("the line-up {key:?} in hill_lineups is not version ids and commas")
                    })?;
                add(&versions, met_of(r)?);
                Ok(())
            },
        )
    })?;
    for r in db.query("SELECT version, games, alike FROM hill_presence", &[])? {
        history.add_presence(r.count("version")? as usize, met_of(&r)?);
    }
    if let Some(r) = db.row("SELECT games, alike FROM hill_outcomes WHERE id = 0", &[])? {
        history.add_outcomes(met_of(&r)?);
    }
    super::in_pages(
        db,
        page,
        "SELECT a, b, games, alike FROM hill_pairs",
        "a, b",
        |r| Ok(vec![r.int("a")?.into(), r.int("b")?.into()]),
        |r| {
            history.add(r.count("a")? as usize, r.count("b")? as usize, met_of(r)?);
            Ok(())
        },
    )?;
    Ok(history)
}

/// A row's `games` and `alike`: counts, so a damaged row's below zero or past `u32` is an
/// error naming its column, not four billion games that would steer the matchmaking.
fn met_of(r: &Row) -> anyhow::Result<Met> {
    Ok(Met {
        games: r.count("games")?,
        alike: r.count("alike")?,
    })
}

/// Rows of a table [`history`] reads at once, at the most: a hill of 10,000,000 games has
/// millions of pairs and line-ups, and a row read is some 200 bytes, so reading them at once
/// would take over a gigabyte. A page of 100,000 rows took 33 MB more of the history's peak
/// than one of 10,000, for no less CPU (docs/benchmarks.md, the tenth pass).
const PAGE_ROWS: usize = 10_000;
