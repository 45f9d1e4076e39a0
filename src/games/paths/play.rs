//! The match loop: bot processes, turns, phases, reports, faults and outputs of one game.
//!
//! A bot's answer line travels: [`BotProcess::ask`] (the line, under the time limit) →
//! [`choice`] (parsed by [`Reply::parse`], checked against the grid, faults recorded) →
//! [`Grid::destroy`] / [`Grid::activate`] (the rules) → [`Grid::score`] at the end of the round
//! → the round's points in `results.json` and the graphical log.

use std::collections::HashSet;
use std::fs::File;
use std::path::Path;

use anyhow::{Context, bail};
use futures::StreamExt;
use futures::future::join_all;
use futures::stream::FuturesUnordered;

use super::log::{
    self, FinalLog, GraphicalLog, ReplayHeader, ReplayLog, Results, RoundLog, TurnRecord,
};
use super::protocol::{Answer as Reply, Message};
use super::rules::{self, Grid, MAX_BOTS, Vertex};
use crate::bot::{
    self, AnswerStats, BotError, BotProcess, BotSpec, FaultKind, StderrLog, Transcript,
};
use crate::game::{Fault, FaultLog, MatchResult, MatchSetup, RoundProgress};
use crate::seed;

/// Rounds per game when the setup does not say.
pub const DEFAULT_ROUNDS: u32 = 100;

/// The random stream of the report orders; round `r` scores with stream `r + 1`.
const ORDER_STREAM: u64 = 0;

