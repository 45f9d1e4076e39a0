//! `koth hill submit BOT_DIR --to URL [--token TOKEN] [--wait]`: an author's door onto a hill
//! served elsewhere. Packs the folder as a `.tar.gz` (files and folders, sorted, with no
//! owner or time, so the same folder always packs to the same bytes and the hill recognises
//! it), uploads it, and prints the submission; `--wait` follows it to `active` or `refused`.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde::Deserialize;

use crate::bot::roster;

/// How long `--wait` follows a submission before it gives up (a build's limit is at most an
/// hour, and a validation game is one game).
const WAIT_AT_MOST: Duration = Duration::from_secs(2 * 3600);
/// How often `--wait` asks.
const ASK_EVERY: Duration = Duration::from_millis(500);

/// A submission as the hill answers for it.
#[derive(Debug, Deserialize)]
struct Submission {
    id: String,
    bot: String,
    version: Option<u32>,
    status: String,
    reason: Option<String>,
    private: Option<Private>,
}

#[derive(Debug, Deserialize)]
struct Private {
    build_log: Option<String>,
    #[serde(default)]
    faults: Vec<String>,
    stderr: Option<String>,
}

pub(crate) fn submit(folder: &Path, to: &str, token: &str, wait: bool) -> anyhow::Result<()> {
    // The folder's own mistakes are told here, before anything is sent.
    let (spec, _) = roster::load_manifest(folder)?;
    let packed = pack(folder)?;
    let base = to.trim_end_matches('/');
    // rustls's own provider (ring), chosen once; reqwest's TLS takes whichever is installed.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(300))
        .build()
        .context("cannot start an HTTP client")?;
    let response = client
        .post(format!("{base}/api/submissions"))
        .bearer_auth(token)
        .header(reqwest::header::CONTENT_TYPE, "application/gzip")
        .body(packed.clone())
        .send()
        .with_context(|| format!("cannot reach the hill at {base}"))?;
    let submission: Submission = answer(response)?;
    println!(
        "{} v{}: submission {} ({} bytes packed), {}",
        crate::text::shown(&submission.bot),
        submission.version.unwrap_or_default(),
        submission.id,
        packed.len(),
        submission.status
    );
    if submission.bot != spec.name {
        tracing::warn!(
            "the hill names the bot {:?}, its bot.toml {:?}",
            submission.bot,
            spec.name
        );
    }
    if !wait {
        return Ok(());
    }
    follow(&client, base, token, submission)
}

/// Asks after `submission` until it is active or refused, or already suspended, replaced or
/// retired.
fn follow(
    client: &reqwest::blocking::Client,
    base: &str,
    token: &str,
    mut submission: Submission,
) -> anyhow::Result<()> {
    let started = Instant::now();
    let mut said = submission.status.clone();
    while !matches!(
        submission.status.as_str(),
        "active" | "refused" | "suspended" | "replaced" | "retired"
    ) {
        if started.elapsed() > WAIT_AT_MOST {
            bail!(
                "submission {} is still {} after {} s; `koth hill submit` stops waiting",
                submission.id,
                submission.status,
                WAIT_AT_MOST.as_secs()
            );
        }
        std::thread::sleep(ASK_EVERY);
        let response = client
            .get(format!("{base}/api/submissions/{}", submission.id))
            .bearer_auth(token)
            .send()
            .with_context(|| format!("cannot reach the hill at {base}"))?;
        submission = answer(response)?;
        if submission.status != said {
            println!("{}", submission.status);
            said = submission.status.clone();
        }
    }
    if let Some(private) = &submission.private {
        if let Some(log) = private.build_log.as_deref().filter(|l| !l.is_empty()) {
            println!("--- build log\n{}", crate::text::shown_lines(log));
        }
        for fault in &private.faults {
            println!("fault: {}", crate::text::shown(fault));
        }
        if let Some(stderr) = &private.stderr {
            println!(
                "--- validation game's stderr\n{}",
                crate::text::shown_lines(stderr)
            );
        }
    }
    match submission.status.as_str() {
        "active" => {
            println!(
                "{} v{} is active on the hill",
                crate::text::shown(&submission.bot),
                submission.version.unwrap_or_default()
            );
            Ok(())
        }
        "replaced" | "retired" => {
            println!(
                "{} v{} was accepted, and is {} since",
                crate::text::shown(&submission.bot),
                submission.version.unwrap_or_default(),
                crate::text::shown(submission.reason.as_deref().unwrap_or(&submission.status))
            );
            Ok(())
        }
        "suspended" => bail!(
            "{} v{} was accepted, then {}",
            crate::text::shown(&submission.bot),
            submission.version.unwrap_or_default(),
            crate::text::shown_lines(submission.reason.as_deref().unwrap_or("suspended"))
        ),
        _ => bail!(
            "{} was refused: {}",
            crate::text::shown(&submission.bot),
            crate::text::shown_lines(submission.reason.as_deref().unwrap_or("no reason given"))
        ),
    }
}

