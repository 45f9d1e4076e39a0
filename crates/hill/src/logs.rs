//! What a bot's author reads of the games it played, and what everyone else reads instead.
//!
//! Every game keeps each bot's stderr (capped at [`koth_bot::stderr::STDERR_CAP`] a game) and
//! transcript (capped at 8 MiB) in its folder, `games/<n>/stderr/` and `games/<n>/transcripts/`,
//! ranked games and validation games alike. Its author reads them with their token ([`read`]),
//! with the server's folders replaced by names the author knows ([`Paths`]); everyone else
//! reads that they are [`KEPT_FOR_AUTHOR`], and fault reasons without the stderr they quote
//! ([`public_reason`]), unless the hill's `submissions.public_logs` is set.

use std::path::Path;

use anyhow::Context;
use serde::Serialize;

use koth_bot::roster::WORKING_COPIES;
use koth_bot::{BotSpec, Transcript, seat};
use koth_tournament::store::Store;
use koth_tournament::store::sql::Connection;

use super::authors;
use super::records::BotRecord;
use super::store::logs as db_rows;
pub use super::store::logs::PlayedGame;

/// What the public reads where a bot's logs would be.
pub(crate) const KEPT_FOR_AUTHOR: &str = "kept for its author";

/// Games of a bot listed with its logs, newest first.
const LISTED_GAMES: u32 = 20;

/// `reason` (a fault's, a suspension's) as everyone may read it: koth's own words, without the
/// bot's stderr it quotes.
pub(crate) fn public_reason(reason: &str) -> String {
    match koth_bot::error::without_stderr(reason) {
        Some(said) => format!("{said} (its stderr is {KEPT_FOR_AUTHOR})"),
        None => reason.to_string(),
    }
}

impl BotRecord {
    /// As everyone may read it where a bot's stderr is its author's: its faults' and
    /// suspensions' reasons in koth's words alone.
    pub fn in_public(&mut self) {
        let public = |reason: &mut Option<String>| {
            if let Some(reason) = reason {
                *reason = public_reason(reason);
            }
        };
        for version in &mut self.versions {
            public(&mut version.version.suspended);
        }
        for game in &mut self.faults.latest {
            public(&mut game.reason);
        }
    }
}

/// Why an author's logs were not given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Denied {
    /// No token, or one the hill does not know or has revoked.
    NotAnAuthor(String),
    /// The bot is another author's, or the hill owner's.
    NotYours(String),
    /// No such bot, or no such game of it.
    Missing(String),
}

/// One seat of the bot in a game, with its logs.
#[derive(Debug, Clone, Serialize)]
pub struct SeatLogs {
    pub version: u32,
    pub score: f64,
    pub status: String,
    /// Its faults' reasons in full (`kind: reason`), the first of each kind kept.
    pub faults: Vec<String>,
    pub stderr: String,
    pub transcript: String,
}

/// A bot's logs of one game, for its author.
#[derive(Debug, Clone, Serialize)]
pub struct GameLogs {
    pub bot: String,
    pub game: u32,
    pub seats: Vec<SeatLogs>,
    /// The bot's last games, newest first.
    pub games: Vec<PlayedGame>,
}

/// Whether the holder of `token` is the author of bot `name`, to read or change `what` of it
/// (its logs, its data, its versions): an author's things are their own alone.
pub fn authorized(
    store: &Store,
    name: &str,
    token: Option<&str>,
    what: &str,
) -> anyhow::Result<Result<(), Denied>> {
    let db: &dyn Connection = store;
    let Some(token) = token else {
        return Ok(Err(Denied::NotAnAuthor(
            "no token: send `Authorization: Bearer TOKEN`".into(),
        )));
    };
    let Some(author) = authors::authenticate(store, token)? else {
        return Ok(Err(Denied::NotAnAuthor(
            "this token is unknown or revoked".into(),
        )));
    };
    let shown = koth_base::text::shown(name);
    Ok(match authors::owner_of(db, name)? {
        None => Err(Denied::Missing(format!(
            "the hill has no bot called {shown:?}"
        ))),
        Some(owner) if owner != author => Err(Denied::NotYours(format!(
            "{shown} is not {author}'s: {what} are its author's alone"
        ))),
        Some(_) => Ok(()),
    })
}

