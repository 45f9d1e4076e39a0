//! The refit: every game of a current version fitted again by the game's ranking, the fit and
//! the king stored; on a thread of its own beside `hill run`, off the games' path, and once at
//! a contest's close.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::{Duration, Instant};

use koth_ranking::{self as ranking, Entry, Games, Ranking};
use koth_tournament::store::Store;

use super::store::{self, Connection, Version};

/// How often the refit thread looks for new games.
const REFIT_EVERY: Duration = Duration::from_millis(500);

/// The refit, on a thread of its own with its own connection: whenever games were recorded
/// since the last fit, every game of an active version is fitted again and the fit and the
/// king stored.
pub(crate) struct Refit {
    ranking: Ranking,
    placement_games: u32,
    pub(crate) recorded: Arc<AtomicU32>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<Vec<f64>>>,
}

impl Refit {
    pub(crate) fn start(store: Store, ranking: Ranking, placement_games: u32) -> Refit {
        let recorded = Arc::new(AtomicU32::new(1));
        let stop = Arc::new(AtomicBool::new(false));
        let (r, s) = (recorded.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            // Each refit starts from the last one's strengths.
            let mut last = Vec::new();
            while !s.load(Ordering::Relaxed) {
                if r.swap(0, Ordering::Relaxed) > 0 {
                    let started = Instant::now();
                    match refit(&store, ranking, placement_games, &mut last) {
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
            ranking,
            placement_games,
            recorded,
            stop,
            thread: Some(thread),
        }
    }

    /// Stops the thread and fits once more, so the stored fit includes every game recorded.
    pub(crate) fn stop_and_fit_once(mut self, store: &Store) -> anyhow::Result<()> {
        self.stop.store(true, Ordering::Relaxed);
        let mut last = self
            .thread
            .take()
            .and_then(|thread| thread.join().ok())
            .unwrap_or_default();
        refit(store, self.ranking, self.placement_games, &mut last)
    }
}

/// The games a refit fits: every game with a `current` version in it, how many, each
/// version's games among them (by id, of `versions` in all) and the last game's index.
struct Gathered {
    games: Games,
    counted: u32,
    played: Vec<u32>,
    last_game: Option<u32>,
}

fn gather(
    db: &dyn Connection,
    ranking: Ranking,
    versions: usize,
    current: &[&Version],
) -> anyhow::Result<Gathered> {
    // By id: a game's seats are looked up here ten million times in a large hill.
    let mut is_current = vec![false; versions];
    for v in current {
        if let Some(c) = is_current.get_mut(v.id) {
            *c = true;
        }
    }
    let mut games = Games::new(ranking);
    let mut counted = 0u32;
    let mut played = vec![0u32; versions];
    let last_game = store::each_game(db, |seats| {
        if !seats
            .iter()
            .any(|&(v, _)| is_current.get(v).copied().unwrap_or(false))
        {
            return;
        }
        counted += 1;
        for &(v, _) in seats {
            if let Some(p) = played.get_mut(v) {
                *p += 1;
            }
        }
        games.add(seats);
    })?;
    Ok(Gathered {
        games,
        counted,
        played,
        last_game,
    })
}

/// Fits every game with a current version in it (active or suspended) by the game's
/// `ranking`, and stores the fit, how sure the first's lead over the runner-up is, and, if it
/// changed, the king: the table's first ([`ranking::in_order`], the board's own order) once it
/// has played its `placement_games` ([`ranking::king`]). Starts from
/// `last`, each version's coordinate at the last fit, and leaves this fit's there.
pub(crate) fn refit(
    store: &Store,
    ranking: Ranking,
    placement_games: u32,
    last: &mut Vec<f64>,
) -> anyhow::Result<()> {
    let db: &dyn Connection = store;
    let versions = store::versions(db)?;
    let current: Vec<&Version> = versions.iter().filter(|v| v.current()).collect();
    let Gathered {
        games,
        counted,
        played,
        last_game,
    } = gather(db, ranking, versions.len(), &current)?;
    last.resize(versions.len(), 0.0);
    let fit = ranking::fit(&games, last);
    let strengths = &fit.strengths;
    *last = strengths.iter().map(|s| s.theta).collect();
    let fitted: Vec<store::Fitted> = current
        .iter()
        .map(|v| store::Fitted {
            version: v.id,
            strength: strengths[v.id],
            games: played[v.id],
        })
        .collect();
    let mut table: Vec<Entry> = current
        .iter()
        .filter(|v| v.scheduled())
        .map(|v| Entry {
            id: v.id,
            value: Some(strengths[v.id].value),
            interval: strengths[v.id].interval,
            games: played[v.id],
        })
        .collect();
    ranking::in_order(&mut table);
    let crowned = ranking::king(&table, placement_games);
    // The lead of the ranked: the first two that have placed.
    let ranked: Vec<&Entry> = table
        .iter()
        .filter(|entry| ranking::placed(entry, placement_games))
        .collect();
    let lead = match ranked.as_slice() {
        [first, second, ..] => Some(store::Lead {
            first: first.id,
            second: second.id,
            interval: fit.lead_interval(first.id, second.id),
        }),
        _ => None,
    };
    let unplayed = fit.unplayed_interval();
    let fit = store::FitWritten {
        fitted: &fitted,
        games: counted,
        last_game,
        crowned,
        lead,
        unplayed,
        placement_games,
    };
    if let Some(king) = store::write_fit(db, &fit)? {
        let label = versions
            .iter()
            .find(|v| v.id == king)
            .map_or_else(|| king.to_string(), Version::label);
        eprintln!("koth: {label} is the new king");
        tracing::info!(king = label, "a new king");
    }
    Ok(())
}
