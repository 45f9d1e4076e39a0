//! A bot's transcript: every line sent to it and received from it in a match, for people to read
//! and for `koth replay --drive` to play to the bot again.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use anyhow::Context;

/// Every line sent to and received from a bot, each with the milliseconds since the transcript
/// was created, so a conversation can be read, or replayed to the bot later (`koth replay
/// --drive`). Each line starts with what it is:
/// - `> ms line`: sent, no answer expected; `? ms line`: sent, and the bot was asked to answer it;
/// - `< ms line`: the bot's answer; `! ms kind: reason`: the fault that stopped the bot;
/// - `# text`: a note of the caller's own, such as where a round begins.
///
/// Shared by every process of one bot in one game; game-agnostic, it stores lines as they are,
/// but bounded: a line the bot wrote over [`TRANSCRIPT_LINE_BYTES`] keeps only its start and its
/// length ([`super::cut_line`]), and a transcript stops at [`TRANSCRIPT_BYTES`] with a note
/// ([`TRANSCRIPT_FULL_NOTE`]), whatever a bot sends. A transcript larger than
/// [`TRANSCRIPT_COMPRESS_ABOVE`] is gzipped when its last handle is dropped (`<name>.txt`
/// becomes `<name>.txt.gz`); [`Transcript::read`] reads either form.
#[derive(Clone)]
pub struct Transcript {
    inner: Arc<Mutex<TranscriptFile>>,
    start: Instant,
}

/// The most of one answer line a transcript keeps: far more than any sensible answer, while a
/// bot answering a megabyte at every prompt costs 4 KiB a line. koth's own lines are kept
/// whole (a Mad Cars `new_match` is 11 KiB), so that `koth replay --drive` can send them again.
pub const TRANSCRIPT_LINE_BYTES: usize = 4096;

/// The note naming the turn of the prompts that follow it, followed by the turn.
pub const TURN_NOTE: &str = "turn ";

/// The note of a line the bot printed unasked (after its answer, before the next prompt),
/// which koth dropped, followed by the line: a debug line's fault is often followed by the
/// answer the bot meant, and a person reading the transcript sees it here.
pub const UNASKED_NOTE: &str = "dropped, printed unasked: ";

/// The note after a WASI bot's answer, followed by the fuel it burnt for it.
pub const FUEL_NOTE: &str = "fuel ";

/// The most a transcript holds, per bot and game, before it is gzipped.
pub const TRANSCRIPT_BYTES: u64 = 8 << 20;

/// The note that ends a transcript cut at [`TRANSCRIPT_BYTES`]; nothing is recorded after it.
pub const TRANSCRIPT_FULL_NOTE: &str = "koth: transcript full";

/// A transcript up to this size stays plain text, readable with any pager; a larger one (a long
/// game of many bots) is gzipped, which shrinks these repetitive lines four- to fivefold.
pub const TRANSCRIPT_COMPRESS_ABOVE: u64 = 1 << 20;

/// The file behind a [`Transcript`]. Plain while the game runs, so a transcript can be followed
/// live and a koth killed mid-game leaves readable text; compressed, if large, once complete.
struct TranscriptFile {
    /// Buffered: a write per line would double koth's system calls per answer. The buffer is
    /// emptied at every note (each round's start), when the last handle is dropped, and when
    /// koth is interrupted ([`flush_transcripts`]).
    writer: std::io::BufWriter<std::fs::File>,
    path: PathBuf,
    /// Bytes written so far, held under [`TRANSCRIPT_BYTES`].
    written: u64,
    /// Whether the transcript reached [`TRANSCRIPT_BYTES`] and records nothing more.
    full: bool,
}

impl TranscriptFile {
    /// Writes `parts` as one line if there is room for it; the first line there is no room for
    /// is replaced by the [`TRANSCRIPT_FULL_NOTE`], after which nothing is written.
    fn write_line(&mut self, parts: &[&[u8]]) {
        if self.full {
            return;
        }
        let len: usize = parts.iter().map(|part| part.len()).sum();
        // Room is kept for the note itself.
        if self.written + len as u64 + 100 > TRANSCRIPT_BYTES {
            self.full = true;
            let _ = writeln!(
                self.writer,
                "# {TRANSCRIPT_FULL_NOTE} at {TRANSCRIPT_BYTES} bytes: the rest of the game is \
                 not recorded"
            );
            return;
        }
        self.written += len as u64;
        // A transcript is a record, not part of the game: a full disk must not fault the bot.
        let _ = parts
            .iter()
            .try_for_each(|part| self.writer.write_all(part));
    }
}

