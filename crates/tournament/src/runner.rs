//! The one loop that plays claimed games, for every koth that plays them: a tournament's run,
//! a hill's run and a worker's (of either). It owns claim → seats → play → take back → record,
//! the CPU share of each game, the leases of a shared database and the set of games in flight;
//! what differs between them is a [`Policy`]: what to queue before claiming, what this koth
//! will not play, what a recorded game or a harness fault means, and when to stop.
//!
//! Invariants:
//! - A game is recorded only by the loop that claimed it, for the attempt it claimed, and only
//!   while its claim holds ([`Store::record_result`] says whether it did): a late result of a
//!   game another worker took over is never counted.
//! - A game task always comes back through [`collect_task`], which frees its CPUs, waits out a stop
//!   koth was asked for, and records a harness fault as one: a fault is never a bot's.
//! - No game is played whose parts cannot be made: the policy refuses it (`None`), having
//!   recorded why (the game given up, or its bot passed over from then on), and the next turn claims
//!   another.

use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

use tokio::task::JoinSet;

use koth_base::text;

use koth_base::cpu::Claim;
use koth_bot::record::{Follower, RECORD_FILE};
use koth_game::{Game, MatchResult};

use super::schedule::ScheduledGame;
use super::shared::POLL;
use super::store::{self, Claimant, Claimed, Store};
use anyhow::Context;

use super::ATTEMPTS;
use super::play::{GameParts, GameReport, play_one};
use super::store::SeatData;

/// What may be claimed in a turn of the loop.
#[derive(Debug, Clone, Default)]
pub struct Turn {
    /// How many games may run at once now (at most the loop's `jobs`).
    pub room: usize,
    /// The bots whose games this koth leaves to others (or to no one).
    pub left_to_others: Vec<usize>,
}

/// What a loop that plays claimed games does around them ([module](self)).
pub trait Policy {
    /// The database the games are claimed from and recorded in.
    fn store(&self) -> &Store;
    /// Who this koth is in the games it claims.
    fn claimant(&self) -> &Claimant;
    /// The folder a game's files are played in (`games/<index>/` in it).
    fn games_folder(&self) -> &Path;
    /// Brings the queue up to date before games are claimed (a hill rates what was recorded and
    /// chooses more; another worker may have benched a bot) and says what may be claimed.
    fn turn(&mut self) -> anyhow::Result<Turn>;
    /// What the claimed `game` needs to be played, holding `claim`; `None` if this koth will
    /// not play it, its harness fault recorded by the policy: no more games are claimed in the
    /// turn.
    fn game_parts(
        &mut self,
        game: &ScheduledGame,
        attempt: u32,
        claim: Claim,
    ) -> anyhow::Result<Option<GameParts>>;
    /// Nothing runs and nothing could be claimed: whether to look again after a while (else
    /// the loop ends).
    fn waits(&mut self) -> anyhow::Result<bool>;
    /// Whether, with `running` games of `jobs` in flight, the queue is looked at again every
    /// [`POLL`] (games may come while these run), not only when one ends.
    fn looks_again(&self, running: usize, jobs: usize) -> bool;
    /// The start-up failure streaks `result` changes, recorded with it (none by default).
    fn streaks(&self, _game: &ScheduledGame, _result: &MatchResult) -> Vec<(usize, u32)> {
        Vec::new()
    }
    /// `game`'s result, recorded with `streaks`.
    fn recorded(
        &mut self,
        game: &ScheduledGame,
        result: &MatchResult,
        streaks: &[(usize, u32)],
    ) -> anyhow::Result<()>;
    /// `game`'s harness fault, recorded: the game is back in the queue or given up.
    fn faulted(&mut self, _game: &ScheduledGame) -> anyhow::Result<()> {
        Ok(())
    }
    /// Says `line` on the terminal, as `koth: line`.
    fn say(&self, line: &str) {
        eprintln!("koth: {line}");
    }
}

