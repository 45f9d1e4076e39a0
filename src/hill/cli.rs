//! `koth hill create|add|run|status|retire|resume-bot`, and `koth leaderboard` on a hill
//! folder: a thin door onto the hill's core.

use std::ffi::OsStr;
use std::path::PathBuf;

use clap::Subcommand;

use crate::tournament::leaderboard::Format;

use super::store::{self, Change};
use super::{Hill, board, run, versions};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Create a hill from a hill file (see config/hill-tictactoe.toml); bots join it with
    /// `koth hill add`.
    Create {
        /// The hill file.
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// The hill folder [default: logs/hill-<name>-<unix seconds>].
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
        /// A PostgreSQL database for the hill (not yet supported: a hill lives in a folder).
        #[arg(long, value_name = "URL", conflicts_with = "dir")]
        db: Option<String>,
    },
    /// Add bots to a hill, running or stopped: each folder is copied into the hill, built, and
    /// validated by one game against copies of itself; a bot of a name the hill has becomes
    /// its next version.
    Add {
        /// The bot folders (each with its bot.toml).
        #[arg(value_name = "BOT_DIR", required = true)]
        bots: Vec<PathBuf>,
        /// The hill folder.
        #[arg(long, value_name = "DIR")]
        hill: PathBuf,
    },
    /// Play the hill until stopped (Ctrl-C; `koth hill run DIR` again goes on), or until N more
    /// games are recorded.
    Run {
        /// The hill folder.
        #[arg(value_name = "DIR")]
        dir: PathBuf,
        /// Games at once [default: the hill file's `jobs`, else the number of cores].
        #[arg(long, value_name = "N")]
        jobs: Option<usize>,
        /// Stop once N more games are recorded.
        #[arg(long, value_name = "N")]
        games: Option<u32>,
        /// Serve the hill's web pages (as `koth serve DIR` does) on ADDR while it plays
        /// [default: 127.0.0.1:8080].
        #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:8080")]
        serve: Option<std::net::SocketAddr>,
    },
    /// Show the hill: its leaderboard, its queue, suspended bots with why, and its kings.
    Status {
        /// The hill folder.
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
    /// Stop scheduling a bot; its games and ratings stay in the history.
    Retire {
        /// The bot's name.
        #[arg(value_name = "NAME")]
        name: String,
        /// The hill folder.
        #[arg(long, value_name = "DIR")]
        hill: PathBuf,
    },
    /// Schedule a suspended bot again; its faults count afresh from now.
    ResumeBot {
        /// The bot's name.
        #[arg(value_name = "NAME")]
        name: String,
        /// The hill folder.
        #[arg(long, value_name = "DIR")]
        hill: PathBuf,
    },
}

/// `dashboard` serves the hill's games beside its run (`--serve`), handed in by `main.rs`
/// as for a tournament, since the dashboard sits above both.
pub fn run(args: Args, dashboard: crate::tournament::cli::Dashboard) -> anyhow::Result<()> {
    match args.command {
        Command::Create { db: Some(_), .. } => anyhow::bail!(
            "--db: a hill in PostgreSQL is not supported yet; create it in a folder with --dir"
        ),
        Command::Create {
            file,
            dir,
            db: None,
        } => {
            let hill = Hill::create(&file, dir)?;
            println!(
                "Hill {} ({}) in {} (seed {}); `koth hill add BOT_DIR --hill {}` adds bots",
                hill.name,
                hill.config.game.game,
                hill.dir.display(),
                hill.seed,
                hill.dir.display()
            );
            Ok(())
        }
        Command::Add { bots, hill } => {
            let hill = Hill::open(&hill)?;
            crate::tournament::cli::log_to(&hill.dir)?;
            let mut refused = 0;
            for dir in &bots {
                let added = versions::add(&hill, dir)?;
                match (added.version, &added.refused) {
                    (Some(version), _) => println!("{} v{version}: accepted", added.bot),
                    (None, reason) => {
                        refused += 1;
                        println!(
                            "{}: refused: {}",
                            added.bot,
                            reason.as_deref().unwrap_or_default()
                        );
                    }
                }
            }
            anyhow::ensure!(refused == 0, "{refused} of {} bots refused", bots.len());
            Ok(())
        }
        Command::Run {
            dir,
            jobs,
            games,
            serve,
        } => {
            let hill = Hill::open(&dir)?;
            crate::tournament::cli::log_to(&hill.dir)?;
            println!(
                "Hill {} ({}) in {} (seed {})",
                hill.name,
                hill.config.game.game,
                hill.dir.display(),
                hill.seed
            );
            if let Some(addr) = serve {
                let addr = dashboard(crate::tournament::Watched::Folder(dir.clone()), addr)?;
                println!("Dashboard: http://{addr}/");
            }
            let words: [&OsStr; 4] = [
                "koth".as_ref(),
                "hill".as_ref(),
                "run".as_ref(),
                dir.as_os_str(),
            ];
            let resume = crate::interrupt::resume_with(&words);
            let store = hill.store.reconnect()?;
            run::run(hill, jobs, games)?;
            drop(resume);
            print!("{}", board::of(&store)?.render(Format::Table));
            Ok(())
        }
        Command::Status { dir } => {
            let hill = Hill::open(&dir)?;
            let queued = store::queued(hill.store.connection())?.len();
            print!("{}", board::of(&hill.store)?.status(queued));
            Ok(())
        }
        Command::Retire { name, hill } => {
            let hill = Hill::open(&hill)?;
            store::change_active(hill.store.connection(), &name, Change::Retire)?;
            println!("{name:?} is retired: no longer scheduled, its games kept");
            Ok(())
        }
        Command::ResumeBot { name, hill } => {
            let hill = Hill::open(&hill)?;
            store::change_active(hill.store.connection(), &name, Change::Resume)?;
            println!("{name:?} is scheduled again");
            Ok(())
        }
    }
}

/// `koth leaderboard DIR` of a hill folder, in `format`.
pub fn leaderboard(dir: &std::path::Path, format: Format) -> anyhow::Result<()> {
    let store = crate::tournament::store::Store::reopen_read_only(
        &dir.join(crate::tournament::store::FILE),
    )?;
    print!("{}", board::of(&store)?.render(format));
    Ok(())
}
