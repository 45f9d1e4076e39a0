//! The small interface every game implements, and what a match leaves behind.
//!
//! A game module turns a [`MatchSetup`] (which bots, which seed, where to write) into a
//! [`MatchResult`] (each bot's score, its faults and how it ended). Runners — the per-game
//! commands, the tournament runner — only ever see these types, so adding a game touches its own
//! folder and one line of the registry ([`registry`], installed by the command line from
//! `crate::games::registry`).

pub mod cli;
pub mod duel;
pub mod registry;
mod result;
mod runtime;
pub mod seed;
mod setup;
pub mod stats;
pub mod together;

use std::future::Future;
use std::path::Path;
use std::pin::Pin;

use serde::{Deserialize, Serialize};

pub use result::write_results;
pub use result::{BotResult, MatchResult, RESULTS_FILE};
pub use runtime::{play_placed, runtime};
pub use setup::{MatchSetup, ProgressFn, RecordBoards, RoundProgress};

/// How a bot's scores over many matches are averaged on a leaderboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Average {
    /// The arithmetic mean: points add up.
    Arithmetic,
    /// The geometric mean: scores that multiply, or spread over orders of magnitude (the rat
    /// race's board points), where one huge score would otherwise decide the ranking.
    Geometric,
}

/// What a game's result means, and so how every ranking in koth (a tournament's table, a hill's
/// table and its king) orders the bots that play it. Each game declares it in its `play.rs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ranking {
    /// The points scored are the result (the Grid-Routing Battle, the rat race, Reach the
    /// Flag): bots are ranked by points per game, adjusted for the opponents met.
    Points,
    /// Only who finished ahead of whom counts (noughts & crosses, Mad Cars, Nim): bots are
    /// ranked by an order model (Bradley–Terry with draws, Plackett–Luce for more).
    Placement,
}

/// A game's own table on a tournament's leaderboard, beside the standings every game has (Mad
/// Cars: each bot's results by map and car).
#[derive(Debug, Clone, Serialize)]
pub struct Breakdown {
    pub title: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// Where `koth replay` opens a recorded game: a round (a paths round, a noughts & crosses game,
/// a flag level), a turn, a rat-race board; and whether to print it as text.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReplayAt {
    pub round: Option<u32>,
    pub turn: Option<usize>,
    pub board: Option<usize>,
    pub text: bool,
}

/// The viewer options a game's replay takes beside `--text`: a round (`--round`), a turn
/// (`--turn`), a board (`--board`). `koth replay` refuses any other, naming it and the game.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReplayOptions {
    pub round: bool,
    pub turn: bool,
    pub board: bool,
}

/// Each bot's points round by round in a recorded game, for the dashboard's plot of a game
/// played in rounds that score (paths). A round's points may be fractional (a prize shared).
#[derive(Debug, Clone)]
pub struct RoundPoints {
    pub bots: Vec<String>,
    /// Per round, each bot's points in that round, in `bots` order.
    pub rounds: Vec<Vec<f64>>,
}

/// The replay hook: how a game's recorded folder is shown. Every [`Game`] is one (it is a
/// supertrait), so `koth replay`, `--html` and the dashboard reach a game's viewers through the
/// registry by the game that the folder's `results.json` names. A game without viewers writes
/// `impl Replay for MyGame {}` and its folders get a message naming it; a game's viewers live in
/// its folder, on the viewer kit of `koth_replay` (`docs/adding-a-game.md`).
pub trait Replay {
    /// Whether `path` is a recording of this game's that names no game itself: one of its
    /// files given alone (a paths `graphical_log.txt`, a rat-race `board-B.replay.json`) or a
    /// folder without a `results.json` (written by the original controller, say).
    fn recognises(&self, path: &Path) -> bool {
        let _ = path;
        false
    }
    /// Shows the game recorded at `path` (its folder or one of its files) in the terminal, or
    /// prints it as text; `None` if the game has no terminal viewer.
    fn show(&self, path: &Path, at: ReplayAt) -> Option<anyhow::Result<()>> {
        let _ = (path, at);
        None
    }
    /// The self-contained web page of the game recorded at `path`, opened at `board` for a game
    /// that records boards; `None` if the game has no web viewer.
    fn page(&self, path: &Path, board: Option<usize>) -> Option<anyhow::Result<String>> {
        let _ = (path, board);
        None
    }
    /// The options [`Replay::show`] takes: none by default, so `koth replay` refuses them.
    fn options(&self) -> ReplayOptions {
        ReplayOptions::default()
    }
    /// The keys of the game's terminal viewer, as `koth replay --help` lists them; `None` for a
    /// game with no interactive viewer.
    fn keys(&self) -> Option<String> {
        None
    }
    /// Each bot's points round by round in the game recorded in `folder`, for the dashboard's
    /// plot; `None` for a game whose rounds do not score (no plot).
    fn round_points(&self, folder: &Path) -> Option<anyhow::Result<RoundPoints>> {
        let _ = folder;
        None
    }
    /// The time limits a recorded game was played with, for `koth replay --drive` on a
    /// transcript too old to state them; `None` if the game's folder cannot tell (koth's
    /// defaults are used).
    fn recorded_limits(&self, folder: &Path) -> Option<anyhow::Result<koth_bot::Limits>> {
        let _ = folder;
        None
    }
}

