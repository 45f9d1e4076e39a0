//! `koth paths`: play one game among bots from a `bots.txt`, bot folders, or `./bots`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};

use super::play::{self, DEFAULT_ROUNDS};
use crate::bot::FAULTS_KEPT_PER_KIND;
use crate::bot::sandbox::{self, SandboxArgs};
use crate::bot::{BotSpec, Limits, roster};
use crate::game::{MatchResult, MatchSetup, RoundProgress};
use crate::seed;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The original controller's bot list (name, folder under bots/ next to it, command).
    #[arg(long, value_name = "PATH", conflicts_with = "bot")]
    bots_file: Option<PathBuf>,
    /// A bot folder holding a bot.toml; repeat for each bot. Default: every bot under ./bots
    /// whose manifest lists games = ["paths"].
    #[arg(long, value_name = "DIR")]
    bot: Vec<PathBuf>,
    /// Rounds in the game.
    #[arg(long, value_name = "R", default_value_t = DEFAULT_ROUNDS,
          value_parser = clap::value_parser!(u32).range(1..))]
    rounds: u32,
    /// Seed of every random choice koth makes (report orders, scoring searches).
    #[arg(long, value_name = "S")]
    seed: Option<u64>,
    /// Time limit per answer, and for exiting after SCORE.
    #[arg(long, value_name = "MS", default_value_t = 1000, value_parser = crate::bot::limit_ms_parser())]
    timeout_ms: u64,
    /// Where to write the outputs. Default: logs/paths-<unix-seconds>-seed<S>/.
    #[arg(long, value_name = "DIR")]
    log_dir: Option<PathBuf>,
    /// Keep koth and every bot of the game on this CPU. Cheaper for koth (no CPU is woken per
    /// prompt: a quarter less time per turn), and a game that cannot disturb another running on
    /// the other CPUs; but the bots of a phase then think one after another, so give it to games
    /// of quick bots, or to one game per CPU.
    #[arg(long, value_name = "K", value_parser = crate::cpu::parse_cpu)]
    cpu: Option<usize>,
    #[command(flatten)]
    contain: SandboxArgs,
    /// Print koth's own CPU time per turn at the end (for the benchmark script).
    #[arg(long, hide = true)]
    report_cpu: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let bots = load_bots(&args)?;
    roster::prepare(&bots, roster::DEFAULT_BUILD_LIMIT)?;
    let seed = seed::choose(args.seed);
    println!("seed: {seed}");
    let log_dir = crate::logs::create_folder(args.log_dir.clone(), |secs| {
        format!("paths-{secs}-seed{seed}")
    })?;
    let bots = sandbox::contain(&bots, args.contain.sandbox().as_ref(), &log_dir)?;

    let names: Vec<String> = bots.iter().map(|b| b.name.clone()).collect();
    let bar = ProgressBar::new(args.rounds as u64).with_style(
        ProgressStyle::with_template("{bar:30} round {pos}/{len}  {msg}")
            .expect("the template is valid"),
    );
    let progress_bar = bar.clone();
    let setup = MatchSetup {
        bots,
        seed,
        log_dir: log_dir.clone(),
        limits: Limits::uniform(Duration::from_millis(args.timeout_ms)),
        rounds: Some(args.rounds),
        progress: Some(Arc::new(move |p: &RoundProgress| {
            progress_bar.set_position(p.rounds_done as u64);
            if let Some((leader, total)) = p
                .totals
                .iter()
                .enumerate()
                .max_by(|a, b| a.1.total_cmp(b.1))
            {
                progress_bar.set_message(format!("leader: {} ({total})", names[leader]));
            }
        })),
        cpus: args.cpu.into_iter().collect(),
    };

    crate::cpu::pin_current_thread(&setup.cpus);
    let runtime = crate::game::runtime()?;
    // Stopping koth is crate::interrupt's: it kills every bot process group before koth exits.
    let (result, results) = runtime.block_on(play::play(&setup))?;
    bar.finish_and_clear();
    print_table(&result);
    println!("outputs: {}", log_dir.display());
    if args.report_cpu {
        let turns = results.rounds as u64 * (results.bots.len() as u64).pow(2);
        // getrusage counts in microseconds; /proc's clock ticks (10 ms) are too coarse to
        // compare two builds of koth.
        let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_SELF)
            .context("cannot read koth's own CPU time")?;
        let micros =
            |t: nix::sys::time::TimeVal| t.tv_sec() as u64 * 1_000_000 + t.tv_usec() as u64;
        let cpu = Duration::from_micros(micros(usage.user_time()) + micros(usage.system_time()));
        println!(
            "koth cpu: {} ms over {turns} turns = {:.1} µs/turn",
            cpu.as_millis(),
            cpu.as_secs_f64() * 1e6 / turns.max(1) as f64
        );
    }
    Ok(())
}

