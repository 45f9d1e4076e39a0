//! Flag as a koth game: one solver bot gets each level over the line protocol and answers a
//! move string, which koth walks and scores.
//!
//! The lines exchanged with the bot are in [`super::protocol`].
//!
//! A level is scored as solved or not and by the seed's fitness of the walk. A fault (no answer
//! in time, a crash, a line with another character) is recorded with its reason and stops the
//! bot; that level and every later one are scored as the empty walk.

use std::path::Path;
use std::sync::LazyLock;

use koth_bot::seat::At;
use koth_bot::{FaultKind, Restart, Seat, SeatOptions, cut_line, quote};
use koth_game::{BotResult, BoxFuture, Game, MatchResult, MatchSetup, Ranking, RoundProgress};

use super::protocol::{self, prompt};
use super::rules::{Level, Move, walk};

/// One level's result for the bot.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct LevelResult {
    pub level: String,
    pub solved: bool,
    pub fitness: i64,
    /// The bot's answer as it was walked (empty after a fault); its first [`KEPT_MOVES`] bytes
    /// and its length if longer.
    pub moves: String,
    /// The level as played, for the web viewer: its flag's value and its map's rows (in the
    /// level file's characters), so a game stays viewable whatever level file it was given.
    pub flag_value: i64,
    pub map: Vec<String>,
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
    ("1-ring", include_str!("../../../../levels/flag/1-ring.txt")),
    (
        "2-dark-centre",
        include_str!("../../../../levels/flag/2-dark-centre.txt"),
    ),
    (
        "3-grey-pillars",
        include_str!("../../../../levels/flag/3-grey-pillars.txt"),
    ),
    (
        "4-hollow",
        include_str!("../../../../levels/flag/4-hollow.txt"),
    ),
    (
        "5-seed-6x6",
        include_str!("../../../../levels/flag/5-seed-6x6.txt"),
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

/// `level`'s result for the walk of `moves`, the bot's `answer` (its viewer scores a game in
/// progress with it too, from its record).
pub(crate) fn scored(level: &Level, moves: &[Move], answer: &str) -> LevelResult {
    let (outcome, _) = walk(level, moves.iter().copied());
    LevelResult {
        level: level.name.clone(),
        solved: outcome.solved,
        fitness: outcome.fitness,
        moves: cut_line(answer, KEPT_MOVES).into_owned(),
        flag_value: level.flag_value,
        map: level.map_rows(),
    }
}

impl Flag {
    /// Plays every level with `setup`'s single bot and writes `results.json`; the score is the
    /// number of levels solved.
    pub(crate) async fn play_levels(
        &self,
        setup: &MatchSetup,
    ) -> anyhow::Result<(MatchResult, Vec<LevelResult>)> {
        let [spec] = setup.bots.as_slice() else {
            anyhow::bail!("flag is played by one solver bot, not {}", setup.bots.len());
        };
        let options = SeatOptions::new(setup.limits, Restart::Never, setup.seed);
        let mut seat =
            Seat::open_all(std::slice::from_ref(spec), &setup.log_dir, &options)?.remove(0);
        let mut results = Vec::new();
        for (index, level) in self.levels.iter().enumerate() {
            // Levels before this one are done (each branch below pushes one result).
            if let Some(progress) = setup.progress.as_ref().filter(|_| index > 0) {
                report(progress.as_ref(), index, self.levels.len(), &results);
            }
            // A level is a round, counted from 1 in faults.
            if !seat.begin(index as u32 + 1).await {
                results.push(scored(level, &[], ""));
                continue;
            }
            let context = format!("level {}: ", level.name);
            let at = At {
                turn: None,
                context: &context,
            };
            let Ok(answer) = seat.ask(&prompt(level), at).await else {
                results.push(scored(level, &[], ""));
                continue;
            };
            let line = answer.line.trim();
            match protocol::parse_answer(line) {
                Ok(moves) => results.push(scored(level, &moves, line)),
                Err(why) => {
                    // Moves are letters without spaces: a line with spaces is most likely a
                    // debug line.
                    let reason = format!(
                        "answered {} for level {}: {why}{}",
                        quote(line),
                        level.name,
                        koth_bot::debug_hint(!line.contains(' '))
                    );
                    seat.fault(FaultKind::BadOutput, None, reason);
                    results.push(scored(level, &[], ""));
                    seat.stop().await;
                }
            }
        }
        seat.finish("after the last level: ").await;
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
            bots: vec![BotResult::new(
                seat.name(),
                solved as f64,
                seat.faults(),
                seat.timing(),
            )],
        };
        let json = serde_json::json!({ "result": &result, "levels": &results });
        setup.write_results(&json)?;
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

impl Game for Flag {
    fn name(&self) -> &'static str {
        "flag"
    }

    fn players(&self) -> (usize, usize) {
        (1, 1)
    }

    /// A level's fitness is the score, as the original challenge ranks it.
    fn ranking(&self) -> Ranking {
        Ranking::Points
    }

    /// On a thread of its own kept to the match's CPUs with its bot, as every game is played.
    fn play<'a>(&'a self, setup: &'a MatchSetup) -> BoxFuture<'a, anyhow::Result<MatchResult>> {
        let setup = setup.clone();
        let levels = self.levels.clone();
        Box::pin(koth_game::play_placed(
            setup.cpus.clone(),
            move || async move { Ok(Flag { levels }.play_levels(&setup).await?.0) },
        ))
    }
}

/// Reads every level file given, in order.
pub(crate) fn load_levels(paths: &[impl AsRef<Path>]) -> anyhow::Result<Vec<Level>> {
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
}