/// Plays claimed games, `jobs` at once, as `policy` says, until it stops.
pub async fn run(policy: &mut dyn Policy, jobs: usize, game: &dyn Game) -> anyhow::Result<()> {
    let cpus = CpuShare::new(jobs, game);
    policy.say(&format!("games run {}", cpus.placement));
    tracing::info!("games run {}", cpus.placement);
    // A shared database's claims are leases, renewed every third of theirs while games run,
    // between the loop's other statements on the one connection: the games run on threads of
    // their own, so nothing here waits long.
    let mut renewal = renewal(policy.claimant());
    let shared = policy.store().is_shared();
    let mut flight = InFlight::default();
    let mut sending = tokio::time::interval(SEND_EVERY);
    sending.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let Turn {
            room,
            left_to_others,
        } = policy.turn()?;
        let refused = flight.start(policy, room.min(jobs), &left_to_others, &cpus)?;
        if flight.running.is_empty() {
            // A game refused: the next turn claims another (the policy now passes its bot, or
            // gave the game up).
            if refused {
                continue;
            }
            if !policy.waits()? {
                break;
            }
            tokio::time::sleep(POLL).await;
            continue;
        }
        let poll = policy.looks_again(flight.running.len(), jobs);
        let joined = tokio::select! {
            joined = flight.running.join_next() => joined,
            () = tokio::time::sleep(POLL), if poll => continue,
            _ = renewal.tick(), if shared => {
                renew(policy.store(), policy.claimant());
                continue;
            }
            _ = sending.tick(), if !flight.sent.is_empty() => {
                send_records(policy.store(), &mut flight.sent);
                continue;
            }
        };
        let Some(joined) = joined else { continue };
        // Its last lines are sent before its result, which ends its stream.
        send_records(policy.store(), &mut flight.sent);
        match collect_task(policy.store(), joined)? {
            TaskEnd::Played {
                game,
                attempt,
                result,
                wall_ms,
                data,
            } => flight.record(policy, &game, attempt, &result, wall_ms, &data)?,
            TaskEnd::Fault {
                game,
                attempt,
                shown,
            } => {
                flight.claim_ms.remove(&game.index);
                flight.sent.remove(&game.index);
                policy.say(&format!(
                    "game {} attempt {attempt}: harness fault: {shown}",
                    game.index
                ));
                policy.faulted(&game)?;
            }
        }
    }
    Ok(())
}

/// The CPUs each game claims as it starts. With a CPU for every game running at once, each
/// game claims its share of them and keeps it for as long as it runs (see `MatchSetup::cpus`):
/// games then never slow each other down, and a game and its bots take turns on their CPU
/// instead of waking another. A game that finds no CPU free (other koth processes hold them)
/// runs unpinned, and the log says so.
struct CpuShare {
    allowed: Vec<usize>,
    /// How many CPUs a game claims; 0 when there are more games at once than CPUs.
    per_game: usize,
    /// How the games are placed, for the terminal and the log.
    placement: String,
}

impl CpuShare {
    fn new(jobs: usize, game: &dyn Game) -> CpuShare {
        let allowed = koth_base::cpu::allowed();
        let per_game = (allowed.len() / jobs.max(1)).min(game.most_cpus());
        let placement = if per_game == 0 {
            format!("unpinned: {jobs} games at once on {} CPUs", allowed.len())
        } else {
            format!(
                "each on {per_game} free CPU(s) of {} claimed as it starts, else unpinned",
                koth_base::cpu::list(&allowed)
            )
        };
        CpuShare {
            allowed,
            per_game,
            placement,
        }
    }

    /// The CPUs of a game that starts now.
    fn claim(&self) -> Claim {
        if self.per_game == 0 {
            Claim::unpinned("more games at once than CPUs".into())
        } else {
            koth_base::cpu::claim(&self.allowed, 1, self.per_game)
        }
    }
}

/// The games in flight, and what the loop keeps of each until its result is recorded.
#[derive(Default)]
struct InFlight {
    running: JoinSet<GameReport>,
    /// The time each running game's claim took, logged with its result's as the database's
    /// cost of the game (`scripts/bench-workers.sh` reads it).
    claim_ms: HashMap<u32, f64>,
    /// A shared database's games in progress, whose records are sent on to it as they are
    /// played, for servers on other machines to stream ([`send_records`]).
    sent: HashMap<u32, SentRecord>,
}

