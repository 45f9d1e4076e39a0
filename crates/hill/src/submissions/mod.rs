//! Submissions: bots sent to the hill by its authors, from an archive to an active version.
//!
//! A submission goes `received` → `building` → `validating` → `active`, or ends `refused` with
//! its reason. At the door ([`accept`]) the upload, already stored whole by the caller, is
//! unpacked with [`koth_base::archive`] (files and folders only, capped), its `bot.toml` read and
//! checked, the author's limits applied and the bot's name claimed; only then is it recorded,
//! `received`. Refusals at the door are recorded too (`refused`, no files kept), so they count
//! against the author's rate. The [`Builder`] takes received submissions one at a time, oldest
//! first, through the owner's own path ([`versions::add_followed`]: copied, built contained,
//! validated by one game), and keeps what its author may read: the build log, the validation
//! game's faults and stderr, each capped.
//!
//! Nothing half-done survives a `kill -9`: an upload is unpacked in `submissions/.incoming/`,
//! renamed into `submissions/<id>/` and then recorded; [`recover`] clears whatever has no
//! record, and puts a submission caught building or validating back to `received`, so every
//! upload that was answered is complete and goes on, and any other leaves nothing.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::Context;
use serde::Serialize;

use koth_base::archive::{self, Kind};
use koth_bot::roster;
pub use koth_tournament::store::sql::{Connection, Dialect, Value};

use super::config::HillConfig;
use super::versions::{self, Step};
use super::{Hill, authors, logs};

mod builder;
mod status;

pub use crate::store::submissions::SubmissionStatus;
use crate::store::submissions::{self as rows, NewSubmission};
pub(crate) use crate::store::submissions::{at_the_door, create_tables};
pub(crate) use builder::Builder;
pub use status::{LISTED, of_author, status};

/// The hill folder's folder of submissions.
pub(crate) const FOLDER: &str = "submissions";
/// Where uploads are received and unpacked before they are recorded.
const INCOMING: &str = ".incoming";
/// What is kept of each log an author may read.
const LOG_KEPT: usize = 64 << 10;
/// What is kept of a reason, stored or served: a reason quotes at most a short excerpt of what
/// it is about (an upload's `bot.toml` may hold a line of megabytes).
const REASON_KEPT: usize = 2 << 10;
/// What a reason keeps of each of its lines.
const REASON_LINE_KEPT: usize = 200;
/// How often a submission's build is begun at most: a build cut short by koth's own end (a
/// kill, the machine out of memory) is begun once more, then refused.
const BUILD_TRIES: i64 = 2;
/// The reason of a submission whose build was cut short by koth's end [`BUILD_TRIES`] times.
const UNFINISHED: &str = "the build did not finish (koth stopped during it, twice)";
/// How often the builder looks for a received submission.
const POLL: Duration = Duration::from_millis(200);

/// Why an upload was not let in: each says what to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// No token, or one the hill does not know or has revoked.
    #[error("{0}")]
    NotAnAuthor(String),
    /// The bot's name is another author's, or the author is at its cap of bots.
    #[error("{0}")]
    NotYours(String),
    /// Over a size cap: the upload's, what it unpacks to, or the author's storage.
    #[error("{0}")]
    TooLarge(String),
    /// A bad archive or `bot.toml`, naming the entry or the key.
    #[error("{0}")]
    Unreadable(String),
    /// Over the author's rate, or the build queue is full: try again after this many seconds.
    #[error("{why}")]
    TooSoon { why: String, retry_after_s: u64 },
    /// The hill takes no uploads.
    #[error("{0}")]
    Closed(String),
    /// The hill's contest has closed: it takes no new bot or version for good.
    #[error("{0}")]
    AfterClose(String),
}

/// An upload stored whole by the caller, as it arrived.
#[derive(Debug)]
pub struct Upload {
    /// The file holding the body, inside [`incoming`].
    pub path: PathBuf,
    pub bytes: u64,
    /// SHA-256 of the body, lowercase hex.
    pub digest: String,
    /// The kind the request said it is (its content type), if it said one.
    pub declared: Option<Kind>,
}

