//! The last fit of the whole table as the hill keeps it (each version's figure and interval, the
//! lead of the first two, the kings), and the settings of the run the board reads with it.

use anyhow::Context;

use koth_ranking::Strength;

use super::{Connection, now};
use koth_tournament::store::set_meta;

/// A fitted version's line.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fitted {
    pub version: usize,
    pub strength: Strength,
    pub games: u32,
}

/// How sure the fitted table's first is of its lead over the runner-up (version ids).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Lead {
    pub first: usize,
    pub second: usize,
    /// Half the width of the 95% interval of the first's figure less the second's.
    pub interval: f64,
}

/// The lead at the last fit, if the table had two versions.
pub(crate) fn lead(store: &koth_tournament::store::Store) -> anyhow::Result<Option<Lead>> {
    let Some(text) = store.meta("lead")? else {
        return Ok(None);
    };
    let parts: Vec<&str> = text.split(' ').collect();
    let [first, second, interval] = parts.as_slice() else {
        anyhow::bail!("the stored lead {text:?} is not `first second interval`");
    };
    Ok(Some(Lead {
        first: first.parse()?,
        second: second.parse()?,
        interval: interval.parse()?,
    }))
}

/// The last fit's interval for a version without games, if a fit was stored.
pub(crate) fn unplayed(store: &koth_tournament::store::Store) -> anyhow::Result<Option<f64>> {
    store
        .meta("unplayed")?
        .map(|text| {
            text.parse()
                .with_context(|| format!("the stored interval {text:?} is not a number"))
        })
        .transpose()
}

/// A fit as [`write_fit`] stores it.
#[derive(Clone, Copy)]
pub(crate) struct FitWritten<'a> {
    pub fitted: &'a [Fitted],
    /// Recorded games it was made from, the last of them `last_game`.
    pub games: u32,
    pub last_game: Option<u32>,
    /// The table's first placed version.
    pub crowned: Option<usize>,
    /// The first two placed versions, and how far apart.
    pub lead: Option<Lead>,
    /// The interval of a version without games.
    pub unplayed: f64,
    /// The games a version plays before it is ranked, which the board reads.
    pub placement_games: u32,
}

/// Keeps the hill file's `placement_games` where the board reads it: a run writes it as it
/// starts and with each fit.
pub(crate) fn set_placement_games(db: &dyn Connection, games: u32) -> anyhow::Result<()> {
    set_meta(db, PLACEMENT_GAMES_META, Some(&games.to_string()))
}

/// The `meta` key of the hill file's `placement_games`, where the board reads it.
const PLACEMENT_GAMES_META: &str = "placement_games";

/// The `meta` key of the fewest seats a game of the hill has (`min_players`), where the board
/// reads it to say a hill with fewer versions waits.
const FEWEST_SEATS_META: &str = "fewest_seats";

/// What a run writes as it starts, from the hill file (which may have changed since the last
/// run), for the board and the server to read: its placement games (written again with each
/// fit), the fewest seats a game has, and how long the server holds a game's records
/// (`live_delay_s`).
pub(crate) fn write_run_settings(
    db: &dyn Connection,
    placement_games: u32,
    fewest_seats: usize,
    live_delay_s: f64,
) -> anyhow::Result<()> {
    let settings = [
        (PLACEMENT_GAMES_META, placement_games.to_string()),
        (
            koth_tournament::store::LIVE_DELAY_META,
            live_delay_s.to_string(),
        ),
        (FEWEST_SEATS_META, fewest_seats.to_string()),
    ];
    for (key, value) in &settings {
        set_meta(db, key, Some(value))?;
    }
    Ok(())
}

/// The fewest seats the hill's run last wrote (none before any run: nothing is said to wait).
pub(crate) fn fewest_seats(store: &koth_tournament::store::Store) -> anyhow::Result<Option<usize>> {
    Ok(store
        .meta(FEWEST_SEATS_META)?
        .and_then(|text| text.parse().ok()))
}

/// The placement games the hill's run last wrote (0 before any run: every fitted version
/// ranked).
pub(crate) fn placement_games(store: &koth_tournament::store::Store) -> anyhow::Result<u32> {
    Ok(store
        .meta(PLACEMENT_GAMES_META)?
        .and_then(|text| text.parse().ok())
        .unwrap_or(0))
}

