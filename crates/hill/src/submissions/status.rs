//! A submission's status as its author and everyone else read it: its row, and its version's
//! state once it has one (`replaced`, `retired`, `suspended`), never stored twice.

use super::*;

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
                 (SELECT MAX(v.version) FROM hill_versions v WHERE v.name = s.bot), s.detail,
                 v.state, v.suspended,
                 COALESCE(
                     (SELECT a.version FROM hill_versions a WHERE a.name = s.bot
                      AND a.state = 'active' AND a.version < s.version),
                     (SELECT MIN(n.version) FROM hill_versions n
                      WHERE n.name = s.bot AND n.version > s.version))
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
            let (status, reason) = match (r[3].text()?.as_str(), r[13].opt_text()?.as_deref()) {
                ("active", Some("replaced")) => (
                    "replaced".to_string(),
                    Some(match &r[15] {
                        Value::Null => "replaced by a newer version".to_string(),
                        next => format!("replaced by v{}", next.int()?),
                    }),
                ),
                ("active", Some("retired")) => (
                    "retired".to_string(),
                    Some("retired by the hill's owner".into()),
                ),
                ("active", Some(_)) if r[14].opt_text()?.is_some() => {
                    ("suspended".to_string(), r[14].opt_text()?)
                }
                (status, _) => (status.to_string(), r[4].opt_text()?),
            };
            let version = match (&r[2], status.as_str()) {
                (Value::Null, "refused") => None,
                (Value::Null, _) => Some(match &r[11] {
                    Value::Null => 1,
                    last => last.int()? as u32 + 1,
                }),
                (version, _) => Some(version.int()? as u32),
            };
            Ok((
                Status {
                    id: r[0].text()?,
                    bot: r[1].text()?,
                    version,
                    status,
                    // Capped as it is served too: a hill may hold reasons stored before the cap.
                    reason: reason.map(|reason| short_reason(&reason)),
                    received_at: r[5].int()?,
                    updated_at: r[6].int()?,
                    private: None,
                },
                Private {
                    author: r[7].text()?,
                    detail: r[12].opt_text()?,
                    build_log: r[8].opt_text()?,
                    faults: match r[9].opt_text()? {
                        Some(json) => serde_json::from_str(&json).unwrap_or_default(),
                        None => Vec::new(),
                    },
                    stderr: r[10].opt_text()?,
                },
            ))
        })
        .collect()
}