/// A recorded submission, as its status page shows it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Status {
    pub id: String,
    pub bot: String,
    /// The version it is (active), or would be if accepted now.
    pub version: Option<u32>,
    pub status: SubmissionStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub received_at: i64,
    pub updated_at: i64,
    /// For its author only (and for everyone if the hill's logs are public).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub private: Option<Private>,
}

/// What only a submission's author reads.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Private {
    pub author: String,
    /// A refusal's reason in full (the build's command and the tail of its log, the first
    /// fault of its validation game), where `reason` gives koth's short words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    pub build_log: Option<String>,
    pub faults: Vec<String>,
    pub stderr: Option<String>,
}

/// The folder uploads are received into; the caller streams a body to a new file in it.
pub fn incoming(hill_dir: &Path) -> anyhow::Result<PathBuf> {
    let dir = hill_dir.join(FOLDER).join(INCOMING);
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    Ok(dir)
}

/// A fresh random name, for a submission's id and its incoming files.
pub fn new_id() -> String {
    format!("{:016x}", rand::random::<u64>())
}

/// The author of `token` if they may send an upload now: checked before the body is read.
/// `receiving` says how many uploads of an author the door is receiving now: they count as
/// sent, so an author's uploads at once stop at `per_hour` before their bodies are read, not
/// after each was stored and unpacked.
pub fn gate(
    hill: &Hill,
    token: Option<&str>,
    receiving: &dyn Fn(&str) -> u32,
) -> Result<String, Refusal> {
    let db: &dyn Connection = &hill.store;
    if hill.config.game.sandbox().is_none() {
        return Err(Refusal::Closed(
            "this hill does not contain its bots (`sandbox = false` in its hill file), so it \
             takes no uploads"
                .into(),
        ));
    }
    let token = token.ok_or_else(|| {
        Refusal::NotAnAuthor("no token: send `Authorization: Bearer TOKEN`".into())
    })?;
    crate::contest::refuse_after_close(hill.config.contest.as_ref(), &hill.store, "an upload")
        .map_err(|closed| Refusal::AfterClose(format!("{closed:#}")))?;
    let author = authors::authenticate(&hill.store, token)
        .map_err(harness)?
        .ok_or_else(|| Refusal::NotAnAuthor("this token is unknown or revoked".into()))?;
    let limits = &hill.config.submissions;
    if let Some(refusal) = over_rates(db, &author, receiving(&author), limits).map_err(harness)? {
        return Err(refusal);
    }
    Ok(author)
}

/// Why `author` may send no upload now, if not: over `per_hour` (refused uploads count, and so
/// do the `receiving` ones not yet recorded), or the hill's build queue is full. [`gate`] asks
/// before the body is read, and [`record`] again under the door's lock, since uploads sent at
/// once all pass the gate before any is recorded.
fn over_rates(
    db: &dyn Connection,
    author: &str,
    receiving: u32,
    limits: &crate::config::Submissions,
) -> anyhow::Result<Option<Refusal>> {
    let (sent, oldest) = rows::sent_in_last_hour(db, author)?;
    if sent + i64::from(receiving) >= i64::from(limits.per_hour) {
        let now = clock_now();
        return Ok(Some(Refusal::TooSoon {
            why: format!(
                "{author} sent {} submissions in the last hour, the hill's cap \
                 (`submissions.per_hour`)",
                limits.per_hour
            ),
            retry_after_s: (oldest.unwrap_or(now) + 3600 - now).clamp(1, 3600) as u64,
        }));
    }
    let waiting = rows::waiting(db)?;
    if waiting >= i64::from(limits.build_queue) {
        return Ok(Some(Refusal::TooSoon {
            why: format!(
                "the hill's build queue is full ({waiting} submissions wait; \
                 `submissions.build_queue`)"
            ),
            retry_after_s: 60,
        }));
    }
    Ok(None)
}

