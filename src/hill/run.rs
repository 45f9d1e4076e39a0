//! `hill run`: keeps the queue filled with chosen games, plays them with the tournament's
//! runner (claims, CPU claims, containment, one transaction per result), rates each recorded
//! game once, and refits the displayed ranking on a thread of its own, off the games' path.
//!
//! The queue is the database's: a chosen game is written (seats, seed, reason) before it is
//! played, so a stopped hill resumes with the games it had chosen, and a game cut short is
//! played again from a clean folder. A game's result counts once (the tournament store's
//! attempts); its rating once (marked rated in the rating's own transaction).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use tokio::task::JoinSet;

use crate::cpu::Claim;
use crate::tournament::lock::FolderLock;
use crate::tournament::schedule::ScheduledGame;
use crate::tournament::store::{Claimant, Claimed, Store};
use crate::tournament::{ATTEMPTS, GameParts, Played, play_one};

use super::fit::{self, Games};
use super::matchmaking::{self, Candidate};
use super::store::{self, Version};
use super::{Hill, config::HillConfig};

/// How often an idle hill looks for new versions, and a busy one between games.
const POLL: Duration = Duration::from_millis(250);
/// How often the refit thread looks for new games.
const REFIT_EVERY: Duration = Duration::from_millis(500);

/// Plays `hill` until koth is stopped, or until `games` more games are recorded; `jobs` games
/// at once (default the file's `jobs`). Holds the folder's lock: two runs of one hill are
/// refused.
pub(crate) fn run(hill: Hill, jobs: Option<usize>, games: Option<u32>) -> anyhow::Result<()> {
    let lock = FolderLock::take(&hill.dir)?;
    // Authors' submissions are built and validated beside the games, one at a time.
    let builder = super::submissions::Builder::start(&hill.dir)?;
    let store = &hill.store;
    // This koth alone plays the folder: what a stopped run left running is played again.
    store.requeue_unfinished()?;
    // Games recorded before a stop but not rated are rated now, once.
    store::rate_recorded(store.connection(), hill.config.suspension)?;
    let jobs = jobs.unwrap_or_else(|| hill.config.game.jobs()).max(1);
    let refit = Refit::start(store.reconnect()?);
    let runtime = crate::game::runtime()?;
    let outcome = runtime.block_on(play(&hill, jobs, games, &refit));
    refit.stop_and_fit_once(store)?;
    drop(builder);
    drop(lock);
    outcome
}

