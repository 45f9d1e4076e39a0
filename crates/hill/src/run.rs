//! `hill run`: keeps the queue filled with chosen games, plays them with the tournament's
//! runner (claims, CPU claims, containment, one transaction per result), rates each recorded
//! game once, and refits the displayed ranking on a thread of its own, off the games' path.
//!
//! The queue is the database's: a chosen game is written (seats, seed, reason) before it is
//! played, so a stopped hill resumes with the games it had chosen, and a game cut short is
//! played again from a clean folder. A game's result counts once (the tournament store's
//! attempts); its rating once (marked rated in the rating's own transaction).

use std::collections::HashMap;
use std::sync::atomic::Ordering;

use anyhow::Context;

use koth_base::cpu::Claim;
use koth_bot::BotSpec;
use koth_game::MatchResult;
use koth_tournament::lock::FolderLock;
use koth_tournament::play::GameParts;
use koth_tournament::runner::{self, Turn};
use koth_tournament::schedule::ScheduledGame;
use koth_tournament::store::{Claimant, Store};

use super::Hill;
use super::board::Waiting;
use super::contest;
use super::matchmaking::{self, Candidate, History, Standing};
use super::refit::Refit;
use super::store::{self, Version, VersionState};
use super::versions::{NOT_ITS_COPY, NotItsCopy};
use koth_ranking::Ranking;

/// Plays `hill` until koth is stopped, or until `games` more games are rated; `jobs` games at
/// once (default the file's `jobs`). A hill in a folder is held by its folder's lock, a
/// shared one by a lock of its database's: two runs of one hill are refused.
/// `ready` is called once the run holds the hill and its builder has recovered (the moment
/// its server may start taking uploads).
pub(crate) fn run_hill(
    hill: Hill,
    jobs: Option<usize>,
    games: Option<u32>,
    lease_s: u64,
    ready: impl FnOnce() -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let store = &hill.store;
    let lock = if store.is_shared() {
        // Workers may be playing its games: what is `running` stays theirs until their lease
        // runs out, and a killed run's own games come back to the queue the same way.
        store::lock_run(store, &store.location())?;
        None
    } else {
        let lock = FolderLock::take(&hill.dir)?;
        // This koth alone plays the folder: what a stopped run left running is played again.
        store.requeue_unfinished()?;
        Some(lock)
    };
    // Authors' submissions are built and validated beside the games, by `builders` threads.
    let builder = super::submissions::Builder::start(hill.reopen()?)?;
    ready()?;
    // A hill rated before the bots' records were summed has its rated games summed once (a
    // batch at a time, going on where a stopped run left it), before any game is rated.
    store::fill_records(store, |next| {
        tracing::debug!("bots' records summed up to game {next}");
    })?;
    // Games recorded before a stop, or by workers while no run was rating, are rated now,
    // once (and not counted among the `games` more this run plays for).
    store::rate_recorded(store, hill.config.suspension, u32::MAX)?;
    store::write_run_settings(
        store,
        hill.config.tuning.placement_games,
        hill.config.fewest().min(hill.config.players()),
        hill.config.game.live_delay_s.unwrap_or(0.0),
    )?;
    let jobs = jobs.unwrap_or_else(|| hill.config.game.jobs()).max(1);
    let refit = Refit::start(
        store.reconnect()?,
        hill.config.game.game()?.ranking(),
        hill.config.tuning.placement_games,
    );
    let runtime = koth_game::runtime()?;
    let claimant = Claimant::new(lease_s);
    let role = Role::Runner {
        games,
        refit: &refit,
    };
    let outcome = runtime.block_on(play(&hill, jobs, &claimant, role, &mut Vec::new()));
    refit.stop_and_fit_once(store)?;
    drop(builder);
    drop(lock);
    outcome
}

/// What a process playing a hill's games does beside playing them.
pub(crate) enum Role<'a> {
    /// The hill's one `hill run`: keeps the queue filled with chosen games and rates every game
    /// recorded (by whoever played it) once, until `games` more are rated: it never has more
    /// games queued, running or recorded unrated than it still wants, and rates no more.
    Runner {
        games: Option<u32>,
        refit: &'a Refit,
    },
    /// A `koth worker` of a shared hill: plays the games it can claim until there are none.
    Worker,
}

