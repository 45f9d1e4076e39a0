//! The tournament file: which game, which bots, how many games, and the time limits.
//!
//! ```toml
//! game = "paths"
//! bots_dir = "../bots"        # or bots = ["../bots/a", ...], or bots_file = "../bots.txt"
//! games = 20
//! rounds = 10                 # rounds per game; absent = the game's default
//! answer_ms = 1000            # per-answer time limit
//! clock = "cpu"               # "wall" or "cpu"
//! backstop_ms = 5000          # wall-clock backstop of the CPU clock
//! answer_fuel = 50000000      # a WASI bot's budget per answer, in fuel (≈ instructions);
//!                             # answer_ms stays its wall-clock backstop
//! exit_fuel = 10000000        # a WASI bot's budget from its input's end to its exit
//! wasm_only = true            # every bot must be WASI: results the same on any machine
//! jobs = 2                    # games at once; absent = number of cores
//! seed = 1                    # master seed; absent = a fresh one (printed)
//! players_per_game = 4        # absent = every bot in every game
//! sandbox = true              # contain every bot (the default); false runs them uncontained
//! memory_mb = 2048            # a contained bot's memory cap per process
//! file_mb = 1024              # the largest file a contained bot may write
//! build_timeout_s = 600       # limit of each bot's build step
//! languages = ["python3", "/opt/python2.7/bin/python2"]
//!                             # the interpreters and compilers bots may use: names on koth's
//!                             # PATH, or full paths (lent to a contained bot that names the
//!                             # program); absent = the common ones koth's PATH has
//! keep_working_copies = false # keep each game's working copies of its bots (removed by default)
//! data_mb = 4                 # the most a learning bot's data/ may hold, in MiB (bot.toml's
//!                             # `data`); 0 forbids learning bots
//! live_delay_s = 0            # seconds a game's records wait before a watcher gets them
//!                             # (`/api/games/N/live`): the server holds them that long for all
//! record_boards = "all"       # the rat race's boards kept as replays: "first-and-faulted"
//!                             # (board 0 and the first board the bot faulted on; the default),
//!                             # "none" or "all"
//! challenger = "../bots/new"  # a gauntlet: this bot against each of the bots above
//! [sprt]                      # with a gauntlet: stop an opponent's games once the result is clear
//! elo0 = 0
//! elo1 = 50
//! ```
//!
//! Paths in the file are relative to the file's own folder, so a tournament file works from any
//! current directory.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use serde::Deserialize;

use koth_bot::{BotSpec, Clock, DataAsk, Limits, MAX_LIMIT_MS, Sandbox, roster};
use koth_game::{Game, RecordBoards};

use super::gauntlet::SprtConfig;

