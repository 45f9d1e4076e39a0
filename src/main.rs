//! The `koth` command line: parses arguments and hands each subcommand to its module.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use koth::{games, hill, replay, serve, tournament};

/// koth: bots in any language, fighting over stdin/stdout, with every result and replay kept.
#[derive(Debug, Parser)]
#[command(name = "koth", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Play the Grid-Routing Battle among bots.
    Paths(games::paths::cli::Args),
    /// Run the Genetic Rat Race for one player.
    Ratrace(games::ratrace::cli::Args),
    /// MENACE, the matchbox learner, and noughts & crosses.
    Menace(games::menace::cli::Args),
    /// Reach the Flag: a genetic algorithm, an exact solver, and a game for solver bots.
    Flag(games::flag::cli::Args),
    /// Mad Cars, the Mini AI Cup 2018 physics duel: a game of matches between two bots.
    Madcars(games::madcars::cli::Args),
    /// Run a tournament from a tournament file, resume a stopped one, or show its progress.
    Tournament(tournament::cli::Args),
    /// A king of the hill that never ends: create a hill, add bots at any time, play it.
    Hill(hill::cli::Args),
    /// Print a tournament's or a hill's leaderboard.
    Leaderboard(tournament::cli::LeaderboardArgs),
    /// Replay a recorded paths game (text, terminal or web viewer), rat-race board (web viewer)
    /// or Mad Cars game (web viewer, or a summary), or drive a bot with what it received in a
    /// recorded game.
    Replay(replay::cli::Args),
    /// Play the games of the tournaments in a PostgreSQL database, as one of many workers.
    Worker(tournament::worker::Args),
    /// Serve a tournament's web dashboard: live progress, leaderboard, games and replays.
    Serve(serve::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Bots run in process groups of their own, out of reach of the terminal's Ctrl-C: stopping
    // koth must stop them.
    koth::interrupt::install();
    koth::interrupt::end_quietly_on_broken_pipe();
    let outcome = match cli.command {
        Command::Paths(args) => games::paths::cli::run(args),
        Command::Ratrace(args) => games::ratrace::cli::run(args),
        Command::Menace(args) => games::menace::cli::run(args),
        Command::Flag(args) => games::flag::cli::run(args),
        Command::Madcars(args) => games::madcars::cli::run(args),
        Command::Tournament(args) => tournament::cli::run(args),
        Command::Hill(args) => hill::cli::run(args),
        Command::Leaderboard(args) => tournament::cli::leaderboard(args),
        Command::Replay(args) => replay::cli::run(args),
        Command::Worker(args) => tournament::worker::run(args),
        Command::Serve(args) => serve::run(args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // One clear message, with its causes, and no panic or backtrace for a person's mistake.
            eprintln!("koth: error: {err:#}");
            ExitCode::FAILURE
        }
    }
}
