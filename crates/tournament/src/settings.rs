//! The match settings: the keys of a tournament file ([`super::config`]) that a hill file takes
//! too — the game, its rounds and options, the time limits, containment, games at once, what a
//! game records and how late a watcher sees it — read and checked by one struct, which both
//! files' readers embed. Everything a game is played with comes from here
//! ([`GameParts::new`](super::play::GameParts::new)).

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, bail};
use serde::Deserialize;
use serde::de::{DeserializeSeed, Error as _, IgnoredAny, MapAccess, Visitor};

use koth_bot::{BotSpec, Clock, DataAsk, Limits, MAX_LIMIT_MS, Sandbox};
use koth_game::{Game, RecordBoards};

/// The keys both a tournament file and a hill file take. Each file reads them with
/// `toml::from_str` from its whole text, so an error names its line; a key no reader takes is
/// refused by [`check_keys`] beforehand.
#[derive(Debug, Clone, Deserialize)]
pub struct MatchSettings {
    /// Shown in the default folder name; absent = the file's name without `tournament-`.
    pub name: Option<String>,
    pub game: String,
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

/// Every key of [`MatchSettings`], in its order.
pub const KEYS: &[&str] = &[
    "name",
    "game",
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
    "record_boards",
    "options",
    "live_delay_s",
];

/// The longest delay of a game's records to its watchers: an hour.
const MAX_LIVE_DELAY_S: f64 = 3600.0;

/// The most games at once a file may ask for (as `koth worker --jobs`): each runs its bots as
/// processes, so a mistyped count must not start thousands.
const MAX_JOBS: usize = 1024;

/// The longest build step a file may allow: a day.
const MAX_BUILD_TIMEOUT_S: u64 = 86_400;

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

/// Refuses the first key of the TOML document `text` that is not one of `keys`, as serde's
/// `deny_unknown_fields` would (at the key's line, listing `keys`): the readers of a file's
/// parts each take only their own keys and pass over the rest.
pub fn check_keys(text: &str, keys: &'static [&'static str]) -> Result<(), toml::de::Error> {
    struct Known(&'static [&'static str]);
    impl<'de> DeserializeSeed<'de> for Known {
        type Value = ();
        fn deserialize<D: serde::Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
            let key = String::deserialize(de)?;
            match self.0.contains(&key.as_str()) {
                true => Ok(()),
                false => Err(D::Error::unknown_field(&key, self.0)),
            }
        }
    }
    struct File(&'static [&'static str]);
    impl<'de> Visitor<'de> for File {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a table of settings")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while map.next_key_seed(Known(self.0))?.is_some() {
                map.next_value::<IgnoredAny>()?;
            }
            Ok(())
        }
    }
    serde::Deserializer::deserialize_struct(
        toml::Deserializer::parse(text)?,
        "file",
        keys,
        File(keys),
    )
}

impl MatchSettings {
    /// Reads the settings of a file's text whose keys [`check_keys`] passed; the error is
    /// toml's own, naming the line.
    pub fn read(text: &str) -> Result<MatchSettings, toml::de::Error> {
        toml::from_str(text)
    }

    /// Checks the settings; an error names the key.
    pub fn check(&self) -> anyhow::Result<&'static dyn Game> {
        let game = self.game()?;
        if let Some(languages) = &self.languages {
            koth_bot::languages::check(languages)?;
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
                .map_err(|e| anyhow::anyhow!("`name` = {:?}: {e}", koth_base::text::shown(name)))?;
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
        if let Some(k) = self.players_per_game {
            let (min, max) = game.players();
            if k < min || k > max {
                bail!(
                    "`players_per_game` = {k}, but a {} game takes {min} to {max} bots",
                    game.name()
                );
            }
        }
        Ok(game)
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
    /// is checked by [`MatchSettings::check`]; a file's stem cannot hold a `/`), and a name as
    /// [`koth_base::text::check_name`] says.
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
                koth_base::text::shown(&file.display().to_string()),
                koth_base::text::shown(&name)
            )
        })?;
        Ok(name)
    }
}

/// Why `name` cannot be a folder of its own under `logs/`, if it cannot: a name with a `/` or
/// one that is `.` or `..` would put the tournament elsewhere.
fn check_folder_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name == "." || name == ".." {
        return Err("a name must be a plain folder name, not empty, `.` or `..`".into());
    }
    if name.contains('/') {
        return Err("a name must be a plain folder name: no `/`".into());
    }
    koth_base::text::check_name(name).map_err(|problem| format!("the name {problem}"))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The keys `T`'s serde derive takes, in its order: what a key list must say.
    pub(crate) fn fields_of<T: for<'de> Deserialize<'de>>() -> Vec<&'static str> {
        #[derive(Debug)]
        struct Fields(&'static [&'static str]);
        impl std::fmt::Display for Fields {
            fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(f, "{:?}", self.0)
            }
        }
        impl std::error::Error for Fields {}
        impl serde::de::Error for Fields {
            fn custom<M: std::fmt::Display>(_: M) -> Fields {
                Fields(&[])
            }
        }
        struct Catch;
        impl<'de> serde::Deserializer<'de> for Catch {
            type Error = Fields;
            fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Fields> {
                Err(Fields(&[]))
            }
            fn deserialize_struct<V: Visitor<'de>>(
                self,
                _: &'static str,
                fields: &'static [&'static str],
                _: V,
            ) -> Result<V::Value, Fields> {
                Err(Fields(fields))
            }
            serde::forward_to_deserialize_any! {
                bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
                byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
                identifier ignored_any
            }
        }
        match T::deserialize(Catch) {
            Err(Fields(fields)) => fields.to_vec(),
            Ok(_) => unreachable!("Catch never gives a value"),
        }
    }

    #[test]
    fn keys_lists_every_key_of_the_settings() {
        assert_eq!(fields_of::<MatchSettings>(), KEYS);
    }

    #[test]
    fn a_key_no_part_takes_is_refused_at_its_line_naming_the_keys() {
        let err = check_keys("game = \"nim\"\n\nroundz = 3\n", KEYS)
            .unwrap_err()
            .to_string();
        assert!(err.contains("line 3"), "{err}");
        assert!(
            err.contains("unknown field `roundz`, expected one of `name`, `game`, `rounds`"),
            "{err}"
        );
        check_keys("game = \"nim\"\nrounds = 3\n[options]\nheap = 2\n", KEYS).unwrap();
    }
}