/// A parsed tournament file. Parsing touches no other file; [`Config::load_bots`] reads the bots.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Shown in the default folder name; absent = the file's name without `tournament-`.
    pub name: Option<String>,
    pub game: String,
    pub bots: Option<Vec<PathBuf>>,
    pub bots_file: Option<PathBuf>,
    pub bots_dir: Option<PathBuf>,
    pub games: u32,
    pub rounds: Option<u32>,
    #[serde(default = "default_answer_ms")]
    pub answer_ms: u64,
    /// From `SCORE` (or end of input) to exit; absent = `answer_ms`.
    pub exit_ms: Option<u64>,
    #[serde(default)]
    pub clock: ClockName,
    /// Wall-clock backstop of the CPU clock; absent = 5 × `answer_ms`.
    pub backstop_ms: Option<u64>,
    /// A WASI bot's fuel budget per answer ([`Limits::answer_fuel`]); absent = none.
    pub answer_fuel: Option<u64>,
    /// A WASI bot's fuel budget to exit ([`Limits::exit_fuel`]); absent = `answer_fuel`.
    pub exit_fuel: Option<u64>,
    /// Whether every bot must be a WASI bot, so that with fuel budgets the results are the
    /// same on any machine; absent = false.
    #[serde(default)]
    pub wasm_only: bool,
    pub jobs: Option<usize>,
    pub seed: Option<u64>,
    pub players_per_game: Option<usize>,
    /// Contain every bot ([`koth_bot::sandbox`]); absent = true.
    pub sandbox: Option<bool>,
    /// A contained bot's memory cap per process, in MiB; absent = 2048.
    pub memory_mb: Option<u64>,
    /// The largest file a contained bot may write, in MiB; absent = 1024.
    pub file_mb: Option<u64>,
    /// The interpreters and compilers bots may use ([`koth_bot::languages`]): names on
    /// koth's `PATH`, or full paths, which a contained bot naming the program is lent; absent =
    /// the common ones koth's `PATH` has.
    pub languages: Option<Vec<String>>,
    /// The limit of each bot's build step, in seconds.
    #[serde(default = "default_build_timeout_s")]
    pub build_timeout_s: u64,
    /// Whether a game's working copies of its bots (`games/<index>/bots/`) stay once the game
    /// is recorded; absent = false, they are removed.
    #[serde(default)]
    pub keep_working_copies: bool,
    /// The most a learning bot's data may hold, in MiB ([`koth_bot::data`]); 0 forbids
    /// learning bots; absent = [`koth_bot::data::DEFAULT_CAP_MB`].
    pub data_mb: Option<u64>,
    /// A gauntlet's challenger: it plays `games` games against each of the bots, which are its
    /// opponents ([`super::gauntlet`]).
    pub challenger: Option<PathBuf>,
    /// With a challenger: the sequential test that stops an opponent's games early.
    pub sprt: Option<SprtConfig>,
    /// Which boards a game that records boards one by one (the rat race) keeps as replays;
    /// absent = [`RecordBoards::FirstAndFaulted`].
    pub record_boards: Option<RecordBoards>,
    /// The game's own options (`[options]`, Nim's `heap`), given to every match; checked by the
    /// game ([`Game::check_options`]).
    #[serde(default)]
    pub options: toml::Table,
    /// How old a game's record must be before the server sends it to a watcher, in seconds;
    /// absent = 0 (as it is played).
    pub live_delay_s: Option<f64>,
}

/// Every key of a tournament file, as [`Config`] reads them: what a hill file, which takes the
/// game's keys of them, checks its own file against, naming the line of a key it does not take.
pub const KEYS: &[&str] = &[
    "name",
    "game",
    "bots",
    "bots_file",
    "bots_dir",
    "games",
    "rounds",
    "answer_ms",
    "exit_ms",
    "clock",
    "backstop_ms",
    "answer_fuel",
    "exit_fuel",
    "wasm_only",
    "jobs",
    "seed",
    "players_per_game",
    "sandbox",
    "memory_mb",
    "file_mb",
    "languages",
    "build_timeout_s",
    "keep_working_copies",
    "data_mb",
    "challenger",
    "sprt",
    "record_boards",
    "options",
    "live_delay_s",
];

/// The longest delay of a game's records to its watchers: an hour.
const MAX_LIVE_DELAY_S: f64 = 3600.0;

/// The most games a tournament file may ask for: the whole schedule is drawn and written to
/// the database before the first game, so a mistyped count must not exhaust memory or disk.
pub(crate) const MAX_GAMES: u32 = 1_000_000;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClockName {
    #[default]
    Wall,
    Cpu,
}

fn default_answer_ms() -> u64 {
    1000
}

fn default_build_timeout_s() -> u64 {
    koth_bot::build::DEFAULT_BUILD_LIMIT.as_secs()
}

impl Config {
    /// Reads and checks a tournament file; every error names the file (and the line or key).
    pub(crate) fn load(path: &Path) -> anyhow::Result<Config> {
        let text = koth_bot::text::read(path)?;
        Config::parse(&text, path)
    }

