//! `koth paths`: play one game among bots from a `bots.txt`, bot folders, or `./bots`.

use std::path::{Path, PathBuf};

use super::play::{self, DEFAULT_ROUNDS};
use koth_bot::{BotSpec, roster};
use koth_game::GameCommand;
use koth_game::cli::{MatchArgs, OneMatch, report};

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
    common: MatchArgs,
    /// Keep koth and every bot of the game on this CPU. Cheaper for koth (no CPU is woken per
    /// prompt: a quarter less time per turn), and a game that cannot disturb another running on
    /// the other CPUs; but the bots of a phase then think one after another, so give it to games
    /// of quick bots, or to one game per CPU. If another koth holds the CPU, the game runs
    /// unpinned and says so.
    #[arg(long, value_name = "N", value_parser = koth_base::cpu::parse_cpu)]
    cpu: Option<usize>,
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
    // A bots.txt is its owner's: a program its lines name by full path is lent to its bot.
    let lent = match args.bots_file {
        Some(_) => roster::named_by_path(&bots),
        None => Vec::new(),
    };
    let prepared = args.common.prepare(OneMatch {
        game: "paths",
        bots,
        lent,
        seed: args.common.seed.choose(),
        rounds: args.rounds,
        unit: "round",
        options: Default::default(),
        cpu: args.cpu,
    })?;
    // Stopping koth is koth_base::interrupt's: it kills every bot process group before koth exits.
    let (result, results) = koth_game::runtime()?.block_on(play::play(&prepared.setup))?;
    prepared.report(&result);
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
        args.common.any_game.load_bots("paths", &args.bot)?
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
