//! Rating a recorded game, once: the online ratings, each version's counts, the rating history,
//! the line-ups' and pairs' counts matchmaking reads, the bots' records' summary, and the
//! suspension of a version that cannot play, all in the game's one transaction.

use anyhow::Context;
use skillratings::weng_lin::WengLinRating;

use koth_bot::{FaultCounts, FuelStats};
use koth_tournament::store::fuel_of;
use koth_tournament::store::sql::Row;

use super::super::config::Suspension;
use super::{Connection, DONE, FAULT_KINDS, lineup_key, summary};

/// A seat's result as rating reads it.
pub(super) struct SeatResult {
    pub(super) bot: usize,
    pub(super) score: f64,
    pub(super) faults: FaultCounts,
    fuel: Option<FuelStats>,
}

/// Whether a seat's counted faults make its game a faulted one (a harness fault never reaches
/// a result, so never counts).
fn faulted(faults: &FaultCounts) -> bool {
    faults.timed_out + faults.crashed + faults.bad_output + faults.failed_to_start > 0
}

/// What [`rate_recorded`] rated: the games, in order, and the versions it suspended, with why.
pub(crate) struct Rated {
    pub games: Vec<u32>,
    pub suspended: Vec<(usize, String)>,
}

/// Rates recorded games not yet rated, in game order, at most `most` of them, each in one
/// transaction with its mark: the online ratings, each version's games and faulted games, the
/// rating history, and the suspension of a version faulting too often. So a game is rated once,
/// whenever koth was stopped, or whoever recorded it (a worker, in a shared hill): only `hill
/// run` rates. Those over `most` stay unrated, for the next run (`hill run --games N` rates N).
pub(crate) fn rate_recorded(
    db: &dyn Connection,
    suspension: Suspension,
    most: u32,
) -> anyhow::Result<Rated> {
    let games: Vec<u32> = db
        .query(
            &format!(
                "SELECT h.game FROM hill_games h JOIN games g ON g.idx = h.game
             WHERE h.rated = 0 AND g.state = '{DONE}' ORDER BY h.game"
            ),
            &[],
        )?
        .iter()
        .map(|r| Ok(r.int("game")? as u32))
        .collect::<anyhow::Result<_>>()?;
    let mut rated = Rated {
        games: Vec::new(),
        suspended: Vec::new(),
    };
    for game in games {
        if rated.games.len() == most as usize {
            break;
        }
        if let Some(now) = db.transaction(|db| rate_one(db, game, suspension))? {
            rated.games.push(game);
            rated.suspended.extend(now);
        }
    }
    Ok(rated)
}

/// Rates game `game` unless it is rated already (`None`).
fn rate_one(
    db: &dyn Connection,
    game: u32,
    suspension: Suspension,
) -> anyhow::Result<Option<Vec<(usize, String)>>> {
    let marked = db.execute(
        "UPDATE hill_games SET rated = 1 WHERE game = ?1 AND rated = 0",
        &[game.into()],
    )?;
    if marked == 0 {
        return Ok(None);
    }
    let seats = seat_results(db, game)?;
    let (ratings, fuels) = ratings_and_fuels(db, game, &seats)?;
    let scores: Vec<f64> = seats.iter().map(|s| s.score).collect();
    let updated = koth_tournament::leaderboard::rate_contest(&ratings, &scores);
    count_pairs(db, &seats)?;
    count_alike(db, &seats, &scores)?;
    let summed: Vec<_> = seats.iter().map(|s| (s.bot, s.score, &s.faults)).collect();
    summary::add_rated(db, game, &summed)?;
    let mut suspended = Vec::new();
    for ((seat, rating), fuel) in seats.iter().zip(updated).zip(fuels) {
        db.execute(
            "UPDATE hill_versions SET mu = ?2, sigma = ?3, games = games + 1,
                 faulted = faulted + ?4, last_game = ?5, fuel = ?6 WHERE id = ?1",
            &[
                seat.bot.into(),
                rating.rating.into(),
                rating.uncertainty.into(),
                i64::from(faulted(&seat.faults)).into(),
                game.into(),
                fuel.into(),
            ],
        )?;
        db.execute(
            "INSERT INTO hill_ratings (game, version, mu, sigma) VALUES (?1, ?2, ?3, ?4)",
            &[
                game.into(),
                seat.bot.into(),
                rating.rating.into(),
                rating.uncertainty.into(),
            ],
        )?;
        let reason = match suspension_of(db, seat.bot, suspension)? {
            Some(reason) => Some(reason),
            None => data_suspension_of(db, seat.bot, suspension)?,
        };
        if let Some(reason) = reason {
            suspend(db, seat.bot, &reason)?;
            suspended.push((seat.bot, reason));
        }
    }
    Ok(Some(suspended))
}

