//! `koth hill create|add|run|status|retire|resume-bot|author|submit|logs|backup|restore`, and `koth leaderboard` on a hill
//! folder: a thin door onto the hill's core.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Subcommand;

pub use koth_tournament::leaderboard::Format;

use super::store::{self, Change};
use super::{Hill, authors, backup, board, run, versions};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Create a hill from a hill file (see config/hill-tictactoe.toml), in a folder or in
    /// PostgreSQL; bots join it with `koth hill add`.
    Create {
        /// The hill file.
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// The hill folder [default: logs/hill-<name>-<unix seconds>].
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
        /// A PostgreSQL database for the hill (postgres://user@host:port/database), so that
        /// `koth worker` on other machines plays its games too; the hill is named as the
        /// file's name (`NAME-2`… if the database has one of that name).
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
        #[command(flatten)]
        hill: HillOption,
        /// With --db: this machine's folder for the hill, where bots are built and validated
        /// [default: logs/hill-<name>].
        #[arg(long, value_name = "DIR", requires = "db")]
        dir: Option<PathBuf>,
    },
    /// Play the hill until stopped (Ctrl-C; `koth hill run DIR` again goes on), or until N more
    /// games are rated. With --db, `koth worker --db URL` on other machines plays its games
    /// too.
    Run(RunArgs),
    /// Show the hill: its leaderboard, its queue, suspended bots with why, and its kings.
    Status {
        #[command(flatten)]
        hill: HillTarget,
    },
    /// Stop scheduling a bot; its games and ratings stay in the history.
    Retire {
        /// The bot's name.
        #[arg(value_name = "NAME")]
        name: String,
        #[command(flatten)]
        hill: HillOption,
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
        /// Follow the submission until it is active or refused, printing its build log, each
        /// distinct fault and its stderr once, and the reason; exit non-zero if refused.
        #[arg(long)]
        wait: bool,
        /// With --wait: follow the active version into its first N ranked games and print its
        /// standing then (rank, the table's figure, games); exit non-zero if it is suspended,
        /// printing why and the `koth hill logs` command that reads its logs.
        #[arg(long, value_name = "N", requires = "wait")]
        wait_games: Option<u32>,
        /// A learning bot's new version starts from an empty data folder, not its previous
        /// version's data (its bot.toml is sent with `fresh_data = true`).
        #[arg(long)]
        fresh_data: bool,
    },
    /// Download your learning bot's data (its `data/` as it is now) from a hill's server, as
    /// its author: a .tar.gz.
    Data {
        /// The bot's name.
        #[arg(value_name = "NAME")]
        name: String,
        /// The hill's address (http://host:port, as `hill run --serve` or its proxy serves it).
        #[arg(long, value_name = "URL")]
        to: String,
        /// Your author token (`koth hill author add` printed it).
        #[arg(long, value_name = "TOKEN", env = "KOTH_TOKEN", hide_env_values = true)]
        token: String,
        /// The file to write [default: NAME-data.tar.gz].
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Empty a learning bot's data: its next game starts from an empty data folder.
    WipeData {
        /// The bot's name.
        #[arg(value_name = "NAME")]
        name: String,
        #[command(flatten)]
        hill: HillOption,
    },
    /// Read your bot's faults and stderr (and its transcript) of a game it played on a hill's
    /// server, as its author: its latest game, or game N; its last games are listed.
    Logs {
        /// The bot's name.
        #[arg(value_name = "NAME")]
        name: String,
        /// The game's number [default: the bot's latest game].
        #[arg(long, value_name = "N")]
        game: Option<u32>,
        /// The hill's address (http://host:port, as `hill run --serve` or its proxy serves it).
        #[arg(long, value_name = "URL")]
        to: String,
        /// Your author token (`koth hill author add` printed it).
        #[arg(long, value_name = "TOKEN", env = "KOTH_TOKEN", hide_env_values = true)]
        token: String,
        /// Print the bot's transcript of the game too (every line it was sent and answered).
        #[arg(long)]
        transcript: bool,
    },
    /// Schedule a suspended bot again; its faults count afresh from now.
    ResumeBot {
        /// The bot's name.
        #[arg(value_name = "NAME")]
        name: String,
        #[command(flatten)]
        hill: HillOption,
    },
    /// Make an earlier version of a bot its active one again (its ratings, games and data
    /// kept), the version active until now replaced: the way back from a broken version.
    Rollback {
        /// The bot's name.
        #[arg(value_name = "NAME")]
        name: String,
        /// The version to bring back: its number, `3` or `v3`.
        #[arg(value_name = "VERSION", value_parser = version_number)]
        version: u32,
        #[command(flatten)]
        hill: HillOption,
    },
    /// Copy a hill folder's database to FILE, while `hill run` plays it or not: a consistent
    /// copy of one moment (SQLite's online backup). A hill in PostgreSQL is backed up with
    /// `pg_dump` (docs/hill.md).
    Backup {
        #[command(flatten)]
        dir: HillFolder,
        /// The backup file (replaced if it exists).
        #[arg(long, value_name = "FILE")]
        to: PathBuf,
    },
    /// Put a backup (`hill backup`) in place of a stopped hill folder's database; `hill run`
    /// then goes on from the backup's moment.
    Restore {
        /// The hill folder (its versions' folders are the backup's hill's, or a copy of them).
        #[command(flatten)]
        dir: HillFolder,
        /// The backup file.
        #[arg(long, value_name = "FILE")]
        from: PathBuf,
    },
}