/// Plays `hill`'s games, `jobs` at once, as `claimant` in `role`; `refused` are the versions
/// whose files this koth could not get, whose games it leaves to others.
pub(crate) async fn play(
    hill: &Hill,
    jobs: usize,
    claimant: &Claimant,
    role: Role<'_>,
    refused: &mut Vec<usize>,
) -> anyhow::Result<()> {
    let game = hill.config.game.game()?;
    // The versions this run has told of: those it finds at its start are not news.
    let before = store::versions(&hill.store)?;
    let mut policy = HillPolicy {
        hill,
        claimant,
        jobs,
        role,
        refused,
        recorded: 0,
        versions_told: before.len(),
        before,
        wanted: u32::MAX,
        queued: 0,
        scheduled: 0,
        said_waiting: false,
        in_final: None,
        kept: None,
    };
    runner::run(&mut policy, jobs, game).await
}

/// The hill's part in the [`runner`]: it rates what was recorded, chooses the next games,
/// tells the owner's changes and the versions joining, and leaves the games of versions no
/// longer scheduled or whose files this koth cannot get.
struct HillPolicy<'a> {
    hill: &'a Hill,
    claimant: &'a Claimant,
    jobs: usize,
    role: Role<'a>,
    refused: &'a mut Vec<usize>,
    /// Games this run rated.
    recorded: u32,
    /// The versions this run has told of, and the versions as it last saw them.
    versions_told: usize,
    before: Vec<Version>,
    /// Games still wanted, and queued, at the last turn; versions scheduled then.
    wanted: u32,
    queued: usize,
    scheduled: usize,
    /// Whether the hill's waiting for bots was said since a game last started.
    said_waiting: bool,
    /// Where a contest's final is, once the contest has closed.
    in_final: Option<contest::Step>,
    /// The runner's history of games and its standing, read at its first choice and kept
    /// since, each game it rates added.
    kept: Option<Kept>,
}

/// What `hill run` keeps between fills of its queue: the games so far as matchmaking reads
/// them, read from the store once and added to as each game is rated (whoever recorded it),
/// and the [`Standing`] computed from them. Read afresh at each fill, a hill of 10,000
/// versions read 1.2 million pairs and computed every gain again at each fill's first choice
/// (docs/benchmarks.md, the hill at 10,000 versions).
struct Kept {
    history: History,
    standing: Standing,
}

/// Games still wanted of the `games` a run was asked for (all, without a number), with
/// `recorded` rated already.
fn still_wanted(games: Option<u32>, recorded: u32) -> u32 {
    games.map_or(u32::MAX, |n| n.saturating_sub(recorded))
}

