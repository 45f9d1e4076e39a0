//! The submissions' table (`hill_submissions`): every statement of the door, the builders and
//! the status pages ([`crate::submissions`]), and the statuses it stores, each spelt once.

use anyhow::Context;
use serde::Serialize;

use super::{ACTIVE, Connection, Dialect, Value, VersionState, now};

const TABLES: &str = "
CREATE TABLE IF NOT EXISTS hill_submissions (
    id TEXT PRIMARY KEY, author TEXT NOT NULL, bot TEXT NOT NULL, upload_digest TEXT NOT NULL,
    upload_bytes BIGINT NOT NULL, unpacked_bytes BIGINT NOT NULL, status TEXT NOT NULL,
    reason TEXT, version BIGINT, version_digest TEXT, files_kept BIGINT NOT NULL,
    seq BIGINT NOT NULL, received_at BIGINT NOT NULL, updated_at BIGINT NOT NULL,
    build_log TEXT, faults TEXT, stderr TEXT);
";

/// Columns added to the table since its first form, with their types: `detail`, the full
/// reason of a refusal (its author's; `reason` is koth's short public words), `tries`, how often
/// its build was begun, and `build_started_at`, when the last began (the builder's turns).
const ADDED_COLUMNS: &[(&str, &str)] = &[
    ("detail", "TEXT"),
    ("tries", "BIGINT NOT NULL DEFAULT 0"),
    ("build_started_at", "BIGINT"),
];

/// The next submission's number, in the order they arrived.
const SEQ: &str = "(SELECT COALESCE(MAX(seq), 0) + 1 FROM hill_submissions)";

/// A submission's status: the stored ones (`received` to `active` or `refused`), then, once
/// accepted, its version's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SubmissionStatus {
    /// Waiting for a builder.
    Received,
    Building,
    /// Built; its validation games are being played.
    Validating,
    Refused,
    /// Accepted: its bot's active version.
    Active,
    /// Accepted, then suspended, replaced or retired, as its version is.
    Suspended,
    Replaced,
    Retired,
}

impl SubmissionStatus {
    const STORED: [SubmissionStatus; 5] = [
        SubmissionStatus::Received,
        SubmissionStatus::Building,
        SubmissionStatus::Validating,
        SubmissionStatus::Refused,
        SubmissionStatus::Active,
    ];

    /// The status as its author reads it and, for the stored ones, as the `status` column holds
    /// it: the one place each is spelt (an accepted one's as its version's state).
    pub const fn as_str(self) -> &'static str {
        match self {
            SubmissionStatus::Received => "received",
            SubmissionStatus::Building => "building",
            SubmissionStatus::Validating => "validating",
            SubmissionStatus::Refused => "refused",
            SubmissionStatus::Active => VersionState::Active.as_str(),
            SubmissionStatus::Suspended => VersionState::Suspended.as_str(),
            SubmissionStatus::Replaced => VersionState::Replaced.as_str(),
            SubmissionStatus::Retired => VersionState::Retired.as_str(),
        }
    }

    /// The status of a `hill_submissions.status` value.
    pub(crate) fn of_column(status: &str) -> anyhow::Result<SubmissionStatus> {
        SubmissionStatus::STORED
            .into_iter()
            .find(|s| s.as_str() == status)
            .with_context(|| format!("a submission's status {status:?} is none koth knows"))
    }

    /// Whether it is the last its author will see: accepted (in whichever state) or refused.
    pub fn is_final(self) -> bool {
        !matches!(
            self,
            SubmissionStatus::Received | SubmissionStatus::Building | SubmissionStatus::Validating
        )
    }
}

impl std::fmt::Display for SubmissionStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

// The stored statuses as statements write them (`status = '{RECEIVED}'`).
pub(crate) const RECEIVED: &str = SubmissionStatus::Received.as_str();
pub(crate) const BUILDING: &str = SubmissionStatus::Building.as_str();
pub(crate) const VALIDATING: &str = SubmissionStatus::Validating.as_str();
pub(crate) const REFUSED: &str = SubmissionStatus::Refused.as_str();

