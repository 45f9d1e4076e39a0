//! Noughts & crosses between any two players: external bots over the line protocol, MENACE,
//! a random player and the perfect player; and the game as the tournament runner sees it.
//!
//! ## The bot protocol
//!
//! One bot process plays every game of a match. koth writes lines to its stdin:
//!
//! - `START X` or `START O`: a new game begins and the bot plays that mark (X moves first).
//! - `MOVE <board>`: the bot is to move. `<board>` is 9 characters, row by row from the top
//!   left, `X`, `O` or `.` for a free square. The bot answers one line: the square, a digit
//!   `0`–`8` (`3 * row + column`) or two letters (row L/M/R = top/middle/bottom, then column
//!   L/M/R = left/middle/right).
//! - `END WIN`, `END LOSS` or `END DRAW`: the game is over (no answer expected).
//!
//! A bot that answers an occupied or unknown square, answers late or exits loses that game, and
//! the reason is recorded. A bot stopped by a fault is started again for the next game.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use rand::RngExt;

use super::board::{Board, Mark, Outcome, parse_square_for_bots};
use super::matchbox::{MICHIE_SCHEDULE, Menace};
use super::perfect;
use crate::bot::{AnswerStats, BotProcess, BotSpec, Clock, FaultKind, StderrLog, quote};
use crate::game::{BoxFuture, Fault, FaultLog, Game, MatchResult, MatchSetup};
use crate::seed::Rng;

/// One side of a game.
pub enum Player {
    /// MENACE, learning from every game it plays (as X only: its boxes are X's positions).
    Menace(Menace),
    Random,
    Perfect,
    Bot(Box<ExternalBot>),
}

/// An external bot and its running process, if any.
pub struct ExternalBot {
    pub spec: BotSpec,
    pub stderr: StderrLog,
    pub process: Option<BotProcess>,
    /// The clock its answers are timed on.
    pub clock: Clock,
    /// Answer timing of the processes it has had so far.
    pub timing: AnswerStats,
}

impl ExternalBot {
    pub fn new(spec: BotSpec, stderr: StderrLog) -> ExternalBot {
        ExternalBot {
            spec,
            stderr,
            process: None,
            clock: Clock::Wall,
            timing: AnswerStats::default(),
        }
    }

    /// The running process, started (again) if it is not running.
    fn process(&mut self) -> Result<&mut BotProcess, crate::bot::BotError> {
        if self.process.as_ref().is_none_or(BotProcess::is_stopped) {
            if let Some(old) = &self.process {
                self.timing.merge(old.stats());
            }
            let mut process = BotProcess::spawn(&self.spec, &self.stderr)?;
            process.set_clock(self.clock);
            self.process = Some(process);
        }
        Ok(self.process.as_mut().expect("just started"))
    }

    /// Ends the bot's process at the end of a match; a late exit is recorded as a fault.
    pub async fn finish(&mut self, limit: Duration) -> Option<crate::bot::BotError> {
        if let Some(p) = &self.process {
            self.timing.merge(p.stats());
        }
        match self.process.take() {
            Some(p) if !p.is_stopped() => p.finish(limit).await,
            Some(p) => {
                p.kill().await;
                None
            }
            None => None,
        }
    }
}

impl Player {
    /// Reads `menace`, `random`, `perfect` or a bot folder; bot stderr goes to `stderr`.
    pub fn from_arg(arg: &str, stderr: StderrLog) -> anyhow::Result<Player> {
        Ok(match arg {
            "menace" => Player::Menace(Menace::new(MICHIE_SCHEDULE)),
            "random" => Player::Random,
            "perfect" => Player::Perfect,
            path => {
                let spec =
                    crate::bot::roster::load_bot(&PathBuf::from(path)).with_context(|| {
                        format!("player `{path}`: expected menace, random, perfect or a bot folder")
                    })?;
                Player::Bot(Box::new(ExternalBot::new(spec, stderr)))
            }
        })
    }

    pub fn name(&self) -> String {
        match self {
            Player::Menace(_) => "MENACE".into(),
            Player::Random => "random".into(),
            Player::Perfect => "perfect".into(),
            Player::Bot(bot) => bot.spec.name.clone(),
        }
    }
}

