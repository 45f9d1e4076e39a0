//! A flag game as its viewers explain it: each level's map, the bot's walk over it step by
//! step (walked here by the game's own rules, so the viewers only draw), its answer and how long
//! it took (its transcript), the faults with their reasons and the bot's last stderr lines.
//!
//! `results.json` is read as possibly damaged: each level's map must parse as a level file's
//! does, its moves must be `U`, `D`, `L`, `R`, and walking them must give the solved state and
//! fitness the file records; anything else is an error naming the file and the level. A result
//! written before results kept the map names one of the shipped levels, which koth knows.

use std::path::Path;

use anyhow::{Context, anyhow, bail, ensure};
use serde::{Deserialize, Serialize, Serializer};

use crate::play::scored;
use crate::protocol::parse_answer;
use crate::rules::{Level, Walker, fitness, parse_moves};
use koth_bot::{Fault, cut_line_parts};
use koth_game::MatchResult;
use koth_replay::explain::{Answered, transcribed};
use koth_replay::record::{Line, Record};

/// A flag game as both viewers explain it (the page embeds it as JSON).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FlagExplained {
    pub bot: String,
    pub levels: Vec<LevelExplained>,
    /// Every fault `results.json` kept; `round` is the level, from 1.
    pub faults: Vec<Fault>,
    /// The bot's last stderr lines.
    pub stderr: String,
}

/// One level: its result, the bot's answer, the map and the walk over it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct LevelExplained {
    pub name: String,
    pub solved: bool,
    pub fitness: i64,
    /// The answer as `results.json` keeps it (empty after a fault).
    pub moves: String,
    /// The answer and its time, from the transcript.
    pub answer: Option<Answered>,
    pub level: LevelMap,
    /// Each move walked, up to where the walk was solved or stuck.
    pub walk: Vec<Walked>,
}

/// A level's map as the viewers draw it: its rows in the level file's characters, and where its
/// start and flag are (tile indices, row by row).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct LevelMap {
    pub rows: Vec<String>,
    pub width: usize,
    pub start: usize,
    pub flag: usize,
    pub flag_value: i64,
}

/// One move of a walk: its letter, the tile the walker stands on after it, the steps that tile
/// has left (`None`: it never falls) and whether the walker moved. The page reads it as
/// `[letter, tile, left (-1: never falls), moved]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Walked {
    pub letter: char,
    pub to: usize,
    pub left: Option<u8>,
    pub moved: bool,
}

impl Serialize for Walked {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let left = self.left.map_or(-1, i64::from);
        (self.letter, self.to, left, self.moved).serialize(serializer)
    }
}

impl FlagExplained {
    /// The fault of level `index` (from 0), if one: a level is a round, counted from 1.
    pub(crate) fn fault_of(&self, index: usize) -> Option<&Fault> {
        self.faults
            .iter()
            .find(|f| f.round.is_some_and(|r| r as usize == index + 1))
    }
}

/// What the game's `results.json` holds.
#[derive(Debug, Deserialize)]
struct Results {
    result: MatchResult,
    levels: Vec<LevelRecord>,
}

/// One level's result, as `results.json` keeps it (`flag::play::LevelResult`).
#[derive(Debug, Deserialize)]
struct LevelRecord {
    level: String,
    solved: bool,
    fitness: i64,
    moves: String,
    flag_value: Option<i64>,
    map: Option<Vec<String>>,
}

/// The viewer's data for the flag game in `folder`: the bot, every level with its map and the
/// walk step by step, the bot's answer and its time, the faults and the bot's stderr tail.
pub(crate) fn explain(folder: &Path) -> anyhow::Result<FlagExplained> {
    let path = folder.join("results.json");
    let text = koth_base::text::read(&path)?;
    let results: Results = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a flag result", path.display()))?;
    ensure!(
        results.result.game == "flag" && results.result.bots.len() == 1,
        "{}: expected the result of a flag game of one bot",
        path.display()
    );
    let bot = &results.result.bots[0];
    explained(folder, &bot.name, &results.levels, bot.faults.clone())
}

/// The viewer's data for a flag game still being played in `folder` on `levels` (no
/// `results.json` yet): the levels its record (`replay.jsonl`) has an answer or a fault for so
/// far, each answer walked with the rules as the game walks it, a level with a fault as the
/// empty walk.
pub(crate) fn so_far(folder: &Path, levels: &[Level]) -> anyhow::Result<FlagExplained> {
    let record = Record::read(folder)
        .with_context(|| format!("{}: no record of a flag game yet", folder.display()))?;
    let [bot] = record.seats.as_slice() else {
        bail!(
            "{}: expected the record of a flag game of one bot",
            folder.display()
        );
    };
    let mut played: Vec<LevelRecord> = Vec::new();
    let mut last_round = 0;
    for line in &record.lines {
        let (round, answer) = match line {
            Line::Answer { round, line, .. } => (*round, line.as_str()),
            Line::Fault { round, .. } => (*round, ""),
            Line::Round { .. } => continue,
        };
        // A level is a round, counted from 1; its answer comes before any fault it earns.
        let Some(level) = (round as usize).checked_sub(1).and_then(|i| levels.get(i)) else {
            continue;
        };
        if round == last_round {
            continue;
        }
        last_round = round;
        // An answer the record cut is walked as far as it was kept.
        let kept = cut_line_parts(answer).map_or(answer, |(start, _)| start);
        let result = match parse_answer(kept) {
            Ok(moves) => scored(level, &moves, answer.trim()),
            Err(_) => scored(level, &[], ""),
        };
        played.push(LevelRecord {
            level: result.level,
            solved: result.solved,
            fitness: result.fitness,
            moves: result.moves,
            flag_value: Some(result.flag_value),
            map: Some(result.map),
        });
    }
    explained(folder, bot, &played, record.faults())
}

