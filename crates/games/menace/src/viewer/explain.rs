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

use crate::rules::{Board, Outcome};
use koth_bot::Fault;
use koth_game::MatchResult;
use koth_replay::explain::{Answered, transcribed};
use koth_replay::record::{Line, Record};

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
/// (`null` where no transcript tells), the faults and each bot's stderr tail. A match still
/// being played has no `results.json` yet: it is the games of its record so far ([`so_far`]).
pub(crate) fn explain(folder: &Path) -> anyhow::Result<MatchExplained> {
    let path = folder.join("results.json");
    let (names, games, faults) = match (path.exists(), Record::read(folder)) {
        (false, Some(record)) => so_far(&record)?,
        _ => {
            let text = koth_base::text::read(&path)?;
            let results: Results = serde_json::from_str(&text)
                .with_context(|| format!("{}: not a noughts & crosses result", path.display()))?;
            check(&results).with_context(|| format!("{}", path.display()))?;
            let faults = results
                .result
                .bots
                .iter()
                .flat_map(|b| b.faults.iter().cloned())
                .collect();
            let names = results.names().iter().map(|n| n.to_string()).collect();
            (names, results.games, faults)
        }
    };
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
    let games: Vec<GameExplained> = games
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
        bots: names,
        games,
        faults,
        stderr,
    })
}

/// The games of a match in progress from its `record`: each game (a round of the record) with
/// the squares its answers named, read with the rules as the match read them, its X the seat
/// that answered its first move, and its winner once decided (`""` while it is played). Only a
/// match of two bots has one: a built-in player's moves are in no record.
fn so_far(record: &Record) -> anyhow::Result<(Vec<String>, Vec<GameRecord>, Vec<Fault>)> {
    ensure!(
        record.seats.len() == 2,
        "a match with a built-in player: its games show at its end"
    );
    let mut games: Vec<(GameRecord, Board)> = Vec::new();
    for line in &record.lines {
        let (seat, round) = match line {
            Line::Answer { seat, round, .. } | Line::Fault { seat, round, .. } => (*seat, *round),
            Line::Round { .. } => continue,
        };
        if games.last().is_none_or(|(game, _)| game.game != round) {
            let (x, o) = (seat.min(1), 1 - seat.min(1));
            games.push((
                GameRecord {
                    game: round,
                    x: record.seats[x].clone(),
                    o: record.seats[o].clone(),
                    winner: String::new(),
                    moves: Vec::new(),
                    fault: None,
                },
                Board::empty(),
            ));
        }
        let Some((game, board)) = games.last_mut() else {
            continue;
        };
        if !game.winner.is_empty() {
            continue;
        }
        let mark = board.to_move();
        let named = match line {
            Line::Answer { line, .. } => crate::protocol::parse_move(line, board, mark),
            Line::Fault { reason, .. } => Err(reason.clone()),
            Line::Round { .. } => continue,
        };
        match named {
            Ok(square) => {
                *board = board.with(square, mark);
                game.moves.push(square);
                game.winner = match board.outcome() {
                    Some(Outcome::Won(mark)) => mark.as_char().to_string(),
                    Some(Outcome::Draw) => "draw".to_string(),
                    None => String::new(),
                };
            }
            Err(reason) => {
                game.fault = Some(reason);
                game.winner = mark.other().as_char().to_string();
            }
        }
    }
    let games = games.into_iter().map(|(game, _)| game).collect();
    Ok((record.seats.clone(), games, record.faults()))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_match_in_progress_is_its_record_so_far_read_with_the_rules() {
        let dir = tempfile::tempdir().unwrap();
        let answer = |seat: usize, round: u32, turn: u32, line: &str| {
            format!(
                "{{\"kind\":\"answer\",\"seat\":{seat},\"round\":{round},\"turn\":{turn},\
                 \"line\":\"{line}\"}}\n"
            )
        };
        // Game 1: X (seat 0) takes the top row (its moves are both marks', in turn); game 2: X
        // is seat 1, O names a taken square.
        let mut record = String::from(
            "{\"kind\":\"seats\",\"seed\":\"3\",\"seats\":[\"A\",\"B\"]}\n\
             {\"kind\":\"round\",\"round\":1}\n",
        );
        for (turn, (seat, square)) in [(0, 0), (1, 3), (0, 1), (1, 4), (0, 2)].iter().enumerate() {
            record += &answer(*seat, 1, turn as u32 + 1, &square.to_string());
        }
        record += "{\"kind\":\"round\",\"round\":2}\n";
        record += &answer(1, 2, 1, "4");
        record += &answer(0, 2, 2, "4");
        record += &answer(1, 3, 1, "4");
        std::fs::write(dir.path().join("replay.jsonl"), record).unwrap();
        let explained = explain(dir.path()).unwrap();
        assert_eq!(explained.bots, ["A", "B"]);
        let games: Vec<_> = explained.games.iter().map(|g| &g.record).collect();
        assert_eq!(games.len(), 3);
        assert_eq!(
            (&games[0].x[..], &games[0].winner[..], &games[0].moves[..]),
            ("A", "X", &[0, 3, 1, 4, 2][..])
        );
        assert_eq!((&games[1].x[..], &games[1].winner[..]), ("B", "X"));
        assert!(games[1].fault.as_ref().unwrap().contains("taken"));
        assert_eq!(
            (&games[2].winner[..], &games[2].moves[..]),
            ("", &[4][..]),
            "a game still played has no winner"
        );
    }
}
