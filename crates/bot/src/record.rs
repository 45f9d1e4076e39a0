//! A game's public record, `replay.jsonl` in its folder, for a game that writes none of its own:
//! what every seat answered, and every fault, one JSON line each as it happens, so that the
//! game can be followed while it is played (a server streams the file's lines as they come) and
//! replayed after. Written by the seats of the game ([`super::Seat`]), so no game writes a line
//! of it; game-agnostic, it never holds a prompt (which may be large, and need not be public)
//! nor a bot's stderr (its author's).
//!
//! The lines, each with its `kind`:
//! - `{"kind":"seats","seed":"S","seats":["A","B"]}`: the first, the bots in seat order;
//! - `{"kind":"round","round":R}`: a round begins (R counted from 0, as the game counts);
//! - `{"kind":"answer","seat":I,"round":R,"turn":T,"line":"…"}`: seat I's answer (`turn`
//!   absent where the game names none), cut as a transcript cuts a line;
//! - `{"kind":"fault","seat":I,"round":R,"turn":T,"fault":"timeout","reason":"…"}`;
//! - `{"kind":"full"}`: the record reached [`RECORD_BYTES`] and stops here.
//!
//! Every line is flushed as it is written: a reader of the file sees a record whole or not at
//! all, the moment the seat has it. Deterministic: no timing in it, so the same seed gives the
//! same record byte for byte.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::json;

use super::transcript::TRANSCRIPT_LINE_BYTES;

/// The file, in a game's folder.
pub const RECORD_FILE: &str = "replay.jsonl";

/// The most a record holds: a Mad Cars match of 20,000 ticks answers about 1.3 MB; past this
/// a bot answering long lines at every turn cannot fill the disk.
pub const RECORD_BYTES: u64 = 8 << 20;

/// A game's record, shared by its seats: cloning it gives another handle to the same file.
///
/// Answers are written in the order their prompts went out, not the order they came back, so
/// that bots answering at once (paths, Mad Cars) leave the same record on every run of a seed:
/// a prompt reserves its answer's place ([`GameRecord::reserve`]), filled by the answer or the
/// fault that ended it, and a record waits for the places before it.
#[derive(Clone)]
pub struct GameRecord {
    inner: Arc<Mutex<RecordFile>>,
}

/// The place of an answer in the record, reserved when its prompt went out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    id: u64,
    seat: usize,
    round: u32,
    turn: Option<u32>,
}

struct RecordFile {
    file: Option<File>,
    written: u64,
    round: Option<u32>,
    /// Lines not written yet, behind a place still waiting for its answer; `first` is the id of
    /// the front one.
    queue: VecDeque<Option<String>>,
    first: u64,
}

impl GameRecord {
    /// Creates `replay.jsonl` in `log_dir` and writes its `seats` line.
    pub fn create(log_dir: &Path, seed: u64, seats: &[&str]) -> std::io::Result<GameRecord> {
        let file = File::create(log_dir.join(RECORD_FILE))?;
        let record = GameRecord {
            inner: Arc::new(Mutex::new(RecordFile {
                file: Some(file),
                written: 0,
                round: None,
                queue: VecDeque::new(),
                first: 0,
            })),
        };
        record.write(json!({"kind": "seats", "seed": seed.to_string(), "seats": seats}));
        Ok(record)
    }

    /// Notes that round `round` begins, once however many seats begin it.
    pub fn round(&self, round: u32) {
        let mut inner = self.lock();
        if inner.round != Some(round) {
            inner.round = Some(round);
            inner.push(Some(json!({"kind": "round", "round": round})));
        }
    }

    /// Reserves the place of seat `seat`'s answer to a prompt sent now, in `round` at `turn`.
    pub fn reserve(&self, seat: usize, round: u32, turn: Option<u32>) -> Place {
        let mut inner = self.lock();
        let id = inner.first + inner.queue.len() as u64;
        inner.queue.push_back(None);
        Place {
            id,
            seat,
            round,
            turn,
        }
    }

    /// The answer `line` in its place.
    pub fn answer(&self, place: Place, line: &str) {
        let line = super::cut_line(line, TRANSCRIPT_LINE_BYTES);
        let record = json!({"kind": "answer", "seat": place.seat, "round": place.round,
                            "line": line});
        self.lock().fill(place, Some(with_turn(record, place.turn)));
    }

