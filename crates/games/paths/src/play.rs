//! The match loop: turns, phases, reports, faults and outputs of one game.
//!
//! A bot's answer line travels: [`Seat::answer`] (the line, under the time limit) →
//! [`choice`] (parsed by [`Reply::parse`], checked against the grid, faults recorded) →
//! [`Grid::destroy`] / [`Grid::activate`] (the rules) → [`Grid::score`] at the end of the round
//! → the round's points in `results.json` and the graphical log.

use anyhow::bail;
use futures::future::join_all;

use super::log::{
    FinalLog, GraphicalLog, PaidRecord, ReplayHeader, ReplayLog, Results, RoundLog, TurnRecord,
};
use super::protocol::{Answer as Reply, Message};
use super::rules::{self, Grid, MAX_BOTS, Scoring, Vertex};
use koth_bot::seat::At;
use koth_bot::{Answer, BotError, FaultKind, FaultLog, Restart, Seat, SeatOptions};
use koth_game::seed;
use koth_game::together::{RoundGame, Table, TogetherRules, play_together};
use koth_game::{BotResult, BoxFuture, MatchResult, MatchSetup};

/// Rounds per game when the setup does not say.
pub(crate) const DEFAULT_ROUNDS: u32 = 100;

/// The random stream of the report orders; round `r` scores with stream `r + 1`.
const ORDER_STREAM: u64 = 0;

/// How paths seats its bots: a new process every round, and `data.txt` in each bot's folder
/// its private file, emptied once per game and kept across its rounds.
pub(crate) fn seat_options(setup: &MatchSetup) -> SeatOptions {
    SeatOptions {
        private_file: Some("data.txt"),
        // Its own `replay.jsonl` holds every turn's choices as the rules accepted them.
        public_record: false,
        ..SeatOptions::new(setup.limits, Restart::EveryRound, setup.seed)
    }
}

/// Plays one game and writes `graphical_log.txt`, `results.json`, `replay.jsonl`, `stderr/` and
/// `transcripts/` into the setup's log folder. Errors are koth's own (a folder it cannot
/// write); bots' mistakes are faults.
pub(crate) async fn play(setup: &MatchSetup) -> anyhow::Result<(MatchResult, Results)> {
    let bots = &setup.bots;
    let n = bots.len();
    if n == 0 || n > MAX_BOTS {
        bail!("paths takes 1 to {MAX_BOTS} bots, got {n}");
    }
    let rounds = setup.rounds.unwrap_or(DEFAULT_ROUNDS);
    let names: Vec<String> = bots.iter().map(|b| b.name.clone()).collect();
    let orders = rules::report_orders(n, &mut seed::rng(setup.seed, ORDER_STREAM));
    let mut log = GraphicalLog::create(&setup.log_dir.join("graphical_log.txt"), &names, rounds)?;
    let mut replay = ReplayLog::create(
        &setup.log_dir.join("replay.jsonl"),
        &ReplayHeader {
            game: "paths".into(),
            bots: names.clone(),
            side: rules::side(n),
            rounds,
            seed: setup.seed,
            answer_ms: Some(setup.limits.answer.as_millis() as u64),
            exit_ms: Some(setup.limits.exit.as_millis() as u64),
        },
    )?;

    let mut rounds_played = PathsRounds {
        setup,
        orders: &orders,
        log: &mut log,
        replay: &mut replay,
        points: Vec::new(),
        totals: vec![0u64; n],
    };
    let played = play_together(setup, &seat_options(setup), &RULES, &mut rounds_played).await?;
    let (points, totals) = (rounds_played.points, rounds_played.totals);
    let seats = played.seats;

    let mut faults = FaultLog::default();
    for seat in &seats {
        faults.append(seat.faults());
    }
    let mut standings: Vec<(String, u64)> = names.iter().cloned().zip(totals.clone()).collect();
    standings.sort_by_key(|(_, total)| std::cmp::Reverse(*total));
    let too_slow = names
        .iter()
        .filter(|name| faults.counts(name).timed_out > 0)
        .cloned()
        .collect();
    replay.finish()?;
    log.finish(&FinalLog {
        standings,
        too_slow,
    })?;

    let results = Results {
        game: "paths".into(),
        seed: setup.seed,
        rounds,
        side: rules::side(n),
        bots: names.clone(),
        points,
        totals: totals.clone(),
        faults: faults.kept().to_vec(),
        fault_counts: names.iter().map(|name| faults.counts(name)).collect(),
    };
    setup.write_results_text(results.text()?)?;
    let match_result = MatchResult {
        game: "paths".into(),
        seed: setup.seed,
        bots: seats
            .iter()
            .zip(&totals)
            .map(|(seat, &total)| BotResult::new(seat.name(), total as f64, &faults, seat.timing()))
            .collect(),
    };
    Ok((match_result, results))
}

/// How paths plays its rounds: numbered from 0, as the original controller numbered them.
const RULES: TogetherRules = TogetherRules {
    default_rounds: DEFAULT_ROUNDS,
    first_round: 0,
};

/// The rounds of a match: each played, then written to the logs as it ends.
struct PathsRounds<'a> {
    setup: &'a MatchSetup,
    orders: &'a [Vec<usize>],
    log: &'a mut GraphicalLog,
    replay: &'a mut ReplayLog,
    /// Each round's points, and each bot's total.
    points: Vec<Vec<u64>>,
    totals: Vec<u64>,
}