async fn play(hill: &Hill, jobs: usize, games: Option<u32>, refit: &Refit) -> anyhow::Result<()> {
    let db = hill.store.connection();
    let config: &HillConfig = &hill.config;
    let game = config.game.game()?;
    let claimant = Claimant::new(crate::tournament::worker::DEFAULT_LEASE_S);
    let allowed = crate::cpu::allowed();
    let share = (allowed.len() / jobs).min(game.most_cpus());
    let mut running = JoinSet::new();
    let mut recorded = 0u32;
    let mut said_waiting = false;
    loop {
        let versions = store::versions(db)?;
        let unscheduled: Vec<usize> = versions
            .iter()
            .filter(|v| !v.scheduled())
            .map(|v| v.id)
            .collect();
        let dropped = store::drop_unscheduled(db, &unscheduled)?;
        if dropped > 0 {
            tracing::info!(
                dropped,
                "queued games of versions no longer scheduled dropped"
            );
        }
        let wanted = games.map_or(u32::MAX, |n| n.saturating_sub(recorded));
        if wanted > running.len() as u32 {
            fill_queue(hill, &versions, jobs)?;
        }
        while running.len() < jobs && (running.len() as u32) < wanted {
            let Some(Claimed { game, attempt }) =
                hill.store.claim(&claimant, &unscheduled, ATTEMPTS)?
            else {
                break;
            };
            let claim = if share == 0 {
                Claim::unpinned("more games at once than CPUs".into())
            } else {
                crate::cpu::claim(&allowed, 1, share)
            };
            let reason = store::reason(db, game.index)?.unwrap_or_default();
            tracing::info!(game = game.index, attempt, "game started: {reason}");
            let parts = parts(hill, &versions, &game, claim)?;
            running.spawn(play_one(parts, game, attempt));
        }
        if running.is_empty() {
            if wanted == 0 {
                break;
            }
            if !said_waiting {
                let active = versions.iter().filter(|v| v.scheduled()).count();
                eprintln!(
                    "koth: the hill waits for bots: {active} scheduled, each game needs {} \
                     (`koth hill add BOT_DIR --hill {}`)",
                    config.players(),
                    hill.dir.display()
                );
                said_waiting = true;
            }
            tokio::time::sleep(POLL).await;
            continue;
        }
        said_waiting = false;
        // A new version may arrive while games run: look again now and then.
        let joined = tokio::select! {
            joined = running.join_next() => joined,
            () = tokio::time::sleep(POLL), if running.len() < jobs => continue,
        };
        let Some(joined) = joined else { continue };
        if crate::interrupt::requested() {
            // The game may have ended only because koth is killing the bots: it stays
            // `running`, to be played again.
            crate::interrupt::wait_for_exit();
        }
        let Played {
            game,
            attempt,
            claim,
            outcome,
            elapsed,
        } = joined.context("a game task was lost")?;
        drop(claim);
        match outcome {
            Ok(result) => {
                let folder = crate::tournament::store::game_dir(&hill.dir, game.index);
                let wall_ms = elapsed.as_secs_f64() * 1000.0;
                if hill
                    .store
                    .record_result(&game, attempt, &result, wall_ms, &folder, &[])?
                {
                    recorded += 1;
                    let names: Vec<String> = result
                        .bots
                        .iter()
                        .map(|b| format!("{} {}", b.name, b.score))
                        .collect();
                    println!("game {}: {}", game.index, names.join(", "));
                    tracing::info!(game = game.index, attempt, wall_ms, "game finished");
                }
                for (version, reason) in store::rate_recorded(db, config.suspension)? {
                    let label = versions
                        .iter()
                        .find(|v| v.id == version)
                        .map_or_else(|| version.to_string(), Version::label);
                    eprintln!("koth: {label} is {reason}");
                    tracing::warn!(version = label, "{reason}");
                }
                refit.recorded.fetch_add(1, Ordering::Relaxed);
            }
            Err(message) => {
                let gave_up = attempt >= ATTEMPTS;
                hill.store
                    .record_harness_fault(game.index, attempt, &message, gave_up)?;
                tracing::warn!(
                    game = game.index,
                    attempt,
                    gave_up,
                    "harness fault: {message}"
                );
                eprintln!(
                    "koth: game {} attempt {attempt}: harness fault: {message}",
                    game.index
                );
            }
        }
    }
    Ok(())
}

/// Chooses games until as many are queued as can run at once (`jobs`), each written with its
/// seed and reason before it is played.
fn fill_queue(hill: &Hill, versions: &[Version], jobs: usize) -> anyhow::Result<()> {
    let db = hill.store.connection();
    let queue = store::queued(db)?;
    let mut queued: HashMap<usize, u32> = HashMap::new();
    for seats in &queue {
        for &bot in seats {
            *queued.entry(bot).or_default() += 1;
        }
    }
    let mut candidates: Vec<Candidate> = versions
        .iter()
        .filter(|v| v.scheduled())
        .map(|v| Candidate {
            id: v.id,
            label: v.label(),
            mu: v.mu,
            sigma: v.sigma,
            games: v.games,
            last_chosen: v.last_game,
            queued: queued.get(&v.id).copied().unwrap_or(0),
        })
        .collect();
    for _ in queue.len()..jobs {
        let next = store::next_game(db)?;
        let mut rng = crate::seed::rng(hill.seed, (1 << 32) + u64::from(next));
        let Some(choice) = matchmaking::choose(
            &candidates,
            hill.config.players(),
            next,
            hill.config.tuning,
            &mut rng,
        ) else {
            break;
        };
        let game = ScheduledGame {
            index: next,
            seed: hill.game_seed(next),
            seats: choice.seats.clone(),
        };
        store::queue_game(db, &game, &choice.reason)?;
        tracing::info!(game = next, "game chosen: {}", choice.reason);
        for c in candidates
            .iter_mut()
            .filter(|c| choice.seats.contains(&c.id))
        {
            c.queued += 1;
            c.last_chosen = Some(next);
        }
    }
    Ok(())
}

