//! Flag as a koth game: one solver bot gets each level over the line protocol and answers a
//! move string, which koth walks and scores.
//!
//! Protocol, one exchange per level (koth → bot, then one line back):
//! ```text
//! LEVEL <width> <height> <flag-value>
//! <height lines of the map, in the level file's characters: 1 2 # . S s F>
//! SOLVE
//! ```
//! The bot answers one line of moves, `U` `D` `L` `R` (an empty line is an empty walk). koth
//! walks them with the game's rules: moves into fallen tiles, holes or edges do nothing, and the
//! walk ends once the level is solved. After the last level koth closes the bot's stdin and the
//! bot should exit.
//!
//! A level is scored as solved or not and by the seed's fitness of the walk. A fault (no answer
//! in time, a crash, a line with another character) is recorded with its reason and stops the
//! bot; that level and every later one are scored as the empty walk.

use std::path::Path;
use std::sync::LazyLock;

use crate::bot::{
    AnswerStats, BotError, BotProcess, BotSpec, FaultKind, StderrLog, cut_line,
    process::STDERR_CAP, quote,
};
use crate::game::{BoxFuture, Fault, FaultLog, Game, MatchResult, MatchSetup, RoundProgress};

use super::level::{Level, Move, parse_moves, walk};

/// One level's result for the bot.
#[derive(Debug, Clone, serde::Serialize)]
pub struct LevelResult {
    pub level: String,
    pub solved: bool,
    pub fitness: i64,
    /// The bot's answer as it was walked (empty after a fault); its first [`KEPT_MOVES`] bytes
    /// and its length if longer.
    pub moves: String,
}

/// The most of an answer a [`LevelResult`] keeps: far longer than any walk a level needs, while
/// a bot answering megabytes cannot make `results.json` huge.
const KEPT_MOVES: usize = 4096;

/// The flag game over a fixed list of levels, as the runners see it.
pub struct Flag {
    pub levels: Vec<Level>,
}

/// The shipped solvable levels, compiled in so that a tournament needs no level files.
const SHIPPED_LEVELS: [(&str, &str); 5] = [
    ("1-ring", include_str!("../../../levels/flag/1-ring.txt")),
    (
        "2-dark-centre",
        include_str!("../../../levels/flag/2-dark-centre.txt"),
    ),
    (
        "3-grey-pillars",
        include_str!("../../../levels/flag/3-grey-pillars.txt"),
    ),
    (
        "4-hollow",
        include_str!("../../../levels/flag/4-hollow.txt"),
    ),
    (
        "5-seed-6x6",
        include_str!("../../../levels/flag/5-seed-6x6.txt"),
    ),
];

/// The game the tournament runner schedules: every shipped solvable level, easiest first.
pub static SHIPPED: LazyLock<Flag> = LazyLock::new(|| Flag {
    levels: SHIPPED_LEVELS
        .iter()
        .map(|(name, text)| {
            Level::parse(name, text).expect("shipped levels parse (a unit test checks them)")
        })
        .collect(),
});

/// The question for one level, as the bot reads it.
pub fn prompt(level: &Level) -> String {
    let mut text = format!(
        "LEVEL {} {} {}\n",
        level.width, level.height, level.flag_value
    );
    for row in level.map_rows() {
        text.push_str(&row);
        text.push('\n');
    }
    text.push_str("SOLVE");
    text
}

fn scored(level: &Level, moves: &[Move], answer: &str) -> LevelResult {
    let (outcome, _) = walk(level, moves.iter().copied());
    LevelResult {
        level: level.name.clone(),
        solved: outcome.solved,
        fitness: outcome.fitness,
        moves: cut_line(answer, KEPT_MOVES).into_owned(),
    }
}

