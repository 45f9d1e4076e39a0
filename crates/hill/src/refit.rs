//! The refit: every game of a current version fitted again by the game's ranking, the fit and
//! the king stored; on a thread of its own beside `hill run`, off the games' path, and once at
//! a contest's close.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::{Duration, Instant};

use std::collections::HashSet;

use koth_ranking::{self as ranking, Entry, Games, LeadSolve, Ranking, Start};
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
    thread: Option<std::thread::JoinHandle<Held>>,
}

impl Refit {
    pub(crate) fn start(store: Store, ranking: Ranking, placement_games: u32) -> Refit {
        let recorded = Arc::new(AtomicU32::new(1));
        let stop = Arc::new(AtomicBool::new(false));
        let (r, s) = (recorded.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            // Each refit reads only the games recorded since the last, and starts from its fit.
            let mut held = Held::new(ranking);
            while !s.load(Ordering::Relaxed) {
                if r.swap(0, Ordering::Relaxed) > 0 {
                    let started = Instant::now();
                    match refit(&store, placement_games, &mut held) {
                        Ok(()) => tracing::info!(
                            ms = started.elapsed().as_secs_f64() * 1000.0,
                            "refitted"
                        ),
                        Err(err) => tracing::warn!("the refit failed: {err:#}"),
                    }
                }
                std::thread::sleep(REFIT_EVERY);
            }
            held
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
        let mut held = self
            .thread
            .take()
            .and_then(|thread| thread.join().ok())
            .unwrap_or_else(|| Held::new(self.ranking));
        refit(store, self.placement_games, &mut held)
    }
}

/// What a refit keeps for the next: every game with a version current when they were gathered
/// in it, which games were read, and where the fit ended. Reading ten million games again at
/// every refit took longer than the fit; only those recorded since are read, and the games are
/// gathered afresh only when the current versions change (which changes which games count).
pub(crate) struct Held {
    ranking: Ranking,
    /// The current versions' ids the games were gathered for, in order.
    current: Vec<usize>,
    games: Games,
    /// The games held.
    counted: u32,
    /// Each version's games among them, by id.
    played: Vec<u32>,
    /// The last game's index read.
    last_game: Option<u32>,
    /// Every game below this index has been read.
    read_below: u32,
    /// The games at or past `read_below` already read: recorded while one before them was
    /// still being played.
    read_past: HashSet<u32>,
    /// Where the next fit starts: each version's coordinates at the last fit, by id.
    start: Vec<Start>,
    /// Where the next lead's interval is solved from, if its pair is the last one's.
    lead: LeadSolve,
}

impl Held {
    pub(crate) fn new(ranking: Ranking) -> Held {
        Held {
            ranking,
            current: Vec::new(),
            games: Games::new(ranking),
            counted: 0,
            played: Vec::new(),
            last_game: None,
            read_below: 0,
            read_past: HashSet::new(),
            start: Vec::new(),
            lead: LeadSolve::default(),
        }
    }

