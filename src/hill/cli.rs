//! `koth hill create|add|run|status|retire|resume-bot`, and `koth leaderboard` on a hill
//! folder: a thin door onto the hill's core.

use std::ffi::OsStr;
use std::path::PathBuf;

use clap::Subcommand;

use crate::tournament::leaderboard::Format;

use super::store::{self, Change};
use super::{Hill, authors, board, run, versions};

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
        #[command(flatten)]
        guard: crate::cli::Guard,
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
    /// The authors who may send bots over HTTP (`hill run --serve`), each with a token.
    Author {
        #[command(subcommand)]
        command: AuthorCommand,
    },
    /// Send a bot folder to a hill's server as its author: packed, uploaded, built and
    /// validated there.
    Submit {
        /// The bot folder (with its bot.toml).
        #[arg(value_name = "BOT_DIR")]
        bot: PathBuf,
        /// The hill's address (http://host:port, as `hill run --serve` or its proxy serves it).
        #[arg(long, value_name = "URL")]
        to: String,
        /// Your author token (`koth hill author add` printed it).
        #[arg(long, value_name = "TOKEN", env = "KOTH_TOKEN", hide_env_values = true)]
        token: String,
        /// Follow the submission until it is active or refused, printing its build log and
        /// the reason; exit non-zero if refused.
        #[arg(long)]
        wait: bool,
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

#[derive(Debug, Subcommand)]
enum AuthorCommand {
    /// Add an author and print its token, once (only its hash is kept).
    Add {
        /// The author's name.
        #[arg(value_name = "NAME")]
        name: String,
        /// The hill folder.
        #[arg(long, value_name = "DIR")]
        hill: PathBuf,
    },
    /// List the authors, whether revoked, and their bots.
    List {
        /// The hill folder.
        #[arg(long, value_name = "DIR")]
        hill: PathBuf,
    },
    /// Revoke an author's token at once; its bots stay on the hill.
    Revoke {
        /// The author's name.
        #[arg(value_name = "NAME")]
        name: String,
        /// The hill folder.
        #[arg(long, value_name = "DIR")]
        hill: PathBuf,
    },
}

/// Starts the hill's server in folder `dir` on an address, with its guard; returns the address
/// it listens on.
pub type Server =
    fn(PathBuf, std::net::SocketAddr, crate::cli::Guard) -> anyhow::Result<std::net::SocketAddr>;

/// `server` serves the hill beside its run (`--serve`): its games and the door for its
/// authors' submissions; handed in by `main.rs`, since the server sits above the hill.
pub fn run(args: Args, server: Server) -> anyhow::Result<()> {
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
            guard,
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
                let addr = server(dir.clone(), addr, guard)?;
                println!("Dashboard: http://{addr}/  submissions: http://{addr}/submit");
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
        Command::Author { command } => author(command),
        Command::Submit {
            bot,
            to,
            token,
            wait,
        } => super::submit::submit(&bot, &to, &token, wait),
        Command::ResumeBot { name, hill } => {
            let hill = Hill::open(&hill)?;
            store::change_active(hill.store.connection(), &name, Change::Resume)?;
            println!("{name:?} is scheduled again");
            Ok(())
        }
    }
}

fn author(command: AuthorCommand) -> anyhow::Result<()> {
    match command {
        AuthorCommand::Add { name, hill } => {
            let hill = Hill::open(&hill)?;
            let token = authors::add(hill.store.connection(), &name)?;
            println!(
                "Author {name:?} added. Their token, shown this once (only its hash is kept):"
            );
            println!("{token}");
        }
        AuthorCommand::List { hill } => {
            let hill = Hill::open(&hill)?;
            let authors = authors::list(hill.store.connection())?;
            if authors.is_empty() {
                println!("No authors yet: `koth hill author add NAME --hill DIR` adds one.");
            }
            for author in authors {
                println!(
                    "{}{}  bots: {}",
                    crate::text::shown(&author.name),
                    if author.revoked { " (revoked)" } else { "" },
                    if author.bots.is_empty() {
                        "none".to_string()
                    } else {
                        crate::text::shown(&author.bots.join(", ")).into_owned()
                    }
                );
            }
        }
        AuthorCommand::Revoke { name, hill } => {
            let hill = Hill::open(&hill)?;
            authors::revoke(hill.store.connection(), &name)?;
            println!("{name:?} is revoked: their token is refused from now on");
        }
    }
    Ok(())
}

/// `koth leaderboard DIR` of a hill folder, in `format`.
pub fn leaderboard(dir: &std::path::Path, format: Format) -> anyhow::Result<()> {
    let store = crate::tournament::store::Store::reopen_read_only(
        &dir.join(crate::tournament::store::FILE),
    )?;
    print!("{}", board::of(&store)?.render(format));
    Ok(())
}
