//! The hill file: the match settings a tournament file takes too ([`MatchSettings`]: `game`,
//! `players_per_game`, `rounds`, `answer_ms`, `exit_ms`, `clock`, `backstop_ms`, `sandbox`,
//! `memory_mb`, `file_mb`, `build_timeout_s`, `record_boards`, `live_delay_s`, `seed`, `jobs`,
//! `answer_fuel`, `exit_fuel`, `wasm_only`, `languages`, …), read and checked by the same code,
//! and the hill's own keys:
//!
//! ```toml
//! name = "ttt"               # the hill's name; absent = the file's name without `hill-`
//! min_players = 4            # the fewest seats a game has (absent: the fewest the game takes);
//!                            # a newcomer is validated at it and at `players_per_game`
//! placement_games = 10       # games a new version plays first
//! far_share = 0.1            # share of games against an opponent drawn at random
//! suspend_share = 0.2        # a version that cannot play (failed to start, or faults in 5%
//!                            # of its prompts) in more than this share of its last…
//! suspend_window = 10        # …this many games (or more) stops being scheduled
//!
//! [submissions]              # uploads from authors (`koth hill author add`), all optional
//! upload_mb = 10             # an upload's size: the body is cut off there
//! unpacked_mb = 100          # bytes an upload may unpack to
//! entries = 10000            # files and folders in an upload
//! path_bytes = 255           # bytes of an entry's path…
//! path_depth = 16            # …and its folders
//! upload_timeout_s = 60      # the whole body must arrive within this
//! active_bots = 3            # bots an author may have on the hill at once
//! per_hour = 5               # submissions an author may send in an hour (× build_timeout_s
//!                            # at most 3600: the builder's hour)
//! stored_mb = 200            # bytes of an author's kept versions
//! kept_versions = 3          # versions of a bot whose files are kept (results always are)
//! build_queue = 20           # submissions waiting to be built, the whole hill's
//! builders = 1               # submissions built at once
//! public_logs = false        # stderr and transcripts for everyone, not just their author
//!
//! [contest]                  # a contest: a deadline, a frozen field and a final (optional)
//! closes = "2026-12-01T18:00:00Z"  # uploads and new versions close then (RFC 3339, UTC)
//! finalists = 8              # the table's first this many at the close play the final
//! budget = 2000              # the most games the final may play (whole balanced rounds)
//! ```
//!
//! A hill has no bot list and no game count: bots join with `koth hill add`, and games are
//! played until the hill is stopped.

use std::path::Path;

use anyhow::bail;
use serde::Deserialize;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use koth_tournament::settings::{self, MatchSettings};

use super::matchmaking::Tuning;

/// The hill's own keys (the file's keys are checked before it is read).
#[derive(Debug, Clone, Deserialize)]
struct HillKeys {
    min_players: Option<usize>,
    placement_games: Option<u32>,
    far_share: Option<f64>,
    suspend_share: Option<f64>,
    suspend_window: Option<u32>,
    submissions: Option<Submissions>,
    contest: Option<ContestKeys>,
}

/// What the hill takes from authors over HTTP, and how much (`[submissions]`). The defaults
/// are what a public hill can start with.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Submissions {
    pub upload_mb: u64,
    pub unpacked_mb: u64,
    pub entries: u64,
    pub path_bytes: usize,
    pub path_depth: usize,
    pub upload_timeout_s: u64,
    pub active_bots: u32,
    pub per_hour: u32,
    pub stored_mb: u64,
    pub kept_versions: u32,
    pub build_queue: u32,
    /// Submissions built at once, each on a builder of its own.
    pub builders: u32,
    pub public_logs: bool,
}

