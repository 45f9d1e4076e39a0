//! `koth paths`: play one game among bots from a `bots.txt`, bot folders, or `./bots`.

use std::path::{Path, PathBuf};

use super::play::{self, DEFAULT_ROUNDS};
use koth_bot::{BotSpec, roster};
use koth_game::cli::{self, AnyGameArg, LogDirArg, SandboxArgs, SeedArg, TimeoutArg, report};
use koth_game::{GameCommand, MatchSetup};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The original controller's bot list (name, folder under bots/ next to it, command).
    #[arg(long, value_name = "FILE", conflicts_with = "bot")]
    bots_file: Option<PathBuf>,
    /// A bot folder holding a bot.toml; repeat for each bot. Default: every bot under ./bots
    /// whose manifest lists games = ["paths"].
    #[arg(long, value_name = "DIR")]
    bot: Vec<PathBuf>,
    /// Rounds in the game; one round is a fresh grid of N² turns for N bots (every bot starts
    /// anew), scored at its end.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_ROUNDS,
          value_parser = clap::value_parser!(u32).range(1..))]
    rounds: u32,
    #[command(flatten)]
    seed: SeedArg,
    #[command(flatten)]
    timeout: TimeoutArg,
    #[command(flatten)]
    log_dir: LogDirArg,
    /// Keep koth and every bot of the game on this CPU. Cheaper for koth (no CPU is woken per
    /// prompt: a quarter less time per turn), and a game that cannot disturb another running on
    /// the other CPUs; but the bots of a phase then think one after another, so give it to games
    /// of quick bots, or to one game per CPU. If another koth holds the CPU, the game runs
    /// unpinned and says so.
    #[arg(long, value_name = "N", value_parser = koth_base::cpu::parse_cpu)]
    cpu: Option<usize>,
    #[command(flatten)]
    contain: SandboxArgs,
    #[command(flatten)]
    any_game: AnyGameArg,
    /// Print koth's own CPU time per turn at the end (for the benchmark script).
    #[arg(long, hide = true)]
    report_cpu: bool,
}
/// `koth paths`, for the registry.
pub fn command() -> GameCommand {
    GameCommand::new("paths", "Play the Grid-Routing Battle among bots", run)
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let bots = load_bots(&args)?;
    let seed = args.seed.choose();
    // A bots.txt is its owner's: a program its lines name by full path is lent to its bot.
    let lent = match args.bots_file {
        Some(_) => roster::named_by_path(&bots),
        None => Vec::new(),
    };
    let (log_dir, bots) =
        cli::match_folder("paths", seed, &args.log_dir, &args.contain, &bots, lent)?;
    let names = bots.iter().map(|b| b.name.clone()).collect();
    let (bar, progress) = report::match_progress(args.rounds, "round", names);
    // Held until the game ends, so no other koth pins to the CPU meanwhile.
    let claim = koth_base::cpu::claim_given(args.cpu);
    let setup = MatchSetup {
        rounds: Some(args.rounds),
        progress: Some(progress),
        cpus: claim.cpus().to_vec(),
        ..MatchSetup::new(bots, seed, log_dir.clone(), args.timeout.limits())
    };

    koth_base::cpu::pin_current_thread(&setup.cpus);
    let runtime = koth_game::runtime()?;
    // Stopping koth is koth_base::interrupt's: it kills every bot process group before koth exits.
    let (result, results) = runtime.block_on(play::play(&setup))?;
    bar.finish_and_clear();
    report::print_result(&result, &log_dir);
    if args.report_cpu {
        let turns = results.rounds as u64 * (results.bots.len() as u64).pow(2);
        let cpu = report::own_cpu()?;
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
        roster::load_bots_txt(file)?
    } else if !args.bot.is_empty() {
        args.any_game.load_bots("paths", &args.bot)?
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