/// Plays one game and writes `graphical_log.txt`, `results.json`, `replay.jsonl`, `stderr/` and
/// `transcripts/` into the setup's log folder. Errors are koth's own (a folder it cannot write); bots' mistakes are faults.
pub async fn play(setup: &MatchSetup) -> anyhow::Result<(MatchResult, Results)> {
    let bots = &setup.bots;
    let n = bots.len();
    if n == 0 || n > MAX_BOTS {
        bail!("paths takes 1 to {MAX_BOTS} bots, got {n}");
    }
    let rounds = setup.rounds.unwrap_or(DEFAULT_ROUNDS);
    let names: Vec<String> = bots.iter().map(|b| b.name.clone()).collect();
    for bot in bots {
        empty_private_file(bot)?;
    }
    let (stderr_logs, transcripts) = create_bot_logs(bots, &setup.log_dir)?;
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

    let mut faults = FaultLog::default();
    let mut points = Vec::new();
    let mut totals = vec![0u64; n];
    let mut timings = vec![AnswerStats::default(); n];
    for round in 0..rounds {
        let game = Round {
            setup,
            index: round,
            stderr_logs: &stderr_logs,
            transcripts: &transcripts,
            orders: &orders,
        };
        let (grid, round_points, turns) = game.play(&mut faults, &mut timings).await;
        for record in &turns {
            replay.turn(record)?;
        }
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
    results.write(&setup.log_dir.join("results.json"))?;
    let match_result = MatchResult {
        game: "paths".into(),
        seed: setup.seed,
        bots: names
            .iter()
            .zip(&totals)
            .zip(timings)
            .map(|((name, &total), timing)| faults.bot_result(name, total as f64, timing))
            .collect(),
    };
    Ok((match_result, results))
}

/// Empties `data.txt` in the bot's folder: the spec's private file, emptied once per game and
/// kept across its rounds.
pub fn empty_private_file(bot: &BotSpec) -> anyhow::Result<()> {
    let data = bot.dir.join("data.txt");
    File::create(&data).with_context(|| format!("{bot}: cannot empty {}", data.display()))?;
    Ok(())
}

/// A file name per bot, from its folder (with a number appended when two bots share a folder):
/// `stderr/<slug>.log` and `transcripts/<slug>.txt` (`.txt.gz` once large).
fn slugs(bots: &[BotSpec]) -> Vec<String> {
    let mut used = HashSet::new();
    bots.iter()
        .map(|bot| {
            let base = bot
                .dir
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_else(|| bot.name.replace(|c: char| !c.is_alphanumeric(), "-"));
            let mut slug = base.clone();
            let mut copy = 1;
            while !used.insert(slug.clone()) {
                copy += 1;
                slug = format!("{base}-{copy}");
            }
            slug
        })
        .collect()
}

/// One stderr log and one transcript per bot for the whole game.
fn create_bot_logs(
    bots: &[BotSpec],
    log_dir: &Path,
) -> anyhow::Result<(Vec<StderrLog>, Vec<Transcript>)> {
    let stderr_dir = log_dir.join("stderr");
    let transcript_dir = log_dir.join(log::TRANSCRIPTS);
    for dir in [&stderr_dir, &transcript_dir] {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let mut stderr_logs = Vec::new();
    let mut transcripts = Vec::new();
    for (slug, bot) in slugs(bots).into_iter().zip(bots) {
        let path = stderr_dir.join(format!("{slug}.log"));
        stderr_logs.push(
            StderrLog::create(&path, bot::process::STDERR_CAP)
                .with_context(|| format!("cannot create {}", path.display()))?,
        );
        let path = transcript_dir.join(format!("{slug}.txt"));
        let transcript = Transcript::create(&path)
            .with_context(|| format!("cannot create {}", path.display()))?;
        // `koth replay --drive` finds a transcript by this name as well as by its file's.
        transcript.note(&format!("{}{}", log::BOT_NOTE, bot.name));
        transcripts.push(transcript);
    }
    Ok((stderr_logs, transcripts))
}

/// One round: fresh processes, N² turns, scoring.
struct Round<'a> {
    setup: &'a MatchSetup,
    index: u32,
    stderr_logs: &'a [StderrLog],
    transcripts: &'a [Transcript],
    orders: &'a [Vec<usize>],
}

impl Round<'_> {
    /// Returns the final grid, the points, and each turn's accepted choices for the replay.
    async fn play(
        &self,
        faults: &mut FaultLog,
        timings: &mut [AnswerStats],
    ) -> (Grid, Vec<u64>, Vec<TurnRecord>) {
        let bots = &self.setup.bots;
        let n = bots.len();
        let (side, turns) = (rules::side(n), n * n);
        let mut procs: Vec<Option<BotProcess>> = bots
            .iter()
            .zip(self.stderr_logs)
            .zip(self.transcripts)
            .map(|((spec, log), transcript)| {
                transcript.note(&format!("{}{}", log::ROUND_NOTE, self.index));
                match BotProcess::spawn(spec, log) {
                    Ok(mut process) => {
                        process.set_clock(self.setup.limits.clock);
                        process.set_transcript(transcript.clone());
                        Some(process)
                    }
                    Err(e) => {
                        faults.push(self.fault(&spec.name, &e, None, ""));
                        None
                    }
                }
            })
            .collect();
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
            let replies = self.ask_all(&mut procs, &reports, &prompt).await;
            let choices = self.choices(replies, &grid, turn, &prompt, faults);
            let broken = grid.destroy(&choices);
            self.write_reports(&mut reports, |own| Message::Broken(turn, own), &broken);

            let prompt = Message::Activate(turn).to_string();
            let replies = self.ask_all(&mut procs, &reports, &prompt).await;
            let choices = self.choices(replies, &grid, turn, &prompt, faults);
            let owned = grid.activate(&choices);
            self.write_reports(&mut reports, |own| Message::Owned(turn, own), &owned);
            records.push(TurnRecord {
                round: self.index,
                turn: turn as u32,
                destroy: broken,
                activate: owned,
            });
        }
        let points = grid.score(n, n, &mut seed::rng(self.setup.seed, 1 + self.index as u64));
        let exit = self.setup.limits.exit;
        let endings = procs
            .into_iter()
            .zip(reports)
            .enumerate()
            .map(|(i, (process, report))| {
                let score = Message::Score(self.orders[i].iter().map(|&b| points[b]).collect());
                async move {
                    let mut process = process?;
                    // A send fails only for a bot already stopped (its fault is recorded) or one
                    // that has stopped reading after its last answer, which the rules allow: what
                    // they require is the exit, which `finish` checks.
                    let _ = process.send(&report);
                    let _ = process.send(&score.to_string());
                    let stats = process.stats().clone();
                    Some((stats, process.finish(exit).await))
                }
            });
        for ((bot, ending), timing) in bots.iter().zip(join_all(endings).await).zip(timings) {
            let Some((stats, fault)) = ending else {
                continue;
            };
            timing.merge(&stats);
            if let Some(e) = fault {
                faults.push(self.fault(&bot.name, &e, None, "after SCORE: "));
            }
        }
        (grid, points, records)
    }

    /// Sends each running bot its pending report and `prompt`, then waits for all the answers at
    /// once, so a phase lasts as long as its slowest bot rather than the sum of all. The prompts
    /// go out back to back before any answer is awaited, and only a bot whose answer has arrived
    /// is looked at again, so koth's own work per phase grows with N, not N².
    async fn ask_all(
        &self,
        procs: &mut [Option<BotProcess>],
        reports: &[String],
        prompt: &str,
    ) -> Vec<Option<Result<bot::Answer, BotError>>> {
        let limit = self.setup.limits.answer;
        let mut replies: Vec<Option<Result<bot::Answer, BotError>>> = vec![None; procs.len()];
        let mut waiting = FuturesUnordered::new();
        for ((i, process), report) in procs.iter_mut().enumerate().zip(reports) {
            let Some(process) = process.as_mut().filter(|p| !p.is_stopped()) else {
                continue;
            };
            // The report is queued and goes out in the prompt's write.
            let asked = process
                .send(report)
                .and_then(|()| process.prompt(prompt, limit));
            match asked {
                Ok(asked) => waiting.push(async move { (i, process.answer(asked).await) }),
                Err(e) => replies[i] = Some(Err(e)),
            }
        }
        while let Some((i, reply)) = waiting.next().await {
            replies[i] = Some(reply);
        }
        replies
    }

    /// Turns the phase's replies into choices; every fault is recorded and counts as no choice.
    fn choices(
        &self,
        replies: Vec<Option<Result<bot::Answer, BotError>>>,
        grid: &Grid,
        turn: usize,
        prompt: &str,
        faults: &mut FaultLog,
    ) -> Vec<Option<Vertex>> {
        let context = format!("{prompt}: ");
        replies
            .into_iter()
            .zip(&self.setup.bots)
            .map(|(reply, bot)| {
                let turn = Some(turn as u32);
                match reply? {
                    Ok(answer) => match choice(&answer.line, grid) {
                        Ok(vertex) => vertex,
                        Err(reason) => {
                            faults.push(Fault {
                                bot: bot.name.clone(),
                                kind: FaultKind::BadOutput,
                                round: Some(self.index),
                                turn,
                                reason: context.clone() + &reason,
                            });
                            None
                        }
                    },
                    Err(e) => {
                        faults.push(self.fault(&bot.name, &e, turn, &context));
                        None
                    }
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

    fn fault(&self, bot: &str, error: &BotError, turn: Option<u32>, context: &str) -> Fault {
        Fault {
            bot: bot.to_string(),
            kind: error.kind(),
            round: Some(self.index),
            turn,
            reason: format!("{context}{error}"),
        }
    }
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