impl Default for Submissions {
    fn default() -> Submissions {
        let caps = koth_base::archive::Caps::default();
        Submissions {
            upload_mb: 10,
            unpacked_mb: caps.unpacked_bytes >> 20,
            entries: caps.entries,
            path_bytes: caps.path_bytes,
            path_depth: caps.depth,
            upload_timeout_s: 60,
            active_bots: 3,
            per_hour: 5,
            stored_mb: 200,
            kept_versions: 3,
            build_queue: 20,
            builders: 1,
            public_logs: false,
        }
    }
}

impl Submissions {
    /// What an upload may unpack to.
    pub fn caps(&self) -> koth_base::archive::Caps {
        koth_base::archive::Caps {
            unpacked_bytes: self.unpacked_mb << 20,
            entries: self.entries,
            path_bytes: self.path_bytes,
            depth: self.path_depth,
        }
    }

    fn check(&self) -> anyhow::Result<()> {
        let positive = [
            ("upload_mb", self.upload_mb),
            ("unpacked_mb", self.unpacked_mb),
            ("entries", self.entries),
            ("path_bytes", self.path_bytes as u64),
            ("path_depth", self.path_depth as u64),
            ("upload_timeout_s", self.upload_timeout_s),
            ("active_bots", u64::from(self.active_bots)),
            ("per_hour", u64::from(self.per_hour)),
            ("stored_mb", self.stored_mb),
            ("kept_versions", u64::from(self.kept_versions)),
            ("build_queue", u64::from(self.build_queue)),
            ("builders", u64::from(self.builders)),
        ];
        if let Some((key, _)) = positive.iter().find(|(_, value)| *value == 0) {
            bail!("`submissions.{key}` must be at least 1");
        }
        if self.builders > 64 {
            bail!("`submissions.builders` is at most 64");
        }
        if self.upload_mb > 4096 || self.unpacked_mb > 65_536 {
            bail!("`submissions.upload_mb` is at most 4096 and `unpacked_mb` at most 65536");
        }
        Ok(())
    }
}

/// A parsed hill file.
#[derive(Debug, Clone)]
pub struct HillConfig {
    /// The match settings, as a tournament file holds them.
    pub game: MatchSettings,
    /// The fewest seats a game of the hill has (`min_players`); none: the fewest the game
    /// takes. No game is seated below it: a new hill waits until that many versions are active.
    pub min_players: Option<usize>,
    pub tuning: Tuning,
    pub suspension: Suspension,
    pub submissions: Submissions,
    /// A contest's close, finalists and budget (`[contest]`, [`crate::contest`]).
    pub contest: Option<Contest>,
}

/// When a version stops being scheduled for its faults.
#[derive(Debug, Clone, Copy)]
pub struct Suspension {
    /// Faulting in more than this share of its recent games…
    pub share: f64,
    /// …counted over its last this many games (and no fewer).
    pub window: u32,
}

const HILL_KEYS: [&str; 7] = [
    "min_players",
    "placement_games",
    "far_share",
    "suspend_share",
    "suspend_window",
    "submissions",
    "contest",
];
/// Keys of a tournament file (its lineup) a hill has no use for.
const NOT_FOR_A_HILL: [(&str, &str); 6] = [
    ("bots", "bots join a hill with `koth hill add`"),
    ("bots_file", "bots join a hill with `koth hill add`"),
    ("bots_dir", "bots join a hill with `koth hill add`"),
    (
        "games",
        "a hill plays until it is stopped (`koth hill run --games N` stops early)",
    ),
    ("challenger", "a hill has no gauntlet"),
    ("sprt", "a hill has no gauntlet"),
];

impl HillConfig {
    pub(crate) fn load(path: &Path) -> anyhow::Result<HillConfig> {
        HillConfig::parse(&koth_base::text::read(path)?, path)
    }

