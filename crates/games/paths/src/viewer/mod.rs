//! Paths' viewers: a game read back from its log folder (`graphical_log.txt`, koth's or the
//! original controller's, and the turns of koth's `replay.jsonl`), what its folder tells of each
//! turn (answer times, faults, stderr tails), and any round or turn shown as text, in the
//! terminal viewer (`tui`) or on the web page (`page.html`), all on the viewer kit of
//! [`koth_replay`].
//!
//! The page rebuilds each turn's grid from the recorded choices, as [`turns::Replay`] does,
//! rather than embedding every grid: a game of 100 rounds with 9 bots would otherwise weigh
//! gigabytes. `?round=R&turn=T` in the address opens that state.

pub mod graphical;
pub mod tui;
pub mod turns;

use std::path::Path;

use anyhow::bail;
use serde::Serialize;
use serde_json::json;

use super::Paths;
use graphical::GameLog;
use koth_game::{Replay, ReplayAt, ReplayOptions, RoundPoints};
use koth_replay::drive::{self, Step};
use koth_replay::explain::tail;
use koth_replay::{kit, log_folder};
use turns::Replay as Turns;

const PAGE: &str = include_str!("page.html");

/// A paths game: its graphical log, and the turns of its `replay.jsonl` when koth wrote them.
impl Replay for Paths {
    fn recognises(&self, path: &Path) -> bool {
        const LOG: &str = "graphical_log.txt";
        path.file_name().is_some_and(|name| name == LOG) || path.join(LOG).is_file()
    }

    fn show(&self, path: &Path, at: ReplayAt) -> Option<anyhow::Result<()>> {
        Some((|| {
            let game = Game::open(path)?;
            let frame = game.frame(at.round.unwrap_or(0), at.turn)?;
            let explanation = game.explanation(&log_folder(path));
            kit::show(tui::Viewer::new(&game, &explanation, frame), at.text)
        })())
    }

    fn page(&self, path: &Path, _board: Option<usize>) -> Option<anyhow::Result<String>> {
        Some(page_of(path))
    }

    /// From 0, rounds and turns alike, as the original controller's logs and protocol count.
    fn numbering(&self) -> koth_game::Numbering {
        koth_game::Numbering {
            first_round: 0,
            first_turn: 0,
        }
    }

    fn options(&self) -> ReplayOptions {
        ReplayOptions {
            round: true,
            turn: true,
            board: false,
        }
    }

    fn keys(&self) -> Option<String> {
        Some(tui::KEYS.help())
    }

    /// The points of each round, from the graphical log.
    fn round_points(&self, folder: &Path) -> Option<anyhow::Result<RoundPoints>> {
        Some(
            graphical::read(&folder.join("graphical_log.txt")).map(|log| RoundPoints {
                bots: log.bots,
                rounds: log
                    .rounds
                    .into_iter()
                    .map(|round| round.points.into_iter().map(|p| p as f64).collect())
                    .collect(),
            }),
        )
    }

    /// The limits of a game whose transcripts do not state them (written before they did): from
    /// its `replay.jsonl`, when it has one.
    fn recorded_limits(&self, folder: &Path) -> Option<anyhow::Result<koth_bot::Limits>> {
        let path = folder.join("replay.jsonl");
        path.is_file()
            .then(|| Ok(Turns::read(&path)?.header.limits()))
    }
}

/// A game as recorded in its log folder: the graphical log always, the turns when koth wrote them.
pub struct Game {
    pub log: GameLog,
    pub turns: Option<Turns>,
}

/// What is on screen: one round after some of its turns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub round: u32,
    /// Turns played; `None` for the round's end as the graphical log shows it.
    pub turn: Option<usize>,
    /// The grid, top row first.
    pub rows: Vec<String>,
    /// The round's points, once scored (at its end).
    pub points: Option<Vec<u64>>,
    /// Each bot's total over rounds `0..=round` when the round is over, else over `0..round`.
    pub totals: Vec<u64>,
}

impl Game {
    /// Opens a game log folder, or a `graphical_log.txt` (with `replay.jsonl` beside it if any).
    pub fn open(path: &Path) -> anyhow::Result<Game> {
        let folder = log_folder(path);
        let log_path = if path.is_dir() {
            path.join("graphical_log.txt")
        } else {
            path.to_path_buf()
        };
        let replay_path = folder.join("replay.jsonl");
        let in_progress = path.is_dir() && !folder.join(koth_game::RESULTS_FILE).exists();
        if in_progress && replay_path.is_file() {
            return Game::so_far(&log_path, &replay_path);
        }
        let log = graphical::read(&log_path)?;
        let turns = if replay_path.is_file() {
            let replay = Turns::read(&replay_path)?;
            if replay.header.bots != log.bots {
                bail!(
                    "{} and {} name different bots",
                    replay_path.display(),
                    log_path.display()
                );
            }
            Some(replay)
        } else {
            None
        };
        Ok(Game { log, turns })
    }

