//! The rat race as a game of koth's registry: one player a match, ranked by the geometric mean
//! of its board points, and the table of boards each bot won on the same seeds.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use koth_bot::BotSpec;
use koth_game::{
    Average, BoxFuture, Breakdown, Game, MatchResult, MatchSetup, RESULTS_FILE, Ranking, stats,
};
use serde::Deserialize;

use super::boards::{Options, play};
use super::play::protocol_of;

pub struct RatRace;

/// A board as the per-board table reads it from a match's `results.json`.
#[derive(Debug, Deserialize)]
struct PlayedBoard {
    seed: u64,
    points: u64,
    error: Option<String>,
}

/// Each player's boards over the matches in `game_dirs`, by name; a folder whose
/// `results.json` is missing or damaged is left out, as the standings count it already.
fn boards_by_bot(game_dirs: &[PathBuf]) -> BTreeMap<String, Vec<PlayedBoard>> {
    #[derive(Deserialize)]
    struct Run {
        player: String,
        boards: Vec<PlayedBoard>,
    }
    let mut by_bot: BTreeMap<String, Vec<PlayedBoard>> = BTreeMap::new();
    for dir in game_dirs {
        let run = std::fs::read_to_string(dir.join(RESULTS_FILE))
            .ok()
            .and_then(|text| serde_json::from_str::<Run>(&text).ok());
        if let Some(run) = run {
            by_bot.entry(run.player).or_default().extend(run.boards);
        }
    }
    by_bot
}

impl Game for RatRace {
    fn name(&self) -> &'static str {
        "ratrace"
    }

    fn players(&self) -> (usize, usize) {
        (1, 1)
    }

    /// Board points are the score, as the original controller ranks them.
    fn ranking(&self) -> Ranking {
        Ranking::Points
    }

    /// One board at a time, each a round trip between koth and the bot per turn.
    fn most_cpus(&self) -> usize {
        1
    }

    /// Board points spread over orders of magnitude; the challenge ranked by geometric mean.
    fn average(&self) -> Average {
        Average::Geometric
    }

    fn records_boards(&self) -> bool {
        true
    }

    fn check_bot(&self, bot: &BotSpec) -> anyhow::Result<()> {
        protocol_of(bot)
            .map(drop)
            .map_err(|e| anyhow::anyhow!("`[protocols] ratrace` of {e:#}"))
    }

    fn breakdown_file(&self) -> Option<&'static str> {
        Some(RESULTS_FILE)
    }

    /// Each bot's boards: a tournament deals every bot the same seeds, so the same boards, and
    /// a board is won by the bot that scored most on it (alone). Also how many it ended with a
    /// fault, how many scored 1 (the population found no goal), and the median board.
    fn breakdown(&self, game_dirs: &[PathBuf]) -> Option<Breakdown> {
        let boards = boards_by_bot(game_dirs);
        // Each board's best score, who alone scored it, and how many played the board.
        let mut best: HashMap<u64, (u64, Option<&str>, usize)> = HashMap::new();
        for (bot, played) in &boards {
            for board in played {
                let entry = best.entry(board.seed).or_insert((0, None, 0));
                entry.2 += 1;
                if board.points > entry.0 {
                    (entry.0, entry.1) = (board.points, Some(bot.as_str()));
                } else if board.points == entry.0 {
                    entry.1 = None;
                }
            }
        }
        let rows = boards
            .iter()
            .map(|(bot, played)| {
                let won = played
                    .iter()
                    .filter(|b| {
                        let (_, winner, players) = best[&b.seed];
                        players > 1 && winner == Some(bot.as_str())
                    })
                    .count();
                let points: Vec<f64> = played.iter().map(|b| b.points as f64).collect();
                vec![
                    bot.clone(),
                    played.len().to_string(),
                    won.to_string(),
                    played
                        .iter()
                        .filter(|b| b.error.is_some())
                        .count()
                        .to_string(),
                    played.iter().filter(|b| b.points == 1).count().to_string(),
                    format!("{:.0}", stats::median(&points)),
                ]
            })
            .collect();
        Some(Breakdown {
            title: "Boards (every bot plays the same boards; a board is won by the bot that \
                    scored most on it)"
                .into(),
            columns: [
                "bot",
                "boards",
                "won",
                "faulted",
                "scored 1",
                "median points",
            ]
            .map(String::from)
            .to_vec(),
            rows,
        })
    }

    fn play<'a>(&'a self, setup: &'a MatchSetup) -> BoxFuture<'a, anyhow::Result<MatchResult>> {
        Box::pin(async move {
            let setup = setup.clone();
            // The engine blocks for the whole match, so it gets a thread of its own; its one
            // job keeps to the first CPU the match was given, with its bot.
            koth_base::cpu::run_placed(Vec::new(), move || {
                Ok(play(&setup, &Options::default(), &mut |_| {})?.result)
            })
            .await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_board_table_counts_a_board_won_only_against_another_bot_on_it() {
        let dir = tempfile::tempdir().unwrap();
        let run = |name: &str, player: &str, boards: &[(u64, u64, bool)]| {
            let folder = dir.path().join(name);
            std::fs::create_dir_all(&folder).unwrap();
            let boards: Vec<_> = boards
                .iter()
                .map(|&(seed, points, faulted)| {
                    serde_json::json!({ "seed": seed, "points": points,
                        "error": faulted.then_some("crashed") })
                })
                .collect();
            let results = serde_json::json!({ "player": player, "boards": boards });
            std::fs::write(folder.join(RESULTS_FILE), results.to_string()).unwrap();
            folder
        };
        let dirs = [
            run("0", "A", &[(1, 500, false), (2, 1, true), (3, 40, false)]),
            run("1", "B", &[(1, 20, false), (2, 1, false), (3, 90, false)]),
            // A board no other bot played is won by no one.
            run("2", "A", &[(4, 9000, false)]),
            dir.path().join("damaged"),
        ];
        std::fs::create_dir_all(&dirs[3]).unwrap();
        std::fs::write(dirs[3].join(RESULTS_FILE), "{").unwrap();
        let table = RatRace.breakdown(&dirs).unwrap();
        assert_eq!(
            table.rows,
            [
                ["A", "4", "1", "1", "1", "270"],
                ["B", "3", "1", "0", "1", "20"]
            ]
            .map(|row| row.map(String::from).to_vec())
        );
    }
}