/// Creates the submissions' table if it is not there, with the columns added since, and the
/// authors' tables.
pub(crate) fn create_tables(db: &dyn Connection) -> anyhow::Result<()> {
    db.batch(TABLES)?;
    for (column, kind) in ADDED_COLUMNS {
        let present = match db.dialect() {
            Dialect::Sqlite => db
                .row(
                    "SELECT 1 FROM pragma_table_info('hill_submissions') WHERE name = ?1",
                    &[(*column).into()],
                )?
                .is_some(),
            Dialect::Postgres => db
                .row(
                    "SELECT 1 FROM information_schema.columns WHERE table_schema = \
                     current_schema() AND table_name = 'hill_submissions' AND column_name = ?1",
                    &[(*column).into()],
                )?
                .is_some(),
        };
        if !present {
            db.batch(&format!(
                "ALTER TABLE hill_submissions ADD COLUMN {column} {kind}"
            ))?;
        }
    }
    super::authors::create_tables(db)
}

/// How many submissions `author` sent in the last hour, and when the oldest of them arrived.
pub(crate) fn sent_in_last_hour(
    db: &dyn Connection,
    author: &str,
) -> anyhow::Result<(i64, Option<i64>)> {
    let row = db.row(
        &format!(
            "SELECT COUNT(*) AS sent, MIN(received_at) AS oldest FROM hill_submissions
             WHERE author = ?1 AND received_at > {} - 3600",
            now(db.dialect())
        ),
        &[author.into()],
    )?;
    match row {
        Some(row) => Ok((row.int("sent")?, row.opt_int("oldest")?)),
        None => Ok((0, None)),
    }
}

/// How many submissions wait for a builder or are being built or validated.
pub(crate) fn waiting(db: &dyn Connection) -> anyhow::Result<i64> {
    db.value(
        &format!(
            "SELECT COUNT(*) FROM hill_submissions WHERE status IN ('{RECEIVED}', '{BUILDING}', \
             '{VALIDATING}')"
        ),
        &[],
    )?
    .int()
}

/// How many submissions the builders are building or validating now.
pub(crate) fn at_the_door(db: &dyn Connection) -> anyhow::Result<usize> {
    Ok(db
        .value(
            &format!(
                "SELECT COUNT(*) FROM hill_submissions WHERE status IN ('{BUILDING}', '{VALIDATING}')"
            ),
            &[],
        )?
        .int()? as usize)
}

/// A submission as the door records it.
pub(crate) struct NewSubmission<'a> {
    pub id: &'a str,
    pub author: &'a str,
    pub bot: &'a str,
    pub upload_digest: &'a str,
    pub upload_bytes: u64,
}

/// Records a submission refused at the door, for `reason`: no files kept.
pub(crate) fn insert_refused(
    db: &dyn Connection,
    new: &NewSubmission,
    reason: &str,
) -> anyhow::Result<()> {
    db.execute(
        &format!(
            "INSERT INTO hill_submissions (id, author, bot, upload_digest, upload_bytes,
                 unpacked_bytes, status, reason, files_kept, seq, received_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, 0, '{REFUSED}', ?6, 0, {SEQ}, {now}, {now})",
            now = now(db.dialect())
        ),
        &[
            new.id.into(),
            new.author.into(),
            new.bot.into(),
            new.upload_digest.into(),
            (new.upload_bytes as i64).into(),
            reason.into(),
        ],
    )?;
    Ok(())
}

/// Records a submission received, whose files unpack to `unpacked_bytes` and are kept.
pub(crate) fn insert_received(
    db: &dyn Connection,
    new: &NewSubmission,
    unpacked_bytes: u64,
) -> anyhow::Result<()> {
    db.execute(
        &format!(
            "INSERT INTO hill_submissions (id, author, bot, upload_digest, upload_bytes,
                 unpacked_bytes, status, files_kept, seq, received_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, '{RECEIVED}', 1, {SEQ}, {now}, {now})",
            now = now(db.dialect())
        ),
        &[
            new.id.into(),
            new.author.into(),
            new.bot.into(),
            new.upload_digest.into(),
            (new.upload_bytes as i64).into(),
            (unpacked_bytes as i64).into(),
        ],
    )?;
    Ok(())
}