impl InFlight {
    /// Claims and starts games until `room` run or none is left to claim, passing the bots
    /// `left_to_others`; true if the policy refused one (the turn then claims no more).
    fn start(
        &mut self,
        policy: &mut dyn Policy,
        room: usize,
        left_to_others: &[usize],
        cpus: &CpuShare,
    ) -> anyhow::Result<bool> {
        while self.running.len() < room {
            let asked = Instant::now();
            let Some(Claimed { game, attempt }) =
                policy
                    .store()
                    .claim(policy.claimant(), left_to_others, ATTEMPTS)?
            else {
                break;
            };
            let claim = cpus.claim();
            let described = claim.describe();
            let Some(parts) = policy.game_parts(&game, attempt, claim)? else {
                return Ok(true);
            };
            tracing::info!(game = game.index, attempt, "game started {described}");
            self.claim_ms
                .insert(game.index, asked.elapsed().as_secs_f64() * 1000.0);
            if policy.store().is_shared() {
                // An earlier attempt's lines go: this one sends its own from the first.
                if let Err(err) = policy.store().drop_live_records(game.index) {
                    tracing::warn!("cannot clear game {}'s live records: {err:#}", game.index);
                }
                let record = store::game_dir(policy.games_folder(), game.index).join(RECORD_FILE);
                self.sent.insert(game.index, SentRecord::new(record));
            }
            self.running.spawn(play_one(parts, game, attempt));
        }
        Ok(false)
    }

    /// Records a played game's result for its attempt, with the streaks the policy says it
    /// changes and its learning bots' data; the policy hears of it only if it was accepted
    /// (else the game was no longer this koth's, and the terminal says it was not counted).
    fn record(
        &mut self,
        policy: &mut dyn Policy,
        game: &ScheduledGame,
        attempt: u32,
        result: &MatchResult,
        wall_ms: f64,
        data: &[SeatData],
    ) -> anyhow::Result<()> {
        let folder = store::game_dir(policy.games_folder(), game.index);
        let recording = Instant::now();
        let streaks = policy.streaks(game, result);
        let changes = store::Changes {
            streaks: &streaks,
            data,
        };
        let accepted = policy
            .store()
            .record_result(game, attempt, result, wall_ms, &folder, &changes)?;
        if self.sent.remove(&game.index).is_some() {
            // Its stored files hold its record now.
            if let Err(err) = policy.store().drop_live_records(game.index) {
                tracing::warn!("cannot clear game {}'s live records: {err:#}", game.index);
            }
        }
        let db_ms = self.claim_ms.remove(&game.index).unwrap_or_default()
            + recording.elapsed().as_secs_f64() * 1000.0;
        if !accepted {
            let message = not_counted(game.index, attempt);
            tracing::warn!("{message}");
            policy.say(&message);
            return Ok(());
        }
        tracing::info!(game = game.index, attempt, wall_ms, db_ms, "game finished");
        policy.recorded(game, result, &streaks)
    }
}

/// How often the records of a shared database's games in progress are sent on to it: how
/// long, at most, a worker's record waits before servers on other machines are told of it
/// (they read it at once: `NOTIFY`). A look costs a `stat` of each game's file; the database
/// is written only when lines came, each game's new lines in one transaction.
const SEND_EVERY: std::time::Duration = std::time::Duration::from_millis(20);

/// A game's record being sent on to a shared database: its file as it is written, and the
/// number of its next line.
struct SentRecord {
    follower: Follower,
    next: u64,
}

impl SentRecord {
    fn new(path: std::path::PathBuf) -> SentRecord {
        SentRecord {
            follower: Follower::new(path),
            next: 1,
        }
    }
}

/// Sends the lines each game in progress added to its record since the last time. Best
/// effort: a line that cannot be sent now is sent with the next (its game never waits), and
/// a game's stored files hold its whole record in the end.
fn send_records(store: &Store, sent: &mut HashMap<u32, SentRecord>) {
    for (&game, record) in sent.iter_mut() {
        let (lines, restarted) = record.follower.new_lines();
        if restarted {
            record.next = 1;
        }
        if lines.is_empty() {
            continue;
        }
        let lines: Vec<String> = lines
            .into_iter()
            .map(|line| String::from_utf8_lossy(&line).into_owned())
            .collect();
        match store.add_live_records(game, record.next, &lines) {
            Ok(()) => record.next += lines.len() as u64,
            Err(err) => tracing::warn!("cannot send game {game}'s live records: {err:#}"),
        }
    }
}

/// How a game task ended, as the loop that claimed the game takes it back ([`collect_task`]).
pub enum TaskEnd {
    /// Played: its result, to be recorded for its attempt.
    Played {
        game: ScheduledGame,
        attempt: u32,
        result: MatchResult,
        wall_ms: f64,
        /// Its learning bots' data, recorded with its result.
        data: Vec<SeatData>,
    },
    /// A harness fault (koth's failure, not a bot's), already recorded: the game is back in the
    /// queue, or given up after [`ATTEMPTS`]. `shown` is its message, escaped for a terminal.
    Fault {
        game: ScheduledGame,
        attempt: u32,
        shown: String,
    },
}

