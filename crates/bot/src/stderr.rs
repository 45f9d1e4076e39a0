//! A bot's stderr: kept in a capped file per match, and in memory the lines a fault message
//! quotes: the last ones, and the line that says what went wrong where the language makes it
//! findable (a Java stack trace's exception line comes before its frames, not last).

use std::collections::VecDeque;
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// How much of a bot's stderr is kept on disk per match, across all its processes.
pub const STDERR_CAP: u64 = 1 << 20;

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
    /// The latest line that names an error (see [`tells_what_went_wrong`]) with the line after
    /// it (a Java exception's first frame, a Rust panic's message), and how many lines came
    /// after it: quoted when the tail no longer holds it.
    telling: Option<Telling>,
    /// Whether the current process wrote `EFBIG`'s words, "File too large", to stderr: the
    /// file size cap's trace in a bot that is spared `SIGXFSZ` (see `sandbox::limit_hit`).
    file_too_large: bool,
}

/// `EFBIG`'s text, which a program that hit the file size cap prints with its error.
pub(crate) const FILE_TOO_LARGE: &str = "File too large";

const TAIL_LINES: usize = 3;

struct Telling {
    line: String,
    next: Option<String>,
    lines_after: usize,
}

/// Whether a line of stderr names what went wrong: an exception or error with its message
/// (Java's and Kotlin's `…Exception: …` and `Exception in thread`, Python's last traceback
/// line, JavaScript's `TypeError: …`), or a Rust panic. A stack frame never does.
fn tells_what_went_wrong(line: &str) -> bool {
    let line = line.trim_start();
    if line.starts_with("at ") || line.starts_with("File \"") {
        return false;
    }
    line.contains("Exception:")
        || line.contains("Exception in thread")
        || line.contains("Error:")
        || line.starts_with("error:")
        || line.contains("panicked at")
        || line.ends_with("Exception")
        || line.ends_with("Error")
}

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
                telling: None,
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
                telling: None,
                file_too_large: false,
            })),
        }
    }

    /// The lines a fault message quotes, joined with ` | `: the last lines the bot wrote to
    /// stderr, or, if the line that names what went wrong came earlier, that line, the line
    /// after it, `…` and the last line.
    pub(crate) fn tail(&self) -> String {
        let state = self.lock();
        let mut lines: Vec<String> = match &state.telling {
            Some(telling) if telling.lines_after >= state.tail.len() => {
                let mut lines = vec![telling.line.trim().to_string()];
                lines.extend(telling.next.iter().map(|next| next.trim().to_string()));
                if telling.lines_after > 2 {
                    lines.push("…".into());
                }
                lines.extend(state.tail.back().map(|last| last.trim().to_string()));
                lines
            }
            _ => state.tail.iter().cloned().collect(),
        };
        lines.dedup();
        lines.join(" | ")
    }

    /// Forgets the last lines kept: a fault message quotes the last words of the process that
    /// faulted, not an earlier process's.
    pub(super) fn begin_process(&self) {
        let mut state = self.lock();
        state.tail.clear();
        state.telling = None;
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
                if let Some(telling) = state.telling.as_mut() {
                    telling.lines_after += 1;
                    if telling.next.is_none() {
                        telling.next = Some(line.clone());
                    }
                }
                if tells_what_went_wrong(&line) {
                    state.telling = Some(Telling {
                        line: line.clone(),
                        next: None,
                        lines_after: 0,
                    });
                }
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

#[cfg(test)]
mod tests {
    use super::StderrLog;

    fn tail_of(stderr: &str) -> String {
        let log = StderrLog::discard();
        log.write(stderr.as_bytes());
        log.tail()
    }

    #[test]
    fn a_java_trace_is_quoted_by_its_exception_its_first_frame_and_its_last_line() {
        let tail = tail_of(
            "Exception in thread \"main\" java.lang.ArrayIndexOutOfBoundsException: Index -1\n\
             \tat Connector.pick(Connector.java:40)\n\tat Connector.act(Connector.java:30)\n\
             \tat Connector.start(Connector.java:20)\n\tat Connector.main(Connector.java:10)\n",
        );
        assert_eq!(
            tail,
            "Exception in thread \"main\" java.lang.ArrayIndexOutOfBoundsException: Index -1 \
             | at Connector.pick(Connector.java:40) | … | at Connector.main(Connector.java:10)"
        );
    }

    #[test]
    fn a_python_trace_and_a_short_rust_panic_keep_their_last_lines() {
        let python = "Traceback (most recent call last):\n  File \"bot.py\", line 9, in <module>\n\
                      \x20   main()\n  File \"bot.py\", line 5, in main\n    cells[9]\n\
                      IndexError: list index out of range\n";
        assert_eq!(
            tail_of(python),
            "  File \"bot.py\", line 5, in main |     cells[9] | IndexError: list index out of range"
        );
        let rust = "thread 'main' panicked at src/main.rs:3:5:\nindex out of bounds\n";
        assert_eq!(
            tail_of(rust),
            "thread 'main' panicked at src/main.rs:3:5: | index out of bounds"
        );
    }
}
