//! The contest's part in `hill run`'s turn: at the close the field frozen once, then the
//! final moved on a round at a time — a game that failed by the harness played again, a round
//! queued whole, and the result published once the table is sure or the budget spent.

use anyhow::Context;

use koth_ranking::Ranking;
use koth_tournament::schedule::ScheduledGame;
use koth_tournament::store::GameState;
use koth_tournament::store::sql::Connection;

use super::export::game_files;
use super::{
    ClosingLine, FinalGame, FinalResult, FinalSettings, Finalist, MANIFEST_FILE, MANIFEST_META,
    Manifest, RESULT_FILE, RESULT_META, closed, closes_at, manifest, render, rfc3339, schedule,
    standing, standing_of, write_once,
};
use crate::config::Contest;
use crate::store::{self, contest as db};
use crate::{Hill, board, refit};

/// The stream of the hill's seed the final's seed is drawn from (ranked games use 1 + index).
const FINAL_STREAM: u64 = 3 << 40;

/// `hill run`'s turn of a contest: nothing before the close (`None`); after it, the field
/// frozen once and the final moved on ([`step`]).
pub(crate) fn turn(hill: &Hill) -> anyhow::Result<Option<Step>> {
    let Some(contest) = &hill.config.contest else {
        return Ok(None);
    };
    if !closed(contest, &hill.store)? {
        return Ok(None);
    }
    freeze(hill, contest)?;
    step(hill).map(Some)
}

/// What the final does next, seen from `hill run`'s turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// Its games are queued or being played.
    Playing,
    /// Published: nothing more to play.
    Done,
}

/// Writes `bytes` as `relative` in the hill folder.
fn write_file(hill: &Hill, relative: &str, bytes: &str) -> anyhow::Result<()> {
    let path = hill.dir.join(relative);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    std::fs::write(&path, bytes).with_context(|| format!("cannot write {}", path.display()))
}

/// At the close: refits, freezes the table's first `finalists` in the manifest and drops the
/// ranked games not begun. Does nothing before the close or once frozen.
fn freeze(hill: &Hill, contest: &Contest) -> anyhow::Result<()> {
    let store = &hill.store;
    if !closed(contest, store)? || store.meta(MANIFEST_META)?.is_some() {
        return Ok(());
    }
    let dropped = db::drop_ranked_queue(store)?;
    let ranking = hill.config.game.game()?.ranking();
    refit::refit(
        store,
        hill.config.tuning.placement_games,
        &mut refit::Held::new(ranking),
    )?;
    let board = board::read(store)?;
    let finalists = finalists(hill, &board, contest.finalists)?;
    let manifest = manifest_at_close(hill, contest, ranking, &board, finalists)?;
    let text = write_once(
        store,
        MANIFEST_META,
        &serde_json::to_string_pretty(&manifest)?,
    )?;
    write_file(hill, MANIFEST_FILE, &text)?;
    let sha = koth_bot::digest::sha256_hex(text.as_bytes());
    let line = format!(
        "the contest closed at {}: the manifest ({}) has SHA-256 {sha}{}",
        manifest.closed_at,
        hill.dir.join(MANIFEST_FILE).display(),
        if dropped > 0 {
            format!("; {dropped} ranked games not begun are dropped")
        } else {
            String::new()
        }
    );
    eprintln!("koth: {line}");
    tracing::info!("{line}");
    Ok(())
}

/// The table's first `most` on `board`, each with the digest of the files it is played from:
/// its ranked lines, then, if they are too few, those still placing (most games first), as the
/// table lists them.
fn finalists(hill: &Hill, board: &board::HillBoard, most: usize) -> anyhow::Result<Vec<Finalist>> {
    let versions = store::versions(&hill.store)?;
    let bots = hill.store.bots()?;
    let mut finalists = Vec::new();
    for line in &board.standings {
        if finalists.len() == most {
            break;
        }
        let Some(v) = versions
            .iter()
            .find(|v| v.name == line.name && v.version == line.version)
        else {
            continue;
        };
        let bot = bots.get(v.id).context("a version without its bot")?;
        let dir = hill.version_folder(v.id, bot, &v.digest)?;
        let built = koth_bot::digest::digest(&koth_bot::BotSpec { dir, ..bot.clone() })?;
        finalists.push(Finalist {
            name: v.name.clone(),
            version: v.version,
            id: v.id,
            source_digest: v.digest.clone(),
            built_digest: built,
            rating: line.rating,
            low: line.low,
            high: line.high,
            games: line.games,
        });
    }
    Ok(finalists)
}