/// Records an upload refused after it was received (its size, its archive, its `bot.toml`,
/// its name): it counts against its author's rate, and its author can read why.
pub fn record_refusal(
    hill: &Hill,
    author: &str,
    bot: &str,
    upload: Option<&Upload>,
    refusal: &Refusal,
) {
    let recorded = rows::insert_refused(
        &hill.store,
        &NewSubmission {
            id: &new_id(),
            author,
            bot,
            upload_digest: upload.map_or("", |u| u.digest.as_str()),
            upload_bytes: upload.map_or(0, |u| u.bytes),
        },
        &short_reason(&refusal.to_string()),
    );
    if let Err(err) = recorded {
        tracing::warn!("cannot record a refused submission: {err:#}");
    }
}

/// An upload unpacked, with its bot's `bot.toml` read, in a folder of its own among the
/// submissions: what [`accept`] records.
#[derive(Debug)]
pub struct Unpacked {
    id: String,
    bot: String,
    folder: PathBuf,
    bytes: u64,
}

/// Unpacks `upload` into a folder of its own among the hill's submissions (in `hill_dir`) and
/// reads its `bot.toml` (capped in bytes, read in time linear in its size), checked against
/// the hill's `config`. It touches no database, so the door runs it outside its lock: no
/// author waits for another's unpacking. The upload's file is removed either way. A refusal
/// comes with the bot's name, if it was read.
pub fn unpack(
    hill_dir: &Path,
    config: &HillConfig,
    upload: &Upload,
) -> Result<Unpacked, (String, Refusal)> {
    let outcome = unpack_checked(hill_dir, config, upload);
    let _ = std::fs::remove_file(&upload.path);
    outcome
}

fn unpack_checked(
    hill_dir: &Path,
    config: &HillConfig,
    upload: &Upload,
) -> Result<Unpacked, (String, Refusal)> {
    let unnamed = |refusal: Refusal| (String::new(), refusal);
    let mut head = [0u8; 4];
    let read = std::fs::File::open(&upload.path)
        .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
        .map_err(|e| unnamed(harness(e.into())))?;
    let kind = Kind::of(&head[..read]).ok_or_else(|| {
        unnamed(Refusal::Unreadable(
            "the upload is neither a .tar.gz nor a .zip (by its first bytes)".into(),
        ))
    })?;
    if let Some(declared) = upload.declared
        && declared != kind
    {
        return Err(unnamed(Refusal::Unreadable(format!(
            "the upload's content type says {declared:?} but its first bytes say {kind:?}"
        ))));
    }
    let incoming = upload.path.with_extension("d");
    let unpacked = archive::unpack(&upload.path, kind, &incoming, &config.submissions.caps());
    let unpacked = match unpacked {
        Ok(unpacked) => unpacked,
        Err(refused) => {
            let _ = std::fs::remove_dir_all(&incoming);
            return Err(unnamed(match refused {
                archive::Refused::OverCap(why) => {
                    Refusal::TooLarge(format!("the archive unpacks to {why}"))
                }
                archive::Refused::Io { .. } => harness(anyhow::anyhow!("{refused}")),
                refused => Refusal::Unreadable(format!("the archive's {refused}")),
            }));
        }
    };
    let read = read_bot(hill_dir, config, &incoming);
    let _ = std::fs::remove_dir_all(&incoming);
    read.map(|(id, bot, folder)| Unpacked {
        id,
        bot,
        folder,
        bytes: unpacked.bytes,
    })
}