impl Flag {
    /// Plays every level with `setup`'s single bot; the score is the number of levels solved.
    pub async fn play_levels(
        &self,
        setup: &MatchSetup,
    ) -> anyhow::Result<(MatchResult, Vec<LevelResult>)> {
        let spec: &BotSpec = setup
            .bots
            .first()
            .ok_or_else(|| anyhow::anyhow!("flag needs one solver bot"))?;
        let stderr = StderrLog::create(
            &setup.log_dir.join(format!("{}.stderr.log", spec.name)),
            STDERR_CAP,
        )?;
        let mut faults = FaultLog::default();
        let fault = |kind: FaultKind, round: usize, reason: String| Fault {
            bot: spec.name.clone(),
            kind,
            round: Some(round as u32 + 1),
            turn: None,
            reason,
        };
        let mut results = Vec::new();
        let mut timing = AnswerStats::default();
        let mut bot = match BotProcess::spawn(spec, &stderr) {
            Ok(mut bot) => {
                bot.set_clock(setup.limits.clock);
                Some(bot)
            }
            Err(err) => {
                faults.push(fault(err.kind(), 0, err.to_string()));
                None
            }
        };
        for (round, level) in self.levels.iter().enumerate() {
            // Levels before this one are done (each branch below pushes one result).
            if let Some(progress) = setup.progress.as_ref().filter(|_| round > 0) {
                report(progress.as_ref(), round, self.levels.len(), &results);
            }
            let Some(process) = bot.as_mut() else {
                results.push(scored(level, &[], ""));
                continue;
            };
            match process.ask(&prompt(level), setup.limits.answer).await {
                Ok(answer) => {
                    let line = answer.line.trim();
                    match parse_moves(line) {
                        Ok(moves) => results.push(scored(level, &moves, line)),
                        Err(why) => {
                            faults.push(fault(
                                FaultKind::BadOutput,
                                round,
                                format!("answered {} for level {}: {why}", quote(line), level.name),
                            ));
                            results.push(scored(level, &[], ""));
                            if let Some(process) = bot.take() {
                                timing.merge(process.stats());
                                process.kill().await;
                            }
                        }
                    }
                }
                Err(err) => {
                    faults.push(fault(
                        err.kind(),
                        round,
                        format!("level {}: {err}", level.name),
                    ));
                    results.push(scored(level, &[], ""));
                    if let Some(process) = bot.take() {
                        timing.merge(process.stats());
                        process.kill().await;
                    }
                }
            }
        }
        if let Some(process) = &bot {
            timing.merge(process.stats());
        }
        if let Some(process) = bot
            && let Some(err) = process.finish(setup.limits.exit).await
        {
            faults.push(fault(
                err.kind(),
                self.levels.len().saturating_sub(1),
                exit_reason(&err),
            ));
        }
        if let Some(progress) = &setup.progress {
            report(
                progress.as_ref(),
                self.levels.len(),
                self.levels.len(),
                &results,
            );
        }
        let solved = results.iter().filter(|r| r.solved).count();
        let result = MatchResult {
            game: "flag".into(),
            seed: setup.seed,
            bots: vec![faults.bot_result(&spec.name, solved as f64, timing)],
        };
        let json = serde_json::json!({ "result": &result, "levels": &results });
        std::fs::write(
            setup.log_dir.join("results.json"),
            serde_json::to_string_pretty(&json)?,
        )?;
        Ok((result, results))
    }
}

fn report(
    progress: &(dyn Fn(&RoundProgress) + Send + Sync),
    done: usize,
    total: usize,
    results: &[LevelResult],
) {
    progress(&RoundProgress {
        rounds_done: done as u32,
        rounds_total: total as u32,
        totals: vec![results.iter().filter(|r| r.solved).count() as f64],
    });
}

fn exit_reason(err: &BotError) -> String {
    format!("after the last level: {err}")
}

impl Game for Flag {
    fn name(&self) -> &'static str {
        "flag"
    }

    fn players(&self) -> (usize, usize) {
        (1, 1)
    }

    fn play<'a>(&'a self, setup: &'a MatchSetup) -> BoxFuture<'a, anyhow::Result<MatchResult>> {
        Box::pin(async move { Ok(self.play_levels(setup).await?.0) })
    }
}

/// Reads every level file given, in order.
pub fn load_levels(paths: &[impl AsRef<Path>]) -> anyhow::Result<Vec<Level>> {
    paths.iter().map(|p| Level::load(p.as_ref())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_levels_parse() {
        assert_eq!(SHIPPED.levels.len(), 5);
        assert_eq!(SHIPPED.levels[4].name, "5-seed-6x6");
    }

    #[test]
    fn prompt_sends_the_size_the_flag_value_and_the_map() {
        let level = Level::parse("t", "flag-value -4\ns12\n.#F").unwrap();
        assert_eq!(prompt(&level), "LEVEL 3 2 -4\ns12\n.#F\nSOLVE");
    }
}