/// The body of a successful answer, or the hill's error as one message.
fn answer(response: reqwest::blocking::Response) -> anyhow::Result<Submission> {
    let status = response.status();
    let retry = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let text = response.text().context("the hill's answer was cut short")?;
    if status.is_success() {
        return serde_json::from_str(&text)
            .with_context(|| format!("the hill's answer is not a submission: {text:.200}"));
    }
    #[derive(Deserialize)]
    struct Error {
        error: String,
    }
    let why = serde_json::from_str::<Error>(&text)
        .map(|e| e.error)
        .unwrap_or_else(|_| text.chars().take(300).collect());
    let retry = retry.map_or(String::new(), |s| format!(" (try again in {s} s)"));
    bail!(
        "the hill refused it ({status}): {}{retry}",
        crate::text::shown_lines(&why)
    )
}

/// The folder as a `.tar.gz`: folders and regular files, sorted, exec bits kept, no owners
/// or times. A link is refused here, naming it, since the hill refuses it.
fn pack(folder: &Path) -> anyhow::Result<Vec<u8>> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut tar = tar::Builder::new(gz);
    add_folder(&mut tar, folder, Path::new(""))?;
    let gz = tar.into_inner().context("cannot pack the bot")?;
    let mut bytes = gz.finish().context("cannot pack the bot")?;
    bytes.flush()?;
    Ok(bytes)
}

fn add_folder<W: Write>(
    tar: &mut tar::Builder<W>,
    root: &Path,
    relative: &Path,
) -> anyhow::Result<()> {
    let here = root.join(relative);
    let mut entries: Vec<_> = std::fs::read_dir(&here)
        .with_context(|| format!("cannot read {}", here.display()))?
        .collect::<Result<_, _>>()
        .with_context(|| format!("cannot read {}", here.display()))?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = relative.join(entry.file_name());
        let meta = std::fs::symlink_metadata(entry.path())
            .with_context(|| format!("cannot read {}", entry.path().display()))?;
        let mut header = tar::Header::new_ustar();
        header.set_mtime(0);
        header.set_uid(0);
        header.set_gid(0);
        if meta.is_dir() {
            if entry.file_name() == ".git" {
                continue;
            }
            header.set_entry_type(tar::EntryType::Directory);
            header.set_mode(0o755);
            header.set_size(0);
            tar.append_data(&mut header, &path, std::io::empty())
                .with_context(|| format!("cannot pack {}", path.display()))?;
            add_folder(tar, root, &path)?;
        } else if meta.is_file() {
            header.set_entry_type(tar::EntryType::Regular);
            let exec = meta.permissions().mode() & 0o111 != 0;
            header.set_mode(if exec { 0o755 } else { 0o644 });
            header.set_size(meta.len());
            let file = std::fs::File::open(entry.path())
                .with_context(|| format!("cannot read {}", entry.path().display()))?;
            tar.append_data(&mut header, &path, file)
                .with_context(|| format!("cannot pack {}", path.display()))?;
        } else {
            bail!(
                "{}: a hill takes files and folders only, and this is a link or a device; \
                 copy what it points to into the folder instead",
                entry.path().display()
            );
        }
    }
    Ok(())
}
