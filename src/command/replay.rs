//! `koth replay PATH [--round R] [--turn T] [--text] [--html OUT.html]` (a paths game, a noughts
//! & crosses match, a flag game), `koth replay RUNDIR|board-B.replay.json [--board B] [--turn T]
//! [--text] [--html OUT.html]` (a rat-race board), and
//! `koth replay LOGDIR --drive BOTDIR --as NAME [--round R] [--all-differences]
//! [--timeout-ms MS] [--stderr-log FILE] [--sandbox]`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};

use koth_base::text;
use koth_bot::sandbox;
use koth_bot::{BotSpec, Limits, build, roster};
use koth_game::cli::{SandboxArgs, limit_ms_parser};
use koth_game::{Numbering, ReplayAt};
use koth_replay::drive::{self, DriveOptions, Driven};
use koth_replay::tui;
use koth_tournament::store::Store;

/// Show a recorded paths game, rat-race board, noughts & crosses match or flag game (in a
/// terminal viewer, as text or as a web page) or a Mad Cars game (a summary, or a web page); or
/// drive a bot with its transcript of any game.
#[derive(Debug, clap::Args)]
#[command(after_help = keys_help())]
pub struct Args {
    /// A paths game's log folder or its graphical_log.txt; a rat-race run's log folder or one of
    /// its board-B.replay.json; a noughts & crosses or a flag game's log folder; with --drive,
    /// the log folder of a game of any kind. With --db, the tournament's name.
    #[arg(value_name = "PATH")]
    pub path: PathBuf,
    /// With --db, the game's index in the tournament.
    #[arg(value_name = "GAME", requires = "db")]
    pub game: Option<u32>,
    /// Show a game of a tournament in this PostgreSQL database (postgres://user@host:port/db),
    /// from the files its worker stored: `koth replay --db URL NAME GAME`. With --drive, a
    /// learning bot starts from the snapshot of its data kept there.
    #[arg(long, value_name = "URL", requires = "game")]
    pub db: Option<String>,
    /// What to show first, counted from 1 in every game as the reports count: a paths game's
    /// round, a noughts & crosses match's game or a flag game's level; default: the first. With
    /// --drive, the only round compared.
    #[arg(long, value_name = "N")]
    pub round: Option<u32>,
    /// Show it just after turn N, counted from 1 as the reports count (paths, which needs
    /// replay.jsonl) or move N (noughts & crosses, flag), so a fault reported in turn N is
    /// shown; 0 is the start. A rat-race board is shown at its last recorded turn up to N.
    /// Default: the end.
    #[arg(long, value_name = "N")]
    pub turn: Option<usize>,
    /// Print what the viewer would show first as plain text instead of opening it.
    #[arg(long)]
    pub text: bool,
    /// Write a self-contained web page that animates the game, instead of opening the viewer.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// In a rat-race log folder, the recorded board to show (default: the first recorded).
    #[arg(long, value_name = "N", conflicts_with = "drive")]
    pub board: Option<usize>,
    /// Feed this bot folder the lines the bot named by --as received in the game, and show
    /// where its answers now differ (exit status 1 if they do).
    #[arg(long, value_name = "DIR", requires = "name", conflicts_with_all = ["turn", "text", "html"])]
    pub drive: Option<PathBuf>,
    /// The recorded bot to drive: its name or its transcript's file name.
    #[arg(long = "as", value_name = "NAME", requires = "drive")]
    pub name: Option<String>,
    /// With --drive: list every difference, not only the first.
    #[arg(long, requires = "drive")]
    pub all_differences: bool,
    /// With --drive: the limit per answer and for exiting, in milliseconds, on the wall clock
    /// (default: the game's, from the transcript).
    #[arg(long, value_name = "MS", requires = "drive", value_parser = limit_ms_parser())]
    pub timeout_ms: Option<u64>,
    /// With --drive: write the driven bot's stderr to this file.
    #[arg(long, value_name = "FILE", requires = "drive")]
    pub stderr_log: Option<PathBuf>,
    /// With --drive --sandbox: the driven bot is contained, in a working copy of its folder
    /// under the log folder's `drive/`.
    #[command(flatten)]
    pub contain: SandboxArgs,
}