    /// A game still being played (no `results.json` yet): its graphical log, written a buffer
    /// at a time, holds its rounds' points only up to some round, while `replay.jsonl` holds
    /// every turn played. Each round the replay has is a round of the game, its grid the
    /// replay's after its last turn, its points the log's where it has them (none yet else).
    fn so_far(log_path: &Path, replay_path: &Path) -> anyhow::Result<Game> {
        let replay = Turns::read(replay_path)?;
        let logged = graphical::read(log_path)
            .ok()
            .filter(|log| log.bots == replay.header.bots);
        let mut rounds: Vec<u32> = replay.turns.iter().map(|t| t.round).collect();
        rounds.dedup();
        let rounds = rounds
            .into_iter()
            .map(|round| graphical::Round {
                index: round,
                rows: replay.grid(round, replay.turns_in(round)).rows(),
                points: logged
                    .as_ref()
                    .and_then(|log| log.rounds.iter().find(|r| r.index == round))
                    .map(|r| r.points.clone())
                    .unwrap_or_default(),
            })
            .collect::<Vec<_>>();
        anyhow::ensure!(!rounds.is_empty(), "no turn has been played yet");
        let log = GameLog {
            bots: replay.header.bots.clone(),
            rounds_announced: replay.header.rounds,
            rounds,
            standings: Vec::new(),
            too_slow: Vec::new(),
        };
        Ok(Game {
            log,
            turns: Some(replay),
        })
    }

    pub fn rounds(&self) -> u32 {
        self.log.rounds.len() as u32
    }

    /// The number of turns of `round` that can be shown one by one (0 without `replay.jsonl`).
    pub fn turns_in(&self, round: u32) -> usize {
        self.turns.as_ref().map_or(0, |t| t.turns_in(round))
    }

    /// What the game's log folder `folder` tells beyond its grids (answer times, faults, stderr
    /// tails), as both viewers explain a turn with it.
    pub fn explanation(&self, folder: &Path) -> Explanation {
        let turns: Vec<usize> = (0..self.rounds()).map(|r| self.turns_in(r)).collect();
        explain(folder, &self.log.bots, &turns)
    }

    /// Round `round` after `turn` turns, or at its end with `None`.
    pub fn frame(&self, round: u32, turn: Option<usize>) -> anyhow::Result<Frame> {
        let Some(logged) = self.log.rounds.get(round as usize) else {
            bail!(
                "no round {}: the log has rounds 1 to {}",
                round + 1,
                self.rounds()
            );
        };
        let mut totals = vec![0u64; self.log.bots.len()];
        for previous in &self.log.rounds[..round as usize] {
            for (total, p) in totals.iter_mut().zip(&previous.points) {
                // Points come from a file: a damaged one may hold any u64.
                *total = total.saturating_add(*p);
            }
        }
        let at_end = |totals: &mut Vec<u64>| {
            for (total, p) in totals.iter_mut().zip(&logged.points) {
                *total = total.saturating_add(*p);
            }
        };
        match turn {
            Some(turn) => {
                let Some(replay) = &self.turns else {
                    bail!("turns need replay.jsonl beside the graphical log (koth writes it)");
                };
                let available = replay.turns_in(round);
                if turn > available {
                    bail!(
                        "round {} has turns 1 to {available} (0: its start)",
                        round + 1
                    );
                }
                let finished = turn == available;
                if finished {
                    at_end(&mut totals);
                }
                Ok(Frame {
                    round,
                    turn: Some(turn),
                    rows: replay.grid(round, turn).rows(),
                    points: finished.then(|| logged.points.clone()),
                    totals,
                })
            }
            None => {
                at_end(&mut totals);
                Ok(Frame {
                    round,
                    turn: None,
                    rows: logged.rows.clone(),
                    points: Some(logged.points.clone()),
                    totals,
                })
            }
        }
    }

    /// A frame as plain text: a title line, the grid (two spaces before each row, as in the
    /// graphical log), then one line per bot with its letter, name, points and total.
    pub fn text(&self, frame: &Frame) -> String {
        // Counted from 1, as a person reads rounds in every game; the log counts from 0.
        let mut text = format!("Round {} of {}", frame.round + 1, self.rounds());
        match frame.turn {
            Some(turn) => {
                text += &format!(", after turn {turn} of {}\n", self.turns_in(frame.round))
            }
            None => text += ", end\n",
        }
        for row in &frame.rows {
            text += &format!("  {row}\n");
        }
        for (index, name) in self.log.bots.iter().enumerate() {
            let letter = crate::rules::letter(index);
            let points = frame
                .points
                .as_ref()
                // A round still played has no points logged yet.
                .and_then(|p| p.get(index))
                .map_or("-".to_string(), u64::to_string);
            text += &format!(
                "{letter} {name}: {points} points, total {}\n",
                frame.totals[index]
            );
        }
        text
    }
}

/// A paths game explained, as the viewer page embeds it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Explanation {
    /// Per round, turn and bot: the milliseconds its `DESTROY` and its `ACTIVATE` answers took
    /// (`None` where it was not asked, or did not answer).
    pub times: Vec<Vec<Vec<[Option<u64>; 2]>>>,
    /// The faults `results.json` kept: each with its bot, kind, round, turn and reason.
    pub faults: Vec<serde_json::Value>,
    /// Per bot, its stderr's last lines.
    pub stderr: Vec<String>,
}