    /// A place whose prompt got no answer and no fault (the bot was stopped): nothing is
    /// written there.
    pub fn abandon(&self, place: Place) {
        self.lock().fill(place, None);
    }

    /// Seat `seat`'s fault of `kind`, for `reason`, in `round` at `turn`: in the place of the
    /// answer it ended, if it ended one.
    pub fn fault(&self, at: FaultAt, kind: &str, reason: &str) {
        let reason = super::cut_line(reason, TRANSCRIPT_LINE_BYTES);
        let record = json!({"kind": "fault", "seat": at.seat, "round": at.round, "fault": kind,
                            "reason": reason});
        let record = Some(with_turn(record, at.turn));
        let mut inner = self.lock();
        match at.place {
            Some(place) => inner.fill(place, record),
            None => inner.push(record),
        }
    }

    fn write(&self, record: serde_json::Value) {
        self.lock().push(Some(record));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, RecordFile> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Where a fault is recorded: its seat, round and turn, and the place of the answer it ended.
#[derive(Debug, Clone, Copy)]
pub struct FaultAt {
    pub seat: usize,
    pub round: u32,
    pub turn: Option<u32>,
    pub place: Option<Place>,
}

fn with_turn(mut record: serde_json::Value, turn: Option<u32>) -> serde_json::Value {
    if let Some(turn) = turn {
        record["turn"] = turn.into();
    }
    record
}

impl RecordFile {
    /// Writes `record` after every line already waiting.
    fn push(&mut self, record: Option<serde_json::Value>) {
        let id = self.first + self.queue.len() as u64;
        self.queue.push_back(None);
        self.fill_id(id, record.map(|r| r.to_string()));
    }

    fn fill(&mut self, place: Place, record: Option<serde_json::Value>) {
        self.fill_id(place.id, record.map(|r| r.to_string()));
    }

    /// Fills place `id` with `line` (`None`: nothing), then writes every line at the front
    /// whose place is filled.
    fn fill_id(&mut self, id: u64, line: Option<String>) {
        let Some(index) = id.checked_sub(self.first) else {
            return;
        };
        let Some(slot) = self.queue.get_mut(index as usize) else {
            return;
        };
        *slot = Some(line.unwrap_or_default());
        while let Some(Some(_)) = self.queue.front() {
            let Some(Some(line)) = self.queue.pop_front() else {
                break;
            };
            self.first += 1;
            if !line.is_empty() {
                self.line(line);
            }
        }
    }

    /// Writes `text` as one line, or the `full` line and nothing more once the record would
    /// pass [`RECORD_BYTES`]. A record that cannot be written stops quietly: it is what a game
    /// shows, never what it scores.
    fn line(&mut self, mut text: String) {
        let Some(file) = &mut self.file else {
            return;
        };
        text.push('\n');
        let full = self.written + text.len() as u64 > RECORD_BYTES;
        if full {
            text = "{\"kind\":\"full\"}\n".to_string();
        }
        self.written += text.len() as u64;
        if file.write_all(text.as_bytes()).is_err() || full {
            self.file = None;
        }
    }
}

/// A reader of a record as it is written: each call gives the lines ended since the last
/// (a line not ended yet waits for its end), so a record can be followed while its game is
/// played, by a server or by a worker sending it on. A file that shrank was begun again (the
/// game is played again after koth's fault): it is read from its new start.
pub struct Follower {
    path: PathBuf,
    offset: u64,
    partial: Vec<u8>,
}

/// The most of a record read at one call.
const FOLLOW_BYTES: u64 = 1 << 20;

impl Follower {
    pub fn new(path: PathBuf) -> Follower {
        Follower {
            path,
            offset: 0,
            partial: Vec::new(),
        }
    }

    /// The lines ended since the last call (none if the file is not there yet), and whether
    /// the file was begun again since.
    pub fn new_lines(&mut self) -> (Vec<Vec<u8>>, bool) {
        let Ok(mut file) = File::open(&self.path) else {
            return (Vec::new(), false);
        };
        let Ok(len) = file.metadata().map(|m| m.len()) else {
            return (Vec::new(), false);
        };
        let restarted = len < self.offset;
        if restarted {
            self.offset = 0;
            self.partial.clear();
        }
        if len == self.offset || file.seek(SeekFrom::Start(self.offset)).is_err() {
            return (Vec::new(), restarted);
        }
        let mut added = Vec::new();
        let Ok(read) = file.take(FOLLOW_BYTES).read_to_end(&mut added) else {
            return (Vec::new(), restarted);
        };
        self.offset += read as u64;
        let mut lines = Vec::new();
        let mut rest = &added[..];
        while let Some(end) = rest.iter().position(|&b| b == b'\n') {
            self.partial.extend_from_slice(&rest[..end]);
            rest = &rest[end + 1..];
            lines.push(std::mem::take(&mut self.partial));
        }
        self.partial.extend_from_slice(rest);
        (lines, restarted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(dir: &Path) -> Vec<serde_json::Value> {
        std::fs::read_to_string(dir.join(RECORD_FILE))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    #[test]
    fn answers_are_recorded_in_the_order_of_their_prompts() {
        let dir = tempfile::tempdir().unwrap();
        let record = GameRecord::create(dir.path(), 7, &["a", "b"]).unwrap();
        record.round(0);
        record.round(0);
        let first = record.reserve(0, 0, Some(3));
        let second = record.reserve(1, 0, Some(3));
        let third = record.reserve(0, 0, Some(4));
        record.answer(second, "MOVE \"x\"");
        assert_eq!(lines(dir.path()).len(), 2, "waits for the first place");
        let at = FaultAt {
            seat: 0,
            round: 0,
            turn: Some(3),
            place: Some(first),
        };
        record.fault(at, "timeout", "no answer within 1000 ms");
        record.abandon(third);
        let at = FaultAt {
            seat: 1,
            round: 0,
            turn: None,
            place: None,
        };
        record.fault(at, "bad_move", "off the grid");
        let lines = lines(dir.path());
        let kinds: Vec<&str> = lines.iter().map(|l| l["kind"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["seats", "round", "fault", "answer", "fault"]);
        assert_eq!(lines[0]["seats"], json!(["a", "b"]));
        assert_eq!(lines[0]["seed"], "7");
        assert_eq!(lines[2]["fault"], "timeout");
        assert_eq!(lines[3]["line"], "MOVE \"x\"");
        assert_eq!(lines[3]["turn"], 3);
        assert!(lines[4].get("turn").is_none());
    }

    #[test]
    fn a_record_stops_when_full() {
        let dir = tempfile::tempdir().unwrap();
        let record = GameRecord::create(dir.path(), 7, &["a"]).unwrap();
        let long = "x".repeat(TRANSCRIPT_LINE_BYTES);
        for _ in 0..(RECORD_BYTES as usize / TRANSCRIPT_LINE_BYTES + 10) {
            let place = record.reserve(0, 1, None);
            record.answer(place, &long);
        }
        let size = std::fs::metadata(dir.path().join(RECORD_FILE))
            .unwrap()
            .len();
        assert!(size <= RECORD_BYTES + 64, "{size}");
        let text = std::fs::read_to_string(dir.path().join(RECORD_FILE)).unwrap();
        assert_eq!(text.lines().last(), Some("{\"kind\":\"full\"}"));
    }

    #[test]
    fn a_follower_gives_each_ended_line_once_and_starts_again_on_a_new_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(RECORD_FILE);
        let mut follower = Follower::new(path.clone());
        assert_eq!(follower.new_lines(), (vec![], false));
        std::fs::write(&path, "{\"a\":1}\n{\"b\"").unwrap();
        assert_eq!(follower.new_lines(), (vec![b"{\"a\":1}".to_vec()], false));
        std::fs::write(&path, "{\"a\":1}\n{\"b\":2}\n").unwrap();
        assert_eq!(follower.new_lines(), (vec![b"{\"b\":2}".to_vec()], false));
        assert_eq!(follower.new_lines(), (vec![], false));
        std::fs::write(&path, "{\"c\":3}\n").unwrap();
        assert_eq!(follower.new_lines(), (vec![b"{\"c\":3}".to_vec()], true));
    }
}