pub fn run(mut args: Args) -> anyhow::Result<()> {
    // A game stored in a shared database is shown from a copy of its folder.
    let (shared, _copy) = match (&args.db, args.game) {
        (Some(url), Some(game)) => {
            let store = Store::open_postgres(url, &args.path.to_string_lossy())?;
            let copy = stored_game(&store, game)?;
            args.path = copy.path().to_path_buf();
            (Some(store), Some(copy))
        }
        _ => (None, None),
    };
    if let (Some(bot_dir), Some(name)) = (&args.drive, &args.name) {
        return run_drive(&args, bot_dir, name, shared.as_ref());
    }
    if let Some(out) = &args.html {
        koth_replay::write(&koth_replay::page_of(&args.path, args.board)?, out)?;
        println!("wrote {}", out.display());
        return Ok(());
    }
    let (game, path) = koth_replay::game_of(&args.path)?;
    let at = ReplayAt {
        round: stored_round(game.numbering(), args.round)?,
        turn: args.turn,
        board: args.board,
        text: args.text,
    };
    refuse_options(game, &path, at)?;
    match game.show(&path, at) {
        Some(shown) => shown?,
        None => bail!(
            "{}: a game of {}, which has no terminal viewer",
            args.path.display(),
            game.name()
        ),
    }
    if args.text {
        print!("{}", fuel_text(&koth_replay::log_folder(&args.path)));
    }
    Ok(())
}

/// The round a person typed (`--round`, from 1) as the game's records number it.
fn stored_round(numbering: Numbering, shown: Option<u32>) -> anyhow::Result<Option<u32>> {
    shown
        .map(|shown| {
            numbering
                .stored_round(shown)
                .context("--round counts from 1, as the reports do: the first round is 1")
        })
        .transpose()
}

/// Refuses a viewer option that the game's viewer does not take (`--round` for a game without
/// rounds, say), naming the option and the game, rather than ignoring it.
fn refuse_options(game: &dyn koth_game::Game, path: &Path, at: ReplayAt) -> anyhow::Result<()> {
    let takes = game.options();
    let options = [
        ("--round", at.round.is_some(), takes.round),
        ("--turn", at.turn.is_some(), takes.turn),
        ("--board", at.board.is_some(), takes.board),
    ];
    if let Some((option, ..)) = options.iter().find(|(_, given, taken)| *given && !taken) {
        let taken: Vec<&str> = options
            .iter()
            .filter(|(.., taken)| *taken)
            .map(|(option, ..)| *option)
            .collect();
        bail!(
            "{}: {option} does not apply to a game of {} (its viewer takes {})",
            path.display(),
            game.name(),
            if taken.is_empty() {
                "no option but --text".to_string()
            } else {
                taken.join(", ") + " and --text"
            }
        );
    }
    Ok(())
}

/// The fuel each WASI bot of the game in `log_dir` burnt per answer, from its transcript's
/// `# fuel` notes: `fuel: NAME: median …, max …`, a line per bot (none without WASI bots).
fn fuel_text(log_dir: &Path) -> String {
    let mut text = String::new();
    for (path, script) in drive::scripts(log_dir).unwrap_or_default() {
        if let Some(fuel) = &script.fuel {
            let name = script
                .bot
                .clone()
                .unwrap_or_else(|| path.display().to_string());
            text += &format!("fuel: {}: {}\n", name, fuel.summary());
        }
    }
    text::shown_lines(&text)
}

/// The keys of every game's terminal viewer, as `koth replay --help` lists them.
fn keys_help() -> String {
    tui::keys_help(
        koth_game::registry::all()
            .into_iter()
            .filter_map(|game| game.keys()),
    )
}

/// A copy, in a temporary folder, of the folder of game `game` of the tournament in `store` (a
/// PostgreSQL database).
fn stored_game(store: &Store, game: u32) -> anyhow::Result<tempfile::TempDir> {
    let copy = tempfile::tempdir()?;
    if store.extract(game, copy.path(), None)? == 0 {
        let progress = store.progress()?;
        bail!(
            "{} has no files of game {game}: it has {} games, {} done",
            store.location(),
            progress.total,
            progress.done
        );
    }
    Ok(copy)
}

/// The time limits the game in `log_dir` had, as its game reads them from its folder
/// ([`koth_game::Replay::recorded_limits`]), for a transcript written before transcripts
/// stated them (koth's defaults where the folder cannot tell).
fn game_limits(log_dir: &Path) -> anyhow::Result<Limits> {
    match koth_replay::game_of(log_dir) {
        Ok((game, folder)) => game
            .recorded_limits(&folder)
            .unwrap_or(Ok(Limits::default())),
        Err(_) => Ok(Limits::default()),
    }
}