/// The manifest frozen at the close: the hill, when and how it closed, the final's settings,
/// its `finalists` and the closing table (`board`).
fn manifest_at_close(
    hill: &Hill,
    contest: &Contest,
    ranking: Ranking,
    board: &board::HillBoard,
    finalists: Vec<Finalist>,
) -> anyhow::Result<Manifest> {
    let store = &hill.store;
    let seats = hill.config.players().min(finalists.len().max(1));
    let (at, by_hand) = closes_at(contest, store)?;
    let hill_file = crate::file_text(store, &hill.dir)?;
    Ok(Manifest {
        hill: hill.name.clone(),
        game: hill.config.game.game.clone(),
        ranking: match ranking {
            Ranking::Points => "points",
            Ranking::Placement => "placement",
        }
        .into(),
        closes: rfc3339(contest.closes),
        closed_at: rfc3339(at),
        closed_by_hand: by_hand,
        final_settings: FinalSettings {
            seats,
            round_size: schedule::round_size(finalists.len(), seats).unwrap_or(0),
            budget: contest.budget,
            seed: {
                use rand::Rng;
                koth_game::seed::rng(hill.seed, FINAL_STREAM).next_u64()
            },
            stops: "after a whole round once every adjacent pair of the final's table is apart \
                    at 95% (a lead above its interval), or when another round would pass the \
                    budget; pairs not apart then are declared tied"
                .into(),
            hill_file_sha256: koth_bot::digest::sha256_hex(hill_file.as_bytes()),
        },
        finalists,
        table: board
            .standings
            .iter()
            .map(|l| ClosingLine {
                rank: l.rank,
                name: l.name.clone(),
                version: l.version,
                rating: l.rating,
                low: l.low,
                high: l.high,
                games: l.games,
            })
            .collect(),
    })
}

/// Moves the final on (after [`freeze`]): plays again with its seats and seed a game whose
/// every attempt failed by the harness, and once a round is done decides: published, or the
/// next round queued.
fn step(hill: &Hill) -> anyhow::Result<Step> {
    let store = &hill.store;
    if store.meta(RESULT_META)?.is_some() {
        return Ok(Step::Done);
    }
    let Some((manifest, sha)) = manifest(store)? else {
        return Ok(Step::Playing);
    };
    let finalists = manifest.finalists.len();
    let settings = &manifest.final_settings;
    let conn: &dyn Connection = store;
    replay_harness_failed(conn, &db::final_games(conn)?)?;
    let games = db::final_games(conn)?;
    if games
        .iter()
        .any(|g| matches!(g.state, GameState::Pending | GameState::Running))
    {
        return Ok(Step::Playing);
    }
    let rounds = games.iter().map(|g| g.round).max().unwrap_or(0);
    if let Some(sha) = published(hill, &manifest, sha, rounds)? {
        if rounds == 0 {
            let line = format!(
                "the final begins: {finalists} finalists, rounds of {} games, at most {}; \
                 manifest SHA-256 {sha}",
                settings.round_size, settings.budget
            );
            eprintln!("koth: {line}");
            tracing::info!("{line}");
        }
        queue_round(hill, &manifest, rounds + 1)?;
        return Ok(Step::Playing);
    }
    Ok(Step::Done)
}

/// Queues again, with its seats and seed, each game of the final's `games` whose every attempt
/// failed by the harness and that was not played again yet.
fn replay_harness_failed(
    conn: &dyn store::Connection,
    games: &[db::FinalGameRow],
) -> anyhow::Result<()> {
    for failed in games
        .iter()
        .filter(|g| g.state == GameState::HarnessFailed && !g.replayed)
    {
        let index = store::next_game(conn)?;
        let again = ScheduledGame {
            index,
            seed: failed.seed,
            seats: failed.seats.clone(),
        };
        let reason = format!(
            "the final, round {}: game {} played again (every attempt failed by the harness)",
            failed.round, failed.game
        );
        db::queue_final_game(
            conn,
            &again,
            failed.round,
            failed.table,
            Some(failed.game),
            &reason,
        )?;
        tracing::warn!(game = failed.game, again = index, "{reason}");
    }
    Ok(())
}