/// The latest submission of the same upload by `author` that counts as the same one: refused
/// at its build or validation (begun: `tries`), the same folder is refused again; refused
/// before (a rate, a full queue, a name), it may be sent again.
pub(crate) fn earlier_of(
    db: &dyn Connection,
    author: &str,
    upload_digest: &str,
) -> anyhow::Result<Option<String>> {
    db.row(
        &format!(
            "SELECT id FROM hill_submissions WHERE author = ?1 AND upload_digest = ?2
             AND (status <> '{REFUSED}' OR tries > 0) ORDER BY seq DESC"
        ),
        &[author.into(), upload_digest.into()],
    )?
    .map(|row| row.text("id"))
    .transpose()
}

/// How many of `author`'s bots are on the hill: active, or with a submission on its way.
pub(crate) fn active_bots_of(db: &dyn Connection, author: &str) -> anyhow::Result<i64> {
    db.value(
        &format!(
            "SELECT COUNT(*) FROM hill_bot_owners o WHERE o.author = ?1 AND (
             EXISTS (SELECT 1 FROM hill_versions v
                     WHERE v.name = o.bot AND v.state = '{ACTIVE}')
             OR EXISTS (SELECT 1 FROM hill_submissions s WHERE s.bot = o.bot
                     AND s.status IN ('{RECEIVED}', '{BUILDING}', '{VALIDATING}')))"
        ),
        &[author.into()],
    )?
    .int()
}

/// The bytes of `author`'s submissions whose files the hill keeps.
pub(crate) fn stored_bytes_of(db: &dyn Connection, author: &str) -> anyhow::Result<u64> {
    Ok(db
        .value(
            "SELECT COALESCE(SUM(unpacked_bytes), 0) FROM hill_submissions
             WHERE author = ?1 AND files_kept = 1",
            &[author.into()],
        )?
        .int()? as u64)
}

/// After a stop: refuses, for `reason`, the submissions caught building or validating whose
/// build was begun `tries` times already, and returns their bots; puts the others back in the
/// queue.
pub(crate) fn recover_unfinished(
    db: &dyn Connection,
    tries: i64,
    reason: &str,
) -> anyhow::Result<Vec<String>> {
    let unfinished = format!("status IN ('{BUILDING}', '{VALIDATING}') AND tries >= {tries}");
    let given_up = db
        .query(
            &format!("SELECT bot FROM hill_submissions WHERE {unfinished}"),
            &[],
        )?
        .iter()
        .map(|row| row.text("bot"))
        .collect::<anyhow::Result<_>>()?;
    db.execute(
        &format!(
            "UPDATE hill_submissions SET status = '{REFUSED}', files_kept = 0, reason = ?1,
                 updated_at = {} WHERE {unfinished}",
            now(db.dialect()),
        ),
        &[reason.into()],
    )?;
    Ok(given_up)
}

/// Puts every submission caught building or validating back in the queue.
pub(crate) fn requeue_unfinished(db: &dyn Connection) -> anyhow::Result<()> {
    db.execute(
        &format!(
            "UPDATE hill_submissions SET status = '{RECEIVED}'
         WHERE status IN ('{BUILDING}', '{VALIDATING}')"
        ),
        &[],
    )?;
    Ok(())
}

/// The ids of the submissions waiting for a builder.
pub(crate) fn received(db: &dyn Connection) -> anyhow::Result<Vec<String>> {
    db.query(
        &format!("SELECT id FROM hill_submissions WHERE status = '{RECEIVED}'"),
        &[],
    )?
    .iter()
    .map(|r| r.text("id"))
    .collect()
}

/// Sets submission `id`'s status.
pub(crate) fn set_status(
    db: &dyn Connection,
    id: &str,
    status: SubmissionStatus,
) -> anyhow::Result<()> {
    db.execute(
        &format!(
            "UPDATE hill_submissions SET status = ?2, updated_at = {} WHERE id = ?1",
            now(db.dialect())
        ),
        &[id.into(), status.as_str().into()],
    )?;
    Ok(())
}

/// Puts submission `id`, whose build a stop cut short, back in the queue with the try not
/// counted.
pub(crate) fn put_back(db: &dyn Connection, id: &str) -> anyhow::Result<()> {
    db.execute(
        &format!(
            "UPDATE hill_submissions SET status = '{RECEIVED}', tries = tries - 1 WHERE id = ?1"
        ),
        &[id.into()],
    )?;
    Ok(())
}