impl HillPolicy<'_> {
    /// The runner's rating, at a turn: rates the games recorded, whoever recorded them (games
    /// this run played, a worker's, and those recorded before a stop), no more than are still
    /// wanted of `games` (a game queued before this run and played beyond them stays unrated,
    /// for the next run); tells `refit`, the versions it suspended and those that joined
    /// (`versions`). Returns how many it rated.
    fn rate(
        &mut self,
        versions: &[Version],
        games: Option<u32>,
        refit: &Refit,
    ) -> anyhow::Result<u32> {
        let hill = self.hill;
        let store::Rated {
            games: rated_games,
            suspended,
        } = store::rate_recorded(
            &hill.store,
            hill.config.suspension,
            still_wanted(games, self.recorded),
        )?;
        if let Some(kept) = &mut self.kept {
            store::add_rated(&hill.store, &rated_games, &mut kept.history)?;
        }
        let rated = rated_games.len() as u32;
        self.recorded += rated;
        refit.recorded.fetch_add(rated, Ordering::Relaxed);
        for (version, reason) in suspended {
            let label = versions
                .iter()
                .find(|v| v.id == version)
                .map_or_else(|| version.to_string(), Version::label);
            let name = versions.iter().find(|v| v.id == version).map(|v| &v.name);
            eprintln!(
                "koth: {label} is {}; `koth hill resume-bot {:?} {}` schedules it again",
                koth_base::text::shown(&reason),
                name.map_or("NAME", |n| n.as_str()),
                hill.add_target()
            );
            tracing::warn!(version = label, "{reason}");
        }
        for new in versions.iter().skip(self.versions_told) {
            eprintln!("koth: {}", joined(new, versions));
        }
        self.versions_told = self.versions_told.max(versions.len());
        Ok(rated)
    }

    /// The runner's choice, at a turn with nothing newly rated: drops the games of the
    /// `unscheduled` versions not begun, moves a contest's final on, and queues chosen games
    /// among `versions` up to those still wanted of `games`.
    fn choose(
        &mut self,
        versions: &[Version],
        unscheduled: &[usize],
        games: Option<u32>,
    ) -> anyhow::Result<()> {
        let hill = self.hill;
        // Games chosen before a version was retired, replaced or suspended, not begun.
        let dropped = koth_tournament::store::skip_pending_of(&hill.store, unscheduled)?;
        if dropped > 0 {
            tracing::info!(
                dropped,
                "queued games of versions no longer scheduled dropped"
            );
        }
        // After a contest's close, the final's games instead of chosen ones.
        self.in_final = contest::turn(hill)?;
        self.wanted = match self.in_final {
            Some(contest::Step::Done) => 0,
            Some(contest::Step::Playing) => u32::MAX,
            None => still_wanted(games, self.recorded),
        };
        if self.wanted > 0 && self.in_final.is_none() {
            self.queued = fill_queue(hill, versions, self.jobs, self.wanted, &mut self.kept)?;
        }
        Ok(())
    }
}

impl runner::Policy for HillPolicy<'_> {
    fn store(&self) -> &Store {
        &self.hill.store
    }

    fn claimant(&self) -> &Claimant {
        self.claimant
    }

    fn games_folder(&self) -> &std::path::Path {
        &self.hill.dir
    }

    fn turn(&mut self) -> anyhow::Result<Turn> {
        let (hill, db): (_, &dyn store::Connection) = (self.hill, &self.hill.store);
        loop {
            let versions = store::versions(db)?;
            // What the owner did meanwhile (`resume-bot`, `rollback`), told as it is seen.
            for line in owners_changes(&self.before, &versions) {
                eprintln!("koth: {line}");
                tracing::info!("{line}");
            }
            self.before.clone_from(&versions);
            // A contest's finalists play the final whatever their state since the close.
            let finalists = contest::finalist_ids(&hill.store)?;
            let unscheduled: Vec<usize> = versions
                .iter()
                .filter(|v| !v.scheduled() && !finalists.contains(&v.id))
                .map(|v| v.id)
                .collect();
            self.scheduled = versions.iter().filter(|v| v.scheduled()).count();
            self.wanted = u32::MAX;
            self.queued = 0;
            if let Role::Runner { games, refit } = &self.role {
                let (games, refit) = (*games, *refit);
                if self.rate(&versions, games, refit)? > 0 {
                    // Ratings and suspensions changed: choose with the new ones.
                    continue;
                }
                self.choose(&versions, &unscheduled, games)?;
            }
            // An author waiting at the door goes first: a game's core is left to each
            // submission being built or validated (one game always plays), so a newcomer is
            // active in seconds, not after the games running.
            let at_the_door = match &self.role {
                Role::Runner { .. } => super::submissions::at_the_door(db)?,
                Role::Worker => 0,
            };
            let room = self.jobs.saturating_sub(at_the_door).max(1);
            return Ok(Turn {
                room: room.min(usize::try_from(self.wanted).unwrap_or(usize::MAX)),
                left_to_others: unscheduled
                    .iter()
                    .chain(self.refused.iter())
                    .copied()
                    .collect(),
            });
        }
    }

    fn game_parts(
        &mut self,
        game: &ScheduledGame,
        attempt: u32,
        claim: Claim,
    ) -> anyhow::Result<Option<GameParts>> {
        let hill = self.hill;
        match seats(hill, game) {
            Ok(seats) => {
                let reason = store::reason(&hill.store, game.index)?;
                tracing::info!(
                    game = game.index,
                    attempt,
                    "chosen: {}",
                    reason.unwrap_or_default()
                );
                self.said_waiting = false;
                parts_with_seats(hill, game, seats, claim).map(Some)
            }
            Err((version, err)) if err.downcast_ref::<NotItsCopy>().is_some() => {
                // No machine may play it: its row, not this machine's files, is at fault. The
                // game fails for good and the version is suspended, with the row named to the
                // owner and no path on the hill's public pages.
                let message = koth_base::text::shown(&format!("{err:#}")).into_owned();
                hill.store
                    .record_harness_fault(game.index, attempt, &message, true)?;
                store::suspend(&hill.store, version, NOT_ITS_COPY)?;
                eprintln!("koth: {message}; it is suspended, and its folder never run");
                tracing::warn!(version, "{message}");
                self.refused.push(version);
                Ok(None)
            }
            Err((version, err)) => {
                // Another machine may have them: this koth leaves the version's games.
                let message = format!("{err:#}");
                hill.store
                    .record_harness_fault(game.index, attempt, &message, false)?;
                eprintln!("koth: leaving the games of version {version} to others: {message}");
                tracing::warn!(version, "{message}");
                self.refused.push(version);
                Ok(None)
            }
        }
    }

    fn waits(&mut self) -> anyhow::Result<bool> {
        if matches!(self.role, Role::Worker) || self.wanted == 0 {
            return Ok(false);
        }
        if self.in_final.is_some() {
            // The final's games may be with workers: its next round waits for them.
            return Ok(true);
        }
        if self.queued == 0 && !self.said_waiting {
            let waiting = Waiting {
                scheduled: self.scheduled,
                needs: self.hill.config.seats(self.scheduled),
            };
            eprintln!(
                "koth: the hill {} (`koth hill add BOT_DIR {}`)",
                waiting.line(),
                self.hill.add_target()
            );
            self.said_waiting = true;
        }
        Ok(true)
    }

    fn looks_again(&self, running: usize, jobs: usize) -> bool {
        // A new version may arrive while games run, and in a shared hill workers record games.
        self.hill.store.is_shared() || running < jobs
    }

    fn recorded(
        &mut self,
        game: &ScheduledGame,
        result: &MatchResult,
        _streaks: &[(usize, u32)],
    ) -> anyhow::Result<()> {
        let names: Vec<String> = result
            .bots
            .iter()
            .map(|b| format!("{} {}", b.name, b.score))
            .collect();
        println!("game {}: {}", game.index, names.join(", "));
        Ok(())
    }
}

