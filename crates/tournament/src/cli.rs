//! `koth tournament run|resume|submit|status|leaderboard` and `koth leaderboard` (the same
//! command as `koth tournament leaderboard`). With `--db URL` a tournament lives in a PostgreSQL
//! database shared by workers (`koth worker`) and is named by its name instead of its folder.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::Context;
use clap::Subcommand;

use super::leaderboard::Format;
use super::store::{self, Store};
use super::{Tournament, Watched, leaderboard_of};

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
        /// Record the tournament in this PostgreSQL database (postgres://user@host:port/db) and
        /// play it as one of its workers: other machines' `koth worker` share its games.
        #[arg(long, value_name = "URL")]
        db: Option<String>,
        #[command(flatten)]
        serve: ServeArg,
    },
    /// Record a tournament and all its games in a PostgreSQL database for workers to play
    /// (`koth worker`); plays nothing, and prints the tournament's name last.
    Submit {
        /// The tournament file.
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// The PostgreSQL database (postgres://user@host:port/database).
        #[arg(long, value_name = "URL")]
        db: String,
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
        #[command(flatten)]
        serve: ServeArg,
    },
    /// Show how many games a tournament has played.
    Status(Target),
    /// Print a tournament's leaderboard (the same as `koth leaderboard`).
    Leaderboard(LeaderboardArgs),
}

/// `--serve [ADDR]` and `--serve-after` of `run` and `resume`.
#[derive(Debug, clap::Args)]
struct ServeArg {
    /// Serve the web dashboard (`koth serve`) on ADDR while the run plays
    /// [default: 127.0.0.1:8080].
    #[arg(long, visible_alias = "addr", value_name = "ADDR", num_args = 0..=1,
          default_missing_value = "127.0.0.1:8080")]
    serve: Option<std::net::SocketAddr>,
    /// With --serve: keep serving the dashboard after the run, until Ctrl-C (without it, koth
    /// exits when the run ends, as an unattended script needs).
    #[arg(long, requires = "serve")]
    serve_after: bool,
    #[command(flatten)]
    guard: koth_game::cli::Guard,
}

/// A tournament to read: its folder, or its name in a PostgreSQL database.
#[derive(Debug, clap::Args)]
pub struct Target {
    /// The tournament folder; with --db, the tournament's name.
    #[arg(value_name = "DIR|NAME")]
    pub target: PathBuf,
    /// The PostgreSQL database holding the tournament (postgres://user@host:port/database).
    #[arg(long, value_name = "URL")]
    pub db: Option<String>,
}

impl Target {
    /// The tournament's store, and its folder if it has one.
    fn open(&self) -> anyhow::Result<(Store, Option<&Path>)> {
        Ok(match &self.db {
            Some(url) => (
                Store::open_postgres(url, &self.target.to_string_lossy())?,
                None,
            ),
            None => (
                Store::open(&self.target.join(store::FILE))?,
                Some(self.target.as_path()),
            ),
        })
    }
}

/// `koth leaderboard [--db URL] DIR|NAME`
#[derive(Debug, clap::Args)]
pub struct LeaderboardArgs {
    #[command(flatten)]
    target: Target,
    /// How to print it.
    #[arg(long, value_name = "FORMAT", value_enum, default_value = "table")]
    format: Format,
}

/// What serves a tournament's dashboard beside its run (`--serve`): `koth serve`'s `spawn`,
/// handed in by `main.rs` because the dashboard sits above the tournament and reads it.
pub type Dashboard = fn(
    Watched,
    std::net::SocketAddr,
    koth_game::cli::Guard,
) -> anyhow::Result<std::net::SocketAddr>;

pub fn run(args: Args, dashboard: Dashboard) -> anyhow::Result<()> {
    match args.command {
        Command::Run {
            file,
            dir,
            seed,
            db: Some(url),
            serve,
        } => run_shared(&file, dir, seed, url, serve, dashboard),
        Command::Run {
            file,
            dir,
            seed,
            db: None,
            serve,
        } => run_folder(&file, dir, seed, serve, dashboard),
        Command::Resume {
            dir,
            unbench,
            serve,
        } => resume(&dir, &unbench, serve, dashboard),
        Command::Submit { file, db, seed } => submit(&file, &db, seed),
        Command::Status(target) => status(&target),
        Command::Leaderboard(args) => leaderboard(args),
    }
}

/// `koth tournament run --db URL FILE`: records the tournament in the shared database, then
/// plays it as one of its workers.
fn run_shared(
    file: &Path,
    dir: Option<PathBuf>,
    seed: Option<u64>,
    url: String,
    serve: ServeArg,
    dashboard: Dashboard,
) -> anyhow::Result<()> {
    let store = Tournament::submit(file, &url, seed)?;
    let name = store.meta("name")?.unwrap_or_default();
    let work = dir.unwrap_or_else(|| {
        koth_base::logs::default_folder(|secs| format!("tournament-{name}-{secs}"))
    });
    let root = file.parent().unwrap_or(Path::new("."));
    let tournament = Tournament::join(store, root, &work, None)?;
    println!(
        "Tournament {name} in {} (seed {}), its games played in {}",
        store::shown(&url),
        tournament.seed,
        work.display()
    );
    // Workers finish a shared tournament; this run was one of them.
    let resume: Vec<OsString> = vec![
        "koth".into(),
        "worker".into(),
        "--db".into(),
        store::shown(&url).into(),
        "--root".into(),
        root.as_os_str().to_owned(),
        "--dir".into(),
        work.into_os_string(),
    ];
    let watched = Watched::Shared { url, name };
    play(tournament, serve, watched, &resume, dashboard)
}