/// A received submission a builder takes.
pub(crate) struct Received {
    pub id: String,
    pub bot: String,
    pub author: String,
}

/// The received submission whose turn it is, if any: the author whose last build began
/// longest ago first, then that author's oldest upload.
pub(crate) fn next_received(db: &dyn Connection) -> anyhow::Result<Option<Received>> {
    db.row(
        &format!(
            "SELECT s.id, s.bot, s.author FROM hill_submissions s WHERE s.status = '{RECEIVED}'
         ORDER BY (SELECT COALESCE(MAX(b.build_started_at), 0) FROM hill_submissions b
                   WHERE b.author = s.author), s.seq
         LIMIT 1"
        ),
        &[],
    )?
    .map(|row| {
        Ok(Received {
            id: row.text("id")?,
            bot: row.text("bot")?,
            author: row.text("author")?,
        })
    })
    .transpose()
}

/// Marks submission `id` as building, one try more; false if it was no longer received (a
/// builder of another process took it first).
pub(crate) fn begin_build(db: &dyn Connection, id: &str) -> anyhow::Result<bool> {
    let begun = db.execute(
        &format!(
            "UPDATE hill_submissions SET status = '{BUILDING}', tries = tries + 1,
                 build_started_at = {now}, updated_at = {now}
             WHERE id = ?1 AND status = '{RECEIVED}'",
            now = now(db.dialect())
        ),
        &[id.into()],
    )?;
    Ok(begun != 0)
}

/// What became of a built submission, as its author reads it.
pub(crate) struct Outcome {
    /// The version it became; none if refused.
    pub version: Option<u32>,
    pub reason: Option<String>,
    pub build_log: Option<String>,
    pub faults: Vec<String>,
    pub stderr: Option<String>,
    pub detail: Option<String>,
}

/// Records what became of submission `id` of `bot`: active as its new version (its digest
/// read from the version), or refused.
pub(crate) fn record_outcome(
    db: &dyn Connection,
    id: &str,
    bot: &str,
    outcome: Outcome,
) -> anyhow::Result<()> {
    let version_digest = db
        .row(
            "SELECT digest FROM hill_versions WHERE name = ?1 AND version = ?2",
            &[bot.into(), outcome.version.map(i64::from).into()],
        )?
        .map(|r| r.text("digest"))
        .transpose()?;
    db.execute(
        &format!(
            "UPDATE hill_submissions SET status = ?2, reason = ?3, version = ?4,
                 version_digest = ?5, files_kept = ?6, build_log = ?7, faults = ?8, stderr = ?9,
                 detail = ?10, updated_at = {} WHERE id = ?1",
            now(db.dialect())
        ),
        &[
            id.into(),
            match outcome.version.is_some() {
                true => SubmissionStatus::Active,
                false => SubmissionStatus::Refused,
            }
            .as_str()
            .into(),
            outcome.reason.into(),
            outcome.version.map(i64::from).into(),
            version_digest.into(),
            i64::from(outcome.version.is_some()).into(),
            outcome.build_log.into(),
            serde_json::to_string(&outcome.faults)?.into(),
            outcome.stderr.into(),
            outcome.detail.into(),
        ],
    )?;
    Ok(())
}

/// Frees the name of a refused bot that never joined the hill, unless another upload of it
/// waits: a refusal does not keep a name from its next author.
pub(crate) fn release_name(db: &dyn Connection, bot: &str) -> anyhow::Result<()> {
    db.execute(
        &format!(
            "DELETE FROM hill_bot_owners WHERE bot = ?1
         AND NOT EXISTS (SELECT 1 FROM hill_versions WHERE name = ?1)
         AND NOT EXISTS (SELECT 1 FROM hill_submissions WHERE bot = ?1
                         AND status IN ('{RECEIVED}', '{BUILDING}', '{VALIDATING}'))"
        ),
        &[bot.into()],
    )?;
    Ok(())
}

/// A version of a bot with where its files are, as pruning reads it.
pub(crate) struct VersionFiles {
    pub id: usize,
    pub name: String,
    pub dir: String,
    pub digest: String,
    pub active: bool,
}

