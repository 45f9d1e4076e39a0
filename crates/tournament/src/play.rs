//! One game task: a claimed game played from a clean folder with its bots (and each learning
//! bot's data put in and taken back), its result checked against the seats it was given, on
//! a task of its own while the [`runner`](super::runner) goes on.

use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use futures::FutureExt;

use koth_base::cpu::Claim;
use koth_bot::data::{DATA_FOLDER, DataCap, Snapshot};
use koth_bot::{BotSpec, BotStatus, Limits, Sandbox, roster, sandbox};
use koth_game::{Game, MatchResult, MatchSetup, RecordBoards, ResultsTo};

use super::schedule::ScheduledGame;
use super::settings::MatchSettings;
use super::store::SeatData;

/// What a game task needs, owned, so the task can run on its own.
pub struct GameParts {
    pub game: &'static dyn Game,
    /// The CPUs the game keeps to, held while it runs.
    pub claim: Claim,
    pub dir: PathBuf,
    pub bots: Vec<BotSpec>,
    pub limits: Limits,
    pub rounds: Option<u32>,
    pub record_boards: RecordBoards,
    pub options: toml::Table,
    pub sandbox: Option<Sandbox>,
    pub keep_working_copies: bool,
    /// Per seat, the data a learning bot starts from (`None` for a bot that keeps none), as
    /// the store had it when the game was claimed.
    pub data: Vec<Option<Snapshot>>,
}

impl GameParts {
    /// What a game of `game` needs, played with `settings` by `bots` in `dir` on the CPUs of
    /// `claim`, each learning bot starting from its `data`, contained by `sandbox` (the
    /// settings' own, or one lent more programs).
    pub fn new(
        settings: &MatchSettings,
        game: &'static dyn Game,
        sandbox: Option<Sandbox>,
        claim: Claim,
        dir: PathBuf,
        data: Vec<Option<Snapshot>>,
        bots: Vec<BotSpec>,
    ) -> GameParts {
        GameParts {
            game,
            claim,
            dir,
            bots,
            limits: settings.limits(),
            rounds: settings.rounds,
            record_boards: settings.record_boards.unwrap_or_default(),
            options: settings.options.clone(),
            sandbox,
            keep_working_copies: settings.keep_working_copies,
            data,
        }
    }
}