    /// Reads a hill file's text; every error names the file and the key.
    pub fn parse(text: &str, path: &Path) -> anyhow::Result<HillConfig> {
        let named = |e: anyhow::Error| anyhow::anyhow!("{}: {e}", path.display());
        let toml_error = |e: toml::de::Error| {
            anyhow::anyhow!("{}: {}", path.display(), e.to_string().trim_end())
        };
        // Each key checked against the file itself, so a refusal names its own line; each part
        // is then read from the whole text, passing over the other part's keys.
        let keys = toml::de::DeTable::parse(text).map_err(toml_error)?;
        for (key, _) in keys.get_ref().iter() {
            let key_name: &str = key.get_ref();
            let line = text[..key.span().start].matches('\n').count() + 1;
            let at = |why: String| anyhow::anyhow!("{}: line {line}: {why}", path.display());
            if let Some((_, why)) = NOT_FOR_A_HILL.iter().find(|(k, _)| *k == key_name) {
                return Err(at(format!("`{key_name}` is not a hill key: {why}")));
            }
            if !HILL_KEYS.contains(&key_name) && !settings::KEYS.contains(&key_name) {
                let taken: Vec<&str> = settings::KEYS
                    .iter()
                    .chain(HILL_KEYS.iter())
                    .copied()
                    .collect();
                return Err(at(format!(
                    "`{}` is not a key of a hill file; it takes {}",
                    koth_base::text::shown(key_name),
                    taken.join(", ")
                )));
            }
        }
        let keys: HillKeys = toml::from_str(text).map_err(toml_error)?;
        let game = MatchSettings::read(text).map_err(toml_error)?;
        game.check().map_err(named)?;
        let config = HillConfig {
            min_players: keys.min_players,
            tuning: Tuning {
                placement_games: keys.placement_games.unwrap_or(10),
                far_share: keys.far_share.unwrap_or(0.1),
            },
            suspension: Suspension {
                share: keys.suspend_share.unwrap_or(0.2),
                window: keys.suspend_window.unwrap_or(10),
            },
            submissions: keys.submissions.unwrap_or_default(),
            game,
            contest: None,
        };
        config.check().map_err(named)?;
        let contest = keys
            .contest
            .map(|c| c.check(config.players(), config.fewest()))
            .transpose()
            .map_err(named)?;
        Ok(HillConfig { contest, ..config })
    }

    fn check(&self) -> anyhow::Result<()> {
        if !(0.0..=1.0).contains(&self.tuning.far_share) {
            bail!("`far_share` = {}: give 0 to 1", self.tuning.far_share);
        }
        if !(0.0..1.0).contains(&self.suspension.share) {
            bail!(
                "`suspend_share` = {}: give 0 to less than 1",
                self.suspension.share
            );
        }
        if self.suspension.window == 0 {
            bail!("`suspend_window` must be at least 1");
        }
        self.submissions.check()?;
        // Each builder builds one submission at a time: if one author could send them more
        // than an hour of builds an hour, the queue would never drain.
        let build_s = self.game.build_timeout_s;
        let hourly = u64::from(self.submissions.per_hour) * build_s;
        let builders = u64::from(self.submissions.builders);
        if self.game.sandbox().is_some() && hourly > 3600 * builders {
            bail!(
                "`submissions.per_hour` = {} × `build_timeout_s` = {build_s}: one author could \
                 send {hourly} s of builds an hour, more than the hill's {builders} builder(s) \
                 do in an hour ({} s, `submissions.builders`); lower either, or add builders",
                self.submissions.per_hour,
                3600 * builders
            );
        }
        if self.tuning.placement_games > 1000 {
            bail!(
                "`placement_games` = {}: give at most 1000",
                self.tuning.placement_games
            );
        }
        if let Some(min) = self.min_players {
            let (fewest, most) = (self.game_fewest(), self.players());
            if !(fewest..=most).contains(&min) {
                bail!(
                    "`min_players` = {min}: give {fewest} to {most} (the fewest a game of {} \
                     takes, and `players_per_game`)",
                    self.game.game
                );
            }
        }
        let (_, max) = self.game.game()?.players();
        if max < 2 || self.players() < 2 {
            bail!(
                "a hill ranks bots by the games they play against each other: a {} game is \
                 played alone",
                self.game.game
            );
        }
        Ok(())
    }

