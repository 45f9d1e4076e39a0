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
//! current directory. The keys a hill file takes too are the [match settings](super::settings);
//! the rest, the [`Lineup`], are a tournament's own.

use std::path::{Path, PathBuf};

use anyhow::bail;
use serde::Deserialize;

use koth_bot::{BotSpec, Sandbox, roster};

use super::gauntlet::SprtConfig;
use super::settings::{self, MatchSettings, check_keys};

/// A parsed tournament file: its match settings and its lineup. Parsing touches no other file;
/// [`Config::load_bots`] reads the bots.
#[derive(Debug, Clone)]
pub struct Config {
    pub settings: MatchSettings,
    pub lineup: Lineup,
}

/// The keys only a tournament file takes: who plays, and how many games.
#[derive(Debug, Clone, Deserialize)]
pub struct Lineup {
    pub bots: Option<Vec<PathBuf>>,
    pub bots_file: Option<PathBuf>,
    pub bots_dir: Option<PathBuf>,
    pub games: u32,
    /// A gauntlet's challenger: it plays `games` games against each of the bots, which are its
    /// opponents ([`super::gauntlet`]).
    pub challenger: Option<PathBuf>,
    /// With a challenger: the sequential test that stops an opponent's games early.
    pub sprt: Option<SprtConfig>,
}

/// The [`Lineup`]'s keys, which a tournament file takes beside the
/// [match settings](super::settings::KEYS).
const LINEUP_KEYS: [&str; 6] = [
    "bots",
    "bots_file",
    "bots_dir",
    "games",
    "challenger",
    "sprt",
];

/// Every key of a tournament file, each name written once (in [`LINEUP_KEYS`] or the settings'
/// list), in the order a refusal lists them: the settings' `name` and `game`, the line-up's,
/// then the rest of the settings'.
pub const KEYS: &[&str] = &{
    let (name_and_game, rest) = settings::KEYS.split_at(2);
    joined::<{ settings::KEYS.len() + LINEUP_KEYS.len() }>([name_and_game, &LINEUP_KEYS, rest])
};