/// The logs of bot `name` in game `game` (its latest game if `None`) of the hill in `store`
/// (its games' folders under `dir`), for the holder of `token` if the bot is theirs.
pub fn read(
    store: &Store,
    dir: &Path,
    name: &str,
    game: Option<u32>,
    token: Option<&str>,
) -> anyhow::Result<Result<GameLogs, Denied>> {
    if let Err(denied) = authorized(store, name, token, "its logs")? {
        return Ok(Err(denied));
    }
    let db: &dyn Connection = store;
    let shown = koth_base::text::shown(name);
    let games = db_rows::games_of(db, name, LISTED_GAMES)?;
    let Some(game) = game.or_else(|| games.first().map(|g| g.game)) else {
        return Ok(Err(Denied::Missing(format!(
            "{shown} has played no ranked game yet"
        ))));
    };
    let rows = db_rows::seats_of(db, game, name)?;
    if rows.is_empty() {
        return Ok(Err(Denied::Missing(format!(
            "{shown} did not play game {game} (or it is not recorded yet)"
        ))));
    }
    let folder = store.game_folder(dir, game, None)?;
    // Each seat's files are named as the game named them: by its version's folder.
    let specs = store.bots()?;
    let seated: Vec<BotSpec> = db_rows::seated_versions(db, game)?
        .into_iter()
        .map(|id| {
            specs
                .get(id)
                .cloned()
                .ok_or_else(|| anyhow::anyhow!("game {game} seats version {id}, which is not"))
        })
        .collect::<anyhow::Result<_>>()?;
    let slugs = seat::slugs(&seated);
    let paths = Paths::new(dir);
    let seats = rows
        .into_iter()
        .map(|row| seat_logs(&folder, &slugs[row.seat], &paths, row))
        .collect();
    Ok(Ok(GameLogs {
        bot: name.to_string(),
        game,
        seats,
        games,
    }))
}

/// A seat's logs from the game's `folder`, where its files are named `slug`: its stderr and
/// transcript, scrubbed of the hill's paths, beside its recorded result.
fn seat_logs(folder: &Path, slug: &str, paths: &Paths, row: db_rows::SeatRow) -> SeatLogs {
    let stderr = std::fs::read(folder.join(seat::STDERR_DIR).join(format!("{slug}.log")))
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .unwrap_or_default();
    let transcript = Transcript::read(
        &folder
            .join(seat::TRANSCRIPTS_DIR)
            .join(format!("{slug}.txt")),
    )
    .unwrap_or_default();
    let faults: Vec<koth_bot::Fault> = serde_json::from_str(&row.faults).unwrap_or_default();
    SeatLogs {
        version: row.version,
        score: row.score,
        status: row.status,
        faults: faults
            .iter()
            .map(|f| paths.scrub(&format!("{}: {}", f.kind, f.reason)))
            .collect(),
        stderr: paths.scrub(&stderr),
        transcript: paths.scrub(&transcript),
    }
}

