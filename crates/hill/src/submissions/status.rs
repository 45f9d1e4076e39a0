//! A submission's status as its author and everyone else read it: its row, and its version's
//! state once it has one (`replaced`, `retired`, `suspended`), never stored twice.

use super::*;
use crate::store::VersionState;
use crate::store::submissions::{self as rows, SubmissionRow};

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

/// Submissions [`of_author`] lists: each carries up to 128 KiB of logs, and an author sends
/// a hundred a day, so the whole list grew without end, read under the door's lock.
pub const LISTED: u32 = 50;

/// The newest [`LISTED`] submissions of `author`, newest first, with their private parts.
pub fn of_author(hill: &Hill, author: &str) -> anyhow::Result<Vec<Status>> {
    let newest = format!(
        "s.seq IN (SELECT seq FROM hill_submissions WHERE author = ?1 ORDER BY seq DESC \
         LIMIT {LISTED})"
    );
    let rows = select(hill, &newest, &[author.into()])?;
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
    Ok(rows::select(&hill.store, filter, params)?
        .into_iter()
        .map(shown)
        .collect())
}

/// A submission's row as its pages show it. An accepted submission lives on as its version
/// does: its status follows the version's state, stored in `hill_versions` alone; replaced by
/// the bot's active version where its author rolled back to an older one (as its page says),
/// else by the next.
fn shown(row: SubmissionRow) -> (Status, Private) {
    let (status, reason) = match (row.stored, row.state) {
        (SubmissionStatus::Active, Some(VersionState::Replaced)) => (
            SubmissionStatus::Replaced,
            Some(match row.rolled_to {
                None => "replaced by a newer version".to_string(),
                Some(next) => format!("replaced by v{next}"),
            }),
        ),
        (SubmissionStatus::Active, Some(VersionState::Retired)) => (
            SubmissionStatus::Retired,
            Some("retired by the hill's owner".into()),
        ),
        (SubmissionStatus::Active, Some(VersionState::Suspended)) => {
            (SubmissionStatus::Suspended, row.suspended)
        }
        (status, _) => (status, row.reason),
    };
    let version = match (row.version, status) {
        (None, SubmissionStatus::Refused) => None,
        (None, _) => Some(row.newest.map_or(1, |last| last + 1)),
        (version, _) => version,
    };
    (
        Status {
            id: row.id,
            bot: row.bot,
            version,
            status,
            // Capped as it is served too: a hill may hold reasons stored before the cap.
            reason: reason.map(|reason| short_reason(&reason)),
            received_at: row.received_at,
            updated_at: row.updated_at,
            private: None,
        },
        Private {
            author: row.author,
            detail: row.detail,
            build_log: row.build_log,
            faults: match row.faults {
                Some(json) => serde_json::from_str(&json).unwrap_or_default(),
                None => Vec::new(),
            },
            stderr: row.stderr,
        },
    )
}
