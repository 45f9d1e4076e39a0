//! A submission's status as its author and everyone else read it: its row, and its version's
//! state once it has one (`replaced`, `retired`, `suspended`), never stored twice.

use super::*;
use crate::store::VersionState;

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
    fn of_column(status: &str) -> anyhow::Result<SubmissionStatus> {
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
pub(super) const RECEIVED: &str = SubmissionStatus::Received.as_str();
pub(super) const BUILDING: &str = SubmissionStatus::Building.as_str();
pub(super) const VALIDATING: &str = SubmissionStatus::Validating.as_str();
pub(super) const REFUSED: &str = SubmissionStatus::Refused.as_str();

/// Submission `id`, with its private part if `reader` is its author (or the hill's logs are
/// public). `None` if the hill has no such submission.
pub fn status(hill: &Hill, id: &str, reader: Option<&str>) -> anyhow::Result<Option<Status>> {
    let rows = select(hill, "s.id = ?1", &[id.into()])?;
    let public = hill.config.submissions.public_logs;
    Ok(rows
        .into_iter()
        .next()
        .map(|(status, private)| shown_to(hill, status, private, reader, public)))
}

/// The submissions of `author`, newest first, with their private parts.
pub fn of_author(hill: &Hill, author: &str) -> anyhow::Result<Vec<Status>> {
    let rows = select(hill, "s.author = ?1", &[author.into()])?;
    Ok(rows
        .into_iter()
        .map(|(status, private)| shown_to(hill, status, private, Some(author), true))
        .collect())
}

fn shown_to(
    hill: &Hill,
    mut status: Status,
    private: Private,
    reader: Option<&str>,
    public: bool,
) -> Status {
    // A suspension's reason quotes the bot's stderr (where it ran, in the server's folders),
    // which only its author reads.
    let reason = status.reason.take();
    status.reason = match public || reader == Some(private.author.as_str()) {
        true => {
            status.private = Some(private);
            reason.map(|reason| logs::Paths::new(&hill.dir).scrub(&reason))
        }
        false => reason.as_deref().map(logs::public_reason),
    };
    status
}

fn select(hill: &Hill, filter: &str, params: &[Value]) -> anyhow::Result<Vec<(Status, Private)>> {
    let db = hill.store.connection();
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
    rows.iter()
        .map(|r| {
            // An accepted submission lives on as its version does: its status follows the
            // version's state, stored in `hill_versions` alone; replaced by the bot's active
            // version where its author rolled back to an older one (as its page says), else by
            // the next.
            let stored = SubmissionStatus::of_column(&r.text("status")?)?;
            let state = match r.opt_text("state")? {
                Some(state) => Some(VersionState::of_row(
                    &state,
                    r.opt_text("suspended")?.is_some(),
                )?),
                None => None,
            };
            let (status, reason) = match (stored, state) {
                (SubmissionStatus::Active, Some(VersionState::Replaced)) => (
                    SubmissionStatus::Replaced,
                    Some(match r.get("rolled_to")? {
                        Value::Null => "replaced by a newer version".to_string(),
                        next => format!("replaced by v{}", next.int()?),
                    }),
                ),
                (SubmissionStatus::Active, Some(VersionState::Retired)) => (
                    SubmissionStatus::Retired,
                    Some("retired by the hill's owner".into()),
                ),
                (SubmissionStatus::Active, Some(VersionState::Suspended)) => {
                    (SubmissionStatus::Suspended, r.opt_text("suspended")?)
                }
                (status, _) => (status, r.opt_text("reason")?),
            };
            let version = match (r.get("version")?, status) {
                (Value::Null, SubmissionStatus::Refused) => None,
                (Value::Null, _) => Some(match r.get("newest")? {
                    Value::Null => 1,
                    last => last.int()? as u32 + 1,
                }),
                (version, _) => Some(version.int()? as u32),
            };
            Ok((
                Status {
                    id: r.text("id")?,
                    bot: r.text("bot")?,
                    version,
                    status,
                    // Capped as it is served too: a hill may hold reasons stored before the cap.
                    reason: reason.map(|reason| short_reason(&reason)),
                    received_at: r.int("received_at")?,
                    updated_at: r.int("updated_at")?,
                    private: None,
                },
                Private {
                    author: r.text("author")?,
                    detail: r.opt_text("detail")?,
                    build_log: r.opt_text("build_log")?,
                    faults: match r.opt_text("faults")? {
                        Some(json) => serde_json::from_str(&json).unwrap_or_default(),
                        None => Vec::new(),
                    },
                    stderr: r.opt_text("stderr")?,
                },
            ))
        })
        .collect()
}