/// The names of the bots seated in game `game`, in seat order (each once).
pub fn seated(store: &Store, game: u32) -> anyhow::Result<Vec<String>> {
    let mut names: Vec<String> = Vec::new();
    for name in db_rows::seated_names(store, game)? {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    Ok(names)
}

/// A copy of game folder `folder` as everyone may read it: each bot's stderr file saying it is
/// [`KEPT_FOR_AUTHOR`], and the fault reasons of its transcripts and JSON records (its
/// `results.json`, a game's own) in koth's words alone ([`public_reason`]).
pub fn public_copy(folder: &Path) -> anyhow::Result<tempfile::TempDir> {
    let copy = tempfile::tempdir().context("cannot make a folder for a game's public copy")?;
    for entry in
        std::fs::read_dir(folder).with_context(|| format!("cannot read {}", folder.display()))?
    {
        let entry = entry?;
        let (from, to) = (entry.path(), copy.path().join(entry.file_name()));
        let name = entry.file_name();
        if name == seat::STDERR_DIR {
            std::fs::create_dir_all(&to)?;
            for file in std::fs::read_dir(&from)? {
                let file = file?;
                std::fs::write(
                    to.join(file.file_name()),
                    format!("[koth: this bot's stderr is {KEPT_FOR_AUTHOR}]\n"),
                )?;
            }
        } else if name == seat::TRANSCRIPTS_DIR {
            std::fs::create_dir_all(&to)?;
            for file in std::fs::read_dir(&from)? {
                let file = file?.file_name();
                let Some(stem) = file.to_str().and_then(Transcript::stem) else {
                    continue;
                };
                // Written plain whichever it was: a reader takes either.
                let plain = format!("{stem}.txt");
                // One that cannot be read is left out, not shown as it is.
                let Ok(text) = Transcript::read(&from.join(&plain)) else {
                    continue;
                };
                let public: Vec<String> = text.lines().map(public_reason).collect();
                std::fs::write(to.join(&plain), public.join("\n") + "\n")?;
            }
        } else if let Some(public) = public_json(&from) {
            std::fs::write(&to, public)?;
        } else if entry.file_type()?.is_dir() {
            koth_bot::build::copy_folder(&from, &to)?;
        } else {
            std::fs::copy(&from, &to)?;
        }
    }
    Ok(copy)
}

/// A JSON file's text (`results.json`, a game's own `.json` or `.jsonl` records) with every
/// string in it that quotes a bot's stderr in koth's words alone; `None` for any other file.
fn public_json(file: &Path) -> Option<String> {
    let lines = match file.extension()?.to_str()? {
        "json" => false,
        "jsonl" => true,
        _ => return None,
    };
    let text = std::fs::read_to_string(file).ok()?;
    Some(match lines {
        true => text
            .lines()
            .map(|line| public_record(line) + "\n")
            .collect(),
        false => public_record(&text),
    })
}

/// A JSON text (a line of a game's record, a result) as everyone may read it: every string in
/// it that quotes a bot's stderr in koth's words alone. What is not JSON stays as it is.
pub fn public_record(text: &str) -> String {
    // A text quoting no stderr stays byte for byte what it was.
    if koth_bot::error::without_stderr(text).is_none() {
        return text.to_string();
    }
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(mut value) => {
            public_strings(&mut value);
            value.to_string()
        }
        Err(_) => text.to_string(),
    }
}

/// Every string of `value`, at any depth, that quotes a bot's stderr, in koth's words alone.
fn public_strings(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::String(text) => *text = public_reason(text),
        serde_json::Value::Object(fields) => fields.values_mut().for_each(public_strings),
        serde_json::Value::Array(items) => items.iter_mut().for_each(public_strings),
        _ => {}
    }
}

/// The server's folders that may appear in what a build or a game leaves (a build's messages,
/// a traceback's file names), and the names an author reads in their place: its bot's own
/// folder is `.` wherever it was (a game's working copy, on this machine or a worker's; its
/// version's folder; its build copy), the hill's `<hill>`, koth's build copies `<builds>`.
pub(crate) struct Paths {
    /// A folder's name on this machine, and what is shown instead.
    folders: Vec<(String, String)>,
    /// What a path to a bot's own folder holds, and the steps after it that still name that
    /// folder: that whole path is shown as `.`.
    own: Vec<(String, &'static [Step])>,
}

/// A step of a path after a [`Paths::own`] marker.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// Digits: a game's number, a seat.
    Number,
    /// This name.
    Named(&'static str),
    /// Any name: a digest, a bot's folder.
    Any,
}

/// A game's working copy of a bot, after `/games/`: `<game>/bots/<seat>/<folder>`.
const GAME_COPY: &[Step] = &[
    Step::Number,
    Step::Named(WORKING_COPIES),
    Step::Number,
    Step::Any,
];
/// A validation game's, after `/validation/`: `<digest>/bots/<seat>/<folder>`.
const VALIDATION_COPY: &[Step] = &[
    Step::Any,
    Step::Named(WORKING_COPIES),
    Step::Number,
    Step::Any,
];

impl Paths {
    /// The folders of the hill in `hill_dir` and koth's own on this machine, and any game's
    /// working copies wherever it was played (a shared hill's worker has folders of its own).
    pub(crate) fn new(hill_dir: &Path) -> Paths {
        let mut own = vec![
            ("/games/".to_string(), GAME_COPY),
            ("/validation/".to_string(), VALIDATION_COPY),
        ];
        for form in forms(hill_dir) {
            own.push((
                format!("{form}/{}/", super::versions::VERSIONS),
                &[Step::Any],
            ));
        }
        if let Ok(cache) = koth_base::logs::cache_folder("builds") {
            for form in forms(&cache) {
                own.push((format!("{form}/"), &[Step::Any]));
            }
        }
        Paths {
            folders: Vec::new(),
            own,
        }
        .folder(hill_dir, "<hill>")
    }

