//! `koth tournament run|resume|status|leaderboard` and `koth leaderboard` (the same command as
//! `koth tournament leaderboard`).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::Context;
use clap::Subcommand;

use super::leaderboard::Format;
use super::store::{self, Store};
use super::{Tournament, leaderboard_of};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Start a tournament from a tournament file (see config/tournament-paths.toml).
    Run {
        /// The tournament file.
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// The tournament folder [default: logs/tournament-<name>-<unix seconds>].
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
        /// The master seed, over the file's `seed`; every game's seed and bots derive from it.
        #[arg(long, value_name = "SEED")]
        seed: Option<u64>,
    },
    /// Finish a stopped tournament: games already recorded are kept, the rest are played.
    Resume {
        /// The tournament folder.
        #[arg(value_name = "DIR")]
        dir: PathBuf,
        /// Give a benched bot its seats back in the games still to play (repeatable).
        #[arg(long, value_name = "NAME")]
        unbench: Vec<String>,
    },
    /// Show how many games a tournament has played.
    Status {
        /// The tournament folder.
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
    /// Print a tournament's leaderboard (the same as `koth leaderboard`).
    Leaderboard(LeaderboardArgs),
}

/// `koth leaderboard DIR`
#[derive(Debug, clap::Args)]
pub struct LeaderboardArgs {
    /// The tournament folder.
    #[arg(value_name = "DIR")]
    dir: PathBuf,
    /// How to print it.
    #[arg(long, value_name = "FORMAT", value_enum, default_value = "table")]
    format: Format,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        Command::Run { file, dir, seed } => {
            let tournament = Tournament::create(&file, dir, seed)?;
            println!(
                "Tournament {} in {} (seed {})",
                tournament.name,
                tournament.dir.display(),
                tournament.seed
            );
            play(tournament)
        }
        Command::Resume { dir, unbench } => {
            let tournament = Tournament::resume(&dir, &unbench)?;
            println!(
                "Resuming tournament {} in {} (seed {})",
                tournament.name,
                dir.display(),
                tournament.seed
            );
            play(tournament)
        }
        Command::Status { dir } => {
            let store = Store::open(&dir.join(store::FILE))?;
            let p = store.progress()?;
            println!(
                "Tournament {} ({}, seed {}): {} of {} games done, {} running (or cut short), \
                 {} pending, {} given up after harness faults{}; {} harness faults in all",
                store.meta("name")?.unwrap_or_default(),
                store.meta("game")?.unwrap_or_default(),
                store.meta("seed")?.unwrap_or_default(),
                p.done,
                p.total,
                p.running,
                p.total - p.done - p.running - p.harness_failed - p.skipped,
                p.harness_failed,
                if p.skipped > 0 {
                    format!(", {} skipped (the gauntlet's test had decided)", p.skipped)
                } else {
                    String::new()
                },
                p.harness_faults
            );
            let bots = store.bots()?;
            for (bot, reason) in store.benched()? {
                let name = bots.get(bot).map_or("?", |b| b.name.as_str());
                println!("{name:?} is {reason}");
            }
            Ok(())
        }
        Command::Leaderboard(args) => leaderboard(args),
    }
}

pub fn leaderboard(args: LeaderboardArgs) -> anyhow::Result<()> {
    let store = Store::open(&args.dir.join(store::FILE))?;
    print!("{}", leaderboard_of(&store, &args.dir)?.render(args.format));
    Ok(())
}

fn play(tournament: Tournament) -> anyhow::Result<()> {
    log_to(&tournament.dir)?;
    let _resume = crate::interrupt::resume_with(&[
        "koth".as_ref(),
        "tournament".as_ref(),
        "resume".as_ref(),
        tournament.dir.as_os_str(),
    ]);
    let board = tournament.run()?;
    print!("{}", board.render(Format::Table));
    Ok(())
}

/// Sends tracing events to `tournament.log` in the tournament folder (appended, so a resumed
/// tournament keeps one log).
fn log_to(dir: &Path) -> anyhow::Result<()> {
    let path = dir.join("tournament.log");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // Fails only if a subscriber is already set, in which case events go there.
    let _ = tracing_subscriber::fmt()
        .with_writer(Mutex::new(file))
        .with_ansi(false)
        .with_env_filter(filter)
        .try_init();
    Ok(())
}