    /// Reads the games recorded since the last read (all of them, if the current versions are
    /// no longer those the held games were gathered for), keeping those with a `current`
    /// version in them; `versions` in all.
    fn read(
        &mut self,
        db: &dyn Connection,
        versions: usize,
        current: &[&Version],
    ) -> anyhow::Result<()> {
        let ids: Vec<usize> = current.iter().map(|v| v.id).collect();
        if ids != self.current {
            *self = Held {
                current: ids,
                start: std::mem::take(&mut self.start),
                lead: std::mem::take(&mut self.lead),
                ..Held::new(self.ranking)
            };
        }
        // By id: a game's seats are looked up here ten million times in a large hill.
        let mut is_current = vec![false; versions];
        for &id in &self.current {
            if let Some(c) = is_current.get_mut(id) {
                *c = true;
            }
        }
        self.played.resize(versions, 0);
        // Only the games read at or past `read_below` are remembered as read: every game of
        // ten million kept in `read_past` until the walk's end held some 150 MB, and its set's
        // room stayed once the games below were dropped.
        let read_below = store::read_below(db, self.read_below)?;
        let mut read_past = Vec::new();
        let mut last_game = self.last_game;
        store::each_game_from(db, self.read_below, |index, seats| {
            if self.read_past.contains(&index) {
                return;
            }
            last_game = last_game.max(Some(index));
            if index >= read_below {
                read_past.push(index);
            }
            if !seats
                .iter()
                .any(|&(v, _)| is_current.get(v).copied().unwrap_or(false))
            {
                return;
            }
            self.counted += 1;
            for &(v, _) in seats {
                if let Some(p) = self.played.get_mut(v) {
                    *p += 1;
                }
            }
            self.games.add(seats);
        })?;
        // Its passes read ordered line-ups' players from the nearest cache (a few seconds
        // once for ten million games, then only when a sixteenth more have come).
        self.games.order_line_ups();
        self.last_game = last_game;
        self.read_below = read_below;
        self.read_past.retain(|&index| index >= read_below);
        self.read_past.extend(read_past);
        Ok(())
    }
}

/// Fits every game with a current version in it (active or suspended) by the game's
/// `ranking`, and stores the fit, how sure the first's lead over the runner-up is, and, if it
/// changed, the king: the table's first ([`ranking::in_order`], the board's own order) once it
/// has played its `placement_games` ([`ranking::king`]). Reads only the games recorded since
/// the last refit into `held`, and starts from where its fit ended.
pub(crate) fn refit(store: &Store, placement_games: u32, held: &mut Held) -> anyhow::Result<()> {
    let db: &dyn Connection = store;
    let versions = store::versions(db)?;
    let current: Vec<&Version> = versions.iter().filter(|v| v.current()).collect();
    held.read(db, versions.len(), &current)?;
    held.start.resize(versions.len(), Start::default());
    let played = &held.played;
    let fit = ranking::fit(&held.games, &held.start);
    let strengths = &fit.strengths;
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
            interval: fit.lead_interval_from(first.id, second.id, &mut held.lead),
        }),
        _ => None,
    };
    let unplayed = fit.unplayed_interval();
    held.start = fit.next;
    let fit = store::FitWritten {
        fitted: &fitted,
        games: held.counted,
        last_game: held.last_game,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A hill of five active versions and no games.
    fn hill(dir: &std::path::Path) -> Store {
        store::fixture::five_active(dir, "b")
    }

    /// Game `game` in `state`, and if done its three seats' results: version `game % 5` and the
    /// next two, version `v` scoring `(v + game) % 4`.
    fn game(db: &dyn Connection, game: u32, state: &str) {
        db.execute(
            "INSERT INTO games (idx, seed, state, attempts) VALUES (?1, 0, ?2, 1)",
            &[game.into(), state.into()],
        )
        .unwrap();
        if state == "done" {
            done(db, game);
        }
    }

    /// Records game `game`'s results and marks it done.
    fn done(db: &dyn Connection, game: u32) {
        for seat in 0..3u32 {
            let version = (game + seat) % 5;
            db.execute(
                "INSERT INTO results (game, seat, bot, score, status, faults, answers,
                     max_wall_ms, total_wall_ms, near_misses)
                 VALUES (?1, ?2, ?3, ?4, 'finished', '[]', 1, 1.0, 1.0, 0)",
                &[
                    game.into(),
                    seat.into(),
                    version.into(),
                    f64::from((version + game) % 4).into(),
                ],
            )
            .unwrap();
        }
        db.execute(
            "UPDATE games SET state = 'done' WHERE idx = ?1",
            &[game.into()],
        )
        .unwrap();
    }

    /// The stored fit, as (version, figure, interval, games).
    fn stored(store: &Store) -> Vec<(usize, f64, f64, u32)> {
        store::fit(store)
            .unwrap()
            .into_iter()
            .map(|f| (f.version, f.value, f.half_width, f.games))
            .collect()
    }

    fn assert_same(kept: &[(usize, f64, f64, u32)], afresh: &[(usize, f64, f64, u32)]) {
        assert_eq!(kept.len(), afresh.len(), "{kept:?} {afresh:?}");
        for (a, b) in kept.iter().zip(afresh) {
            assert_eq!((a.0, a.3), (b.0, b.3), "{kept:?} {afresh:?}");
            assert!((a.1 - b.1).abs() < 1e-6 * b.1.abs().max(1.0), "{a:?} {b:?}");
            assert!((a.2 - b.2).abs() < 1e-6 * b.2.abs().max(1.0), "{a:?} {b:?}");
        }
    }

    #[test]
    fn a_refit_that_reads_only_the_new_games_fits_as_one_that_reads_them_all() {
        for ranking in [Ranking::Points, Ranking::Placement] {
            let dir = tempfile::tempdir().unwrap();
            let store = hill(dir.path());
            let db: &dyn Connection = &store;
            // Game 20 is still being played when games 21 to 29 are recorded.
            for index in 0..30 {
                game(db, index, if index == 20 { "running" } else { "done" });
            }
            let mut held = Held::new(ranking);
            refit(&store, 1, &mut held).unwrap();
            assert_eq!(held.counted, 29);
            assert_eq!(held.read_below, 20);
            // Game 20 ends, and ten more come; 35 is being played.
            done(db, 20);
            for index in 30..40 {
                game(db, index, if index == 35 { "pending" } else { "done" });
            }
            refit(&store, 1, &mut held).unwrap();
            assert_eq!(held.counted, 39, "{ranking:?}");
            assert_eq!(held.read_below, 35);
            assert_eq!(held.last_game, Some(39));
            let kept = stored(&store);
            refit(&store, 1, &mut Held::new(ranking)).unwrap();
            assert_same(&kept, &stored(&store));
            assert_eq!(kept.iter().map(|f| f.3).sum::<u32>(), 39 * 3);
            // A version retired: the games are gathered afresh, without the retired version's.
            db.execute(
                "UPDATE hill_versions SET state = 'retired' WHERE id = 4",
                &[],
            )
            .unwrap();
            game(db, 40, "done");
            refit(&store, 1, &mut held).unwrap();
            let kept = stored(&store);
            refit(&store, 1, &mut Held::new(ranking)).unwrap();
            assert_same(&kept, &stored(&store));
            assert_eq!(held.current, [0, 1, 2, 3]);
        }
    }
}