/// Replaces the stored fit with `fitted` (made from `games` recorded games, the last of them
/// game `last_game`), its `lead` and its interval for a version without games (`unplayed`,
/// where matchmaking starts a version the fit has not seen), and crowns `crowned` (the
/// table's first, once placed) unless it reigns already; in one transaction. A
/// version that played since the last fit has its figure kept in its history too (what its
/// page plots). Returns the new king, if it changed.
pub(crate) fn write_fit(db: &dyn Connection, fit: &FitWritten) -> anyhow::Result<Option<usize>> {
    let FitWritten {
        fitted,
        games,
        last_game,
        crowned,
        lead,
        unplayed,
        placement_games,
    } = *fit;
    db.transaction(|db| {
        set_meta(db, "unplayed", Some(&unplayed.to_string()))?;
        set_placement_games(db, placement_games)?;
        let lead = lead.map(
            |Lead {
                 first,
                 second,
                 interval,
             }| format!("{first} {second} {interval}"),
        );
        set_meta(db, "lead", lead.as_deref())?;
        let before: Vec<(usize, u32)> = db
            .query("SELECT version, games FROM hill_fit", &[])?
            .iter()
            .map(|r| Ok((r.int("version")? as usize, r.int("games")? as u32)))
            .collect::<anyhow::Result<_>>()?;
        db.execute("DELETE FROM hill_fit", &[])?;
        for f in fitted {
            let played = !before.contains(&(f.version, f.games));
            if let Some(game) = last_game.filter(|_| played) {
                db.execute(
                    "INSERT INTO hill_fit_history (version, game, rating, half_width)
                     VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT (version, game) DO UPDATE SET rating = ?3, half_width = ?4",
                    &[
                        f.version.into(),
                        game.into(),
                        f.strength.value.into(),
                        f.strength.interval.into(),
                    ],
                )?;
            }
            db.execute(
                "INSERT INTO hill_fit (version, rating, half_width, games, fitted_games)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                &[
                    f.version.into(),
                    f.strength.value.into(),
                    f.strength.interval.into(),
                    f.games.into(),
                    games.into(),
                ],
            )?;
        }
        let Some(crowned) = crowned else {
            return Ok(None);
        };
        let king = db
            .row(
                "SELECT version FROM hill_kings ORDER BY since_game DESC, since DESC, seq DESC
                 LIMIT 1",
                &[],
            )?
            .map(|r| r.int("version").map(|k| k as usize))
            .transpose()?;
        if king == Some(crowned) {
            return Ok(None);
        }
        db.execute(
            &format!(
                "INSERT INTO hill_kings (version, since_game, since, seq) VALUES (?1, ?2, {},
                     (SELECT COALESCE(MAX(seq), 0) + 1 FROM hill_kings))",
                now(db.dialect())
            ),
            &[crowned.into(), games.into()],
        )?;
        Ok(Some(crowned))
    })
}

/// A version's stored fit.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StoredFit {
    pub version: usize,
    /// The ranking's figure (points per game, or an Elo-scale rating) and its interval's
    /// half-width.
    pub value: f64,
    pub half_width: f64,
    /// The games of it the fit counted.
    pub games: u32,
}

/// A version's figure at the last fit it was in, if it was in one.
pub(crate) fn last_fitted(db: &dyn Connection, version: usize) -> anyhow::Result<Option<f64>> {
    db.row(
        "SELECT rating FROM hill_fit_history WHERE version = ?1 ORDER BY game DESC LIMIT 1",
        &[version.into()],
    )?
    .map(|r| r.real("rating"))
    .transpose()
}

/// The stored fit, by version.
pub(crate) fn fit(db: &dyn Connection) -> anyhow::Result<Vec<StoredFit>> {
    db.query(
        "SELECT version, rating, half_width, games FROM hill_fit ORDER BY version",
        &[],
    )?
    .iter()
    .map(|r| {
        Ok(StoredFit {
            version: r.int("version")? as usize,
            value: r.real("rating")?,
            half_width: r.real("half_width")?,
            games: r.int("games")? as u32,
        })
    })
    .collect()
}

/// The kings, first to last: (version, the number of games recorded when it was crowned, unix
/// seconds).
pub(crate) fn kings(db: &dyn Connection) -> anyhow::Result<Vec<(usize, u32, i64)>> {
    db.query(
        "SELECT version, since_game, since FROM hill_kings ORDER BY since_game, since, seq",
        &[],
    )?
    .iter()
    .map(|r| {
        Ok((
            r.int("version")? as usize,
            r.int("since_game")? as u32,
            r.int("since")?,
        ))
    })
    .collect()
}
