//! What a single-game command shows: a progress bar while the match plays, and, when it ends,
//! the same report for every game — each bot's score and faults, the first faults with their
//! reasons, and where the results are.

use std::path::Path;
use std::sync::Arc;

use indicatif::{ProgressBar, ProgressStyle};

use crate::{MatchResult, ProgressFn, RoundProgress};
use koth_base::text;
use koth_bot::FAULTS_KEPT_PER_KIND;

/// Faults printed with their reasons; results.json keeps more.
const FAULTS_SHOWN: usize = 10;

/// A bar of `rounds` rounds (called `unit` on screen: round, board, level) naming the leader
/// among `names`, and the callback a [`crate::MatchSetup`] tells it through.
pub fn match_progress(rounds: u32, unit: &str, names: Vec<String>) -> (ProgressBar, ProgressFn) {
    let bar = ProgressBar::new(rounds as u64).with_style(
        ProgressStyle::with_template(&format!("{{bar:30}} {unit} {{pos}}/{{len}}  {{msg}}"))
            .expect("the template is valid"),
    );
    let shown = bar.clone();
    let progress: ProgressFn = Arc::new(move |p: &RoundProgress| {
        shown.set_position(p.rounds_done as u64);
        if let Some((leader, total)) = p
            .totals
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            && let Some(name) = names.get(leader)
        {
            shown.set_message(format!("leader: {} ({total:.1})", text::shown(name)));
        }
    });
    (bar, progress)
}

/// Prints each bot's score and faults by kind, best first, the first faults with their reasons,
/// and where `results.json` is. Names and reasons (a reason quotes a bot's answer or stderr)
/// are shown escaped ([`text::shown`]).
pub fn print_result(result: &MatchResult, log_dir: &Path) {
    let mut rows: Vec<_> = result.bots.iter().collect();
    rows.sort_by(|a, b| b.score.total_cmp(&a.score));
    let width = rows
        .iter()
        .map(|b| text::shown(&b.name).chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    println!(
        "{:>4}  {:<width$}  {:>10}  {:<15}  {:>6}  faults by kind",
        "rank", "name", "score", "status", "faults"
    );
    for (rank, bot) in rows.iter().enumerate() {
        let counts = &bot.fault_counts;
        println!(
            "{:>4}  {:<width$}  {:>10}  {:<15}  {:>6}  {}",
            rank + 1,
            text::shown(&bot.name),
            // Whole points print as integers, geometric means with two decimals.
            if bot.score.fract() == 0.0 {
                format!("{}", bot.score)
            } else {
                format!("{:.2}", bot.score)
            },
            bot.status.as_str(),
            counts.total(),
            if counts.total() == 0 {
                String::new()
            } else {
                counts.to_string()
            }
        );
    }
    let total: u64 = result.bots.iter().map(|b| b.fault_counts.total()).sum();
    // Rounds and turns as a person reads them, from 1, whatever the game stores.
    let numbering = crate::Numbering::of(&result.game);
    if total == 0 {
        println!("faults: 0");
    } else {
        println!(
            "faults: {total} (results.json keeps the first {FAULTS_KEPT_PER_KIND} of each kind \
             per bot)"
        );
    }
    for fault in result
        .bots
        .iter()
        .flat_map(|b| &b.faults)
        .take(FAULTS_SHOWN)
    {
        let at = numbering
            .place(fault.round, fault.turn)
            .unwrap_or_else(|| "the match".to_string());
        println!(
            "  {} ({at}): {}: {}",
            text::shown(&fault.bot),
            fault.kind.status().as_str(),
            text::shown(&fault.reason)
        );
    }
    for bot in &result.bots {
        if let Some(fuel) = &bot.timing.fuel {
            println!("fuel: {}: {}", text::shown(&bot.name), fuel.summary());
        }
    }
    println!("results: {}", log_dir.join("results.json").display());
}

/// koth's own CPU time so far, user and system, every thread of it but none of its bots:
/// `getrusage` counts in microseconds, where /proc's clock ticks (10 ms) are too coarse to
/// compare two builds of koth. For the benchmark scripts' `--report-cpu`.
pub fn own_cpu() -> anyhow::Result<std::time::Duration> {
    use anyhow::Context;
    let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_SELF)
        .context("cannot read koth's own CPU time")?;
    let micros = |t: nix::sys::time::TimeVal| t.tv_sec() as u64 * 1_000_000 + t.tv_usec() as u64;
    Ok(std::time::Duration::from_micros(
        micros(usage.user_time()) + micros(usage.system_time()),
    ))
}