/// The bots from `--bots-file`, `--bot` folders, or every paths bot under `./bots`.
fn load_bots(args: &Args) -> anyhow::Result<Vec<BotSpec>> {
    let bots = if let Some(file) = &args.bots_file {
        let mut bots = roster::load_bots_txt(file)?;
        for bot in &mut bots {
            inherit_build(bot)?;
        }
        bots
    } else if !args.bot.is_empty() {
        let bots = args
            .bot
            .iter()
            .map(|dir| roster::load_bot(dir))
            .collect::<anyhow::Result<Vec<_>>>()?;
        roster::check_unique_names(&bots)?;
        bots
    } else {
        roster::discover(Path::new("bots"), "paths")?
    };
    if bots.len() > super::rules::MAX_BOTS {
        anyhow::bail!(
            "{} bots listed; paths takes at most {}",
            bots.len(),
            super::rules::MAX_BOTS
        );
    }
    Ok(bots)
}

/// A `bots.txt` line has no build step, so a bot whose folder also holds a `bot.toml` takes the
/// build step from there: a compiled bot then works from either kind of list.
fn inherit_build(bot: &mut BotSpec) -> anyhow::Result<()> {
    if bot.build.is_none() && bot.dir.join(roster::MANIFEST).is_file() {
        bot.build = roster::load_manifest(&bot.dir)?.0.build;
    }
    Ok(())
}

fn print_table(result: &MatchResult) {
    let mut rows: Vec<_> = result.bots.iter().collect();
    rows.sort_by(|a, b| b.score.total_cmp(&a.score));
    let width = rows.iter().map(|b| b.name.len()).max().unwrap_or(4).max(4);
    println!(
        "{:>4}  {:<width$}  {:>8}  {:>6}  faults by kind",
        "rank", "name", "total", "faults"
    );
    for (rank, bot) in rows.iter().enumerate() {
        let counts = &bot.fault_counts;
        println!(
            "{:>4}  {:<width$}  {:>8}  {:>6}  {}",
            rank + 1,
            bot.name,
            bot.score,
            counts.total(),
            if counts.total() == 0 {
                String::new()
            } else {
                counts.to_string()
            }
        );
    }
    // The first faults with their reasons, so a bot author sees what went wrong without opening
    // results.json, which keeps the first of each kind per bot.
    const SHOWN: usize = 10;
    let total: u64 = result.bots.iter().map(|b| b.fault_counts.total()).sum();
    let faults: Vec<_> = result.bots.iter().flat_map(|b| &b.faults).collect();
    if total > 0 {
        println!(
            "faults ({total} in all; results.json keeps the first {FAULTS_KEPT_PER_KIND} of each \
             kind per bot):"
        );
    }
    for fault in faults.iter().take(SHOWN) {
        let at = match (fault.round, fault.turn) {
            (Some(round), Some(turn)) => format!("round {round}, turn {turn}"),
            (Some(round), None) => format!("round {round}"),
            _ => "the game".to_string(),
        };
        println!(
            "  {} ({at}): {}: {}",
            fault.bot,
            fault.kind.status().as_str(),
            fault.reason
        );
    }
}