    pub fn parse(text: &str, path: &Path) -> anyhow::Result<Config> {
        let config: Config = toml::from_str(text)
            .map_err(|e| anyhow::anyhow!("{}: {}", path.display(), e.to_string().trim_end()))?;
        config
            .check()
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        Ok(config)
    }

    fn check(&self) -> anyhow::Result<()> {
        let game = self.game()?;
        if let Some(languages) = &self.languages {
            koth_bot::languages::check(languages)?;
        }
        let sources = [
            self.bots.is_some(),
            self.bots_file.is_some(),
            self.bots_dir.is_some(),
        ];
        if sources.iter().filter(|&&s| s).count() != 1 {
            bail!("give exactly one of `bots` (a list of folders), `bots_file` or `bots_dir`");
        }
        if !(1..=MAX_GAMES).contains(&self.games) {
            bail!("`games` = {}: give 1 to {MAX_GAMES} games", self.games);
        }
        if self.rounds == Some(0) {
            bail!("`rounds` must be at least 1");
        }
        let limits = [
            ("answer_ms", Some(self.answer_ms)),
            ("exit_ms", self.exit_ms),
            ("backstop_ms", self.backstop_ms),
        ];
        for (key, value) in limits {
            if let Some(ms) = value.filter(|ms| !(1..=MAX_LIMIT_MS).contains(ms)) {
                bail!("`{key}` = {ms}: give 1 to {MAX_LIMIT_MS} milliseconds");
            }
        }
        for (key, value) in [
            ("answer_fuel", self.answer_fuel),
            ("exit_fuel", self.exit_fuel),
        ] {
            if value == Some(0) {
                bail!("`{key}` = 0: give a budget of at least 1 fuel");
            }
        }
        if self.exit_fuel.is_some() && self.answer_fuel.is_none() {
            bail!("`exit_fuel` needs `answer_fuel`: give a WASI bot's budget per answer too");
        }
        if !(1..=MAX_BUILD_TIMEOUT_S).contains(&self.build_timeout_s) {
            bail!(
                "`build_timeout_s` = {}: give 1 to {MAX_BUILD_TIMEOUT_S} seconds",
                self.build_timeout_s
            );
        }
        if let Some(name) = &self.name {
            check_folder_name(name)
                .map_err(|e| anyhow::anyhow!("`name` = {:?}: {e}", koth_bot::text::shown(name)))?;
        }
        if let Some(delay) = self
            .live_delay_s
            .filter(|s| !(0.0..=MAX_LIVE_DELAY_S).contains(s))
        {
            bail!("`live_delay_s` = {delay}: give 0 to {MAX_LIVE_DELAY_S} seconds");
        }
        if self.backstop_ms.is_some() && self.clock == ClockName::Wall {
            bail!("`backstop_ms` applies only to clock = \"cpu\"");
        }
        if self.sandbox == Some(false) && (self.memory_mb.is_some() || self.file_mb.is_some()) {
            bail!("`memory_mb` and `file_mb` cap contained bots: they need sandbox = true");
        }
        for (key, value) in [("memory_mb", self.memory_mb), ("file_mb", self.file_mb)] {
            if value.is_some_and(|mb| mb == 0 || mb > 1 << 30) {
                bail!("`{key}` must be between 1 and {} (MiB)", 1u64 << 30);
            }
        }
        if let Some(record) = self.record_boards.filter(|_| !game.records_boards()) {
            bail!(
                "`record_boards` = \"{record}\": a {} game writes its whole replay; only the rat \
                 race records its boards one by one: leave the key out",
                game.name()
            );
        }
        if let Some(jobs) = self.jobs.filter(|jobs| !(1..=MAX_JOBS).contains(jobs)) {
            bail!("`jobs` = {jobs}: give 1 to {MAX_JOBS} games at once");
        }
        if self.sprt.is_some() && self.challenger.is_none() {
            bail!("`sprt` stops a gauntlet's games early: it needs a `challenger`");
        }
        if let Some(sprt) = &self.sprt {
            sprt.check().map_err(|e| anyhow::anyhow!(e))?;
        }
        if self.challenger.is_some() {
            let (min, max) = game.players();
            if !(min..=max).contains(&2) || self.players_per_game.is_some_and(|k| k != 2) {
                bail!(
                    "a gauntlet (`challenger`) plays duels, and a {} game takes {min} to {max} \
                     bots{}",
                    game.name(),
                    if (min..=max).contains(&2) {
                        ": leave out `players_per_game` or set it to 2"
                    } else {
                        ""
                    }
                );
            }
        }
        if let Some(k) = self.players_per_game {
            let (min, max) = game.players();
            if k < min || k > max {
                bail!(
                    "`players_per_game` = {k}, but a {} game takes {min} to {max} bots",
                    game.name()
                );
            }
        }
        Ok(())
    }