/// Explains the game in `folder` between `bots`, whose round `r` has `turns[r]` turns.
pub fn explain(folder: &Path, bots: &[String], turns: &[usize]) -> Explanation {
    let mut times: Vec<Vec<Vec<[Option<u64>; 2]>>> = turns
        .iter()
        .map(|&n| vec![vec![[None, None]; bots.len()]; n])
        .collect();
    let mut stderr = vec![String::new(); bots.len()];
    for (path, script) in drive::scripts(folder).unwrap_or_default() {
        let Some(bot) = bots.iter().position(|b| script.bot.as_deref() == Some(b)) else {
            continue;
        };
        for round in &script.rounds {
            for step in &round.steps {
                let Step::Ask {
                    turn: Some(turn),
                    prompt,
                    took_ms,
                    ..
                } = step
                else {
                    continue;
                };
                let phase = match prompt.split(' ').next() {
                    Some("DESTROY") => 0,
                    Some("ACTIVATE") => 1,
                    _ => continue,
                };
                // Indices from a file: only those of the game's own rounds and turns count.
                if let Some(slot) = times
                    .get_mut(round.round as usize)
                    .and_then(|r| r.get_mut(*turn as usize))
                {
                    slot[bot][phase] = *took_ms;
                }
            }
        }
        if let Some(stem) = path.file_stem() {
            let log = format!("{}.log", stem.to_string_lossy());
            stderr[bot] = tail(&folder.join("stderr").join(log));
        }
    }
    Explanation {
        times,
        faults: faults(folder),
        stderr,
    }
}

/// The faults kept in `folder`'s `results.json`; none if it cannot be read.
fn faults(folder: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(folder.join("results.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|results| results["faults"].as_array().cloned())
        .unwrap_or_default()
}

/// A fault as the viewers show it, read from `results.json`'s record leniently: a field a
/// damaged file lacks reads empty (or `None`), never a panic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaultNote<'a> {
    pub bot: &'a str,
    pub kind: &'a str,
    pub round: Option<u64>,
    pub turn: Option<u64>,
    pub reason: &'a str,
}

impl<'a> FaultNote<'a> {
    fn of(fault: &'a serde_json::Value) -> FaultNote<'a> {
        FaultNote {
            bot: fault["bot"].as_str().unwrap_or(""),
            kind: fault["kind"].as_str().unwrap_or(""),
            round: fault["round"].as_u64(),
            turn: fault["turn"].as_u64(),
            reason: fault["reason"].as_str().unwrap_or(""),
        }
    }
}

impl Explanation {
    /// Every fault kept, in `results.json`'s order.
    pub fn fault_notes(&self) -> impl Iterator<Item = FaultNote<'_>> {
        self.faults.iter().map(FaultNote::of)
    }

    /// The faults kept for turn `turn` (from 0) of round `round`.
    pub fn faults_at(&self, round: u32, turn: usize) -> impl Iterator<Item = FaultNote<'_>> {
        self.fault_notes()
            .filter(move |f| f.round == Some(round.into()) && f.turn == Some(turn as u64))
    }

    /// The milliseconds `bot`'s `DESTROY` and `ACTIVATE` answers took in turn `turn` of round
    /// `round` (`None` where unknown).
    pub fn times_at(&self, round: u32, turn: usize, bot: usize) -> [Option<u64>; 2] {
        self.times
            .get(round as usize)
            .and_then(|r| r.get(turn))
            .and_then(|t| t.get(bot))
            .copied()
            .unwrap_or([None, None])
    }
}

/// The viewer page for a paths `game`, with what its folder tells of each turn, if known.
pub fn page(game: &Game, explanation: Option<&Explanation>) -> String {
    let rounds: Vec<_> = game
        .log
        .rounds
        .iter()
        .map(|round| {
            let turns: Vec<_> = game
                .turns
                .iter()
                .flat_map(|replay| replay.turns.iter().filter(|t| t.round == round.index))
                .map(|t| json!([t.destroy, t.activate]))
                .collect();
            let paid: Vec<_> = game
                .turns
                .iter()
                .flat_map(|replay| replay.paid.iter().filter(|p| p.round == round.index))
                .flat_map(|p| &p.paid)
                .collect();
            json!({ "rows": round.rows, "points": round.points, "turns": turns, "paid": paid })
        })
        .collect();
    let data = json!({
        "bots": game.log.bots,
        "side": game.log.side(),
        "rounds": rounds,
        "explanation": explanation,
    });
    kit::page(PAGE, "/*GAME*/null", &data)
}

/// The web page of the paths game recorded at `path`: its log folder or its graphical log.
fn page_of(path: &Path) -> anyhow::Result<String> {
    let game = Game::open(path)?;
    let turns: Vec<usize> = (0..game.rounds()).map(|r| game.turns_in(r)).collect();
    let explanation = explain(&log_folder(path), &game.log.bots, &turns);
    Ok(page(&game, Some(&explanation)))
}