/// A fault a bot committed in one game, which lost it that game.
#[derive(Debug, Clone)]
pub struct GameFault {
    pub mark: Mark,
    pub kind: FaultKind,
    /// The move number (1–9) at which it happened, if during play.
    pub turn: Option<u32>,
    pub reason: String,
}

/// How one game went.
#[derive(Debug, Clone)]
pub struct GameRecord {
    pub outcome: Outcome,
    pub moves: Vec<usize>,
    pub fault: Option<GameFault>,
}

/// Plays one game, `x` against `o`. Never fails: a bot's fault ends the game as a loss for it.
pub async fn play_game(
    x: &mut Player,
    o: &mut Player,
    rng: &mut Rng,
    answer_limit: Duration,
) -> GameRecord {
    let mut board = Board::empty();
    let mut moves = Vec::new();
    let mut fault = None;
    // Both bots hear START even if the first cannot be started, so each sees a whole game.
    for (player, mark) in [(&mut *x, Mark::X), (&mut *o, Mark::O)] {
        if let Player::Bot(bot) = player
            && let Err(e) = start_bot(bot, mark)
        {
            fault.get_or_insert(GameFault {
                mark,
                kind: e.kind(),
                turn: None,
                reason: e.to_string(),
            });
        }
    }
    let outcome = loop {
        if let Some(f) = &fault {
            break Outcome::Won(f.mark.other());
        }
        if let Some(outcome) = board.outcome() {
            break outcome;
        }
        let mark = board.to_move();
        let player = if mark == Mark::X { &mut *x } else { &mut *o };
        let turn = moves.len() as u32 + 1;
        match choose(player, mark, &board, rng, answer_limit).await {
            Ok(square) => {
                board = board.with(square, mark);
                moves.push(square);
            }
            Err((kind, reason)) => {
                fault = Some(GameFault {
                    mark,
                    kind,
                    turn: Some(turn),
                    reason,
                })
            }
        }
    };
    for (player, mark) in [(x, Mark::X), (o, Mark::O)] {
        match player {
            Player::Menace(menace) => menace.finish_game(outcome),
            Player::Bot(bot) => {
                let word = match outcome {
                    Outcome::Draw => "DRAW",
                    Outcome::Won(m) if m == mark => "WIN",
                    Outcome::Won(_) => "LOSS",
                };
                if let Some(p) = bot.process.as_mut().filter(|p| !p.is_stopped()) {
                    // Queued, like the next START: a bot that stopped reading after its last
                    // move is caught when its next MOVE is written, or by a late exit; the game
                    // itself is decided.
                    let _ = p.send(&format!("END {word}"));
                }
            }
            Player::Random | Player::Perfect => {}
        }
    }
    GameRecord {
        outcome,
        moves,
        fault,
    }
}

fn start_bot(bot: &mut ExternalBot, mark: Mark) -> Result<(), crate::bot::BotError> {
    let process = bot.process()?;
    process.send(&format!("START {}", mark.as_char()))
}

/// The player's square on `board`, or the fault that loses it the game.
async fn choose(
    player: &mut Player,
    mark: Mark,
    board: &Board,
    rng: &mut Rng,
    answer_limit: Duration,
) -> Result<usize, (FaultKind, String)> {
    match player {
        Player::Menace(menace) => Ok(menace.choose_move(board, rng)),
        Player::Random => {
            let free = board.free_squares();
            Ok(free[rng.random_range(0..free.len())])
        }
        Player::Perfect => Ok(perfect::choose_move(board, rng)),
        Player::Bot(bot) => {
            let process = bot.process().map_err(|e| (e.kind(), e.to_string()))?;
            let answer = process
                .ask(&format!("MOVE {}", board.cells()), answer_limit)
                .await
                .map_err(|e| (e.kind(), e.to_string()))?;
            let square = parse_square_for_bots(&answer.line).ok_or_else(|| {
                (
                    FaultKind::BadOutput,
                    format!(
                        "answered {}, which is not a square (0–8 or two letters like LM)",
                        quote(&answer.line)
                    ),
                )
            })?;
            if !board.is_free(square) {
                return Err((
                    FaultKind::BadOutput,
                    format!(
                        "answered {} as {}: square {square} is taken on {}",
                        quote(answer.line.trim()),
                        mark.as_char(),
                        board.cells()
                    ),
                ));
            }
            Ok(square)
        }
    }
}

