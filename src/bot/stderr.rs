//! A bot's stderr: kept in a capped file per match, and its last lines in memory for the fault
//! messages that quote them.

use std::collections::VecDeque;
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// How much of a bot's stderr is kept on disk per match, across all its processes.
pub(crate) const STDERR_CAP: u64 = 1 << 20;

/// A bot's stderr log for one game: a file under the game's log folder, capped in size across
/// all the processes of that bot in the game, plus the last few lines kept in memory so fault
/// messages can quote them.
#[derive(Clone)]
pub struct StderrLog {
    inner: Arc<Mutex<StderrState>>,
}

struct StderrState {
    file: Option<std::fs::File>,
    written: u64,
    cap: u64,
    truncated: bool,
    tail: VecDeque<String>,
    /// Whether the current process wrote `EFBIG`'s words, "File too large", to stderr: the
    /// file size cap's trace in a bot that is spared `SIGXFSZ` (see `sandbox::limit_hit`).
    file_too_large: bool,
}

/// `EFBIG`'s text, which a program that hit the file size cap prints with its error.
pub(crate) const FILE_TOO_LARGE: &str = "File too large";

const TAIL_LINES: usize = 3;

impl StderrLog {
    /// Creates (or empties) the log file at `path`, keeping at most `cap` bytes.
    pub fn create(path: &Path, cap: u64) -> std::io::Result<StderrLog> {
        let file = std::fs::File::create(path)?;
        Ok(StderrLog {
            inner: Arc::new(Mutex::new(StderrState {
                file: Some(file),
                written: 0,
                cap,
                truncated: false,
                tail: VecDeque::new(),
                file_too_large: false,
            })),
        })
    }

    /// A log that keeps only the tail in memory, for callers that store no files.
    pub fn discard() -> StderrLog {
        StderrLog {
            inner: Arc::new(Mutex::new(StderrState {
                file: None,
                written: 0,
                cap: 0,
                truncated: false,
                tail: VecDeque::new(),
                file_too_large: false,
            })),
        }
    }

    /// The last lines the bot wrote to stderr, joined with ` | `.
    pub(crate) fn tail(&self) -> String {
        let state = self.lock();
        state.tail.iter().cloned().collect::<Vec<_>>().join(" | ")
    }

    /// Forgets the last lines kept: a fault message quotes the last words of the process that
    /// faulted, not an earlier process's.
    pub(super) fn begin_process(&self) {
        let mut state = self.lock();
        state.tail.clear();
        state.file_too_large = false;
    }

    /// Whether the current process said "File too large" on stderr.
    pub(crate) fn said_file_too_large(&self) -> bool {
        self.lock().file_too_large
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, StderrState> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn write(&self, bytes: &[u8]) {
        let mut state = self.lock();
        for line in String::from_utf8_lossy(bytes).lines() {
            if !line.trim().is_empty() {
                state.file_too_large |= line.contains(FILE_TOO_LARGE);
                if state.tail.len() == TAIL_LINES {
                    state.tail.pop_front();
                }
                let mut line = line.to_string();
                line.truncate(line.floor_char_boundary(200));
                state.tail.push_back(line);
            }
        }
        let room = state.cap.saturating_sub(state.written);
        let keep = (bytes.len() as u64).min(room) as usize;
        if keep > 0 {
            if let Some(file) = state.file.as_mut() {
                let _ = file.write_all(&bytes[..keep]);
            }
            state.written += keep as u64;
        }
        if keep < bytes.len() && !state.truncated {
            state.truncated = true;
            let cap = state.cap;
            if let Some(file) = state.file.as_mut() {
                let _ = writeln!(file, "\n[koth: stderr cut off after {cap} bytes]");
            }
        }
    }
}