/// What became scheduled again between `before` and `now` by the owner's hand: a suspended
/// version resumed, an earlier version rolled back to (with the one it replaced).
fn owners_changes(before: &[Version], now: &[Version]) -> Vec<String> {
    now.iter()
        .filter(|v| v.scheduled())
        .filter_map(|v| {
            let was = before.iter().find(|b| b.id == v.id)?;
            if was.state == VersionState::Suspended {
                return Some(format!("{} is scheduled again (resumed)", v.label()));
            }
            if was.current() {
                return None;
            }
            let replaced = now.iter().find(|r| {
                r.name == v.name
                    && r.id != v.id
                    && before.iter().any(|b| b.id == r.id && b.current())
            });
            Some(match replaced {
                Some(r) => format!(
                    "{} is its bot's active version again (rolled back), in place of v{}",
                    v.label(),
                    r.version
                ),
                None => format!(
                    "{} is its bot's active version again (rolled back)",
                    v.label()
                ),
            })
        })
        .collect()
}

/// The line `hill run` prints when `version` joins the hill: accepted, and which version of
/// its name it replaced, if one was playing.
fn joined(version: &Version, versions: &[Version]) -> String {
    let replaced = versions
        .iter()
        .filter(|v| v.name == version.name && v.version < version.version)
        .filter(|v| v.state == VersionState::Replaced)
        .max_by_key(|v| v.version);
    match replaced {
        Some(old) => format!(
            "{} accepted: it replaces v{} (after its {} games)",
            version.label(),
            old.version,
            old.games
        ),
        None => format!("{} accepted: a new bot on the hill", version.label()),
    }
}