/// Reads and checks the bot unpacked in `incoming` and moves it to its submission's folder:
/// its id, its name and that folder.
fn read_bot(
    hill_dir: &Path,
    config: &HillConfig,
    incoming: &Path,
) -> Result<(String, String, PathBuf), (String, Refusal)> {
    let unnamed = |refusal: Refusal| (String::new(), refusal);
    let root = bot_root(incoming);
    let (spec, games) = roster::load_manifest(&root).map_err(|e| {
        // Named as the author knows it: `bot.toml`, not the folder it was unpacked into.
        let shown = format!("{}/", root.display());
        unnamed(Refusal::Unreadable(
            format!("{e:#}")
                .replace(&shown, "")
                .replace(&root.display().to_string(), "."),
        ))
    })?;
    let bot = spec.name.clone();
    let named = |refusal: Refusal| (bot.clone(), refusal);
    let game = &config.game.game;
    if !games.iter().any(|g| g == game) {
        let mut listed = games.clone();
        listed.truncate(10);
        return Err(named(Refusal::Unreadable(format!(
            "bot.toml: `games` lists {listed:?}{}, not the hill's \"{game}\"",
            if games.len() > listed.len() {
                " …"
            } else {
                ""
            }
        ))));
    }
    // Refused here, with the hill's list, not after its turn in the build queue.
    let offered = koth_bot::languages::offered(config.game.languages.as_deref())
        .map_err(|e| named(harness(e)))?;
    if let Some(why) = koth_bot::languages::refusal(&spec, &offered) {
        return Err(named(Refusal::Unreadable(format!(
            "{}: {why}",
            roster::MANIFEST
        ))));
    }
    let id = new_id();
    let kept = hill_dir.join(FOLDER).join(&id);
    std::fs::rename(&root, &kept).map_err(|e| named(harness(e.into())))?;
    Ok((id, bot, kept))
}

/// Lets in `upload` of `author` (past [`gate`]), as [`unpack`] left it: the same upload sent
/// again by its author is its earlier submission; else the bot's name is claimed, the author's
/// caps applied and the submission recorded `received`. Database work only, which is all the
/// door's lock holds. A refusal is recorded, and the unpacked folder removed.
pub fn accept(
    hill: &Hill,
    author: &str,
    upload: &Upload,
    unpacked: Result<Unpacked, (String, Refusal)>,
) -> Result<Status, Refusal> {
    let outcome = unpacked.and_then(|unpacked| {
        let folder = unpacked.folder.clone();
        let recorded = record(hill, author, upload, unpacked);
        if !matches!(recorded, Ok((_, true))) {
            let _ = std::fs::remove_dir_all(&folder);
        }
        recorded.map(|(status, _)| status)
    });
    match outcome {
        Ok(status) => Ok(status),
        Err((bot, refusal)) => {
            record_refusal(hill, author, &bot, Some(upload), &refusal);
            Err(refusal)
        }
    }
}

/// Records the unpacked bot: its status, and whether it is a new submission (not the same
/// upload again).
fn record(
    hill: &Hill,
    author: &str,
    upload: &Upload,
    unpacked: Unpacked,
) -> Result<(Status, bool), (String, Refusal)> {
    let db: &dyn Connection = &hill.store;
    let limits = hill.config.submissions;
    let Unpacked { id, bot, bytes, .. } = unpacked;
    let named = |refusal: Refusal| (bot.clone(), refusal);
    if let Some(id) = rows::earlier_of(db, author, &upload.digest).map_err(|e| named(harness(e)))? {
        return status(hill, &id, Some(author))
            .map_err(|e| named(harness(e)))?
            .map(|status| (status, false))
            .ok_or_else(|| {
                named(Refusal::Unreadable(
                    "the earlier submission vanished".into(),
                ))
            });
    }
    let recorded = db.transaction(|db| {
        // An upload takes up to `upload_timeout_s` to arrive: its author may be revoked by then.
        if !authors::is_current(db, author)? {
            return Ok(Err(Refusal::NotAnAuthor(format!(
                "{author} was revoked while this upload arrived"
            ))));
        }
        if let Some(refusal) = over_rates(db, author, 0, &limits)? {
            return Ok(Err(refusal));
        }
        if let Some(refusal) = claim_name(db, &bot, author, limits.active_bots)? {
            return Ok(Err(refusal));
        }
        let stored = rows::stored_bytes_of(db, author)?;
        if stored + bytes > limits.stored_mb << 20 {
            return Ok(Err(Refusal::TooLarge(format!(
                "{author} keeps {} MiB on the hill and this bot unpacks to {:.1} MiB: over the \
                 hill's cap of {} MiB (`submissions.stored_mb`)",
                stored >> 20,
                bytes as f64 / f64::from(1 << 20),
                limits.stored_mb
            ))));
        }
        rows::insert_received(
            db,
            &NewSubmission {
                id: &id,
                author,
                bot: &bot,
                upload_digest: &upload.digest,
                upload_bytes: upload.bytes,
            },
            bytes,
        )?;
        Ok(Ok(()))
    });
    match recorded {
        Ok(Ok(())) => {}
        Ok(Err(refusal)) => return Err(named(refusal)),
        Err(err) => return Err(named(harness(err))),
    }
    tracing::info!(id, author, bot, "submission received");
    status(hill, &id, Some(author))
        .map_err(|e| named(harness(e)))?
        .map(|status| (status, true))
        .ok_or_else(|| named(harness(anyhow::anyhow!("submission {id} vanished"))))
}