/// `koth hill run`'s arguments.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    #[command(flatten)]
    hill: HillTarget,
    /// With --db: this machine's folder for the hill, its versions' files and its games
    /// [default: logs/hill-<name>].
    #[arg(long, value_name = "DIR", requires = "db")]
    dir: Option<PathBuf>,
    /// Games at once [default: the hill file's `jobs`, else the number of cores].
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Stop once N more games are rated, however many workers play them; one game is a
    /// whole game of the hill's game among its seated versions (its `rounds` in it).
    #[arg(long, value_name = "N")]
    games: Option<u32>,
    /// With --db: how long a game this run claims stays its own without a renewal; a killed
    /// run's games go back to the queue after this long.
    #[arg(long, value_name = "S", default_value_t = koth_tournament::shared::DEFAULT_LEASE_S,
          value_parser = clap::value_parser!(u64).range(3..=3600), requires = "db")]
    lease_s: u64,
    /// Serve the hill's web pages (as `koth serve DIR` does) on ADDR while it plays
    /// [default: 127.0.0.1:8080].
    #[arg(long, visible_alias = "addr", value_name = "ADDR", num_args = 0..=1,
          default_missing_value = "127.0.0.1:8080")]
    serve: Option<std::net::SocketAddr>,
    #[command(flatten)]
    guard: koth_game::cli::Guard,
}

#[derive(Debug, Subcommand)]
enum AuthorCommand {
    /// Add an author and print its token, once (only its hash is kept).
    Add {
        /// The author's name.
        #[arg(value_name = "NAME")]
        name: String,
        #[command(flatten)]
        hill: HillOption,
    },
    /// List the authors, whether revoked, and their bots.
    List {
        #[command(flatten)]
        hill: HillOption,
    },
    /// Revoke an author's token at once; its bots stay on the hill.
    Revoke {
        /// The author's name.
        #[arg(value_name = "NAME")]
        name: String,
        #[command(flatten)]
        hill: HillOption,
    },
}

/// A hill named by an option: `--hill DIR`, or `--db URL NAME` for one in PostgreSQL.
#[derive(Debug, clap::Args)]
#[group(required = true, multiple = false)]
struct HillOption {
    /// The hill folder.
    #[arg(long, value_name = "DIR")]
    hill: Option<PathBuf>,
    /// A hill in PostgreSQL: the database (postgres://user@host:port/database) and the
    /// hill's name.
    #[arg(long, num_args = 2, value_names = ["URL", "NAME"])]
    db: Option<Vec<String>>,
}

impl HillOption {
    /// Opens the hill; `dir` is this machine's folder for a shared one.
    fn open(&self, dir: Option<PathBuf>) -> anyhow::Result<Hill> {
        match (&self.hill, self.db.as_deref()) {
            (Some(folder), _) => Hill::open(folder),
            (None, Some([url, name])) => Hill::open_shared(url, name, dir),
            _ => anyhow::bail!("give the hill: --hill DIR, or --db URL NAME"),
        }
    }
}

