//! `koth replay PATH [--round R] [--turn T] [--text] [--html OUT.html]`, and
//! `koth replay LOGDIR --drive BOTDIR --as NAME [--round R] [--all-differences]`.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, bail};

use super::Game;
use super::drive::{self, DriveOptions};
use crate::bot::roster;

/// Show a recorded paths game: a round or a turn as text, or in a terminal viewer.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A game's log folder, or its graphical_log.txt.
    pub path: PathBuf,
    /// The round to show first (from 0; default 0); with --drive, the only round compared.
    #[arg(long)]
    pub round: Option<u32>,
    /// Show the grid after this many turns of the round (needs replay.jsonl); default: its end.
    #[arg(long)]
    pub turn: Option<usize>,
    /// Print the round (or turn) as plain text instead of opening the viewer.
    #[arg(long)]
    pub text: bool,
    /// Write a self-contained web page that animates the game, instead of opening the viewer.
    #[arg(long, value_name = "OUT.html")]
    pub html: Option<PathBuf>,
    /// Feed this bot folder the lines the bot named by --as received in the game, and show
    /// where its answers now differ (exit status 1 if they do).
    #[arg(long, value_name = "BOTDIR", requires = "name", conflicts_with_all = ["turn", "text", "html"])]
    pub drive: Option<PathBuf>,
    /// The recorded bot to drive: its name or its transcript's file name.
    #[arg(long = "as", value_name = "NAME", requires = "drive")]
    pub name: Option<String>,
    /// With --drive: list every difference, not only the first.
    #[arg(long, requires = "drive")]
    pub all_differences: bool,
    /// With --drive: the limit per answer, in milliseconds.
    #[arg(long, default_value_t = 1000, requires = "drive")]
    pub timeout_ms: u64,
    /// With --drive: write the driven bot's stderr to this file.
    #[arg(long, value_name = "FILE", requires = "drive")]
    pub stderr_log: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if let (Some(bot_dir), Some(name)) = (&args.drive, &args.name) {
        return run_drive(&args, bot_dir, name);
    }
    let game = Game::open(&args.path)?;
    if let Some(out) = &args.html {
        super::html::write(&game, out)?;
        println!("wrote {}", out.display());
        return Ok(());
    }
    let frame = game.frame(args.round.unwrap_or(0), args.turn)?;
    if args.text {
        print!("{}", game.text(&frame));
        return Ok(());
    }
    super::tui::run(&game, frame)
}

fn run_drive(args: &Args, bot_dir: &std::path::Path, name: &str) -> anyhow::Result<()> {
    let log_dir = if args.path.is_dir() {
        args.path.clone()
    } else {
        args.path
            .parent()
            .unwrap_or(std::path::Path::new("."))
            .to_path_buf()
    };
    let (path, script) = drive::find(&log_dir, name)?;
    // Absolute, so the bot's name in messages says exactly which folder ran.
    let bot_dir = bot_dir
        .canonicalize()
        .with_context(|| format!("no bot folder {}", bot_dir.display()))?;
    let spec = roster::load_bot(&bot_dir)?;
    roster::prepare(std::slice::from_ref(&spec))?;
    println!("driving {} with the transcript {}", spec, path.display());
    let options = DriveOptions {
        round: args.round,
        all_differences: args.all_differences,
        limit: Duration::from_millis(args.timeout_ms),
        stderr_log: args.stderr_log.clone(),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let driven = runtime.block_on(drive::drive(&spec, &script, &options, &mut |difference| {
        print!("{difference}")
    }))?;
    if driven.unreported_differences > 0 {
        println!(
            "(the rounds before round {} were played only to rebuild data.txt; they differed in {} place(s))",
            args.round.unwrap_or(0),
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