impl Drop for TranscriptFile {
    fn drop(&mut self) {
        // A transcript is a record, not part of the game: failing to compress keeps it plain.
        let large = |path: &Path| {
            std::fs::metadata(path).is_ok_and(|m| m.len() > TRANSCRIPT_COMPRESS_ABOVE)
        };
        if self.writer.flush().is_ok() && large(&self.path) {
            let _ = gzip_in_place(&self.path);
        }
    }
}

/// `path` with `.gz` appended: where a compressed transcript goes.
fn gz_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".gz");
    PathBuf::from(name)
}

/// Replaces `path` with `path.gz`; on any error the plain file is kept and no `.gz` is left.
fn gzip_in_place(path: &Path) -> std::io::Result<()> {
    let target = gz_path(path);
    let result = (|| {
        let mut plain = std::fs::File::open(path)?;
        let file = std::io::BufWriter::new(std::fs::File::create(&target)?);
        let mut encoder = flate2::write::GzEncoder::new(file, flate2::Compression::fast());
        std::io::copy(&mut plain, &mut encoder)?;
        // finish() ends the gzip stream (its trailer); the BufWriter must then be flushed too.
        encoder.finish()?.flush()
    })();
    match result {
        Ok(()) => std::fs::remove_file(path),
        Err(e) => {
            let _ = std::fs::remove_file(&target);
            Err(e)
        }
    }
}

/// Transcripts still open, so that an interrupted koth can write out what they hold.
static LIVE_TRANSCRIPTS: Mutex<Vec<std::sync::Weak<Mutex<TranscriptFile>>>> =
    Mutex::new(Vec::new());

/// Writes out the buffered lines of every open transcript. Called when koth is stopped, after
/// [`kill_all`]: koth then exits without running destructors, and the lines of the round being
/// played — often the very moment a bot author wants to see — would be lost.
pub fn flush_transcripts() {
    let live = LIVE_TRANSCRIPTS.lock().unwrap_or_else(|e| e.into_inner());
    for file in live.iter().filter_map(std::sync::Weak::upgrade) {
        let _ = file
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .writer
            .flush();
    }
}

impl Transcript {
    pub fn create(path: &Path) -> std::io::Result<Transcript> {
        let inner = Arc::new(Mutex::new(TranscriptFile {
            writer: std::io::BufWriter::new(std::fs::File::create(path)?),
            path: path.to_path_buf(),
            written: 0,
            full: false,
        }));
        let mut live = LIVE_TRANSCRIPTS.lock().unwrap_or_else(|e| e.into_inner());
        live.retain(|file| file.strong_count() > 0);
        live.push(Arc::downgrade(&inner));
        Ok(Transcript {
            inner,
            start: Instant::now(),
        })
    }

    /// The name `x` of the transcript file `file_name` (`x.txt`, or `x.txt.gz` once compressed);
    /// `None` for any other file.
    pub fn stem(file_name: &str) -> Option<&str> {
        file_name
            .strip_suffix(".txt.gz")
            .or_else(|| file_name.strip_suffix(".txt"))
    }

    /// The text of the transcript written at `path` (`x.txt`), whether it stayed plain or was
    /// compressed to `x.txt.gz`. The error names the file(s) looked for.
    pub fn read(path: &Path) -> anyhow::Result<String> {
        if path.is_file() {
            return koth_base::text::read(path);
        }
        let compressed = gz_path(path);
        let file = std::fs::File::open(&compressed).with_context(|| {
            format!(
                "no transcript {} (nor {})",
                path.display(),
                compressed.display()
            )
        })?;
        let mut bytes = Vec::new();
        flate2::read::GzDecoder::new(file)
            .read_to_end(&mut bytes)
            .with_context(|| format!("cannot read {}", compressed.display()))?;
        koth_base::text::from_bytes(bytes, &compressed)
    }