impl RoundGame for PathsRounds<'_> {
    fn play_round<'a>(
        &'a mut self,
        table: &'a mut Table,
        round: u32,
    ) -> BoxFuture<'a, anyhow::Result<Vec<f64>>> {
        Box::pin(async move {
            let game = Round {
                setup: self.setup,
                index: round,
                orders: self.orders,
            };
            let (grid, scoring, turns) = game.play(table).await;
            for record in &turns {
                self.replay.turn(record)?;
            }
            let round_points = scoring.points;
            self.replay.paid(&PaidRecord {
                round,
                paid: scoring.paid,
            })?;
            for (total, p) in self.totals.iter_mut().zip(&round_points) {
                *total += p;
            }
            self.log.round(&RoundLog {
                index: round,
                rows: grid.rows(),
                points: round_points.clone(),
            })?;
            let points = round_points.iter().map(|&p| p as f64).collect();
            self.points.push(round_points);
            Ok(points)
        })
    }
}

/// One round: fresh processes (begun by the loop), N² turns, scoring.
struct Round<'a> {
    setup: &'a MatchSetup,
    index: u32,
    orders: &'a [Vec<usize>],
}

impl Round<'_> {
    /// Returns the final grid, its scoring, and each turn's accepted choices for the replay.
    async fn play(&self, table: &mut Table) -> (Grid, Scoring, Vec<TurnRecord>) {
        let n = table.seats().len();
        let (side, turns) = (rules::side(n), n * n);
        let mut grid = Grid::new(side);
        // Each bot's report for the previous phase, sent right before its next prompt.
        let begin = Message::Begin {
            bots: n,
            turns,
            side,
        }
        .to_string();
        let mut reports = vec![begin; n];
        let mut records = Vec::with_capacity(turns);
        for turn in 0..turns {
            let prompt = Message::Destroy(turn).to_string();
            let replies = ask_all(table, &reports, &prompt, turn as u32).await;
            let choices = self.choices(table.seats(), replies, &grid, turn, &prompt);
            let broken = grid.destroy(&choices);
            self.write_reports(&mut reports, |own| Message::Broken(turn, own), &broken);

            let prompt = Message::Activate(turn).to_string();
            let replies = ask_all(table, &reports, &prompt, turn as u32).await;
            let choices = self.choices(table.seats(), replies, &grid, turn, &prompt);
            let owned = grid.activate(&choices);
            self.write_reports(&mut reports, |own| Message::Owned(turn, own), &owned);
            records.push(TurnRecord {
                round: self.index,
                turn: turn as u32,
                destroy: broken,
                activate: owned,
            });
        }
        let scoring = grid.score(n, n, &mut seed::rng(self.setup.seed, 1 + self.index as u64));
        let points = &scoring.points;
        let endings =
            table
                .seats()
                .iter_mut()
                .zip(reports)
                .enumerate()
                .map(|(i, (seat, report))| {
                    let score = Message::Score(self.orders[i].iter().map(|&b| points[b]).collect());
                    async move {
                        // A send fails only for a bot already stopped (its fault is recorded) or one that
                        // has stopped reading after its last answer, which the rules allow: what they
                        // require is the exit, which `finish` checks.
                        let _ = seat.send(&report);
                        let _ = seat.send(&score.to_string());
                        seat.finish("after SCORE: ").await;
                    }
                });
        join_all(endings).await;
        (grid, scoring, records)
    }

    /// Turns the phase's answers into choices; a bad answer is recorded and, like a fault the seat
    /// recorded, counts as no choice.
    fn choices(
        &self,
        seats: &mut [Seat],
        replies: Vec<Result<Answer, BotError>>,
        grid: &Grid,
        turn: usize,
        prompt: &str,
    ) -> Vec<Option<Vertex>> {
        replies
            .into_iter()
            .zip(seats)
            .map(|(reply, seat)| match choice(&reply.ok()?.line, grid) {
                Ok(vertex) => vertex,
                Err(reason) => {
                    let reason = format!("{prompt}: {reason}");
                    seat.fault(FaultKind::BadOutput, Some(turn as u32), reason);
                    None
                }
            })
            .collect()
    }

    /// Each bot's report of a phase: its own choice first, then the others in its order. Written
    /// over the previous phase's reports, whose strings are already long enough.
    fn write_reports(
        &self,
        reports: &mut [String],
        message: impl Fn(Vec<Option<Vertex>>) -> Message,
        choices: &[Option<Vertex>],
    ) {
        for (report, order) in reports.iter_mut().zip(self.orders) {
            report.clear();
            message(order.iter().map(|&b| choices[b]).collect()).write_to(report);
        }
    }
}

/// Queues each running bot's report of the last phase, then asks every bot `prompt` at once
/// ([`Table::ask_all`]): the report goes out in the prompt's write.
async fn ask_all(
    table: &mut Table,
    reports: &[String],
    prompt: &str,
    turn: u32,
) -> Vec<Result<Answer, BotError>> {
    let context = format!("{prompt}: ");
    let at = At {
        turn: Some(turn),
        context: &context,
    };
    for (seat, report) in table.seats().iter_mut().zip(reports) {
        if seat.is_running() {
            // Fails only for a bot that is not running, which is not asked.
            let _ = seat.send(report);
        }
    }
    table.ask_all(prompt, at).await
}

/// The vertex an answer line names, `None` for `NONE`, or why the line is a fault (malformed,
/// or off the grid). Whether the vertex is still inactive is the rules' business, not a fault.
fn choice(line: &str, grid: &Grid) -> Result<Option<Vertex>, String> {
    match Reply::parse(line)? {
        Reply::None => Ok(None),
        Reply::Vertex(x, y) => grid.vertex(x, y).map(Some).ok_or_else(|| {
            let s = grid.side();
            format!(
                "VERTEX {x},{y} is off the grid (x and y run from 0 to {})",
                s - 1
            )
        }),
    }
}
