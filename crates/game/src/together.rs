//! The loop of a match whose bots all answer at once, round after round, written once for every
//! game of many players moving together (paths is its user; `docs/adding-a-game.md` walks a
//! lowest-unique-bid game through it): a seat per bot, each round begun on every seat (a new
//! process where the game's [`Restart`] asks for one) and marked in each transcript, a phase's
//! prompt sent to every running bot before any answer is awaited and the answers collected with
//! their faults, progress after each round, the seats finished, and each bot's [`BotResult`].
//! The game brings one round's play ([`RoundGame`]) and writes its own `results.json`, since
//! what a round leaves beside the points is the game's own.

use futures::StreamExt;
use futures::future::join_all;
use futures::stream::FuturesUnordered;

use super::{BotResult, BoxFuture, MatchResult, MatchSetup, RoundProgress};
use koth_bot::seat::At;
use koth_bot::{Answer, BotError, Seat, SeatOptions};

/// One round of a game whose bots answer together, as the game plays it.
pub trait RoundGame: Send {
    /// Plays round `round` on `table`, whose running seats have begun it; returns each seat's
    /// points for the round, in seat order. A bot's fault goes to its seat (through
    /// [`Table::ask_all`], or [`Seat::fault`] for an answer the rules refuse) and never fails
    /// the match: `Err` is koth's own failure (a log it cannot write).
    fn play_round<'a>(
        &'a mut self,
        table: &'a mut Table,
        round: u32,
    ) -> BoxFuture<'a, anyhow::Result<Vec<f64>>>;
}

/// How a match of bots answering together is played.
pub struct TogetherRules {
    /// Rounds per match when the setup does not say.
    pub default_rounds: u32,
    /// The number of the first round: paths counts from 0 as its original controller did.
    pub first_round: u32,
}

/// The seats of a match whose bots answer together.
pub struct Table {
    seats: Vec<Seat>,
}

/// A match played: its seats, finished, and each seat's total points, in seat order.
pub struct FinishedTable {
    pub seats: Vec<Seat>,
    pub totals: Vec<f64>,
}

impl FinishedTable {
    /// The match's result: each bot's total, with its seat's faults and timing.
    pub fn result(&self, game: &str, seed: u64) -> MatchResult {
        MatchResult {
            game: game.into(),
            seed,
            bots: self
                .seats
                .iter()
                .zip(&self.totals)
                .map(|(seat, &total)| {
                    BotResult::new(seat.name(), total, seat.faults(), seat.timing())
                })
                .collect(),
        }
    }
}

impl Table {
    /// The seats, in bot-list order.
    pub fn seats(&mut self) -> &mut [Seat] {
        &mut self.seats
    }

    /// Sends `prompt` to each running bot, after the lines queued on its seat ([`Seat::send`]),
    /// then waits for all the answers at once, so a phase lasts as long as its slowest bot
    /// rather than the sum of all: every prompt goes out before any answer is awaited, and each
    /// bot's time limit starts at its own prompt. Only a bot whose answer has arrived is looked
    /// at again, so koth's own work per phase grows with the bots, not their square. A seat's
    /// answer is `Err` for a bot that did not answer in time, crashed, closed its stdout or sent
    /// a bad line (its fault recorded at `at`, its process stopped) and for one not running.
    pub async fn ask_all(&mut self, prompt: &str, at: At<'_>) -> Vec<Result<Answer, BotError>> {
        let mut answers: Vec<Result<Answer, BotError>> =
            vec![Err(BotError::NotRunning); self.seats.len()];
        let mut waiting = FuturesUnordered::new();
        for (i, seat) in self.seats.iter_mut().enumerate() {
            if !seat.is_running() {
                continue;
            }
            match seat.prompt(prompt, at) {
                Ok(asked) => waiting.push(async move { (i, seat.answer(asked, at).await) }),
                Err(error) => answers[i] = Err(error),
            }
        }
        while let Some((i, answer)) = waiting.next().await {
            answers[i] = answer;
        }
        answers
    }

    /// Ends every seat's process at once (each has the exit limit), for a game whose bots start
    /// anew each round; a late exit is recorded with `context` before its reason.
    pub async fn finish_all(&mut self, context: &str) {
        join_all(self.seats.iter_mut().map(|seat| seat.finish(context))).await;
    }
}

/// Plays `setup.rounds` rounds (default `rules.default_rounds`) of `game` between the bots of
/// `setup`, seated with `options`: each round begun on every seat and marked in its transcript
/// (`# in round R` where the process goes on from an earlier round), played, its points added
/// and the progress told; then every seat finished.
pub async fn play_together<G: RoundGame>(
    setup: &MatchSetup,
    options: &SeatOptions,
    rules: &TogetherRules,
    game: &mut G,
) -> anyhow::Result<FinishedTable> {
    let seats = Seat::open_all(&setup.bots, &setup.log_dir, options)?;
    let mut table = Table { seats };
    let rounds = setup.rounds.unwrap_or(rules.default_rounds);
    let mut totals = vec![0.0; setup.bots.len()];
    for (done, round) in (rules.first_round..).take(rounds as usize).enumerate() {
        for seat in &mut table.seats {
            seat.begin(round).await;
            seat.mark_round();
        }
        let points = game.play_round(&mut table, round).await?;
        for (total, points) in totals.iter_mut().zip(points) {
            *total += points;
        }
        if let Some(progress) = &setup.progress {
            progress(&RoundProgress {
                rounds_done: done as u32 + 1,
                rounds_total: rounds,
                totals: totals.clone(),
            });
        }
    }
    table.finish_all("").await;
    Ok(FinishedTable {
        seats: table.seats,
        totals,
    })
}