    /// A `# ` line of the caller's own, such as where a round begins.
    pub fn note(&self, text: &str) {
        let mut file = self.lock();
        file.write_line(&[
            b"# ",
            super::cut_line(text, TRANSCRIPT_LINE_BYTES).as_bytes(),
            b"\n",
        ]);
        let _ = file.writer.flush();
    }

    /// A `# turn T` note ([`TURN_NOTE`]): the turn the prompts after it belong to, written where
    /// the turn changes. Unlike [`Transcript::note`] it is not flushed: a rat-race board has
    /// 10,000 of them.
    pub(super) fn note_turn(&self, turn: u32) {
        let mut digits = itoa::Buffer::new();
        let turn = digits.format(turn).as_bytes();
        self.lock()
            .write_line(&[b"# ", TURN_NOTE.as_bytes(), turn, b"\n"]);
    }

    /// A `# dropped, printed unasked: LINE` note ([`UNASKED_NOTE`]), the line cut as an
    /// answer is.
    pub(super) fn note_unasked(&self, line: &str) {
        let line = super::cut_line(line, TRANSCRIPT_LINE_BYTES);
        self.lock()
            .write_line(&[b"# ", UNASKED_NOTE.as_bytes(), line.as_bytes(), b"\n"]);
    }

    /// A `# fuel F` note ([`FUEL_NOTE`]) after a WASI bot's answer: the fuel it burnt for it.
    /// Not flushed, as a turn's note is not.
    pub(super) fn note_fuel(&self, fuel: u64) {
        let mut digits = itoa::Buffer::new();
        let fuel = digits.format(fuel).as_bytes();
        self.lock()
            .write_line(&[b"# ", FUEL_NOTE.as_bytes(), fuel, b"\n"]);
    }

    /// Writes each line of `text` as `marker ms line`, an answer's cut to
    /// [`TRANSCRIPT_LINE_BYTES`]; for a
    /// prompt (`?`), only its last line is the one answered, and the lines before it are written
    /// as sent (`>`), like any report. Every line of every bot passes through here, so it is
    /// written piece by piece into the buffer (through `writeln!` and the u128 of `as_millis` it
    /// was a fifth of koth's instructions per turn in a paths game), and a full transcript
    /// costs one look: a rat-race turn is a line per specimen, thousands of them.
    /// The clock is read only if there is room: a rat-race board asks 10,000 times, nearly all
    /// of them after its transcript is full.
    pub(super) fn record(&self, marker: u8, text: &str) {
        let mut file = self.lock();
        if file.full {
            return;
        }
        let ms = self.start.elapsed().as_millis() as u64;
        Self::write_record(&mut file, marker, text, ms);
    }

    /// [`Transcript::record`] at `ms` of a clock of the caller's: a WASI bot's lines are timed
    /// on its fuel clock ([`super::wasm`]), so that its transcript is the same on any machine.
    pub(super) fn record_at(&self, marker: u8, text: &str, ms: u64) {
        let mut file = self.lock();
        if file.full {
            return;
        }
        Self::write_record(&mut file, marker, text, ms);
    }

    /// Writes the lines of [`Transcript::record`] into a transcript with room.
    fn write_record(file: &mut TranscriptFile, marker: u8, text: &str, ms: u64) {
        let mut digits = itoa::Buffer::new();
        let ms = digits.format(ms).as_bytes();
        let mut write = |marker: u8, line: &str| {
            let line = line.strip_suffix('\r').unwrap_or(line);
            let line = if marker == b'<' {
                super::cut_line(line, TRANSCRIPT_LINE_BYTES)
            } else {
                std::borrow::Cow::Borrowed(line)
            };
            file.write_line(&[&[marker, b' '], ms, b" ", line.as_bytes(), b"\n"]);
        };
        let mut rest = text.strip_suffix('\n').unwrap_or(text);
        while let Some(end) = memchr::memchr(b'\n', rest.as_bytes()) {
            write(if marker == b'?' { b'>' } else { marker }, &rest[..end]);
            rest = &rest[end + 1..];
        }
        write(marker, rest);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, TranscriptFile> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}