/// Wins, draws and losses of one side.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl Tally {
    pub fn add(&mut self, outcome: Outcome, mark: Mark) {
        match outcome {
            Outcome::Draw => self.draws += 1,
            Outcome::Won(m) if m == mark => self.wins += 1,
            Outcome::Won(_) => self.losses += 1,
        }
    }

    /// Wins + 0.5 · draws, the tournament score.
    pub fn score(&self) -> f64 {
        f64::from(self.wins) + 0.5 * f64::from(self.draws)
    }
}

/// Noughts & crosses for the tournament runner: two bot folders play `rounds` games (default
/// 10), swapping X and O after every game.
pub struct TicTacToe;

const DEFAULT_GAMES: u32 = 10;

impl Game for TicTacToe {
    fn name(&self) -> &'static str {
        "tictactoe"
    }

    fn players(&self) -> (usize, usize) {
        (2, 2)
    }

    /// On a thread of its own kept to one CPU of the match's share: koth and the two bots take
    /// turns, so on one CPU none of them has to wake another.
    fn play<'a>(&'a self, setup: &'a MatchSetup) -> BoxFuture<'a, anyhow::Result<MatchResult>> {
        let setup = setup.clone();
        let cpu = setup.cpus.first().copied().into_iter().collect();
        Box::pin(crate::game::play_placed(cpu, move || async move {
            play_match(&setup).await
        }))
    }
}

async fn play_match(setup: &MatchSetup) -> anyhow::Result<MatchResult> {
    let mut players = Vec::new();
    for spec in &setup.bots {
        // Bot names are free text; keep the file name to safe characters.
        let file: String = spec
            .name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let path = setup.log_dir.join(format!("{file}.stderr"));
        let log = StderrLog::create(&path, crate::bot::process::STDERR_CAP)
            .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", path.display()))?;
        let mut bot = ExternalBot::new(spec.clone(), log);
        bot.clock = setup.limits.clock;
        players.push(Player::Bot(Box::new(bot)));
    }
    let [first, second] = &mut players[..] else {
        anyhow::bail!("tictactoe takes exactly 2 bots, got {}", setup.bots.len());
    };
    let games = setup.rounds.unwrap_or(DEFAULT_GAMES);
    let mut rng = crate::seed::rng(setup.seed, 0);
    let mut tallies = [Tally::default(); 2];
    let mut faults = FaultLog::default();
    for game in 0..games {
        // The first bot plays X in even games, O in odd ones.
        let swapped = game % 2 == 1;
        let record = if swapped {
            play_game(second, first, &mut rng, setup.limits.answer).await
        } else {
            play_game(first, second, &mut rng, setup.limits.answer).await
        };
        let marks = if swapped {
            [Mark::O, Mark::X]
        } else {
            [Mark::X, Mark::O]
        };
        for side in 0..2 {
            tallies[side].add(record.outcome, marks[side]);
        }
        if let Some(f) = record.fault {
            let side = marks.iter().position(|&m| m == f.mark).expect("X or O");
            faults.push(Fault {
                bot: setup.bots[side].name.clone(),
                kind: f.kind,
                round: Some(game + 1),
                turn: f.turn,
                reason: f.reason,
            });
        }
        if let Some(progress) = &setup.progress {
            progress(&crate::game::RoundProgress {
                rounds_done: game + 1,
                rounds_total: games,
                totals: tallies.iter().map(Tally::score).collect(),
            });
        }
    }
    for player in &mut players {
        if let Player::Bot(bot) = player
            && let Some(e) = bot.finish(setup.limits.exit).await
        {
            faults.push(Fault {
                bot: bot.spec.name.clone(),
                kind: e.kind(),
                round: None,
                turn: None,
                reason: e.to_string(),
            });
        }
    }
    let bots = (0..2)
        .map(|side| {
            let timing = match &players[side] {
                Player::Bot(bot) => bot.timing.clone(),
                _ => AnswerStats::default(),
            };
            faults.bot_result(&setup.bots[side].name, tallies[side].score(), timing)
        })
        .collect();
    Ok(MatchResult {
        game: "tictactoe".into(),
        seed: setup.seed,
        bots,
    })
}
