//! The match loop: turns, phases, reports, faults and outputs of one game.
//!
//! A bot's answer line travels: [`Seat::answer`] (the line, under the time limit) →
//! [`choice`] (parsed by [`Reply::parse`], checked against the grid, faults recorded) →
//! [`Grid::destroy`] / [`Grid::activate`] (the rules) → [`Grid::score`] at the end of the round
//! → the round's points in `results.json` and the graphical log.

use anyhow::bail;
use futures::StreamExt;
use futures::future::join_all;
use futures::stream::FuturesUnordered;

use super::log::{
    FinalLog, GraphicalLog, PaidRecord, ReplayHeader, ReplayLog, Results, RoundLog, TurnRecord,
};
use super::protocol::{Answer as Reply, Message};
use super::rules::{self, Grid, MAX_BOTS, Scoring, Vertex};
use crate::bot::seat::At;
use crate::bot::{Answer, FaultKind, FaultLog, Restart, Seat, SeatOptions};
use crate::game::{BotResult, MatchResult, MatchSetup, RoundProgress};
use crate::seed;

/// Rounds per game when the setup does not say.
pub(crate) const DEFAULT_ROUNDS: u32 = 100;

/// The random stream of the report orders; round `r` scores with stream `r + 1`.
const ORDER_STREAM: u64 = 0;

/// How paths seats its bots: a new process every round, and `data.txt` in each bot's folder
/// its private file, emptied once per game and kept across its rounds.
pub(crate) fn seat_options(setup: &MatchSetup) -> SeatOptions {
    SeatOptions {
        private_file: Some("data.txt"),
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
    let mut seats = Seat::open_all(bots, &setup.log_dir, &seat_options(setup))?;
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

    let mut points = Vec::new();
    let mut totals = vec![0u64; n];
    for round in 0..rounds {
        let game = Round {
            setup,
            index: round,
            orders: &orders,
        };
        let (grid, scoring, turns) = game.play(&mut seats).await;
        for record in &turns {
            replay.turn(record)?;
        }
        let round_points = scoring.points;
        replay.paid(&PaidRecord {
            round,
            paid: scoring.paid,
        })?;
        for (total, p) in totals.iter_mut().zip(&round_points) {
            *total += p;
        }
        log.round(&RoundLog {
            index: round,
            rows: grid.rows(),
            points: round_points.clone(),
        })?;
        points.push(round_points);
        if let Some(progress) = &setup.progress {
            progress(&RoundProgress {
                rounds_done: round + 1,
                rounds_total: rounds,
                totals: totals.iter().map(|&t| t as f64).collect(),
            });
        }
    }

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
    results.write(&setup.log_dir.join(crate::game::RESULTS_FILE))?;
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

/// One round: fresh processes, N² turns, scoring.
struct Round<'a> {
    setup: &'a MatchSetup,
    index: u32,
    orders: &'a [Vec<usize>],
}

impl Round<'_> {
    /// Returns the final grid, its scoring, and each turn's accepted choices for the replay.
    async fn play(&self, seats: &mut [Seat]) -> (Grid, Scoring, Vec<TurnRecord>) {
        let n = seats.len();
        let (side, turns) = (rules::side(n), n * n);
        for seat in seats.iter_mut() {
            seat.begin(self.index).await;
        }
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
            let replies = ask_all(seats, &reports, &prompt, turn as u32).await;
            let choices = self.choices(seats, replies, &grid, turn, &prompt);
            let broken = grid.destroy(&choices);
            self.write_reports(&mut reports, |own| Message::Broken(turn, own), &broken);

            let prompt = Message::Activate(turn).to_string();
            let replies = ask_all(seats, &reports, &prompt, turn as u32).await;
            let choices = self.choices(seats, replies, &grid, turn, &prompt);
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
        let endings = seats
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
        replies: Vec<Option<Answer>>,
        grid: &Grid,
        turn: usize,
        prompt: &str,
    ) -> Vec<Option<Vertex>> {
        replies
            .into_iter()
            .zip(seats)
            .map(|(reply, seat)| match choice(&reply?.line, grid) {
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

/// Sends each running bot its pending report and `prompt`, then waits for all the answers at
/// once (a fault is recorded by the bot's seat and leaves no answer), so a phase lasts as long as its slowest bot rather than the sum of all. The prompts
/// go out back to back before any answer is awaited, and only a bot whose answer has arrived
/// is looked at again, so koth's own work per phase grows with N, not N².
async fn ask_all(
    seats: &mut [Seat],
    reports: &[String],
    prompt: &str,
    turn: u32,
) -> Vec<Option<Answer>> {
    let context = format!("{prompt}: ");
    let at = At {
        turn: Some(turn),
        context: &context,
    };
    let mut replies: Vec<Option<Answer>> = vec![None; seats.len()];
    let mut waiting = FuturesUnordered::new();
    for ((i, seat), report) in seats.iter_mut().enumerate().zip(reports) {
        if !seat.is_running() {
            continue;
        }
        // The report is queued and goes out in the prompt's write.
        let asked = seat.send(report).and_then(|()| seat.prompt(prompt, at));
        if let Ok(asked) = asked {
            waiting.push(async move { (i, seat.answer(asked, at).await) });
        }
    }
    while let Some((i, reply)) = waiting.next().await {
        replies[i] = reply.ok();
    }
    replies
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