/// Claims bot name `bot` for `author` in the door's transaction, unless it is another's (or the
/// hill owner's), reads like another bot's name, or would take `author` past `active_bots`
/// bots: then the refusal.
fn claim_name(
    db: &dyn Connection,
    bot: &str,
    author: &str,
    active_bots: u32,
) -> anyhow::Result<Option<Refusal>> {
    let owner = authors::owner_of(db, bot)?;
    match owner.as_deref() {
        Some(owner) if owner == author => {}
        Some("") => {
            return Ok(Some(Refusal::NotYours(format!(
                "the bot name {bot:?} is the hill owner's"
            ))));
        }
        Some(_) => {
            return Ok(Some(Refusal::NotYours(format!(
                "the bot name {bot:?} is another author's"
            ))));
        }
        None => {
            if let Some(other) = authors::look_alike(db, bot)? {
                return Ok(Some(Refusal::NotYours(format!(
                    "the bot name {bot:?} reads the same as {other:?}, another bot's on \
                     this hill: choose a name that looks different"
                ))));
            }
            if rows::active_bots_of(db, author)? >= i64::from(active_bots) {
                return Ok(Some(Refusal::NotYours(format!(
                    "{author} has {} bots on the hill, the hill's cap \
                     (`submissions.active_bots`); send a new version of one of them",
                    active_bots
                ))));
            }
            authors::claim(db, bot, author)?;
        }
    }
    Ok(None)
}

/// The folder holding `bot.toml`: the archive's root, or its one folder if the author packed
/// the folder itself (`tar czf bot.tgz mybot/`).
fn bot_root(unpacked: &Path) -> PathBuf {
    if unpacked.join(roster::MANIFEST).exists() {
        return unpacked.to_path_buf();
    }
    let entries: Vec<PathBuf> = std::fs::read_dir(unpacked)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .collect();
    match entries.as_slice() {
        [only] if only.is_dir() && only.join(roster::MANIFEST).exists() => only.clone(),
        _ => unpacked.to_path_buf(),
    }
}

/// `reason` as it is stored and served: each line cut after a whole word within
/// [`REASON_LINE_KEPT`] bytes, and the whole at [`REASON_KEPT`].
fn short_reason(reason: &str) -> String {
    let mut kept = String::new();
    for line in reason.lines() {
        let line = koth_bot::cut_words(line, REASON_LINE_KEPT);
        if kept.len() + line.len() + 1 > REASON_KEPT {
            kept.push_str("[…]");
            break;
        }
        if !kept.is_empty() {
            kept.push('\n');
        }
        kept.push_str(&line);
    }
    kept
}

/// The last [`LOG_KEPT`] bytes of `text`, on a character boundary.
fn capped(text: &str) -> String {
    if text.len() <= LOG_KEPT {
        return text.to_string();
    }
    let mut start = text.len() - LOG_KEPT;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    format!("[… {start} bytes left out]\n{}", &text[start..])
}

/// koth's own failure while taking an upload: no fault of the author's.
fn harness(err: anyhow::Error) -> Refusal {
    // The details (paths, database errors) are the owner's, in the hill's log.
    tracing::error!("taking an upload: {err:#}");
    Refusal::Closed(
        "the hill could not take the upload (its own fault, not yours): try again later".into(),
    )
}

fn clock_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}