/// Takes back a game task that ended, for every loop that plays claimed games (a tournament's,
/// a hill's, a worker's): waits out a stop koth was asked for (the game may have ended only
/// because koth is killing the bots: it stays `running`, to be played again), frees the game's
/// CPUs for the next game or another koth, and records a harness fault as one.
pub fn collect_task(
    store: &Store,
    joined: Result<GameReport, tokio::task::JoinError>,
) -> anyhow::Result<TaskEnd> {
    if koth_base::interrupt::requested() {
        koth_base::interrupt::wait_for_exit();
    }
    let GameReport {
        game,
        attempt,
        claim,
        outcome,
        elapsed,
    } = joined.context("a game task was lost")?;
    drop(claim);
    match outcome {
        Ok((result, data)) => Ok(TaskEnd::Played {
            game,
            attempt,
            result,
            wall_ms: elapsed.as_secs_f64() * 1000.0,
            data,
        }),
        Err(message) => {
            // Stored as it is; shown escaped, as it may quote a bot.
            let shown = text::shown(&message).into_owned();
            let gave_up = attempt >= ATTEMPTS;
            store.record_harness_fault(game.index, attempt, &message, gave_up)?;
            tracing::warn!(
                game = game.index,
                attempt,
                gave_up,
                "harness fault: {shown}"
            );
            Ok(TaskEnd::Fault {
                game,
                attempt,
                shown,
            })
        }
    }
}

/// The beat at which `claimant` renews its leases: every third of one, the first a beat from
/// now.
pub fn renewal(claimant: &Claimant) -> tokio::time::Interval {
    let every = std::time::Duration::from_secs((claimant.lease_s / 3).max(1));
    let mut renewal = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    renewal.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    renewal
}

/// Renews the leases of the games `claimant` plays in a shared database.
pub fn renew(store: &Store, claimant: &Claimant) {
    if let Err(err) = store.renew(claimant) {
        // Renewed again at the next beat; a lease that runs out meanwhile goes to another
        // worker, and this one's late result is then not counted.
        tracing::warn!("cannot renew the claims of {}: {err:#}", claimant.worker);
    }
}

