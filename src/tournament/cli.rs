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
        #[command(flatten)]
        serve: ServeArg,
    },
    /// Finish a stopped tournament: games already recorded are kept, the rest are played.
    Resume {
        /// The tournament folder.
        #[arg(value_name = "DIR")]
        dir: PathBuf,
        /// Give a benched bot its seats back in the games still to play (repeatable).
        #[arg(long, value_name = "NAME")]
        unbench: Vec<String>,
        #[command(flatten)]
        serve: ServeArg,
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

/// `--serve [ADDR]` of `run` and `resume`.
#[derive(Debug, clap::Args)]
struct ServeArg {
    /// Serve the web dashboard (`koth serve`) on ADDR while the run plays, and after it until
    /// Ctrl-C [default: 127.0.0.1:8080].
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:8080")]
    serve: Option<std::net::SocketAddr>,
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
        Command::Run {
            file,
            dir,
            seed,
            serve,
        } => {
            let tournament = Tournament::create(&file, dir, seed)?;
            println!(
                "Tournament {} in {} (seed {})",
                tournament.name,
                tournament.dir.display(),
                tournament.seed
            );
            play(tournament, serve)
        }
        Command::Resume {
            dir,
            unbench,
            serve,
        } => {
            let tournament = Tournament::resume(&dir, &unbench)?;
            println!(
                "Resuming tournament {} in {} (seed {})",
                tournament.name,
                dir.display(),
                tournament.seed
            );
            play(tournament, serve)
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

/// Plays the tournament's unfinished games and prints its leaderboard; with `--serve`, serves
/// the dashboard meanwhile and after, until koth is stopped.
fn play(tournament: Tournament, serve: ServeArg) -> anyhow::Result<()> {
    log_to(&tournament.dir)?;
    let dashboard = match serve.serve {
        Some(addr) => {
            let addr = crate::serve::spawn(tournament.dir.clone(), addr)?;
            println!("Dashboard: http://{addr}/");
            Some(addr)
        }
        None => None,
    };
    let resume = crate::interrupt::resume_with(&[
        "koth".as_ref(),
        "tournament".as_ref(),
        "resume".as_ref(),
        tournament.dir.as_os_str(),
    ]);
    let board = tournament.run()?;
    // A finished tournament has nothing to resume.
    drop(resume);
    print!("{}", board.render(Format::Table));
    if let Some(addr) = dashboard {
        println!("The tournament is over; the dashboard stays at http://{addr}/ until Ctrl-C.");
        loop {
            std::thread::park();
        }
    }
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