/// Bot `bot`'s versions, newest first, with their folders.
pub(crate) fn versions_newest_first(
    db: &dyn Connection,
    bot: &str,
) -> anyhow::Result<Vec<VersionFiles>> {
    db.query(
        "SELECT v.digest, v.state, v.id, b.name, b.dir FROM hill_versions v
         JOIN bots b ON b.id = v.id WHERE v.name = ?1 ORDER BY v.version DESC",
        &[bot.into()],
    )?
    .iter()
    .map(|row| {
        Ok(VersionFiles {
            id: row.int("id")? as usize,
            name: row.text("name")?,
            dir: row.text("dir")?,
            digest: row.text("digest")?,
            active: row.text("state")? == ACTIVE,
        })
    })
    .collect()
}

/// Records that the files of the version of `digest` are no longer kept.
pub(crate) fn files_dropped(db: &dyn Connection, digest: &str) -> anyhow::Result<()> {
    db.execute(
        "UPDATE hill_submissions SET files_kept = 0 WHERE version_digest = ?1",
        &[digest.into()],
    )?;
    Ok(())
}

/// A submission's row as its status pages read it, with its version's state once it has one.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SubmissionRow {
    pub id: String,
    pub bot: String,
    pub author: String,
    pub stored: SubmissionStatus,
    /// Its version once accepted; none before.
    pub version: Option<u32>,
    /// The bot's newest version, if it has one.
    pub newest: Option<u32>,
    /// Its version's state, if it has a version.
    pub state: Option<VersionState>,
    pub suspended: Option<String>,
    /// The bot's active version older than this one (rolled back to), else its next version.
    pub rolled_to: Option<u32>,
    pub reason: Option<String>,
    pub detail: Option<String>,
    pub build_log: Option<String>,
    pub faults: Option<String>,
    pub stderr: Option<String>,
    pub received_at: i64,
    pub updated_at: i64,
}

/// The submissions matching `filter` (an SQL condition on `s`, with `params`), newest first.
pub(crate) fn select(
    db: &dyn Connection,
    filter: &str,
    params: &[Value],
) -> anyhow::Result<Vec<SubmissionRow>> {
    let rows = db.query(
        &format!(
            "SELECT s.id, s.bot, s.version, s.status, s.reason, s.received_at, s.updated_at,
                 s.author, s.build_log, s.faults, s.stderr,
                 (SELECT MAX(v.version) FROM hill_versions v WHERE v.name = s.bot) AS newest, s.detail,
                 v.state, v.suspended,
                 COALESCE(
                     (SELECT a.version FROM hill_versions a WHERE a.name = s.bot
                      AND a.state = '{ACTIVE}' AND a.version < s.version),
                     (SELECT MIN(n.version) FROM hill_versions n
                      WHERE n.name = s.bot AND n.version > s.version)) AS rolled_to
             FROM hill_submissions s
             LEFT JOIN hill_versions v ON v.name = s.bot AND v.version = s.version
             WHERE {filter}
             ORDER BY s.seq DESC"
        ),
        params,
    )?;
    let optional = |r: &koth_tournament::store::sql::Row,
                    column: &str|
     -> anyhow::Result<Option<u32>> { Ok(r.opt_int(column)?.map(|v| v as u32)) };
    rows.iter()
        .map(|r| {
            let suspended = r.opt_text("suspended")?;
            let state = match r.opt_text("state")? {
                Some(state) => Some(VersionState::of_row(&state, suspended.is_some())?),
                None => None,
            };
            Ok(SubmissionRow {
                id: r.text("id")?,
                bot: r.text("bot")?,
                author: r.text("author")?,
                stored: SubmissionStatus::of_column(&r.text("status")?)?,
                version: optional(r, "version")?,
                newest: optional(r, "newest")?,
                state,
                suspended,
                rolled_to: optional(r, "rolled_to")?,
                reason: r.opt_text("reason")?,
                detail: r.opt_text("detail")?,
                build_log: r.opt_text("build_log")?,
                faults: r.opt_text("faults")?,
                stderr: r.opt_text("stderr")?,
                received_at: r.int("received_at")?,
                updated_at: r.int("updated_at")?,
            })
        })
        .collect()
}
