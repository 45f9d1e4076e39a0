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

pub use result::{BotResult, MatchResult, RESULTS_FILE};
pub use runtime::{play_placed, runtime};
pub use setup::{MatchSetup, ProgressFn, RecordBoards, ResultsTo, RoundProgress};

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

/// How a game's records number its rounds and turns. A person reads and types both counted from
/// 1 in every game (reports, `--drive`, `koth replay --round/--turn`, viewers, pages); what is
/// stored (`results.json`, `replay.jsonl`, transcripts, databases) keeps the game's own numbers,
/// which for paths, as its original controller wrote them, start at 0. Every place a person
/// reads a round or turn goes through this, so a fault shows at one place everywhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Numbering {
    /// The number the records give the first round (a rat-race board, a flag level…).
    pub first_round: u32,
    /// The number the records give the first turn of a round.
    pub first_turn: u32,
}

/// Records that count from 1, as a game's are unless it says otherwise.
impl Default for Numbering {
    fn default() -> Numbering {
        Numbering::FROM_ONE
    }
}

impl Numbering {
    /// Records that count from 1 already.
    pub const FROM_ONE: Numbering = Numbering {
        first_round: 1,
        first_turn: 1,
    };

    /// The numbering of the game called `game` in the registry; [`Numbering::FROM_ONE`] for
    /// a game it does not have.
    pub fn of(game: &str) -> Numbering {
        registry::by_name(game).map_or(Numbering::FROM_ONE, |game| game.numbering())
    }

    /// Round `stored`, as a person reads it.
    pub fn round(self, stored: u32) -> u32 {
        (stored + 1).saturating_sub(self.first_round)
    }

    /// Turn `stored`, as a person reads it.
    pub fn turn(self, stored: u32) -> u32 {
        (stored + 1).saturating_sub(self.first_turn)
    }

    /// The stored number of the round a person calls `shown` (from 1); `None` for 0 in a game
    /// whose records count from 0 (it would be no round). In one whose records count from 1, 0
    /// stays 0, as it always was looked for.
    pub fn stored_round(self, shown: u32) -> Option<u32> {
        (shown + self.first_round).checked_sub(1)
    }

    /// The stored number of the turn a person calls `shown` (from 1; 0, the start, before the
    /// first turn, stays 0 where the records count from 1 and has no stored number where they
    /// count from 0).
    pub fn stored_turn(self, shown: u32) -> Option<u32> {
        (shown + self.first_turn).checked_sub(1)
    }

    /// `round 3, turn 7`, `round 3`, or `None` without a round, as a person reads them.
    pub fn place(self, round: Option<u32>, turn: Option<u32>) -> Option<String> {
        let round = round?;
        Some(match turn {
            Some(turn) => format!("round {}, turn {}", self.round(round), self.turn(turn)),
            None => format!("round {}", self.round(round)),
        })
    }
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
    /// How the game's records number rounds and turns ([`Numbering`]): from 1 unless it says.
    fn numbering(&self) -> Numbering {
        Numbering::FROM_ONE
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

#[cfg(test)]
mod tests {
    use super::Numbering;

    #[test]
    fn a_person_reads_rounds_and_turns_from_1_whatever_the_records_count_from() {
        let paths = Numbering {
            first_round: 0,
            first_turn: 0,
        };
        assert_eq!(
            paths.place(Some(0), Some(4)).as_deref(),
            Some("round 1, turn 5")
        );
        assert_eq!(paths.place(Some(2), None).as_deref(), Some("round 3"));
        assert_eq!(paths.place(None, Some(4)), None);
        assert_eq!(paths.stored_round(1), Some(0));
        assert_eq!(paths.stored_round(0), None);
        assert_eq!(paths.stored_turn(5), Some(4));
        let menace = Numbering::FROM_ONE;
        assert_eq!(
            menace.place(Some(2), Some(3)).as_deref(),
            Some("round 2, turn 3")
        );
        assert_eq!(menace.stored_round(2), Some(2));
        // A record counting from 1 has no round 0 to be refused: it is looked for, as before.
        assert_eq!(menace.stored_round(0), Some(0));
    }
}