/// Drives the bot in `bot_dir` as `name` in the game of `args.path`; `shared`, the database a
/// game was copied out of (`--db`), keeps a learning bot's snapshots.
fn run_drive(
    args: &Args,
    bot_dir: &Path,
    name: &str,
    shared: Option<&Store>,
) -> anyhow::Result<()> {
    let log_dir = koth_replay::log_folder(&args.path);
    let (path, script) = drive::find(&log_dir, name)?;
    let spec = driven_bot(args, bot_dir, &log_dir)?;
    let recorded = script.bot.as_deref().unwrap_or(name);
    let spec = super::drive_data::with_data(spec, &log_dir, recorded, shared)?;
    let limits = match (args.timeout_ms, script.limits) {
        (Some(ms), _) => Limits::uniform(Duration::from_millis(ms)),
        (None, Some(limits)) => limits,
        (None, None) => game_limits(&log_dir)?,
    };
    println!(
        "driving {} with the transcript {} ({} ms per answer)",
        text::shown(&spec.to_string()),
        path.display(),
        limits.answer.as_millis()
    );
    // Rounds and turns as a person reads them, from 1, whatever the game stores.
    let numbering =
        koth_replay::game_of(&log_dir).map_or(Numbering::FROM_ONE, |(game, _)| game.numbering());
    let options = DriveOptions {
        round: stored_round(numbering, args.round)?,
        numbering,
        all_differences: args.all_differences,
        limits,
        stderr_log: args.stderr_log.clone(),
    };
    let runtime = koth_game::runtime()?;
    let driven = runtime.block_on(drive::drive(&spec, &script, &options, &mut |difference| {
        // The recorded and new answers are the bot's bytes.
        print!("{}", text::shown_lines(&difference.to_string()))
    }))?;
    report_driven(args, numbering, &driven)
}

/// The bot in `bot_dir`, built and (unless `--contain` says not) contained, with its folder
/// for this drive in `log_dir`.
fn driven_bot(args: &Args, bot_dir: &Path, log_dir: &Path) -> anyhow::Result<BotSpec> {
    // Absolute, so the bot's name in messages says exactly which folder ran.
    let bot_dir = bot_dir
        .canonicalize()
        .with_context(|| format!("no bot folder {}", bot_dir.display()))?;
    let spec = roster::load_bot(&bot_dir)?;
    let sandbox = args.contain.sandbox();
    let spec = build::prepare(
        std::slice::from_ref(&spec),
        build::DEFAULT_BUILD_LIMIT,
        sandbox.as_ref(),
    )?
    .remove(0);
    Ok(match sandbox {
        Some(sandbox) => sandbox::contain(
            std::slice::from_ref(&spec),
            Some(&sandbox),
            &log_dir.join("drive"),
        )?
        .into_iter()
        .next()
        .context("one bot was contained")?,
        None => spec,
    })
}

/// Prints what the drive found beyond its differences (answers compared cut, rounds not driven
/// or not reported) and its verdict: an error if the bot's answers differ.
fn report_driven(args: &Args, numbering: Numbering, driven: &Driven) -> anyhow::Result<()> {
    if driven.cut_answers > 0 {
        println!(
            "({} recorded answer(s) were too long to keep whole (over {} bytes): each was compared \
             by its start and its length only)",
            driven.cut_answers,
            koth_bot::transcript::TRANSCRIPT_LINE_BYTES
        );
    }
    if let Some(round) = driven.not_driven_from {
        let round = numbering.round(round);
        println!(
            "(the transcript reached its size limit in round {round} and stopped: round {round} \
             and the later ones were not recorded whole, and were not driven)"
        );
    }
    if driven.unreported_differences > 0 {
        println!(
            "(the rounds before round {} were played only to rebuild what the bot keeps between rounds; they differed in {} place(s))",
            args.round.unwrap_or(1),
            driven.unreported_differences
        );
    }
    if driven.differences.is_empty() {
        println!(
            "identical: {} prompt(s) in {} round(s) answered as recorded",
            driven.prompts, driven.rounds
        );
        Ok(())
    } else if args.all_differences {
        bail!(
            "{} difference(s) from the recording in {} prompt(s)",
            driven.differences.len(),
            driven.prompts
        )
    } else {
        bail!(
            "the bot's answers differ from the recording (stopped at the first difference; --all-differences lists them all)"
        )
    }
}