/// The viewer's data for `bot`'s game in `folder` of `played` levels, with its `faults`.
fn explained(
    folder: &Path,
    bot: &str,
    played: &[LevelRecord],
    faults: Vec<Fault>,
) -> anyhow::Result<FlagExplained> {
    let path = folder.join("results.json");
    let transcript = transcribed(folder, "LEVEL")
        .into_iter()
        .find(|t| t.bot == bot);
    let mut levels = Vec::new();
    for (index, record) in played.iter().enumerate() {
        let (level, walk) = walked(record).with_context(|| {
            format!("{}: level {} ({})", path.display(), index + 1, record.level)
        })?;
        // One process plays the levels in order: the level's answer is the one after its
        // `LEVEL` line, the index + 1-th.
        let answer = transcript
            .as_ref()
            .and_then(|t| t.answers.iter().find(|a| a.openers as usize == index + 1))
            .cloned();
        levels.push(LevelExplained {
            name: record.level.clone(),
            solved: record.solved,
            fitness: record.fitness,
            moves: record.moves.clone(),
            answer,
            level,
            walk,
        });
    }
    Ok(FlagExplained {
        bot: bot.to_string(),
        levels,
        faults,
        stderr: transcript.map(|t| t.stderr).unwrap_or_default(),
    })
}

/// The level of `record` and each move of its walk, up to where the walk gets stuck; checked
/// against what the record says the walk scored.
fn walked(record: &LevelRecord) -> anyhow::Result<(LevelMap, Vec<Walked>)> {
    let level = match (&record.map, record.flag_value) {
        (Some(map), Some(flag_value)) => {
            let text = format!("flag-value {flag_value}\n{}", map.join("\n"));
            Level::parse(&record.level, &text).context("its map")?
        }
        _ => crate::play::SHIPPED
            .levels
            .iter()
            .find(|l| l.name == record.level)
            .cloned()
            .ok_or_else(|| anyhow!("no map recorded, and not a shipped level"))?,
    };
    // An answer over the kept length was kept as its start: walked as far as it goes, and not
    // held to the recorded score.
    let (moves, whole) = match cut_line_parts(&record.moves) {
        Some((start, _)) => (start, false),
        None => (record.moves.as_str(), true),
    };
    let moves = parse_moves(moves).map_err(|why| anyhow!("its moves: {why}"))?;
    let mut walker = Walker::new(&level);
    let mut walk = Vec::new();
    for m in moves {
        if walker.is_solved() || walker.is_blocked() {
            break;
        }
        let moved = walker.step(m);
        walk.push(Walked {
            letter: m.letter(),
            to: walker.pos,
            left: walker.steps_left(walker.pos),
            moved,
        });
    }
    if whole {
        let scored = fitness(walker.steps, walker.flag_points, walker.distance_left());
        ensure!(
            (walker.is_solved(), scored) == (record.solved, record.fitness),
            "its moves walk to solved {} with fitness {scored}, not solved {} with fitness {} as \
             recorded",
            walker.is_solved(),
            record.solved,
            record.fitness
        );
    }
    let shown = LevelMap {
        rows: level.map_rows(),
        width: level.width,
        start: level.start,
        flag: level.flag,
        flag_value: level.flag_value,
    };
    Ok((shown, walk))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::SHIPPED;

    #[test]
    fn a_game_in_progress_is_its_record_so_far_walked_with_the_rules() {
        let dir = tempfile::tempdir().unwrap();
        // Level 1 answered, level 2 a fault, level 3's answer cut short by the writer.
        std::fs::write(
            dir.path().join("replay.jsonl"),
            "{\"kind\":\"seats\",\"seed\":\"3\",\"seats\":[\"W\"]}\n\
             {\"kind\":\"round\",\"round\":1}\n\
             {\"kind\":\"answer\",\"seat\":0,\"round\":1,\"turn\":null,\"line\":\"RRDD\"}\n\
             {\"kind\":\"round\",\"round\":2}\n\
             {\"kind\":\"fault\",\"seat\":0,\"round\":2,\"turn\":null,\"fault\":\"timed_out\",\
             \"reason\":\"late\"}\n\
             {\"kind\":\"round\",\"round\":3}\n\
             {\"kind\":\"answer\",\"seat\":0,\"ro",
        )
        .unwrap();
        let explained = so_far(dir.path(), &SHIPPED.levels).unwrap();
        assert_eq!(explained.bot, "W");
        assert_eq!(explained.levels.len(), 2);
        let first = &SHIPPED.levels[0];
        let walked = scored(first, &parse_answer("RRDD").unwrap(), "RRDD");
        let shown = &explained.levels[0];
        assert_eq!(
            (&shown.name, shown.solved, shown.fitness, &shown.moves[..]),
            (&first.name, walked.solved, walked.fitness, "RRDD")
        );
        // Walked up to where it was solved or stuck, from its first move.
        assert!((1..=4).contains(&shown.walk.len()), "{:?}", shown.walk);
        assert_eq!(shown.walk[0].letter, 'R');
        let faulted = &explained.levels[1];
        assert_eq!(
            (&faulted.name, &faulted.moves[..], faulted.walk.len()),
            (&SHIPPED.levels[1].name, "", 0)
        );
        assert_eq!(explained.faults.len(), 1);
        assert_eq!(explained.faults[0].round, Some(2));
        assert_eq!(explained.faults[0].bot, "W");
    }
}