/// The ratings matchmaking reads, by version, where they are not the online ones (a
/// [`matchmaking::from_fit`] on why): in a points game, once a fit is stored, every scheduled
/// version's figure from it. A version without games in it starts, as the online rating's
/// does, from its bot's previous version's last figure (or the fitted versions' mean, for a
/// new bot) with the interval of a version without games.
fn ratings(hill: &Hill, versions: &[Version]) -> anyhow::Result<HashMap<usize, (f64, f64)>> {
    if hill.config.game.game()?.ranking() != Ranking::Points {
        return Ok(HashMap::new());
    }
    let Some(unplayed) = store::unplayed(&hill.store)? else {
        return Ok(HashMap::new());
    };
    let db: &dyn store::Connection = &hill.store;
    let fitted = store::fit(db)?;
    fitted_ratings(versions, &fitted, unplayed, |version| {
        store::last_fitted(db, version)
    })
}

/// [`ratings`] from the stored fit (`fitted`, `unplayed`) and each version's figure at the last
/// fit it was in (`last_fitted`, by version id).
fn fitted_ratings(
    versions: &[Version],
    fitted: &[store::StoredFit],
    unplayed: f64,
    last_fitted: impl Fn(usize) -> anyhow::Result<Option<f64>>,
) -> anyhow::Result<HashMap<usize, (f64, f64)>> {
    // A fit whose games all scored alike (a new hill's first 0-0-0 games) has no spread yet,
    // so no scale to read its figures on: the online ratings until it has.
    if !(unplayed > 0.0 && unplayed.is_finite()) {
        return Ok(HashMap::new());
    }
    let fitted: HashMap<usize, &store::StoredFit> = fitted
        .iter()
        .filter(|f| f.games > 0)
        .map(|f| (f.version, f))
        .collect();
    let mean = fitted.values().map(|f| f.value).sum::<f64>() / fitted.len().max(1) as f64;
    let mut ratings = HashMap::new();
    for v in versions.iter().filter(|v| v.scheduled()) {
        let rating = match fitted.get(&v.id) {
            Some(f) => matchmaking::from_fit(f.value, f.half_width, unplayed),
            None => {
                let previous = versions
                    .iter()
                    .filter(|o| o.name == v.name && o.version < v.version)
                    .max_by_key(|o| o.version);
                let inherited = match previous {
                    Some(o) => last_fitted(o.id)?,
                    None => None,
                };
                matchmaking::from_fit(inherited.unwrap_or(mean), unplayed, unplayed)
            }
        };
        ratings.insert(v.id, rating);
    }
    Ok(ratings)
}