    /// These paths, and `folder` shown as `shown`.
    pub(crate) fn folder(mut self, folder: &Path, shown: &str) -> Paths {
        for text in forms(folder) {
            if !self.folders.iter().any(|(p, _)| *p == text) {
                self.folders.push((text, shown.to_string()));
            }
        }
        // The longest first, so a folder inside another is named as itself.
        self.folders
            .sort_by_key(|(path, _)| std::cmp::Reverse(path.len()));
        self
    }

    pub(crate) fn scrub(&self, text: &str) -> String {
        let text = self
            .own
            .iter()
            .fold(text.to_string(), |text, (marker, steps)| {
                own_folder_shown(&text, marker, steps)
            });
        self.folders.iter().fold(text, |text, (path, shown)| {
            text.replace(path.as_str(), shown)
        })
    }
}

/// `path` as it may be written: as given and resolved.
fn forms(path: &Path) -> Vec<String> {
    let mut forms = Vec::new();
    for form in [Some(path.to_path_buf()), std::fs::canonicalize(path).ok()]
        .into_iter()
        .flatten()
    {
        let text = form.display().to_string();
        if text.len() > 1 && !forms.contains(&text) {
            forms.push(text);
        }
    }
    forms
}

/// What ends a path quoted in a message.
fn ends_a_path(c: char) -> bool {
    c.is_whitespace() || "\"'`()<>[]=,;:".contains(c)
}

/// How much of `after` (what follows a marker) the path steps `steps` take, if they are there.
fn steps_taken(after: &str, steps: &[Step]) -> Option<usize> {
    let mut at = 0;
    for (n, step) in steps.iter().enumerate() {
        if n > 0 {
            at += after[at..].strip_prefix('/').map(|_| 1)?;
        }
        let rest = &after[at..];
        let len = rest
            .find(|c: char| c == '/' || ends_a_path(c))
            .unwrap_or(rest.len());
        let name = &rest[..len];
        let fits = match step {
            Step::Number => !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit()),
            Step::Named(named) => name == *named,
            Step::Any => !name.is_empty(),
        };
        if !fits {
            return None;
        }
        at += len;
    }
    Some(at)
}

/// `text` with every path holding `marker` followed by `steps` written `.`: the path's start
/// (back to what ends a path), the marker and those steps.
fn own_folder_shown(text: &str, marker: &str, steps: &[Step]) -> String {
    let mut shown = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(marker) {
        let before = &rest[..at];
        let after = &rest[at + marker.len()..];
        match steps_taken(after, steps) {
            Some(taken) => {
                let start = before
                    .char_indices()
                    .rev()
                    .find(|&(_, c)| ends_a_path(c))
                    .map_or(0, |(i, c)| i + c.len_utf8());
                shown.push_str(&before[..start]);
                shown.push('.');
                rest = &after[taken..];
            }
            None => {
                shown.push_str(&rest[..at + marker.len()]);
                rest = after;
            }
        }
    }
    shown.push_str(rest);
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_public_reason_keeps_koths_words_and_drops_the_stderr_it_quotes() {
        assert_eq!(
            public_reason(
                "exited (exit status: 1) while an answer was expected; last stderr: SECRET | at Foo"
            ),
            "exited (exit status: 1) while an answer was expected (its stderr is kept for its author)"
        );
        assert_eq!(
            public_reason("no answer within 100 ms"),
            "no answer within 100 ms"
        );
    }

    #[test]
    fn a_working_copys_path_is_shown_as_the_bots_own_folder_wherever_it_was() {
        let paths = Paths::new(Path::new("/srv/koth/hill"));
        assert_eq!(
            paths.scrub(
                "File \"/home/w/logs/hill-x/games/12/bots/0/abc123/bot.py\", line 3\n\
                 at /srv/koth/hill/versions/abc123/lib.py and /srv/koth/hill/hill.toml\n\
                 (/srv/koth/hill/validation/abc123/bots/1/abc123) /usr/share/games/x/y/z"
            ),
            "File \"./bot.py\", line 3\nat ./lib.py and <hill>/hill.toml\n(.) \
             /usr/share/games/x/y/z"
        );
    }
}