/// A game's own command, `koth <name> …`: its arguments as clap declares them, and what runs
/// them. `main.rs` adds the command of every game of the registry ([`registry::commands`]).
pub struct GameCommand {
    pub command: clap::Command,
    pub run: RunCommand,
}

/// What runs a game's command with the arguments clap parsed.
pub type RunCommand = Box<dyn Fn(&clap::ArgMatches) -> anyhow::Result<()>>;

impl GameCommand {
    /// `koth <name>`, described by `about`, taking the arguments `A` and run by `run`.
    pub fn new<A: clap::Args + clap::FromArgMatches + 'static>(
        name: &'static str,
        about: &'static str,
        run: fn(A) -> anyhow::Result<()>,
    ) -> GameCommand {
        GameCommand {
            // After the arguments, whose flattened structs' own descriptions would replace it.
            command: A::augment_args(clap::Command::new(name))
                .about(about)
                .long_about(None),
            // clap has checked the arguments against the very declaration they are read by.
            run: Box::new(move |matches| {
                run(A::from_arg_matches(matches).unwrap_or_else(|e| e.exit()))
            }),
        }
    }
}

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A game koth can run. `play` returns `Err` only for koth's own failures (a log folder that
/// cannot be written, say): those are harness faults, retried by tournaments and never counted
/// against a bot. Everything a bot does wrong is a [`Fault`] inside the result.
pub trait Game: Sync + Replay {
    /// The name used on the command line and in tournament files.
    fn name(&self) -> &'static str;
    /// How many bots a match takes: `(min, max)`.
    fn players(&self) -> (usize, usize);
    /// How a bot's match scores are averaged on a leaderboard.
    fn average(&self) -> Average {
        Average::Arithmetic
    }
    /// What the game's result means: points, or only the order of the players.
    fn ranking(&self) -> Ranking;
    /// Whether this machine can play the game (a library it needs, say) with `rounds` rounds
    /// per match: asked before a tournament's first game, so a missing part or an impossible
    /// setting is one clear error and not a harness fault per game.
    fn check(&self, rounds: Option<u32>) -> anyhow::Result<()> {
        let _ = rounds;
        Ok(())
    }
    /// Whether `options`, a tournament file's `[options]` table, are options of this game that
    /// fit `rounds`: asked before a tournament's first game. A game without options takes none.
    fn check_options(&self, rounds: Option<u32>, options: &toml::Table) -> anyhow::Result<()> {
        let _ = rounds;
        match options.keys().next() {
            Some(key) => anyhow::bail!("{} has no options, and `{key}` is given", self.name()),
            None => Ok(()),
        }
    }

    /// Whether `bot` asks for something of this game it cannot have (a protocol it does not
    /// offer, in its `[protocols]`): asked of every bot before a tournament's first game, so a
    /// typo is one error naming the bot and its key, not a harness fault per game.
    fn check_bot(&self, bot: &koth_bot::BotSpec) -> anyhow::Result<()> {
        let _ = bot;
        Ok(())
    }

    /// The game's own table for the leaderboard, from the folders of the games played so far
    /// (each holding the [`Game::breakdown_file`] its play wrote); none by default.
    fn breakdown(&self, game_dirs: &[std::path::PathBuf]) -> Option<Breakdown> {
        let _ = game_dirs;
        None
    }
    /// The file of each game's folder that [`Game::breakdown`] reads, for a game that has a
    /// table of its own: only then are a shared tournament's files copied out for it.
    fn breakdown_file(&self) -> Option<&'static str> {
        None
    }
    /// The most CPUs a match uses ([`MatchSetup::cpus`]); a tournament claims no more for it,
    /// since a CPU claimed and not used is one another koth cannot have. Games that are an
    /// exchange between koth and one bot at a time keep to one.
    fn most_cpus(&self) -> usize {
        usize::MAX
    }
    /// Whether the game records its boards one by one and keeps those
    /// [`MatchSetup::record_boards`] names (the rat race); false for a game that writes its
    /// whole replay, which a tournament file's `record_boards` then does not apply to.
    fn records_boards(&self) -> bool {
        false
    }
    fn play<'a>(&'a self, setup: &'a MatchSetup) -> BoxFuture<'a, anyhow::Result<MatchResult>>;
}