/// Plays one game from a clean folder. `Err` is a harness fault: the game's own error, a panic
/// in the game, a folder that cannot be prepared or a result that does not fit the game.
pub async fn play_one(parts: GameParts, game: ScheduledGame, attempt: u32) -> GameReport {
    let started = Instant::now();
    let outcome = async {
        // Clearing and copying folders blocks: on the blocking pool, games starting together
        // prepare in parallel while the scheduler's one thread goes on.
        let (dir, sandbox, specs) = (parts.dir.clone(), parts.sandbox.clone(), parts.bots.clone());
        let data = parts.data.clone();
        let bots = tokio::task::spawn_blocking(move || {
            let bots = prepare_folder(&dir, &specs, sandbox)?;
            if let Err(e) = put_data(&dir, &bots, &data) {
                // The volumes of the bots whose data was put go with the game that never was.
                take_data(&bots);
                return Err(e);
            }
            Ok::<_, String>(bots)
        })
        .await
        .map_err(|e| format!("preparing the game's folder panicked: {e}"))??;
        let played_bots = bots.clone();
        let held = Arc::new(Mutex::new(None));
        let setup = MatchSetup {
            rounds: parts.rounds,
            cpus: parts.claim.cpus().to_vec(),
            record_boards: parts.record_boards,
            options: parts.options,
            results: ResultsTo::Held(held.clone()),
            ..MatchSetup::new(bots, game.seed, parts.dir.clone(), parts.limits)
        };
        let played = AssertUnwindSafe(parts.game.play(&setup))
            .catch_unwind()
            .await;
        // What each learning bot left, read before its working copy goes; a working copy
        // kept for a look gets it back in its `data/` (a contained bot's was on a volume).
        let keep = parts.keep_working_copies;
        let left = tokio::task::spawn_blocking(move || {
            let left = take_data(&played_bots);
            if keep {
                keep_data(&played_bots, &left);
            }
            left
        })
        .await
        .map_err(|e| format!("reading the bots' data panicked: {e}"))?;
        // The working copies are of no use once the game is over (its record is its results,
        // transcripts and stderr), and a bot's copy must not stay on disk game after game.
        if !parts.keep_working_copies {
            let copies = parts.dir.join(koth_bot::roster::WORKING_COPIES);
            let _ = tokio::task::spawn_blocking(move || std::fs::remove_dir_all(copies)).await;
        }
        let mut data_faults = false;
        let outcome = checked(played, &game).map(|mut result| {
            let before = fault_count(&result);
            let data = seat_data(&game, &parts.data, left, &mut result);
            data_faults = fault_count(&result) != before;
            (result, data)
        });
        // The results file, written once: as the game wrote it, with its learning bots' data
        // faults where they added some.
        let written = held.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(mut text) = written {
            if let (Ok((result, _)), true) = (&outcome, data_faults) {
                text = with_data_faults(&parts.dir, text, result)?;
            }
            let path = parts.dir.join(koth_game::RESULTS_FILE);
            std::fs::write(&path, text)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
        outcome
    }
    .await;
    GameReport {
        game,
        attempt,
        claim: parts.claim,
        outcome,
        elapsed: started.elapsed(),
    }
}

/// The game's result, or why it is a harness fault: the game's own error or panic, a bot kept
/// from the CPU by koth, or a result that does not fit the seats.
fn checked(
    played: std::thread::Result<anyhow::Result<MatchResult>>,
    game: &ScheduledGame,
) -> Result<MatchResult, String> {
    let result = match played {
        Ok(Ok(result)) => result,
        Ok(Err(err)) => return Err(format!("{err:#}")),
        Err(panic) => return Err(format!("the game panicked: {}", panic_message(&*panic))),
    };
    // A time-out koth caused by keeping the bot from the CPU must not count against it.
    if let Some(bot) = result.bots.iter().find(|b| b.timing.starved_timeouts > 0) {
        return Err(format!(
            "{:?} timed out {} time(s) while other programs kept it or koth from the CPU \
             (koth's fault, not the bot's)",
            bot.name, bot.timing.starved_timeouts
        ));
    }
    if result.bots.len() != game.seats.len() {
        return Err(format!(
            "the game returned {} results for {} bots",
            result.bots.len(),
            game.seats.len()
        ));
    }
    Ok(result)
}

fn fault_count(result: &MatchResult) -> usize {
    result.bots.iter().map(|b| b.faults.len()).sum()
}

/// Fills each learning bot's `data/` in its working copy with the data it starts from, and
/// names the snapshots in the game's folder `dir` ([`STARTED_DATA`]), so that a replay finds
/// them.
fn put_data(dir: &Path, bots: &[BotSpec], data: &[Option<Snapshot>]) -> Result<(), String> {
    let mut started = Vec::new();
    for (seat, (bot, snapshot)) in bots.iter().zip(data).enumerate() {
        if let (Some(ask), Some(snapshot)) = (bot.data, snapshot) {
            let cap = DataCap::of_mb(ask.mb.unwrap_or(koth_bot::data::DEFAULT_CAP_MB));
            // A contained bot's data is a volume of its own, bounded at every moment.
            let placement = match bot.sandbox {
                Some(_) => koth_bot::data::Placement::Volume,
                None => koth_bot::data::Placement::Folder,
            };
            koth_bot::data::put(&snapshot.tar_gz, &bot.dir.join(DATA_FOLDER), cap, placement)
                .map_err(|e| format!("{e:#}"))?;
            started.push(serde_json::json!({
                "seat": seat, "bot": bot.name, "digest": snapshot.digest
            }));
        }
    }
    if !started.is_empty() {
        let path = dir.join(STARTED_DATA);
        std::fs::write(&path, serde_json::Value::from(started).to_string())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

/// The file of a game's folder naming the data each learning bot started from: a JSON list of
/// `{"seat", "bot", "digest"}`.
pub const STARTED_DATA: &str = "data.json";

/// What each learning bot left in its `data/` (`None` for a bot that keeps none): a snapshot,
/// or why it cannot be one.
fn take_data(bots: &[BotSpec]) -> Vec<Option<Result<Snapshot, String>>> {
    bots.iter()
        .map(|bot| {
            let ask = bot.data?;
            let cap = DataCap::of_mb(ask.mb.unwrap_or(koth_bot::data::DEFAULT_CAP_MB));
            Some(koth_bot::data::take(&bot.dir.join(DATA_FOLDER), cap))
        })
        .collect()
}

/// Writes what each learning bot left, where it was taken, into its working copy's `data/` on
/// disk, for a tournament that keeps its working copies to be looked at.
fn keep_data(bots: &[BotSpec], left: &[Option<Result<Snapshot, String>>]) {
    for (bot, left) in bots.iter().zip(left) {
        if let (Some(ask), Some(Ok(snapshot))) = (bot.data, left) {
            let cap = DataCap::of_mb(ask.mb.unwrap_or(koth_bot::data::DEFAULT_CAP_MB));
            let dir = bot.dir.join(DATA_FOLDER);
            let placement = koth_bot::data::Placement::Folder;
            if let Err(e) = koth_bot::data::put(&snapshot.tar_gz, &dir, cap, placement) {
                tracing::warn!("cannot keep {}'s data in its working copy: {e:#}", bot.name);
            }
        }
    }
}

/// The results file `text` the game wrote in `dir`, with `result` (the faults its learning
/// bots' data added) in place of the one under `"result"`, so that the game's record and its
/// viewers tell them too.
fn with_data_faults(dir: &Path, text: String, result: &MatchResult) -> Result<String, String> {
    let mut written: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        let path = dir.join(koth_game::RESULTS_FILE);
        format!("{} is damaged: {e}", path.display())
    })?;
    let Some(slot) = written.get_mut("result") else {
        return Ok(text);
    };
    *slot = serde_json::to_value(result).map_err(|e| e.to_string())?;
    serde_json::to_string_pretty(&written).map_err(|e| e.to_string())
}

/// How the note of a learning bot's data begins when its folder held what data may not (over
/// its cap, a link, …), as opposed to data not kept because the bot ended its game with a fault.
pub const DATA_REFUSED: &str = "not kept: its data folder";

/// Each learning bot's part in `game`: what it started from and what of what it left is kept —
/// nothing from a bot that faulted, and a data folder it may not leave is its fault (added to
/// `result`), naming what is wrong.
fn seat_data(
    game: &ScheduledGame,
    started: &[Option<Snapshot>],
    left: Vec<Option<Result<Snapshot, String>>>,
    result: &mut MatchResult,
) -> Vec<SeatData> {
    let mut data = Vec::new();
    for (seat, (started, left)) in started.iter().zip(left).enumerate() {
        let (Some(started), Some(left)) = (started, left) else {
            continue;
        };
        let outcome = &mut result.bots[seat];
        let left = match left {
            Err(why) => {
                let reason = format!("its data folder {why}");
                if (outcome.faults.len() as u64) < koth_bot::FAULTS_KEPT_PER_KIND {
                    outcome.faults.push(koth_bot::Fault {
                        bot: outcome.name.clone(),
                        kind: koth_bot::FaultKind::BadOutput,
                        round: None,
                        turn: None,
                        reason: reason.clone(),
                    });
                }
                outcome.fault_counts.bad_output += 1;
                outcome.status = outcome.fault_counts.status();
                Err(format!("{DATA_REFUSED} {why}"))
            }
            Ok(_) if outcome.status != BotStatus::Finished => Err(format!(
                "not kept: the bot ended the game with a fault ({})",
                outcome.status.as_str()
            )),
            Ok(snapshot) => Ok(snapshot),
        };
        data.push(SeatData {
            seat,
            bot: game.seats[seat],
            started: started.clone(),
            left,
        });
    }
    data
}

/// The game's bots, ready to play from the clean folder `dir`: a game cut short (by a kill, or
/// a harness fault) is played again from scratch.
fn prepare_folder(
    dir: &Path,
    bots: &[BotSpec],
    sandbox: Option<Sandbox>,
) -> Result<Vec<BotSpec>, String> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|e| format!("cannot clear {}: {e}", dir.display()))?;
    }
    match &sandbox {
        Some(sandbox) => sandbox::contain(bots, Some(sandbox), dir).map_err(|e| format!("{e:#}")),
        None => roster::working_copies(bots, dir)
            .map_err(|e| format!("cannot prepare the bots in {}: {e}", dir.display())),
    }
}

/// A game task's report.
pub struct GameReport {
    pub game: ScheduledGame,
    pub attempt: u32,
    /// The CPUs the game had to itself, to be freed.
    pub claim: Claim,
    /// The result, and its learning bots' data.
    pub outcome: Result<(MatchResult, Vec<SeatData>), String>,
    pub elapsed: std::time::Duration,
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".into())
}