/// The results of game `game`, seat by seat.
fn seat_results(db: &dyn Connection, game: u32) -> anyhow::Result<Vec<SeatResult>> {
    db.query(
        "SELECT bot, score, timed_out_faults, crashed_faults, bad_output_faults,
             failed_to_start_faults, fuel FROM results WHERE game = ?1 ORDER BY seat",
        &[game.into()],
    )?
    .iter()
    .map(|r| {
        let count = |column: &str| -> anyhow::Result<u64> { Ok(r.int(column)? as u64) };
        Ok(SeatResult {
            bot: r.int("bot")? as usize,
            score: r.real("score")?,
            faults: FaultCounts {
                timed_out: count("timed_out_faults")?,
                crashed: count("crashed_faults")?,
                bad_output: count("bad_output_faults")?,
                failed_to_start: count("failed_to_start_faults")?,
                benched: 0,
            },
            fuel: fuel_of(r.get("fuel")?)?,
        })
    })
    .collect()
}

/// Each seat's version's online rating before game `game`, and its fuel so far with this
/// game's merged in (as JSON, none for a process), as the leaderboard reads it.
fn ratings_and_fuels(
    db: &dyn Connection,
    game: u32,
    seats: &[SeatResult],
) -> anyhow::Result<(Vec<WengLinRating>, Vec<Option<String>>)> {
    let mut ratings = Vec::new();
    let mut fuels = Vec::new();
    for seat in seats {
        let row = db
            .row(
                "SELECT mu, sigma, fuel FROM hill_versions WHERE id = ?1",
                &[seat.bot.into()],
            )?
            .with_context(|| format!("game {game} seats version {}, which is unknown", seat.bot))?;
        ratings.push(WengLinRating {
            rating: row.real("mu")?,
            uncertainty: row.real("sigma")?,
        });
        let mut fuel = fuel_of(row.get("fuel")?)?;
        if let Some(game) = &seat.fuel {
            fuel.get_or_insert_default().merge(game);
        }
        fuels.push(fuel.map(|f| serde_json::to_string(&f)).transpose()?);
    }
    Ok((ratings, fuels))
}

/// Counts a game of `seats` for each pair of versions in it that matchmaking reads (and
/// whether the two scored alike).
fn count_pairs(db: &dyn Connection, seats: &[SeatResult]) -> anyhow::Result<()> {
    for (k, x) in seats.iter().enumerate() {
        for y in &seats[k + 1..] {
            if x.bot == y.bot {
                continue;
            }
            let (a, b) = (x.bot.min(y.bot), x.bot.max(y.bot));
            db.execute(
                "INSERT INTO hill_pairs (a, b, games, alike) VALUES (?1, ?2, 1, ?3)
                 ON CONFLICT (a, b) DO UPDATE SET games = hill_pairs.games + 1,
                     alike = hill_pairs.alike + ?3",
                &[a.into(), b.into(), i64::from(x.score == y.score).into()],
            )?;
        }
    }
    Ok(())
}

/// Counts a game of `seats` (scoring `scores`), and whether every seat scored alike, for each
/// version present, for every game, and for its line-up.
fn count_alike(db: &dyn Connection, seats: &[SeatResult], scores: &[f64]) -> anyhow::Result<()> {
    let alike = i64::from(scores.iter().all(|&s| s == scores[0]));
    let mut present: Vec<usize> = seats.iter().map(|s| s.bot).collect();
    present.sort_unstable();
    present.dedup();
    for version in present {
        db.execute(
            "INSERT INTO hill_presence (version, games, alike) VALUES (?1, 1, ?2)
             ON CONFLICT (version) DO UPDATE SET games = hill_presence.games + 1,
                 alike = hill_presence.alike + ?2",
            &[version.into(), alike.into()],
        )?;
    }
    db.execute(
        "INSERT INTO hill_outcomes (id, games, alike) VALUES (0, 1, ?1)
         ON CONFLICT (id) DO UPDATE SET games = hill_outcomes.games + 1,
             alike = hill_outcomes.alike + ?1",
        &[alike.into()],
    )?;
    let versions: Vec<usize> = seats.iter().map(|s| s.bot).collect();
    db.execute(
        "INSERT INTO hill_lineups (lineup, games, alike) VALUES (?1, 1, ?2)
         ON CONFLICT (lineup) DO UPDATE SET games = hill_lineups.games + 1,
             alike = hill_lineups.alike + ?2",
        &[lineup_key(&versions).into(), alike.into()],
    )?;
    Ok(())
}

/// Suspends version `id` for `reason` (a version suspended already keeps its first reason).
pub(crate) fn suspend(db: &dyn Connection, id: usize, reason: &str) -> anyhow::Result<()> {
    db.execute(
        "UPDATE hill_versions SET suspended = ?2 WHERE id = ?1 AND suspended IS NULL",
        &[id.into(), reason.into()],
    )?;
    Ok(())
}

