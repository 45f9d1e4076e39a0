//! The Genetic Rat Race as a [`Game`] the tournament runner can schedule: one bot plays
//! `rounds` boards (50 if unset), and its score is the geometric mean of their points.

use anyhow::{Context, bail};

use super::run::{Contestant, RunConfig, play_boards};
use super::stats::Summary;
use crate::game::{
    Average, BoxFuture, Fault, FaultLog, Game, MatchResult, MatchSetup, RoundProgress,
};

pub struct RatRace;

/// Boards per match when the setup does not say.
pub const DEFAULT_BOARDS: u32 = 50;

impl Game for RatRace {
    fn name(&self) -> &'static str {
        "ratrace"
    }

    fn players(&self) -> (usize, usize) {
        (1, 1)
    }

    /// Board points spread over orders of magnitude; the challenge ranked by geometric mean.
    fn average(&self) -> Average {
        Average::Geometric
    }

    fn play<'a>(&'a self, setup: &'a MatchSetup) -> BoxFuture<'a, anyhow::Result<MatchResult>> {
        Box::pin(async move {
            let setup = setup.clone();
            // The engine blocks for the whole match, so it gets a thread of its own; its one
            // job keeps to the first CPU the match was given, with its bot.
            crate::cpu::run_placed(Vec::new(), move || play_match(&setup)).await
        })
    }
}

fn play_match(setup: &MatchSetup) -> anyhow::Result<MatchResult> {
    let [spec] = setup.bots.as_slice() else {
        bail!("ratrace is played by one bot, not {}", setup.bots.len());
    };
    let boards = setup.rounds.unwrap_or(DEFAULT_BOARDS);
    std::fs::create_dir_all(&setup.log_dir)
        .with_context(|| format!("cannot create {}", setup.log_dir.display()))?;
    let config = RunConfig {
        boards: boards as usize,
        jobs: 1,
        limit: setup.limits.answer,
        log_dir: setup.log_dir.clone(),
        record_boards: Vec::new(),
        // A board is 10,000 round trips to one bot: on one CPU the two take turns.
        cpus: setup.cpus.clone(),
    };
    let mut points = Vec::new();
    let played = play_boards(
        &Contestant::Bot(spec.clone()),
        setup.seed,
        &config,
        &mut |record| {
            points.push(record.points);
            if let Some(progress) = &setup.progress {
                progress(&RoundProgress {
                    rounds_done: points.len() as u32,
                    rounds_total: boards,
                    totals: vec![Summary::of(&points).geometric_mean],
                });
            }
        },
    )?;
    let records = played.records;
    let path = setup.log_dir.join("ratrace-boards.json");
    std::fs::write(&path, serde_json::to_string_pretty(&records)?)
        .with_context(|| format!("cannot write {}", path.display()))?;
    let mut faults = FaultLog::default();
    for r in &records {
        if let Some(kind) = r.fault_kind {
            faults.push(Fault {
                bot: spec.name.clone(),
                kind,
                round: Some(r.board as u32),
                turn: Some(r.turns),
                reason: r.error.clone().unwrap_or_default(),
            });
        }
    }
    let points: Vec<u64> = records.iter().map(|r| r.points).collect();
    Ok(MatchResult {
        game: "ratrace".into(),
        seed: setup.seed,
        bots: vec![faults.bot_result(
            &spec.name,
            Summary::of(&points).geometric_mean,
            played.timing,
        )],
    })
}
