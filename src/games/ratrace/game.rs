//! The Genetic Rat Race as one match, however it is started: `koth ratrace` and the tournament
//! runner both call [`play`]. One player plays `rounds` boards (50 if unset), and its score is
//! the geometric mean of their points.

use anyhow::{Context, bail};

use super::run::{BoardRecord, Contestant, RunConfig, play_boards};
use crate::game::{Average, BotResult, BoxFuture, Game, MatchResult, MatchSetup, RoundProgress};
use crate::stats::Summary;

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
            crate::cpu::run_placed(Vec::new(), move || {
                Ok(play(&setup, &Options::default(), &mut |_| {})?.0)
            })
            .await
        })
    }
}

/// What a rat race can do beyond a tournament's match.
#[derive(Debug, Clone)]
pub struct Options {
    /// Boards played at once, each job on a thread of its own with its own bot process.
    pub jobs: usize,
    /// Boards recorded turn by turn ([`BoardRecord::recording`]).
    pub record_boards: Vec<usize>,
    /// A built-in player plays instead of the setup's bot.
    pub built_in: Option<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            jobs: 1,
            record_boards: Vec::new(),
            built_in: None,
        }
    }
}

/// Plays a run of `setup.rounds` boards (default [`DEFAULT_BOARDS`]) for the setup's one bot
/// (or `options.built_in`), calling `on_record` as each board ends, and writes `results.json`
/// (every board, the summary and the match result) and, for a bot, `stderr/` and
/// `transcripts/` into the setup's log folder. A bot player's jobs keep to the setup's CPUs,
/// one each, when there is one for every job.
pub fn play(
    setup: &MatchSetup,
    options: &Options,
    on_record: &mut dyn FnMut(&BoardRecord),
) -> anyhow::Result<(MatchResult, Vec<BoardRecord>)> {
    let contestant = match (&options.built_in, setup.bots.as_slice()) {
        (Some(name), []) => Contestant::BuiltIn(name.clone()),
        (None, [spec]) => Contestant::Bot(spec.clone()),
        _ => bail!("ratrace is played by one player, not {}", setup.bots.len()),
    };
    let boards = setup.rounds.unwrap_or(DEFAULT_BOARDS);
    std::fs::create_dir_all(&setup.log_dir)
        .with_context(|| format!("cannot create {}", setup.log_dir.display()))?;
    let config = RunConfig {
        boards: boards as usize,
        jobs: options.jobs,
        limits: setup.limits,
        log_dir: setup.log_dir.clone(),
        record_boards: options.record_boards.clone(),
        cpus: setup.cpus.clone(),
    };
    let started = std::time::Instant::now();
    let mut points = Vec::new();
    let played = play_boards(&contestant, setup.seed, &config, &mut |record| {
        on_record(record);
        points.push(record.points);
        if let Some(progress) = &setup.progress {
            progress(&RoundProgress {
                rounds_done: points.len() as u32,
                rounds_total: boards,
                totals: vec![Summary::of(&points).geometric_mean],
            });
        }
    })?;
    let seconds = started.elapsed().as_secs_f64();
    let records = played.records;
    let points: Vec<u64> = records.iter().map(|r| r.points).collect();
    let summary = Summary::of(&points);
    let result = MatchResult {
        game: "ratrace".into(),
        seed: setup.seed,
        bots: vec![BotResult::new(
            contestant.name(),
            summary.geometric_mean,
            &played.faults,
            played.timing,
        )],
    };
    let json = serde_json::json!({
        "game": "ratrace",
        "player": contestant.name(),
        "seed": setup.seed,
        "result": &result,
        "summary": summary,
        "faults": records.iter().filter(|r| r.error.is_some()).count(),
        "seconds": seconds,
        "boards": &records,
    });
    let path = setup.log_dir.join("results.json");
    std::fs::write(&path, serde_json::to_string_pretty(&json)?)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok((result, records))
}