/// What the tournament's runner needs to play `game`.
fn parts(
    hill: &Hill,
    versions: &[Version],
    game: &ScheduledGame,
    claim: Claim,
) -> anyhow::Result<GameParts> {
    let bots = hill.store.bots()?;
    let config = &hill.config.game;
    let seats = game
        .seats
        .iter()
        .map(|&id| {
            let bot = bots.get(id).with_context(|| format!("no version {id}"))?;
            debug_assert!(versions.iter().any(|v| v.id == id));
            Ok(crate::bot::BotSpec {
                dir: hill.dir.join(&bot.dir),
                ..bot.clone()
            })
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(GameParts {
        game: config.game()?,
        claim,
        dir: crate::tournament::store::game_dir(&hill.dir, game.index),
        bots: seats,
        limits: config.limits(),
        rounds: config.rounds,
        record_boards: config.record_boards.unwrap_or_default(),
        options: config.options.clone(),
        sandbox: config.sandbox(),
        keep_working_copies: config.keep_working_copies,
    })
}

/// The refit, on a thread of its own with its own connection: whenever games were recorded
/// since the last fit, every game of an active version is fitted again and the fit and the
/// king stored.
struct Refit {
    recorded: Arc<AtomicU32>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<Vec<f64>>>,
}

impl Refit {
    fn start(store: Store) -> Refit {
        let recorded = Arc::new(AtomicU32::new(1));
        let stop = Arc::new(AtomicBool::new(false));
        let (r, s) = (recorded.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            // Each refit starts from the last one's strengths.
            let mut last = Vec::new();
            while !s.load(Ordering::Relaxed) {
                if r.swap(0, Ordering::Relaxed) > 0 {
                    let started = Instant::now();
                    match refit(&store, &mut last) {
                        Ok(()) => tracing::info!(
                            ms = started.elapsed().as_secs_f64() * 1000.0,
                            "refitted"
                        ),
                        Err(err) => tracing::warn!("the refit failed: {err:#}"),
                    }
                }
                std::thread::sleep(REFIT_EVERY);
            }
            last
        });
        Refit {
            recorded,
            stop,
            thread: Some(thread),
        }
    }

    /// Stops the thread and fits once more, so the stored fit includes every game recorded.
    fn stop_and_fit_once(mut self, store: &Store) -> anyhow::Result<()> {
        self.stop.store(true, Ordering::Relaxed);
        let mut last = self
            .thread
            .take()
            .and_then(|thread| thread.join().ok())
            .unwrap_or_default();
        refit(store, &mut last)
    }
}

/// Fits every game with an active version in it and stores the fit and, if it changed, the
/// king: the active version rated highest among those that have played. Starts from `last`,
/// each version's log-strength at the last fit, and leaves this fit's there.
pub(crate) fn refit(store: &Store, last: &mut Vec<f64>) -> anyhow::Result<()> {
    let db = store.connection();
    let versions = store::versions(db)?;
    let active: Vec<&Version> = versions.iter().filter(|v| v.state == "active").collect();
    let scores = store::scores(db)?;
    let mut games = Games::default();
    let mut counted = 0u32;
    let mut played = vec![0u32; versions.len()];
    for game in scores.chunk_by(|a, b| a.0 == b.0) {
        if !game
            .iter()
            .any(|(_, v, _)| active.iter().any(|a| a.id == *v))
        {
            continue;
        }
        counted += 1;
        let seats: Vec<(usize, f64)> = game.iter().map(|&(_, v, s)| (v, s)).collect();
        for &(v, _) in &seats {
            if let Some(p) = played.get_mut(v) {
                *p += 1;
            }
        }
        games.add(&seats);
    }
    last.resize(versions.len(), 0.0);
    let strengths = fit::fit_from(&games, last);
    *last = strengths.iter().map(|s| s.theta).collect();
    let fitted: Vec<store::Fitted> = active
        .iter()
        .map(|v| store::Fitted {
            version: v.id,
            strength: strengths[v.id],
            games: played[v.id],
        })
        .collect();
    let leader = fitted
        .iter()
        .filter(|f| f.games > 0)
        .max_by(|a, b| a.strength.rating.total_cmp(&b.strength.rating))
        .map(|f| f.version);
    if let Some(king) = store::write_fit(db, &fitted, counted, leader)? {
        let label = versions.iter().find(|v| v.id == king).map(Version::label);
        tracing::info!(king = label, "a new king");
    }
    Ok(())
}