/// Chooses games until as many are queued as can run at once (`jobs`), each written with its
/// seed and reason before it is played, but no more than `wanted` games in all queued, running
/// or recorded and not yet rated (whoever plays them, each will be rated and counted); returns
/// how many there are. In a shared hill, workers take games from the queue too: it holds
/// `jobs` games besides those running. The history of games is `kept`'s, read at the first
/// fill.
fn fill_queue(
    hill: &Hill,
    versions: &[Version],
    jobs: usize,
    wanted: u32,
    kept: &mut Option<Kept>,
) -> anyhow::Result<usize> {
    let db: &dyn store::Connection = &hill.store;
    let queue = store::queued(db)?;
    // Only this run chooses games, and a worker moves one from the queue to recorded (or back
    // to the queue), out of both only when it fails: so these two counts bound the games this
    // run may yet rate besides those it chooses now. The recorded are read after the queue, so
    // that a game recorded between the two reads is counted twice, not missed.
    let unrated = store::recorded_unrated(db)? as usize;
    let room = (wanted as usize).saturating_sub(unrated);
    let mut candidates = candidates(hill, versions, &queue)?;
    let running = if hill.store.is_shared() {
        hill.store.progress()?.running as usize
    } else {
        0
    };
    let kept = match kept {
        Some(kept) => kept,
        None => kept.insert(Kept {
            history: store::history(db)?,
            standing: Standing::default(),
        }),
    };
    let mut length = queue.len();
    while length < (jobs + running).min(room) {
        let next = store::next_game(db)?;
        let mut rng = koth_game::seed::rng(hill.seed, (1 << 32) + u64::from(next));
        let Some(choice) = kept.standing.choose(
            &candidates,
            hill.config.seats(candidates.len()),
            next,
            hill.config.tuning,
            &kept.history,
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
        length += 1;
        for c in candidates
            .iter_mut()
            .filter(|c| choice.seats.contains(&c.id))
        {
            c.queued += 1;
            c.last_chosen = Some(next);
        }
    }
    Ok(length + unrated)
}

/// The versions a game may seat, each with its rating (the last fit's in a points hill) and its
/// games queued in `queue`.
fn candidates(
    hill: &Hill,
    versions: &[Version],
    queue: &[Vec<usize>],
) -> anyhow::Result<Vec<Candidate>> {
    let mut queued: HashMap<usize, u32> = HashMap::new();
    for seats in queue {
        for &bot in seats {
            *queued.entry(bot).or_default() += 1;
        }
    }
    let ratings = ratings(hill, versions)?;
    Ok(versions
        .iter()
        .filter(|v| v.scheduled())
        .map(|v| {
            let (mu, sigma) = ratings.get(&v.id).copied().unwrap_or((v.mu, v.sigma));
            Candidate {
                id: v.id,
                label: v.label(),
                mu,
                sigma,
                games: v.games,
                last_chosen: v.last_game,
                queued: queued.get(&v.id).copied().unwrap_or(0),
            }
        })
        .collect())
}

/// The versions seated in `game`, each playing from its folder (fetched in a shared hill); the
/// version whose folder this koth cannot get, with why, if one cannot.
fn seats(hill: &Hill, game: &ScheduledGame) -> Result<Vec<BotSpec>, (usize, anyhow::Error)> {
    let bots = hill.store.bots().map_err(|e| (game.seats[0], e))?;
    let digests = hill.store.bot_hashes().map_err(|e| (game.seats[0], e))?;
    game.seats
        .iter()
        .map(|&id| {
            let bot = bots
                .get(id)
                .with_context(|| format!("no version {id}"))
                .map_err(|e| (id, e))?;
            let digest = digests.get(id).cloned().flatten().unwrap_or_default();
            let dir = hill.version_folder(id, bot, &digest).map_err(|e| (id, e))?;
            let data = hill.config.game.data_for(bot.data);
            Ok(BotSpec {
                dir,
                data,
                ..bot.clone()
            })
        })
        .collect()
}

/// What the tournament's runner needs to play `game` with `seats`.
fn parts_with_seats(
    hill: &Hill,
    game: &ScheduledGame,
    seats: Vec<BotSpec>,
    claim: Claim,
) -> anyhow::Result<GameParts> {
    let config = &hill.config.game;
    Ok(GameParts::new(
        config,
        config.game()?,
        config.sandbox(),
        claim,
        koth_tournament::store::game_dir(&hill.dir, game.index),
        hill.store.data_of(&seats, &game.seats)?,
        seats,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(id: usize, name: &str, number: u32, state: VersionState) -> Version {
        Version {
            id,
            name: name.into(),
            version: number,
            digest: String::new(),
            state,
            suspended: None,
            added_at: 0,
            mu: 25.0,
            sigma: 25.0 / 3.0,
            games: 0,
            faulted: 0,
            last_game: None,
            fuel: None,
        }
    }

    fn fitted(version: usize, value: f64, half_width: f64, games: u32) -> store::StoredFit {
        store::StoredFit {
            version,
            value,
            half_width,
            games,
        }
    }

    /// A hill of five versions and its games, recorded, none rated: every game of the line-up
    /// 0,1 a draw; of 1,2,3 two draws, then a win, then draws again (it paid once, so it is
    /// never barren again); the others won, or drawn at random.
    fn recorded_hill(dir: &std::path::Path) -> koth_tournament::store::Store {
        let store = store::fixture::five_active(dir, "B");
        let db: &dyn store::Connection = &store;
        let mut rng = koth_game::seed::rng(7, 0);
        for game in 0..40u32 {
            let seats: Vec<(usize, f64)> = match game % 4 {
                0 => vec![(0, 0.5), (1, 0.5)],
                1 if game == 9 => vec![(1, 1.0), (2, 0.0), (3, 0.0)],
                1 => vec![(3, 0.5), (1, 0.5), (2, 0.5)],
                2 => vec![(4, 1.0), (0, 0.0)],
                _ => {
                    use rand::RngExt;
                    let a = rng.random_range(0..5usize);
                    let b = (a + rng.random_range(1..5usize)) % 5;
                    let score = f64::from(rng.random_range(0..2u8));
                    vec![
                        (a, score),
                        (b, if rng.random_bool(0.5) { score } else { 0.5 }),
                    ]
                }
            };
            let seats: Vec<(usize, f64, i64)> = seats.iter().map(|&(b, s)| (b, s, 0)).collect();
            store::fixture::record_unrated(db, game, &seats);
        }
        store
    }

    #[test]
    fn the_history_kept_between_fills_equals_one_read_afresh() {
        let tmp = tempfile::tempdir().unwrap();
        let store = recorded_hill(tmp.path());
        let db: &dyn store::Connection = &store;
        let suspension = crate::config::Suspension {
            share: 1.0,
            window: 1000,
        };
        // The first fill reads the history after some games are rated; each rating after it
        // adds its games, a few at a time, as `hill run` rates them between fills.
        store::rate_recorded(db, suspension, 5).unwrap();
        let mut kept = store::history(db).unwrap();
        let mut batches = 0;
        loop {
            let rated = store::rate_recorded(db, suspension, 3).unwrap().games;
            if rated.is_empty() {
                break;
            }
            store::add_rated(db, &rated, &mut kept).unwrap();
            assert!(kept == store::history(db).unwrap(), "after batch {batches}");
            batches += 1;
        }
        assert_eq!(batches, 12);
        // The line-up 0,1 only ever drew: barren; 1,2,3 paid once (game 9): never again.
        let fresh = store::history(db).unwrap();
        // Read a row at a time, or two, the same history.
        for page in [1, 2] {
            assert!(
                fresh == store::history_in_pages(db, page).unwrap(),
                "page {page}"
            );
        }
        assert!(fresh.barren(&[1, 0]));
        assert!(!fresh.barren(&[1, 2, 3]));
        // A history that missed a game is not equal.
        let mut missed = fresh.clone();
        missed.record(&[(0, 0.5), (1, 0.5)]);
        assert!(missed != fresh);
    }

    #[test]
    fn a_points_hill_reads_the_fit_and_a_new_version_starts_from_its_bot_s_last_figure() {
        // A v1 replaced by A v2 (not yet fitted), B and C fitted, D a new bot, E retired.
        let versions = [
            version(0, "A", 1, VersionState::Replaced),
            version(1, "B", 1, VersionState::Active),
            version(2, "C", 1, VersionState::Active),
            version(3, "A", 2, VersionState::Active),
            version(4, "D", 1, VersionState::Active),
            version(5, "E", 1, VersionState::Retired),
        ];
        // D was fitted once before it played: no games, so not a figure to read.
        let fit = [
            fitted(1, 10.0, 2.0, 30),
            fitted(2, 4.0, 1.0, 30),
            fitted(4, 9.0, 12.0, 0),
        ];
        let unplayed = 12.0;
        let last = |version: usize| Ok((version == 0).then_some(30.0));
        let ratings = fitted_ratings(&versions, &fit, unplayed, last).unwrap();
        let (start, scale) = (25.0 / 3.0, 25.0 / 3.0 / unplayed);
        // Only the scheduled versions, each from the fit, on Weng-Lin's scale.
        let mut ids: Vec<usize> = ratings.keys().copied().collect();
        ids.sort();
        assert_eq!(ids, [1, 2, 3, 4]);
        assert_eq!(ratings[&1], (10.0 * scale, 2.0 * scale));
        assert_eq!(ratings[&2], (4.0 * scale, 1.0 * scale));
        // A v2 starts at A v1's last figure, as unsure as a version without games.
        assert_eq!(ratings[&3], (30.0 * scale, start));
        // D, a new bot, at the fitted versions' mean.
        assert_eq!(ratings[&4], (7.0 * scale, start));
        // A fit with no spread yet (every game alike) is not read: the online ratings stay.
        assert!(
            fitted_ratings(&versions, &fit, 0.0, last)
                .unwrap()
                .is_empty()
        );
    }
}