/// A hill named by its place: `DIR` (or `--hill DIR`, as every hill command takes it), or
/// `NAME --db URL` for one in PostgreSQL.
#[derive(Debug, clap::Args)]
pub(crate) struct HillTarget {
    /// The hill folder; with --db, the hill's name.
    #[arg(value_name = "DIR|NAME", required_unless_present = "hill")]
    target: Option<PathBuf>,
    /// The hill folder, as the other hill commands name it.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["target", "db"])]
    hill: Option<PathBuf>,
    /// The PostgreSQL database holding the hill (postgres://user@host:port/database).
    #[arg(long, value_name = "URL")]
    db: Option<String>,
}

impl HillTarget {
    /// The folder or name given, whichever way.
    fn place(&self) -> anyhow::Result<&Path> {
        (self.target.as_deref().or(self.hill.as_deref()))
            .context("give the hill: DIR or --hill DIR, or NAME --db URL")
    }

    /// Opens the hill; `dir` is this machine's folder for a shared one.
    pub(crate) fn open(&self, dir: Option<PathBuf>) -> anyhow::Result<Hill> {
        match &self.db {
            Some(url) => Hill::open_shared(url, &self.place()?.to_string_lossy(), dir),
            None => Hill::open(self.place()?),
        }
    }
}

/// A hill folder: `DIR`, or `--hill DIR` as every hill command takes it.
#[derive(Debug, clap::Args)]
#[group(required = true, multiple = false)]
struct HillFolder {
    /// The hill folder.
    #[arg(value_name = "DIR")]
    dir: Option<PathBuf>,
    /// The hill folder, as the other hill commands name it.
    #[arg(long = "hill", value_name = "DIR")]
    hill: Option<PathBuf>,
}

impl HillFolder {
    fn path(&self) -> anyhow::Result<&Path> {
        (self.dir.as_deref().or(self.hill.as_deref())).context("give the hill: DIR or --hill DIR")
    }
}

/// A version's number as a person writes it: `3` or `v3`.
fn version_number(text: &str) -> Result<u32, String> {
    text.strip_prefix('v')
        .unwrap_or(text)
        .parse()
        .map_err(|_| format!("{text:?} is no version: give its number, `3` or `v3`"))
}

/// The words of the command that goes on with this `hill run` after a stop: those it was
/// started with, its `--serve` and the server's options kept, but not `--games`, since a run
/// that goes on plays until it is stopped.
fn resume_words() -> Vec<OsString> {
    let mut words: Vec<OsString> = vec!["koth".into()];
    let mut given = std::env::args_os().skip(1);
    while let Some(word) = given.next() {
        if word == "--games" {
            given.next();
        } else if !word.to_string_lossy().starts_with("--games=") {
            words.push(word);
        }
    }
    words
}

/// Starts the hill's server on an address, with its guard: what it reads (the hill's
/// database) and this machine's folder for the hill; returns the address it listens on.
pub type Server = fn(
    koth_tournament::Watched,
    PathBuf,
    std::net::SocketAddr,
    koth_game::cli::Guard,
) -> anyhow::Result<std::net::SocketAddr>;