/// Why learning version `id` must be suspended, if it must: its data was refused (over its cap,
/// a link, …: [`koth_tournament::play::DATA_REFUSED`]) in most of its last window of games, so it
/// plays on without ever learning; counted since it was added or last resumed.
fn data_suspension_of(
    db: &dyn Connection,
    id: usize,
    suspension: Suspension,
) -> anyhow::Result<Option<String>> {
    let notes: Vec<String> = db
        .query(
            &format!(
                "SELECT COALESCE(d.note, '') AS note FROM game_data d JOIN hill_versions v ON v.id = d.bot
                 WHERE d.bot = ?1 AND d.game >= v.counted_from AND v.suspended IS NULL
                 ORDER BY d.game DESC LIMIT {}",
                suspension.window
            ),
            &[id.into()],
        )?
        .iter()
        .map(|r| r.text("note"))
        .collect::<anyhow::Result<_>>()?;
    if notes.len() < suspension.window as usize {
        return Ok(None);
    }
    let refused: Vec<&String> = notes
        .iter()
        .filter(|note| note.starts_with(koth_tournament::play::DATA_REFUSED))
        .collect();
    if refused.len() * 2 <= notes.len() {
        return Ok(None);
    }
    Ok(Some(format!(
        "suspended: its data was not kept in {} of its last {} games, so it would never learn; \
         the latest: {}",
        refused.len(),
        notes.len(),
        refused[0]
    )))
}

/// How many first games a version that could play none of them is suspended after, without
/// waiting for its window of `suspend_window` games.
const FIRST_GAMES: usize = 3;

/// Why version `id` must be suspended, if it must: games it could not play
/// ([`super::super::could_not_play`]) in more than the share allowed of its last games (at least the
/// window's worth), or in each of its first [`FIRST_GAMES`] or more while the window is not
/// yet full; counted since it was added or last resumed.
fn suspension_of(
    db: &dyn Connection,
    id: usize,
    suspension: Suspension,
) -> anyhow::Result<Option<String>> {
    let rows = db.query(
        &format!(
            "SELECT r.game, r.timed_out_faults, r.crashed_faults, r.bad_output_faults,
                 r.failed_to_start_faults, r.faults, r.answers
             FROM results r JOIN hill_versions v ON v.id = r.bot
             WHERE r.bot = ?1 AND r.game >= v.counted_from AND v.suspended IS NULL
             ORDER BY r.game DESC LIMIT {}",
            suspension.window
        ),
        &[id.into()],
    )?;
    // Its first games since it was added or resumed, before the window is full: suspended at
    // once if it could play none of them (a bot that always crashes must not play a window's
    // worth of games, minutes of everyone's time, before the rule can speak).
    let first_games = rows.len() < suspension.window as usize;
    if first_games && rows.len() < FIRST_GAMES {
        return Ok(None);
    }
    let (broken, kinds) = games_it_could_not_play(&rows)?;
    let share = broken.len() as f64 / rows.len() as f64;
    if first_games && broken.len() < rows.len() || !first_games && share <= suspension.share {
        return Ok(None);
    }
    // The first fault of the latest such game, as its reason (bounded: faults are quoted).
    let example = broken
        .iter()
        .find_map(|r| {
            let faults: serde_json::Value = serde_json::from_str(&r.text("faults").ok()?).ok()?;
            faults.get(0)?.get("reason")?.as_str().map(str::to_string)
        })
        .unwrap_or_default();
    let games: Vec<String> = broken
        .iter()
        .rev()
        .map(|r| r.int("game").map(|g| g.to_string()))
        .collect::<anyhow::Result<_>>()?;
    let measure = if first_games {
        format!(
            "in each of its first {} games (games {}): it could not play",
            rows.len(),
            games.join(", ")
        )
    } else {
        format!(
            "in {} of its last {} games (games {}), over the {:.0}% allowed",
            broken.len(),
            rows.len(),
            games.join(", "),
            suspension.share * 100.0
        )
    };
    Ok(Some(format!(
        "suspended: faults ({}) {measure}; the latest: {example}",
        kinds.join(", ")
    )))
}

/// The games of `rows` (results, latest first) in which the version could not play
/// ([`super::super::could_not_play`]), and the kinds of their faults, each once, in the order
/// first met.
fn games_it_could_not_play(rows: &[Row]) -> anyhow::Result<(Vec<&Row>, Vec<String>)> {
    let mut broken = Vec::new();
    let mut kinds: Vec<String> = Vec::new();
    for r in rows {
        let counts: Vec<i64> = FAULT_KINDS
            .iter()
            .map(|kind| r.int(&format!("{kind}_faults")))
            .collect::<anyhow::Result<_>>()?;
        let count = |k: usize| u64::try_from(counts[k]).unwrap_or(0);
        let faults = FaultCounts {
            timed_out: count(0),
            crashed: count(1),
            bad_output: count(2),
            failed_to_start: count(3),
            benched: 0,
        };
        if !super::super::could_not_play(&faults, u64::try_from(r.int("answers")?).unwrap_or(0)) {
            continue;
        }
        broken.push(r);
        for (kind, count) in FAULT_KINDS.iter().zip(&counts) {
            if *count > 0 && !kinds.iter().any(|k| k == kind) {
                kinds.push(kind.to_string());
            }
        }
    }
    Ok((broken, kinds))
}