/// Why the result of `attempt` of game `game` was not recorded: its claim ran out first.
pub fn not_counted(game: u32, attempt: u32) -> String {
    format!(
        "game {game} attempt {attempt} ended after its claim ran out and another worker took \
         it: this result is not counted"
    )
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::path::PathBuf;
    use std::time::Duration;

    use koth_bot::{BotSpec, Limits};
    use koth_game::RecordBoards;

    use super::*;

    /// Nim (the example game), for games that take a few milliseconds.
    static NIM: koth_nim::Nim = koth_nim::Nim;

    /// A Nim bot that always takes one stone, as a shell loop.
    fn taker(root: &Path, name: &str) -> BotSpec {
        let dir = root.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        BotSpec {
            name: name.into(),
            dir,
            command: [
                "sh",
                "-c",
                "while read word heap; do [ \"$word\" = TAKE ] && echo 1; done",
            ]
            .map(String::from)
            .to_vec(),
            build: None,
            origin: "the runner's test".into(),
            sandbox: None,
            benched: None,
            data: None,
            protocols: Default::default(),
        }
    }

    /// A policy as small as one can be: plays every game of its store, leaving those of the
    /// bots in `left_to_others`, and refusing (as a harness fault) those seating `refused`.
    struct Plays {
        store: Store,
        claimant: Claimant,
        dir: PathBuf,
        bots: Vec<BotSpec>,
        left_to_others: Vec<usize>,
        refused: Option<usize>,
        recorded: Vec<u32>,
        said: RefCell<Vec<String>>,
    }

    impl Policy for Plays {
        fn store(&self) -> &Store {
            &self.store
        }
        fn claimant(&self) -> &Claimant {
            &self.claimant
        }
        fn games_folder(&self) -> &Path {
            &self.dir
        }
        fn turn(&mut self) -> anyhow::Result<Turn> {
            Ok(Turn {
                room: 2,
                left_to_others: self.left_to_others.clone(),
            })
        }
        fn game_parts(
            &mut self,
            game: &ScheduledGame,
            attempt: u32,
            claim: Claim,
        ) -> anyhow::Result<Option<GameParts>> {
            if game.seats.iter().any(|&s| Some(s) == self.refused) {
                self.store.record_harness_fault(
                    game.index,
                    attempt,
                    "refused by the test",
                    true,
                )?;
                return Ok(None);
            }
            Ok(Some(GameParts {
                game: &NIM,
                claim,
                dir: store::game_dir(&self.dir, game.index),
                bots: game.seats.iter().map(|&s| self.bots[s].clone()).collect(),
                limits: Limits::uniform(Duration::from_secs(2)),
                rounds: Some(3),
                record_boards: RecordBoards::default(),
                options: toml::Table::new(),
                sandbox: None,
                keep_working_copies: false,
                data: vec![None; game.seats.len()],
            }))
        }
        fn waits(&mut self) -> anyhow::Result<bool> {
            Ok(false)
        }
        fn looks_again(&self, _running: usize, _jobs: usize) -> bool {
            false
        }
        fn recorded(
            &mut self,
            game: &ScheduledGame,
            result: &MatchResult,
            _streaks: &[(usize, u32)],
        ) -> anyhow::Result<()> {
            assert_eq!(result.bots.len(), 2);
            self.recorded.push(game.index);
            Ok(())
        }
        fn say(&self, line: &str) {
            self.said.borrow_mut().push(line.to_string());
        }
    }

    /// Three bots, every pair twice: six games of Nim in a SQLite store under `root`.
    fn plays(root: &Path, left_to_others: Vec<usize>, refused: Option<usize>) -> Plays {
        let bots: Vec<BotSpec> = ["a", "b", "c"].iter().map(|n| taker(root, n)).collect();
        let games: Vec<ScheduledGame> = [(0, 1), (0, 2), (1, 2), (1, 0), (2, 0), (2, 1)]
            .iter()
            .enumerate()
            .map(|(index, &(x, y))| ScheduledGame {
                index: index as u32,
                seed: 7 + index as u64,
                seats: vec![x, y],
            })
            .collect();
        let meta = [("name", "t".to_string()), ("game", "nim".to_string())];
        let store = Store::create(&root.join(store::FILE), &meta, &bots, &games).unwrap();
        Plays {
            store,
            claimant: Claimant::new(60),
            dir: root.to_path_buf(),
            bots,
            left_to_others,
            refused,
            recorded: Vec::new(),
            said: RefCell::new(Vec::new()),
        }
    }

    fn run_all(policy: &mut Plays) {
        koth_game::runtime()
            .unwrap()
            .block_on(run(policy, 2, &NIM))
            .unwrap();
    }

    #[test]
    fn every_game_claimed_is_played_and_recorded_once() {
        let tmp = tempfile::tempdir().unwrap();
        let mut policy = plays(tmp.path(), Vec::new(), None);
        run_all(&mut policy);
        let mut recorded = policy.recorded.clone();
        recorded.sort();
        assert_eq!(recorded, [0, 1, 2, 3, 4, 5]);
        let progress = policy.store.progress().unwrap();
        assert_eq!((progress.done, progress.left()), (6, 0));
        // One result per seat, each game's files in its own folder.
        assert_eq!(policy.store.results().unwrap().len(), 12);
        assert!(
            store::game_dir(tmp.path(), 5)
                .join("results.json")
                .is_file()
        );
        assert!(policy.said.borrow()[0].starts_with("games run "));
    }

    #[test]
    fn the_games_of_a_bot_passed_are_left_and_a_game_refused_is_a_fault_not_a_result() {
        let tmp = tempfile::tempdir().unwrap();
        // Bot 2's games are left to others: only 0 against 1 is played.
        let mut policy = plays(tmp.path(), vec![2], None);
        run_all(&mut policy);
        let mut recorded = policy.recorded.clone();
        recorded.sort();
        assert_eq!(recorded, [0, 3]);
        assert_eq!(policy.store.unplayed(&[]).unwrap(), 4);

        // Refused as it is claimed: its games fail for good, the others play on.
        let tmp = tempfile::tempdir().unwrap();
        let mut policy = plays(tmp.path(), Vec::new(), Some(0));
        run_all(&mut policy);
        let mut recorded = policy.recorded.clone();
        recorded.sort();
        assert_eq!(recorded, [2, 5]);
        let progress = policy.store.progress().unwrap();
        assert_eq!((progress.done, progress.harness_failed), (2, 4));
    }
}
