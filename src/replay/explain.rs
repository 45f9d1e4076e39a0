//! What a paths game's log folder says beyond its grids, for the web viewer to explain a game:
//! how long each bot took over each answer (from its transcript), every fault kept with its
//! reason (`results.json`), and each bot's last stderr lines. Everything here is optional: a
//! folder without a transcript, or with a damaged one, explains less and still shows.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use serde::Serialize;

use super::drive::{self, Step};

/// The stderr shown per bot: its last lines, from at most its last bytes.
const STDERR_LINES: usize = 20;
const STDERR_BYTES: u64 = 4096;

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

/// The last lines of the file at `path` (empty if it cannot be read).
fn tail(path: &Path) -> String {
    let read = || -> std::io::Result<String> {
        let mut file = std::fs::File::open(path)?;
        let length = file.metadata()?.len();
        file.seek(SeekFrom::Start(length.saturating_sub(STDERR_BYTES)))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let lines: Vec<&str> = text.lines().collect();
        Ok(lines[lines.len().saturating_sub(STDERR_LINES)..].join("\n"))
    };
    read().unwrap_or_default()
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