/// `parts` one after the other, in a constant (serde's refusal of an unknown key takes a
/// `'static` list).
const fn joined<const N: usize>(parts: [&[&'static str]; 3]) -> [&'static str; N] {
    let mut keys = [""; N];
    let (mut part, mut at) = (0, 0);
    while part < parts.len() {
        let mut i = 0;
        while i < parts[part].len() {
            keys[at] = parts[part][i];
            (i, at) = (i + 1, at + 1);
        }
        part += 1;
    }
    assert!(at == N, "the count of keys is the parts' lengths added");
    keys
}

/// The most games a tournament file may ask for: the whole schedule is drawn and written to
/// the database before the first game, so a mistyped count must not exhaust memory or disk.
pub(crate) const MAX_GAMES: u32 = 1_000_000;

impl Config {
    /// Reads and checks a tournament file; every error names the file (and the line or key).
    pub(crate) fn load(path: &Path) -> anyhow::Result<Config> {
        let text = koth_base::text::read(path)?;
        Config::parse(&text, path)
    }

    pub fn parse(text: &str, path: &Path) -> anyhow::Result<Config> {
        let toml_error = |e: toml::de::Error| {
            anyhow::anyhow!("{}: {}", path.display(), e.to_string().trim_end())
        };
        check_keys(text, KEYS).map_err(toml_error)?;
        let config = Config {
            settings: MatchSettings::read(text).map_err(toml_error)?,
            lineup: toml::from_str(text).map_err(toml_error)?,
        };
        config
            .check()
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        Ok(config)
    }

    fn check(&self) -> anyhow::Result<()> {
        let game = self.settings.check()?;
        let lineup = &self.lineup;
        let sources = [
            lineup.bots.is_some(),
            lineup.bots_file.is_some(),
            lineup.bots_dir.is_some(),
        ];
        if sources.iter().filter(|&&s| s).count() != 1 {
            bail!("give exactly one of `bots` (a list of folders), `bots_file` or `bots_dir`");
        }
        if !(1..=MAX_GAMES).contains(&lineup.games) {
            bail!("`games` = {}: give 1 to {MAX_GAMES} games", lineup.games);
        }
        if lineup.sprt.is_some() && lineup.challenger.is_none() {
            bail!("`sprt` stops a gauntlet's games early: it needs a `challenger`");
        }
        if let Some(sprt) = &lineup.sprt {
            sprt.check().map_err(|e| anyhow::anyhow!(e))?;
        }
        if lineup.challenger.is_some() {
            let (min, max) = game.players();
            if !(min..=max).contains(&2) || self.settings.players_per_game.is_some_and(|k| k != 2) {
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
        Ok(())
    }

    /// The bots, with relative paths taken from `base` (the tournament file's folder).
    pub(crate) fn load_bots(&self, base: &Path, file: &Path) -> anyhow::Result<Vec<BotSpec>> {
        let bots = if let Some(dirs) = &self.lineup.bots {
            let bots = dirs
                .iter()
                .map(|dir| roster::load_bot(&absolute(base, dir)))
                .collect::<anyhow::Result<Vec<_>>>()?;
            roster::check_unique_names(&bots)?;
            bots
        } else if let Some(list) = &self.lineup.bots_file {
            roster::load_bots_txt(&absolute(base, list))?
        } else if let Some(root) = &self.lineup.bots_dir {
            roster::discover(&absolute(base, root), &self.settings.game)?
        } else {
            unreachable!("checked by Config::check")
        };
        self.check_bots(&bots, file)?;
        if let Some(challenger) = &self.lineup.challenger {
            return self.gauntlet_bots(absolute(base, challenger), bots, file);
        }
        let (min, max) = self.settings.game()?.players();
        let per_game = self.settings.players_per_game.unwrap_or(bots.len());
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
            || (self.settings.players_per_game.is_none() && bots.len() > max)
        {
            bail!(
                "{}: {} bots listed, but each game needs {} of them ({} takes {min} to {max}; {remedy})",
                file.display(),
                bots.len(),
                if bots.len() < min { min } else { per_game },
                self.settings.game
            );
        }
        Ok(bots)
    }

    /// Whether the game can give each of `bots` what it asks of it (its `[protocols]`).
    fn check_bots(&self, bots: &[BotSpec], file: &Path) -> anyhow::Result<()> {
        let game = self.settings.game()?;
        for bot in bots {
            game.check_bot(bot)
                .map_err(|e| anyhow::anyhow!("{}: {e:#}", file.display()))?;
            self.settings
                .check_wasm_only(bot)
                .map_err(|e| anyhow::anyhow!("{}: {e:#}", file.display()))?;
            self.settings
                .check_data(bot)
                .map_err(|e| anyhow::anyhow!("{}: {e:#}", file.display()))?;
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
        let total = u64::from(self.lineup.games) * opponents.len() as u64;
        if total > u64::from(MAX_GAMES) {
            bail!(
                "{}: `games` = {} against each of {} opponents is {total} games; give at most \
                 {MAX_GAMES} in all",
                file.display(),
                self.lineup.games,
                opponents.len()
            );
        }
        let bots: Vec<BotSpec> = std::iter::once(challenger).chain(opponents).collect();
        roster::check_unique_names(&bots)?;
        Ok(bots)
    }

    /// How `bots` are contained, or `None` for `sandbox = false`: as [`MatchSettings::sandbox`], and
    /// lent the programs a `bots_file`'s lines name by their full path (its owner's words).
    pub(crate) fn sandbox_for(&self, bots: &[BotSpec]) -> Option<Sandbox> {
        let mut sandbox = self.settings.sandbox()?;
        if self.lineup.bots_file.is_some() {
            sandbox.programs.extend(roster::named_by_path(bots));
        }
        Some(sandbox)
    }
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
        // Each key once: the match settings' and the lineup's, nothing else.
        let mut parts = crate::settings::tests::fields_of::<MatchSettings>();
        parts.extend(crate::settings::tests::fields_of::<Lineup>());
        let mut keys = KEYS.to_vec();
        parts.sort_unstable();
        keys.sort_unstable();
        assert_eq!(parts, keys);
        let err = Config::parse("game = \"nim\"\nno_such_key = 1\n", Path::new("t.toml"))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("t.toml: TOML parse error at line 2")
                && err.contains(
                    "unknown field `no_such_key`, expected one of `name`, `game`, `bots`"
                ),
            "{err}"
        );
    }
}
