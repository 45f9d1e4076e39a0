//! The `koth` command line: parses arguments and hands each subcommand to its module. The games'
//! own commands come from the registry the program installed ([`koth_game::registry`]):
//! `koth`'s `main.rs` installs koth's games; a program of its own may install others beside
//! them and run this same command line.

use std::process::ExitCode;

use clap::{FromArgMatches, Subcommand};

use koth_game::{GameCommand, registry};

mod drive_data;
mod replay;
use crate::{hill, serve, tournament};

// The commands beside the games' own.
#[derive(Debug, Subcommand)]
enum Command {
    /// Run a tournament from a tournament file, resume a stopped one, or show its progress.
    Tournament(tournament::cli::Args),
    /// A king of the hill that never ends: create a hill, add bots at any time, play it.
    Hill(hill::cli::Args),
    /// A hill's contest: its phase and countdown, closing it by hand, and its final exported
    /// and verified.
    Contest(hill::contest::cli::Args),
    /// Print a tournament's or a hill's leaderboard.
    Leaderboard(tournament::cli::LeaderboardArgs),
    /// Replay a recorded game in its game's viewer (terminal, text or web page), or drive a bot
    /// with what it received in a recorded game.
    Replay(replay::Args),
    /// Play the games of the tournaments and hills in a PostgreSQL database, as one of many
    /// workers.
    Worker(tournament::worker::Args),
    /// Serve a tournament's web dashboard (live progress, leaderboard, games and replays), or a
    /// hill's pages (its king, leaderboard, games, bots and kings).
    Serve(serve::Args),
    /// Follow a game in the terminal while it is played, on any koth server: its records as
    /// they come, and its result.
    Watch(serve::follow::WatchArgs),
    /// koth's own compiler of a contained bot's WASI module, which koth runs in a sandbox under
    /// the bot's build caps: compiles MODULE and writes the compiled module to OUT.
    #[command(name = "compile-wasm", hide = true)]
    CompileWasm {
        module: std::path::PathBuf,
        out: std::path::PathBuf,
    },
}

/// Runs `koth` with the process's arguments, on the games installed in the registry (none before
/// [`registry::install`]); the exit code says whether it succeeded.
pub fn main() -> ExitCode {
    // Every game's own command first, as the registry lists them, then the others.
    let game_commands: Vec<GameCommand> = registry::commands();
    let koth = clap::Command::new("koth")
        .version(env!("CARGO_PKG_VERSION"))
        .about("koth: bots in any language, fighting over stdin/stdout, with every result and replay kept.")
        .subcommand_required(true)
        .arg_required_else_help(true)
        .subcommands(game_commands.iter().map(|game| game.command.clone()));
    let matches = Command::augment_subcommands(koth).get_matches();
    // Bots run in process groups of their own, out of reach of the terminal's Ctrl-C: stopping
    // koth must stop them.
    koth_base::interrupt::install(koth_bot::stop_every_bot);
    koth_base::interrupt::end_quietly_on_broken_pipe(koth_bot::stop_every_bot);
    if let Ok(koth) = std::env::current_exe() {
        koth_bot::use_compiler(koth);
    }
    let game = matches.subcommand().and_then(|(name, args)| {
        let game = game_commands
            .iter()
            .find(|g| g.command.get_name() == name)?;
        Some((game, args))
    });
    let outcome = match game {
        Some((game, args)) => (game.run)(args),
        None => run(Command::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // One clear message, with its causes, and no panic or backtrace for a person's mistake;
            // a name or a folder in it may hold anything, so it is shown escaped, but for its
            // newlines: a build's log quoted in it reads as the lines it was.
            eprintln!(
                "koth: error: {}",
                koth_base::text::shown_lines(&format!("{err:#}"))
            );
            ExitCode::FAILURE
        }
    }
}

fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Tournament(args) => tournament::cli::run(args, serve::spawn),
        Command::Hill(args) => hill::cli::run(args, serve::spawn_hill),
        Command::Contest(args) => hill::contest::cli::run(args),
        Command::Leaderboard(args) => {
            if let Some(store) = args.folder().and_then(hill::hill_folder_store) {
                hill::cli::leaderboard(&store, args.format())
            } else if let Some(store) = args
                .database()
                .and_then(|(url, name)| hill::shared_hill(url, &name))
            {
                hill::cli::leaderboard(&store, args.format())
            } else {
                tournament::cli::leaderboard(args)
            }
        }
        Command::Replay(args) => replay::run(args),
        Command::Worker(args) => tournament::worker::run(args, hill::worker::join),
        Command::Serve(args) => serve::run(args),
        Command::Watch(args) => serve::follow::run(args),
        Command::CompileWasm { module, out } => koth_bot::wasm::compile_to(&module, &out),
    }
}