/// `server` serves the hill beside its run (`--serve`): its pages and the door for its
/// authors' submissions; handed in by `main.rs`, since the server sits above the hill.
pub fn run(args: Args, server: Server) -> anyhow::Result<()> {
    match args.command {
        Command::Create { file, dir, db } => create(&file, dir, db),
        Command::Add { bots, hill, dir } => add(&bots, hill, dir),
        Command::Run(args) => play(args, server),
        Command::Status { hill } => status(hill),
        Command::Retire { name, hill } => {
            let hill = hill.open(None)?;
            super::contest::refuse_if_frozen(
                hill.config.contest.as_ref(),
                &hill.store,
                &name,
                "retiring it",
            )?;
            store::change_active(&hill.store, &name, Change::Retire)?;
            println!("{name:?} is retired: no longer scheduled, its games kept");
            Ok(())
        }
        Command::Author { command } => author(command),
        Command::Submit {
            bot,
            to,
            token,
            wait,
            wait_games,
            fresh_data,
        } => {
            let wait = match (wait, wait_games) {
                (_, Some(games)) => super::submit::Wait::Games(games),
                (true, None) => super::submit::Wait::Settled,
                (false, None) => super::submit::Wait::No,
            };
            super::submit::submit(&bot, &to, &token, wait, fresh_data)
        }
        Command::Data {
            name,
            to,
            token,
            out,
        } => super::submit::data(&name, &to, &token, out.as_deref()),
        Command::WipeData { name, hill } => {
            let hill = hill.open(None)?;
            super::contest::refuse_if_frozen(
                hill.config.contest.as_ref(),
                &hill.store,
                &name,
                "wiping its data",
            )?;
            println!("{}", super::data::wipe(&hill.store, &name)?);
            Ok(())
        }
        Command::Logs {
            name,
            game,
            to,
            token,
            transcript,
        } => super::submit::logs(&name, game, &to, &token, transcript),
        Command::Rollback {
            name,
            version,
            hill,
        } => {
            let hill = hill.open(None)?;
            let replaced = super::versions::roll_back(&hill, &name, version)?;
            let from = replaced.map_or(String::new(), |from| format!(" in place of v{from}"));
            println!("{name:?} v{version} is its active version again{from}");
            tracing::info!(bot = name, version, "rolled back");
            Ok(())
        }
        Command::ResumeBot { name, hill } => {
            let hill = hill.open(None)?;
            store::change_active(&hill.store, &name, Change::Resume)?;
            println!("{name:?} is scheduled again");
            Ok(())
        }
        Command::Backup { dir, to } => backup_to(dir, &to),
        Command::Restore { dir, from } => restore_from(dir, &from),
    }
}