/// With the final's `rounds` all played, publishes its result if it is done: its table sure,
/// the budget spent, or no final (fewer than two finalists). Gives the manifest's `sha` back
/// while the final goes on (`None` once published).
fn published(
    hill: &Hill,
    manifest: &Manifest,
    sha: String,
    rounds: u32,
) -> anyhow::Result<Option<String>> {
    let finalists = manifest.finalists.len();
    let settings = &manifest.final_settings;
    let ranking = if manifest.ranking == "points" {
        Ranking::Points
    } else {
        Ranking::Placement
    };
    if finalists >= 2 && rounds > 0 {
        let scored = scored_games(hill, manifest)?;
        let table = standing::table(ranking, finalists, &standing_of(&scored));
        let next_fits =
            u64::from(rounds + 1) * u64::from(settings.round_size) <= u64::from(settings.budget);
        if table.sure() || !next_fits {
            let stopped = if table.sure() {
                format!("every adjacent pair apart at 95% after {rounds} round(s)")
            } else {
                format!(
                    "the budget: another round of {} games would pass {}",
                    settings.round_size, settings.budget
                )
            };
            publish(hill, manifest, sha, stopped, rounds, table, scored)?;
            return Ok(None);
        }
    } else if finalists < 2 {
        let stopped = "no final: fewer than two bots on the hill at the close".to_string();
        let table = standing::table(ranking, finalists, &[]);
        publish(hill, manifest, sha, stopped, 0, table, Vec::new())?;
        return Ok(None);
    }
    Ok(Some(sha))
}

/// Queues round `round` of the final: every table with its seed, each seat taken by each.
fn queue_round(hill: &Hill, manifest: &Manifest, round: u32) -> anyhow::Result<()> {
    let settings = &manifest.final_settings;
    let conn: &dyn Connection = &hill.store;
    for seating in schedule::round(manifest.finalists.len(), settings.seats) {
        let seed = {
            use rand::Rng;
            let stream = (u64::from(round) << 32) + u64::from(seating.table);
            koth_game::seed::rng(settings.seed, stream).next_u64()
        };
        let game = ScheduledGame {
            index: store::next_game(conn)?,
            seed,
            seats: seating
                .seats
                .iter()
                .map(|&f| manifest.finalists[f].id)
                .collect(),
        };
        let reason = format!("the final, round {round}, table {}", seating.table + 1);
        db::queue_final_game(conn, &game, round, seating.table, None, &reason)?;
    }
    tracing::info!(round, "a round of the final queued");
    Ok(())
}

/// The final's scored games, in their order, with their outcomes and files' digests.
fn scored_games(hill: &Hill, manifest: &Manifest) -> anyhow::Result<Vec<FinalGame>> {
    let place = |id: usize| manifest.finalists.iter().position(|f| f.id == id);
    let mut scored = Vec::new();
    for game in db::final_games(&hill.store)?
        .into_iter()
        .filter(|g| g.state == GameState::Done)
    {
        let mut outcomes = Vec::new();
        for (bot, score) in db::scores_of(&hill.store, game.game)? {
            let finalist = place(bot)
                .with_context(|| format!("final game {} seats a bot no finalist", game.game))?;
            outcomes.push(standing::Outcome { finalist, score });
        }
        let files = game_files(hill, game.game)?
            .into_iter()
            .map(|(path, bytes)| (path, koth_bot::digest::sha256_hex(&bytes)))
            .collect();
        scored.push(FinalGame {
            index: game.game,
            round: game.round,
            table: game.table,
            seed: game.seed,
            outcomes,
            files,
        });
    }
    Ok(scored)
}

fn publish(
    hill: &Hill,
    manifest: &Manifest,
    manifest_sha256: String,
    stopped: String,
    rounds: u32,
    table: standing::Table,
    final_games: Vec<FinalGame>,
) -> anyhow::Result<()> {
    let names: Vec<String> = manifest
        .finalists
        .iter()
        .map(|f| format!("{} v{}", f.name, f.version))
        .collect();
    let ties = table
        .unseparated()
        .into_iter()
        .map(|(a, b)| [names[a].clone(), names[b].clone()])
        .collect();
    let result = FinalResult {
        manifest_sha256,
        stopped,
        rounds,
        games: final_games.len() as u32,
        replayed: db::final_harness_faults(&hill.store)?,
        finalists: names,
        table,
        ties,
        final_games,
    };
    let text = write_once(
        &hill.store,
        RESULT_META,
        &serde_json::to_string_pretty(&result)?,
    )?;
    write_file(hill, RESULT_FILE, &text)?;
    let (result, _) = super::result(&hill.store)?.context("the result vanished")?;
    eprintln!(
        "koth: the final is published ({}): {}\n{}",
        hill.dir.join(RESULT_FILE).display(),
        result.stopped,
        render(&result)
    );
    tracing::info!(stopped = result.stopped, "the final is published");
    Ok(())
}