    /// The file's game, if koth has it and this machine can play it.
    pub fn game(&self) -> anyhow::Result<&'static dyn Game> {
        let game = koth_game::registry::by_name(&self.game).with_context(|| {
            let names: Vec<&str> = koth_game::registry::all()
                .iter()
                .map(|g| g.name())
                .collect();
            format!(
                "`game` = \"{}\" is not a game koth can run a tournament of (known: {})",
                self.game,
                names.join(", ")
            )
        })?;
        game.check(self.rounds)
            .map_err(|e| anyhow::anyhow!("`game` = \"{}\": {e:#}", self.game))?;
        game.check_options(self.rounds, &self.options)
            .map_err(|e| anyhow::anyhow!("[options]: {e:#}"))?;
        Ok(game)
    }

    /// The bots, with relative paths taken from `base` (the tournament file's folder).
    pub(crate) fn load_bots(&self, base: &Path, file: &Path) -> anyhow::Result<Vec<BotSpec>> {
        let bots = if let Some(dirs) = &self.bots {
            let bots = dirs
                .iter()
                .map(|dir| roster::load_bot(&absolute(base, dir)))
                .collect::<anyhow::Result<Vec<_>>>()?;
            roster::check_unique_names(&bots)?;
            bots
        } else if let Some(list) = &self.bots_file {
            roster::load_bots_txt(&absolute(base, list))?
        } else if let Some(root) = &self.bots_dir {
            roster::discover(&absolute(base, root), &self.game)?
        } else {
            unreachable!("checked by Config::check")
        };
        self.check_bots(&bots, file)?;
        if let Some(challenger) = &self.challenger {
            return self.gauntlet_bots(absolute(base, challenger), bots, file);
        }
        let (min, max) = self.game()?.players();
        let per_game = self.players_per_game.unwrap_or(bots.len());
        // The remedy named is one that can help: more bots where the game needs more than are
        // listed, else `players_per_game` (checked against the game above).
        let remedy = if bots.len() < min {
            format!("list at least {min}")
        } else if per_game > bots.len() {
            format!(
                "list {per_game} or more, or set `players_per_game` to {min} to {}",
                bots.len()
            )
        } else {
            format!("set `players_per_game` to {min} to {max}")
        };
        if per_game > bots.len()
            || bots.len() < min
            || (self.players_per_game.is_none() && bots.len() > max)
        {
            bail!(
                "{}: {} bots listed, but each game needs {} of them ({} takes {min} to {max}; {remedy})",
                file.display(),
                bots.len(),
                if bots.len() < min { min } else { per_game },
                self.game
            );
        }
        Ok(bots)
    }

    /// Whether the game can give each of `bots` what it asks of it (its `[protocols]`).
    fn check_bots(&self, bots: &[BotSpec], file: &Path) -> anyhow::Result<()> {
        let game = self.game()?;
        for bot in bots {
            game.check_bot(bot)
                .map_err(|e| anyhow::anyhow!("{}: {e:#}", file.display()))?;
            self.check_wasm_only(bot)
                .map_err(|e| anyhow::anyhow!("{}: {e:#}", file.display()))?;
            self.check_data(bot)
                .map_err(|e| anyhow::anyhow!("{}: {e:#}", file.display()))?;
        }
        Ok(())
    }

    /// The cap on a learning bot's data, in MiB (`data_mb`).
    pub fn data_cap_mb(&self) -> u64 {
        self.data_mb.unwrap_or(koth_bot::data::DEFAULT_CAP_MB)
    }

    /// Whether `bot`'s data fits the cap: a bot asking for data where `data_mb` = 0, or for
    /// more than the cap, is refused naming both figures.
    pub fn check_data(&self, bot: &BotSpec) -> anyhow::Result<()> {
        let Some(ask) = bot.data else {
            return Ok(());
        };
        let cap = self.data_cap_mb();
        if cap == 0 {
            bail!(
                "{bot} keeps data (`data` in its bot.toml), but `data_mb` = 0 here forbids \
                 learning bots"
            );
        }
        if let Some(mb) = ask.mb.filter(|&mb| mb > cap) {
            bail!("{bot} asks for `data_mb` = {mb}, more than the cap here, `data_mb` = {cap}");
        }
        Ok(())
    }

    /// `ask`, as a game gives it: the size it asked for, or the cap.
    pub fn data_for(&self, ask: Option<DataAsk>) -> Option<DataAsk> {
        let cap = self.data_cap_mb();
        ask.map(|ask| DataAsk {
            mb: Some(ask.mb.unwrap_or(cap).min(cap)),
            ..ask
        })
    }

    /// With `wasm_only = true`, whether `bot` is a WASI bot.
    pub fn check_wasm_only(&self, bot: &BotSpec) -> anyhow::Result<()> {
        if self.wasm_only && bot.wasm_module().is_none() {
            bail!(
                "`wasm_only` = true, but {bot} is a process: only bots whose bot.toml names a \
                 `wasm` module may play"
            );
        }
        Ok(())
    }

    /// A gauntlet's bots: the challenger first, then its opponents, which are the bots listed
    /// less the challenger's own folder (a `bots_dir` holding it, say).
    fn gauntlet_bots(
        &self,
        challenger: PathBuf,
        listed: Vec<BotSpec>,
        file: &Path,
    ) -> anyhow::Result<Vec<BotSpec>> {
        let challenger = roster::load_bot(&challenger)?;
        self.check_bots(std::slice::from_ref(&challenger), file)?;
        let same_folder = |bot: &BotSpec| {
            let real = |dir: &Path| std::fs::canonicalize(dir).unwrap_or_else(|_| dir.into());
            real(&bot.dir) == real(&challenger.dir)
        };
        let opponents: Vec<BotSpec> = listed.into_iter().filter(|b| !same_folder(b)).collect();
        if opponents.is_empty() {
            bail!(
                "{}: the gauntlet's challenger {} has no opponents: list them in `bots`, \
                 `bots_file` or `bots_dir`",
                file.display(),
                challenger
            );
        }
        let total = u64::from(self.games) * opponents.len() as u64;
        if total > u64::from(MAX_GAMES) {
            bail!(
                "{}: `games` = {} against each of {} opponents is {total} games; give at most \
                 {MAX_GAMES} in all",
                file.display(),
                self.games,
                opponents.len()
            );
        }
        let bots: Vec<BotSpec> = std::iter::once(challenger).chain(opponents).collect();
        roster::check_unique_names(&bots)?;
        Ok(bots)
    }

    pub fn limits(&self) -> Limits {
        let answer = Duration::from_millis(self.answer_ms);
        let clock = match self.clock {
            ClockName::Wall => Clock::Wall,
            ClockName::Cpu => Clock::Cpu {
                backstop: Duration::from_millis(
                    self.backstop_ms.unwrap_or(self.answer_ms.saturating_mul(5)),
                ),
            },
        };
        Limits {
            answer,
            exit: Duration::from_millis(self.exit_ms.unwrap_or(self.answer_ms)),
            clock,
            answer_fuel: self.answer_fuel,
            exit_fuel: self.exit_fuel.or(self.answer_fuel),
        }
    }

    /// How the bots are contained, or `None` for `sandbox = false`.
    pub fn sandbox(&self) -> Option<Sandbox> {
        let default = Sandbox::default();
        self.sandbox.unwrap_or(true).then(|| Sandbox {
            memory_mb: self.memory_mb.unwrap_or(default.memory_mb),
            file_mb: self.file_mb.unwrap_or(default.file_mb),
            programs: koth_bot::languages::full_paths(self.languages.as_deref()),
            ..default
        })
    }

    /// How `bots` are contained, or `None` for `sandbox = false`: as [`Config::sandbox`], and
    /// lent the programs a `bots_file`'s lines name by their full path (its owner's words).
    pub(crate) fn sandbox_for(&self, bots: &[BotSpec]) -> Option<Sandbox> {
        let mut sandbox = self.sandbox()?;
        if self.bots_file.is_some() {
            sandbox.programs.extend(roster::named_by_path(bots));
        }
        Some(sandbox)
    }

    pub fn jobs(&self) -> usize {
        self.jobs.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        })
    }

    /// The limit of each bot's build step.
    pub fn build_limit(&self) -> Duration {
        Duration::from_secs(self.build_timeout_s)
    }

    /// The tournament's name: the `name` key, or the file's name without `tournament-`. It is
    /// part of the default folder's name under `logs/`, so it is a plain folder name (the key
    /// is checked by [`Config::parse`]; a file's stem cannot hold a `/`), and a name as
    /// [`koth_bot::text::check_name`] says.
    pub fn name(&self, file: &Path) -> anyhow::Result<String> {
        if let Some(name) = &self.name {
            return Ok(name.clone());
        }
        let stem = file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "tournament".into());
        let name = stem
            .strip_prefix("tournament-")
            .unwrap_or(&stem)
            .to_string();
        check_folder_name(&name).map_err(|e| {
            anyhow::anyhow!(
                "{}: the tournament's name {:?}, from the file's name, {e}; give a `name`",
                koth_bot::text::shown(&file.display().to_string()),
                koth_bot::text::shown(&name)
            )
        })?;
        Ok(name)
    }
}

