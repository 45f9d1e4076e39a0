//! A noughts & crosses match as its viewers explain it: every game's moves and who played
//! them (`results.json` keeps them all), each bot's answer to each `MOVE` with how long it took
//! (its transcript), the faults with their reasons and each bot's last stderr lines.
//!
//! `results.json` is read as possibly damaged: a game's players must be the match's, its squares
//! 0–8, each free when played, and its winner `X`, `O` or `draw`; any other content is an error
//! naming the file and the game. Transcripts only add times and answers: a damaged one is left
//! out.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{Context, bail, ensure};
use serde::{Deserialize, Serialize};

use crate::rules::Board;
use koth_bot::Fault;
use koth_game::MatchResult;
use koth_replay::explain::{Answered, transcribed};

/// What the game's `results.json` holds.
#[derive(Debug, Deserialize)]
struct Results {
    result: MatchResult,
    games: Vec<GameRecord>,
}

/// One game, as `results.json` keeps it (`menace::play::GameSummary`).
#[derive(Debug, Clone, Deserialize, Serialize)]
pub(crate) struct GameRecord {
    /// The game's number, from 1.
    pub game: u32,
    pub x: String,
    pub o: String,
    /// `X`, `O` or `draw`.
    pub winner: String,
    /// The squares (0–8) taken, in order, X first.
    pub moves: Vec<usize>,
    /// Why the game was lost by a fault, if it was.
    #[serde(default)]
    pub fault: Option<String>,
}

impl GameRecord {
    /// The steps a viewer shows after the empty board: each move, and the answer that lost the
    /// game by a fault, if one did.
    pub(crate) fn steps(&self) -> usize {
        self.moves.len() + usize::from(self.fault.is_some())
    }

    /// The bot that moves in turn `turn` (from 1: X's turns are odd).
    pub(crate) fn mover(&self, turn: usize) -> &str {
        if turn % 2 == 1 { &self.x } else { &self.o }
    }
}

/// A noughts & crosses match as both viewers explain it (the page embeds it as JSON).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct MatchExplained {
    pub bots: Vec<String>,
    pub games: Vec<GameExplained>,
    /// Every fault `results.json` kept; `round` is the game, `turn` the move.
    pub faults: Vec<Fault>,
    /// Each bot's last stderr lines, in `bots`' order.
    pub stderr: Vec<String>,
}

/// One game: its record and each turn's answer (`None` where no transcript tells).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct GameExplained {
    pub record: GameRecord,
    pub answers: Vec<Option<Answered>>,
}

impl MatchExplained {
    /// The fault kept for move `turn` of game `game` (both as `results.json` numbers them).
    pub(crate) fn fault_at(&self, game: u32, turn: usize) -> Option<&Fault> {
        self.faults
            .iter()
            .find(|f| f.round == Some(game) && f.turn == Some(turn as u32))
    }
}

impl Results {
    /// The names of the match's bots, in its order.
    fn names(&self) -> Vec<&str> {
        self.result.bots.iter().map(|b| b.name.as_str()).collect()
    }
}

/// The viewer's data for the match in `folder`: the bots, every game with each turn's answer
/// (`null` where no transcript tells), the faults and each bot's stderr tail.
pub(crate) fn explain(folder: &Path) -> anyhow::Result<MatchExplained> {
    let path = folder.join("results.json");
    let text = koth_bot::text::read(&path)?;
    let results: Results = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a noughts & crosses result", path.display()))?;
    check(&results).with_context(|| format!("{}", path.display()))?;
    let names = results.names();
    let transcripts = transcribed(folder, "START");
    // Each answer by its bot, game and turn. A bot against itself has two transcripts of one
    // name; only the one that was asked has a game's prompt, so the two never collide.
    let mut by_move: HashMap<(&str, u32, u32), &Answered> = HashMap::new();
    for transcript in &transcripts {
        for answer in &transcript.answers {
            // The round a process started in is the game of its first `START`.
            if let (Some(game), Some(turn)) = (answer.part(), answer.turn) {
                by_move.insert((&transcript.bot, game, turn), answer);
            }
        }
    }
    let games: Vec<GameExplained> = results
        .games
        .iter()
        .map(|game| {
            // The turn after the last move is the one a faulting answer was asked in.
            let answers = (1..=game.steps())
                .map(|turn| {
                    by_move
                        .get(&(game.mover(turn), game.game, turn as u32))
                        .map(|a| (*a).clone())
                })
                .collect();
            GameExplained {
                record: game.clone(),
                answers,
            }
        })
        .collect();
    let faults: Vec<Fault> = results
        .result
        .bots
        .iter()
        .flat_map(|b| b.faults.iter().cloned())
        .collect();
    let stderr: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(side, name)| {
            // The side's seat: the first transcript of its name, or the second for the second
            // side of a bot playing itself.
            let earlier = names[..side].iter().filter(|n| *n == name).count();
            transcripts
                .iter()
                .filter(|t| t.bot == *name)
                .nth(earlier)
                .map(|t| t.stderr.clone())
                .unwrap_or_default()
        })
        .collect();
    Ok(MatchExplained {
        bots: names.iter().map(|n| n.to_string()).collect(),
        games,
        faults,
        stderr,
    })
}

/// What the viewer relies on: two bots, and games between them that the rules allow.
fn check(results: &Results) -> anyhow::Result<()> {
    ensure!(
        results.result.game == "tictactoe",
        "a result of {:?}, not of tictactoe",
        results.result.game
    );
    let names = results.names();
    ensure!(names.len() == 2, "expected 2 bots, found {}", names.len());
    for game in &results.games {
        let at = || format!("game {}", game.game);
        for player in [&game.x, &game.o] {
            ensure!(
                names.contains(&player.as_str()),
                "{}: {player:?} is not one of the match's bots",
                at()
            );
        }
        ensure!(
            ["X", "O", "draw"].contains(&game.winner.as_str()),
            "{}: the winner is {:?}, not X, O or draw",
            at(),
            game.winner
        );
        let mut board = Board::empty();
        for (index, &square) in game.moves.iter().enumerate() {
            if square >= 9 || !board.is_free(square) || board.outcome().is_some() {
                bail!(
                    "{}: move {} on square {square} is not a legal move on {}",
                    at(),
                    index + 1,
                    board.cells()
                );
            }
            board = board.with(square, board.to_move());
        }
    }
    Ok(())
}