/// `koth tournament run FILE`: creates the tournament's folder and plays it.
fn run_folder(
    file: &Path,
    dir: Option<PathBuf>,
    seed: Option<u64>,
    serve: ServeArg,
    dashboard: Dashboard,
) -> anyhow::Result<()> {
    let tournament = Tournament::create(file, dir, seed)?;
    println!(
        "Tournament {} in {} (seed {})",
        tournament.name,
        tournament.dir.display(),
        tournament.seed
    );
    play_folder(tournament, serve, dashboard)
}

/// `koth tournament resume DIR`: plays the games a stopped tournament has left.
fn resume(
    dir: &Path,
    unbench: &[String],
    serve: ServeArg,
    dashboard: Dashboard,
) -> anyhow::Result<()> {
    let tournament = Tournament::resume(dir, unbench)?;
    println!(
        "Resuming tournament {} in {} (seed {})",
        tournament.name,
        dir.display(),
        tournament.seed
    );
    play_folder(tournament, serve, dashboard)
}

/// `koth tournament submit FILE --db URL`: records the tournament and its games for workers.
fn submit(file: &Path, db: &str, seed: Option<u64>) -> anyhow::Result<()> {
    let store = Tournament::submit(file, db, seed)?;
    let progress = store.progress()?;
    println!(
        "Submitted {} games to {} (seed {}); `koth worker --db URL --root {}` plays them",
        progress.total,
        store.location(),
        store.meta("seed")?.unwrap_or_default(),
        file.parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .display()
    );
    // The last line is the name alone, for scripts.
    println!("{}", store.meta("name")?.unwrap_or_default());
    Ok(())
}

/// `koth tournament status DIR|NAME`: how many games are done, running and left, and who is
/// benched.
fn status(target: &Target) -> anyhow::Result<()> {
    let (store, _) = target.open()?;
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

impl LeaderboardArgs {
    /// The folder named, when the leaderboard is of a folder (not of a shared database): a
    /// hill's folder is shown by the hill's own leaderboard (`main.rs` chooses, since the hill
    /// sits above the tournament).
    pub fn folder(&self) -> Option<&Path> {
        self.target
            .db
            .is_none()
            .then_some(self.target.target.as_path())
    }

    /// The database and the name, when the leaderboard is of a shared database's entry.
    pub fn database(&self) -> Option<(&str, String)> {
        let name = self.target.target.to_string_lossy().into_owned();
        self.target.db.as_deref().map(|url| (url, name))
    }

    pub fn format(&self) -> Format {
        self.format
    }
}

pub fn leaderboard(args: LeaderboardArgs) -> anyhow::Result<()> {
    let (store, dir) = args.target.open()?;
    print!(
        "{}",
        leaderboard_of(&store, dir.unwrap_or(Path::new(".")))?.render(args.format)
    );
    Ok(())
}

/// [`play`] for a tournament of a folder, which `koth tournament resume DIR` finishes.
fn play_folder(
    tournament: Tournament,
    serve: ServeArg,
    dashboard: Dashboard,
) -> anyhow::Result<()> {
    let watched = Watched::Folder(tournament.dir.clone());
    let resume = [
        "koth".into(),
        "tournament".into(),
        "resume".into(),
        tournament.dir.clone().into_os_string(),
    ];
    play(tournament, serve, watched, &resume, dashboard)
}

/// Plays the tournament's unfinished games and prints its leaderboard; with `--serve`, serves
/// the dashboard of `watched` (the tournament) meanwhile, and with `--serve-after` after it
/// too, until koth is stopped.
/// Stopped early, koth prints `resume`: the command that plays the games left.
fn play(
    tournament: Tournament,
    serve: ServeArg,
    watched: Watched,
    resume: &[OsString],
    dashboard: Dashboard,
) -> anyhow::Result<()> {
    log_to(&tournament.dir)?;
    let dashboard = match serve.serve {
        Some(addr) => {
            let addr = dashboard(watched, addr, serve.guard.clone())?;
            println!("Dashboard: http://{addr}/");
            Some(addr)
        }
        None => None,
    };
    let words: Vec<&OsStr> = resume.iter().map(OsString::as_os_str).collect();
    let resume = koth_base::interrupt::resume_with(&words);
    let board = tournament.run()?;
    // A finished tournament has nothing to resume.
    drop(resume);
    print!("{}", board.render(Format::Table));
    if let Some(addr) = dashboard.filter(|_| serve.serve_after) {
        println!("The tournament is over; the dashboard stays at http://{addr}/ until Ctrl-C.");
        loop {
            std::thread::park();
        }
    }
    Ok(())
}

/// Sends tracing events to `tournament.log` in the tournament folder (appended, so a resumed
/// tournament keeps one log).
pub fn log_to(dir: &Path) -> anyhow::Result<()> {
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