    /// Seats in each game: the file's `players_per_game`, else the fewest the game takes.
    pub fn players(&self) -> usize {
        self.game.players_per_game.unwrap_or(self.game_fewest())
    }

    /// The fewest seats a game of the hill's game takes (at least two: a hill ranks by games
    /// against each other).
    fn game_fewest(&self) -> usize {
        let (min, _) = self.game.game().map_or((2, 2), |g| g.players());
        min.max(2)
    }

    /// The fewest seats a game of the hill has: `min_players`, else the fewest the game takes.
    pub fn fewest(&self) -> usize {
        self.min_players.unwrap_or_else(|| self.game_fewest())
    }

    /// Seats in the next game while `scheduled` versions can play: [`players`](Self::players),
    /// or every one of them while there are fewer, down to [`fewest`](Self::fewest), so a new
    /// hill of a few bots plays (a paths hill of seven a game, with the four sample bots, plays
    /// games of four) instead of waiting; below `min_players` it waits.
    pub fn seats(&self, scheduled: usize) -> usize {
        self.players().min(scheduled.max(self.fewest()))
    }

    /// The table sizes a newcomer is validated at: the fewest and the most seats a game of the
    /// hill can have, so a bot that only breaks at one size is refused naming it.
    pub fn validated_sizes(&self) -> Vec<usize> {
        let (fewest, most) = (self.fewest().min(self.players()), self.players());
        if fewest == most {
            vec![most]
        } else {
            vec![fewest, most]
        }
    }
}

/// A hill file's `[contest]`, checked.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Contest {
    /// When submissions close, in unix seconds.
    pub closes: i64,
    pub finalists: usize,
    pub budget: u32,
}

/// `[contest]` as the file writes it: `closes` a TOML datetime or an RFC 3339 string.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ContestKeys {
    closes: toml::Value,
    finalists: usize,
    budget: u32,
}

impl ContestKeys {
    /// The contest, its keys checked alone (`seats`: the most a game of the hill seats, the
    /// fewest it may).
    pub(crate) fn check(&self, seats: usize, fewest: usize) -> anyhow::Result<Contest> {
        let text = match &self.closes {
            toml::Value::String(text) => text.clone(),
            toml::Value::Datetime(when) => when.to_string(),
            other => bail!(
                "`contest.closes` = {other}: give a UTC time, as RFC 3339 \
                 (closes = \"2026-12-01T18:00:00Z\")"
            ),
        };
        let closes = OffsetDateTime::parse(&text, &Rfc3339).map_err(|e| {
            anyhow::anyhow!(
                "`contest.closes` = {text:?}: {e}; give a time with its offset, as RFC 3339 \
                 (closes = \"2026-12-01T18:00:00Z\")"
            )
        })?;
        let finalists = self.finalists;
        if !(2..=256).contains(&finalists) {
            bail!("`contest.finalists` = {finalists}: give 2 to 256");
        }
        let at_table = seats.min(finalists);
        if at_table < fewest {
            bail!(
                "`contest.finalists` = {finalists}: a game of this hill seats at least {fewest}, \
                 so a final needs that many finalists"
            );
        }
        let Some(round) =
            super::contest::schedule::round_size(finalists, at_table).filter(|&n| n <= 100_000)
        else {
            bail!(
                "`contest.finalists` = {finalists} at tables of {at_table}: a balanced round of \
                 the final (every table, every seat) would pass 100000 games; give fewer"
            );
        };
        if self.budget < round {
            bail!(
                "`contest.budget` = {}: one balanced round of the final is {round} games \
                 ({finalists} finalists, {at_table} a game: every table once with every seat \
                 taken by each); give at least {round}",
                self.budget
            );
        }
        Ok(Contest {
            closes: closes.unix_timestamp(),
            finalists,
            budget: self.budget,
        })
    }
}