/// The most games at once a tournament file may ask for (as `koth worker --jobs`): each runs
/// its bots as processes, so a mistyped count must not start thousands.
const MAX_JOBS: usize = 1024;

/// The longest build step a tournament file may allow: a day.
const MAX_BUILD_TIMEOUT_S: u64 = 86_400;

/// Why `name` cannot be a folder of its own under `logs/`, if it cannot: a name with a `/` or
/// one that is `.` or `..` would put the tournament elsewhere.
fn check_folder_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name == "." || name == ".." {
        return Err("a name must be a plain folder name, not empty, `.` or `..`".into());
    }
    if name.contains('/') {
        return Err("a name must be a plain folder name: no `/`".into());
    }
    koth_bot::text::check_name(name).map_err(|problem| format!("the name {problem}"))
}

fn absolute(base: &Path, path: &Path) -> PathBuf {
    let joined = base.join(path);
    std::path::absolute(&joined).unwrap_or(joined)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_lists_every_key_a_tournament_file_takes() {
        // serde names the keys it takes when it refuses another: the list must be that one.
        let err = Config::parse("no_such_key = 1\n", Path::new("t.toml"))
            .unwrap_err()
            .to_string();
        let taken: Vec<&str> = err
            .split_once("expected one of ")
            .map(|(_, list)| {
                list.trim()
                    .split(", ")
                    .map(|k| k.trim_matches('`'))
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(taken, KEYS, "{err}");
    }
}