/// `koth hill create`: a hill in a folder, or with `--db` in PostgreSQL.
fn create(file: &Path, dir: Option<PathBuf>, db: Option<String>) -> anyhow::Result<()> {
    match db {
        Some(url) => {
            let hill = Hill::create_shared(file, &url)?;
            let url = koth_tournament::store::shown(&url);
            println!(
                "Hill {} ({}) in {url} (seed {}); `koth hill add BOT_DIR --db {url} {}` adds bots",
                hill.name, hill.config.game.game, hill.seed, hill.name
            );
            Ok(())
        }
        None => {
            let hill = Hill::create(file, dir)?;
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
    }
}

/// `koth hill add`: each bot's folder built and validated into a version; fails if any is
/// refused, after trying them all.
fn add(bots: &[PathBuf], hill: HillOption, dir: Option<PathBuf>) -> anyhow::Result<()> {
    let hill = hill.open(dir)?;
    hill.make_folder()?;
    koth_tournament::cli::log_to(&hill.dir)?;
    let mut refused = 0;
    for dir in bots {
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

/// `koth hill backup`.
fn backup_to(dir: HillFolder, to: &Path) -> anyhow::Result<()> {
    let dir = dir.path()?;
    let games = backup::backup(dir, to)?;
    println!(
        "Backed up {} to {} ({games} games recorded); `koth hill restore {} --from {}` \
         puts it back",
        dir.display(),
        to.display(),
        dir.display(),
        to.display()
    );
    Ok(())
}

/// `koth hill restore`.
fn restore_from(dir: HillFolder, from: &Path) -> anyhow::Result<()> {
    let dir = dir.path()?;
    let games = backup::restore(dir, from)?;
    println!(
        "Restored {} from {} ({games} games recorded); `koth hill run {}` goes on",
        dir.display(),
        from.display(),
        dir.display()
    );
    Ok(())
}

/// `koth hill status`: the table with the queue and suspensions, and the languages offered.
fn status(hill: HillTarget) -> anyhow::Result<()> {
    let hill = hill.open(None)?;
    let queued = store::queued(&hill.store)?.len();
    print!(
        "{}",
        board::read(&hill.store)?.status(queued, &hill.add_target())
    );
    let offered = koth_bot::languages::with_versions(hill.languages()?);
    print!(
        "\nLanguages offered (a bot's `run` and `build` may use these):\n{}",
        koth_bot::languages::listed(&offered)
    );
    Ok(())
}

/// `koth hill run`: plays the hill until stopped or `--games` more are rated, serving its pages
/// beside it with `--serve`, then prints its table.
fn play(args: RunArgs, server: Server) -> anyhow::Result<()> {
    let RunArgs {
        hill: target,
        dir,
        jobs,
        games,
        lease_s,
        serve,
        guard,
    } = args;
    let hill = target.open(dir)?;
    hill.make_folder()?;
    koth_tournament::cli::log_to(&hill.dir)?;
    println!(
        "Hill {} ({}) in {} (seed {})",
        hill.name,
        hill.config.game.game,
        hill.store.location(),
        hill.seed
    );
    let watched = match (&target.db, hill.store.shared_name()) {
        (Some(url), Some((_, name))) => koth_tournament::Watched::Shared {
            url: url.clone(),
            name: name.to_string(),
        },
        _ => koth_tournament::Watched::Folder(target.place()?.to_path_buf()),
    };
    let local = hill.dir.clone();
    if serve.is_some() {
        // Each language's version asked now, off the run's path, so the pages that
        // list them (`/api/hill`, `/submit`) answer at once.
        let offered = hill.languages()?;
        std::thread::spawn(move || koth_bot::languages::with_versions(offered));
    }
    // Served once the run holds the hill and has cleared what a stopped run left of
    // its uploads, so no upload of this run's is taken for a leftover.
    let serve_when_ready = move || -> anyhow::Result<()> {
        if let Some(addr) = serve {
            let addr = server(watched, local, addr, guard)?;
            println!("Dashboard: http://{addr}/  submissions: http://{addr}/submit");
        }
        Ok(())
    };
    let words = resume_words();
    let words: Vec<&OsStr> = words.iter().map(OsString::as_os_str).collect();
    let resume = koth_base::interrupt::resume_with(&words);
    let store = hill.store.reconnect()?;
    let contest = hill.config.contest;
    let folder = hill.dir.clone();
    run::run_hill(hill, jobs, games, lease_s, serve_when_ready)?;
    drop(resume);
    print!("{}", board::read(&store)?.render(Format::Table));
    let published = contest
        .map(|c| super::contest::phase(&c, &store))
        .transpose()?
        == Some(super::contest::Phase::Published);
    if serve.is_some() && published && !koth_base::interrupt::requested() {
        // The run is over, but the final's page is what its readers come for.
        println!(
            "The contest's final is published ({}); its pages are served until koth is \
             stopped (Ctrl-C)",
            folder.join(super::contest::RESULT_FILE).display()
        );
        koth_base::interrupt::wait_for_exit();
    }
    Ok(())
}

fn author(command: AuthorCommand) -> anyhow::Result<()> {
    match command {
        AuthorCommand::Add { name, hill } => {
            let hill = hill.open(None)?;
            let token = authors::add(&hill.store, &name)?;
            println!(
                "Author {name:?} added. Their token, shown this once (only its hash is kept):"
            );
            println!("{token}");
        }
        AuthorCommand::List { hill } => {
            let hill = hill.open(None)?;
            let authors = authors::list(&hill.store)?;
            if authors.is_empty() {
                println!("No authors yet: `koth hill author add NAME --hill DIR` adds one.");
            }
            for author in authors {
                println!(
                    "{}{}  bots: {}",
                    koth_base::text::shown(&author.name),
                    if author.revoked { " (revoked)" } else { "" },
                    if author.bots.is_empty() {
                        "none".to_string()
                    } else {
                        koth_base::text::shown(&author.bots.join(", ")).into_owned()
                    }
                );
            }
        }
        AuthorCommand::Revoke { name, hill } => {
            let hill = hill.open(None)?;
            authors::revoke(&hill.store, &name)?;
            println!("{name:?} is revoked: their token is refused from now on");
        }
    }
    Ok(())
}

/// `koth leaderboard` of a hill's `store`: a folder's ([`crate::hill_folder_store`]), or one in
/// PostgreSQL (`--db URL NAME`, [`crate::shared_hill`]), in `format`.
pub fn leaderboard(store: &koth_tournament::store::Store, format: Format) -> anyhow::Result<()> {
    let board = board::read(store)?;
    board.write_to(
        format,
        &mut std::io::BufWriter::new(std::io::stdout().lock()),
    )
}
