//! A board recorded turn by turn for the viewers (a match writes `board-B.replay.json` for each
//! board it keeps, [`koth_game::RecordBoards`]; `koth replay` shows it in the terminal or
//! turns it into a page, and the dashboard serves the page).
//!
//! A population can reach thousands of specimens over 10,000 turns, so the recording keeps
//! where they are, not who they are: each frame lists the occupied cells with how many
//! specimens stand on each (at most 795 cells, whatever the population). Frames are taken after
//! every turn up to [`EVERY_TURN_UNTIL`] — a specimen's whole lifetime, to watch the first
//! generations find their way — then every [`LATER_EVERY`] turns, and after the board's last
//! turn. Recording only reads the board, so it cannot change its outcome.
//!
//! A board kept however it ends is also written to its file as it is played
//! ([`BoardRecording::stream_to`]): its track, then a frame a line, appended at most every
//! [`STREAM_EVERY`], which [`BoardRecording::read_so_far`] reads to its last whole frame, so a
//! server draws the board while the game is played. At the board's end the whole recording
//! replaces that file at once.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;
use serde::{Deserialize, Serialize};

use super::player::Player;
use super::rules::{Board, MAX_AGE};
use super::track::{CELLS, GOAL_X, HEIGHT, Kind, Track, WIDTH};

/// Every turn is recorded up to this one.
pub(crate) const EVERY_TURN_UNTIL: u32 = MAX_AGE;
/// After [`EVERY_TURN_UNTIL`], a frame every this many turns.
pub(crate) const LATER_EVERY: u32 = 10;

/// Board `stored` as a person reads it. Boards are stored from 0 (their seeds, `results.json`,
/// the protocol's `RATRACE b`) and read and typed from 1 (output, flags, file names, viewers),
/// as every game's rounds are ([`koth_game::Numbering`]).
pub(crate) fn shown_board(stored: usize) -> usize {
    stored + 1
}

/// The stored number of the board a person calls `shown`; `None` for 0, which is no board.
pub(crate) fn stored_board(shown: usize) -> Option<usize> {
    shown.checked_sub(1)
}

/// How often a board written as it is played has its new frames appended to its file.
pub(crate) const STREAM_EVERY: Duration = Duration::from_millis(250);

/// The board's state after a turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Frame {
    pub turn: u32,
    pub population: usize,
    pub points: u64,
    /// Occupied cells as flat pairs `cell, count` (cell index `y * width + x`), in cell order.
    pub cells: Vec<u32>,
}

/// A whole recorded board: its track, then its frames.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoardRecording {
    pub game: String,
    pub player: String,
    pub board: usize,
    pub seed: u64,
    pub width: i32,
    pub height: i32,
    /// Cells with `x >= goal_x` are the goal.
    pub goal_x: i32,
    /// Each row's colours as hex digits, row y = 0 first.
    pub colours: Vec<String>,
    /// What each of the 16 colours does: `empty`, `wall`, `teleporter (dx,dy)` or
    /// `trap (dx,dy)` (see [`Kind`]).
    pub kinds: Vec<String>,
    /// Cells that kill a specimen landing on them (walls and trap targets).
    pub deadly: Vec<u32>,
    /// Cells where new specimens are placed.
    pub starts: Vec<u32>,
    pub frames: Vec<Frame>,
    /// Where the recording is written as the board is played, if it is.
    #[serde(skip)]
    streamed: Option<Streamed>,
}

/// A recording's file written as its board is played: how many frames it holds, and when they
/// were last appended (never yet: `None`).
#[derive(Debug, Clone, PartialEq)]
struct Streamed {
    path: PathBuf,
    written: usize,
    at: Option<Instant>,
}

impl BoardRecording {
    /// An empty recording of a board on `track`.
    pub fn new(player: &str, board: usize, seed: u64, track: &Track) -> BoardRecording {
        let colours = (0..HEIGHT).map(|y| track.colour_row(y)).collect();
        let kinds = track.kinds.iter().map(Kind::to_string).collect();
        let deadly = (0..CELLS as u32)
            .filter(|&c| track.deadly[c as usize])
            .collect();
        BoardRecording {
            game: "ratrace".into(),
            player: player.to_string(),
            board,
            seed,
            width: WIDTH,
            height: HEIGHT,
            goal_x: GOAL_X,
            colours,
            kinds,
            deadly,
            starts: track.starts.iter().map(|&c| c as u32).collect(),
            frames: Vec::new(),
            streamed: None,
        }
    }

    /// Writes the recording to `path` from now on as its board is played: the track and its
    /// frames so far (`"frames":[` then a frame a line, each after the first led by a comma), new
    /// frames appended at most every [`STREAM_EVERY`]. Only a view while the game is played: a
    /// file that cannot be written so is written whole at the end ([`Self::write`]), where a
    /// failure is the run's.
    pub(crate) fn stream_to(&mut self, path: &Path) {
        let Ok(whole) = serde_json::to_string(&BoardRecording {
            frames: Vec::new(),
            ..self.clone()
        }) else {
            return;
        };
        let Some(head) = whole.strip_suffix("]}") else {
            return;
        };
        if std::fs::write(path, format!("{head}\n")).is_ok() {
            self.streamed = Some(Streamed {
                path: path.to_path_buf(),
                written: 0,
                at: None,
            });
            self.append();
        }
    }

    /// Appends the frames not yet in the streamed file, unless it was written less than
    /// [`STREAM_EVERY`] ago; a file that cannot be written is no longer streamed to.
    fn append(&mut self) {
        let Some(streamed) = self.streamed.as_mut() else {
            return;
        };
        if streamed.written == self.frames.len()
            || streamed.at.is_some_and(|at| at.elapsed() < STREAM_EVERY)
        {
            return;
        }
        let mut lines = String::new();
        for (i, frame) in self.frames.iter().enumerate().skip(streamed.written) {
            let Ok(json) = serde_json::to_string(frame) else {
                break;
            };
            lines += if i == 0 { "" } else { "," };
            lines += &json;
            lines += "\n";
        }
        let appended = std::fs::OpenOptions::new()
            .append(true)
            .open(&streamed.path)
            .and_then(|mut file| file.write_all(lines.as_bytes()));
        match appended {
            Ok(()) => {
                streamed.written = self.frames.len();
                streamed.at = Some(Instant::now());
            }
            Err(_) => self.streamed = None,
        }
    }

    /// Whether the frame after `turn` is kept (the board's last turn is kept by [`Self::last`]).
    pub(crate) fn wants(turn: u32) -> bool {
        turn <= EVERY_TURN_UNTIL || turn.is_multiple_of(LATER_EVERY)
    }

    /// Records the board after `turn`; `player` is the board's, which may keep its specimens.
    pub(crate) fn frame(&mut self, turn: u32, board: &Board, player: &mut dyn Player) {
        let mut counts = vec![0u32; CELLS];
        for s in board.living(player) {
            counts[s.cell as usize] += 1;
        }
        let cells = counts
            .iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .flat_map(|(cell, &n)| [cell as u32, n])
            .collect();
        self.frames.push(Frame {
            turn,
            population: board.population(),
            points: board.points,
            cells,
        });
        self.append();
    }

    /// Records the board after its last turn, unless that frame is already there.
    pub(crate) fn last(&mut self, turn: u32, board: &Board, player: &mut dyn Player) {
        if self.frames.last().is_none_or(|f| f.turn != turn) {
            self.frame(turn, board, player);
        }
    }

    /// The file name of board `board`'s recording in a run's log folder: named by the board's
    /// number as a person reads it, from 1.
    pub(crate) fn file_name(board: usize) -> String {
        format!("board-{}.replay.json", shown_board(board))
    }

    /// The board whose recording the file `name` is, if it is one ([`Self::file_name`]'s
    /// inverse).
    pub(crate) fn board_of(name: &str) -> Option<usize> {
        stored_board(
            name.strip_prefix("board-")?
                .strip_suffix(".replay.json")?
                .parse()
                .ok()?,
        )
    }

    /// Writes the whole recording to `path`, replacing at once the file written as the board
    /// was played, if it was ([`Self::stream_to`]), so that a reader never finds it half
    /// written.
    pub fn write(&self, path: &Path) -> anyhow::Result<()> {
        let text = serde_json::to_string(self)?;
        let mut name = path.file_name().unwrap_or_default().to_os_string();
        name.push(".part");
        let part = path.with_file_name(name);
        std::fs::write(&part, text)
            .and_then(|()| std::fs::rename(&part, path))
            .with_context(|| format!("cannot write {}", path.display()))
    }

    /// Reads a recording; the error names the file.
    pub fn read(path: &Path) -> anyhow::Result<BoardRecording> {
        let text = koth_base::text::read(path)?;
        Self::parse(path, &text)
    }

    /// Reads a recording that may still be written as its board is played
    /// ([`Self::stream_to`]): whole, or else to its last whole frame.
    pub fn read_so_far(path: &Path) -> anyhow::Result<BoardRecording> {
        let text = koth_base::text::read(path)?;
        match serde_json::from_str::<BoardRecording>(&text) {
            // Not closed yet: the text after the last newline is not a whole frame yet.
            Err(e) if e.is_eof() => {
                let lines = text.rfind('\n').map_or("", |end| &text[..end]);
                Self::parse(path, &format!("{lines}]}}"))
            }
            // Whole, or damaged as a whole file is: checked, or refused, as `read` does.
            _ => Self::parse(path, &text),
        }
    }

    fn parse(path: &Path, text: &str) -> anyhow::Result<BoardRecording> {
        let recording: BoardRecording = serde_json::from_str(text)
            .with_context(|| format!("{}: not a rat-race board recording", path.display()))?;
        recording
            .check()
            .with_context(|| format!("{}: not a rat-race board recording", path.display()))?;
        Ok(recording)
    }

    /// Checks what the viewers rely on: the track's size, 16 colour kinds, hex colour rows, at
    /// least one frame, frames in the order of their turns, and cells (with counts in pairs)
    /// that lie on the board.
    fn check(&self) -> anyhow::Result<()> {
        anyhow::ensure!(!self.frames.is_empty(), "no frame recorded");
        if let Some(pair) = self.frames.windows(2).find(|w| w[0].turn >= w[1].turn) {
            anyhow::bail!(
                "the frame of turn {} comes after that of turn {}",
                pair[1].turn,
                pair[0].turn
            );
        }
        anyhow::ensure!(
            (self.width, self.height, self.goal_x) == (WIDTH, HEIGHT, GOAL_X),
            "expected a {WIDTH} × {HEIGHT} board with its goal from x = {GOAL_X}, found {} × {} \
             from x = {}",
            self.width,
            self.height,
            self.goal_x
        );
        anyhow::ensure!(
            self.colours.len() == HEIGHT as usize
                && self.colours.iter().all(|row| {
                    row.len() == WIDTH as usize && row.chars().all(|c| c.is_ascii_hexdigit())
                }),
            "expected {HEIGHT} rows of {WIDTH} hex colours"
        );
        anyhow::ensure!(
            self.kinds.len() == 16,
            "expected 16 colour kinds, found {}",
            self.kinds.len()
        );
        let on_board = |cell: &u32| (*cell as usize) < CELLS;
        anyhow::ensure!(
            self.deadly.iter().chain(&self.starts).all(on_board),
            "a deadly or start cell lies off the board"
        );
        for frame in &self.frames {
            anyhow::ensure!(
                frame.cells.len() % 2 == 0 && frame.cells.iter().step_by(2).all(on_board),
                "turn {}: expected pairs of an on-board cell and a count",
                frame.turn
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use koth_game::seed;

    #[test]
    fn a_board_written_as_it_is_played_is_read_to_its_last_whole_frame() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(BoardRecording::file_name(0));
        let mut rng = seed::rng(1, 0);
        let track = Track::generate(&mut rng);
        let board = Board::new(&track, rng);
        let mut player = crate::player::RandomForwardPlayer::default();
        let mut recording = BoardRecording::new("p", 0, 1, &track);
        recording.stream_to(&path);
        // The first frame is appended at once, the next not before STREAM_EVERY has passed.
        recording.frame(0, &board, &mut player);
        recording.frame(1, &board, &mut player);
        let so_far = BoardRecording::read_so_far(&path).unwrap();
        assert_eq!(so_far.frames, recording.frames[..1]);
        assert_eq!(
            (so_far.colours, so_far.starts),
            (recording.colours.clone(), recording.starts.clone())
        );
        assert!(BoardRecording::read(&path).is_err(), "not whole yet");
        // A frame cut short by the writer is not read.
        let cut = dir.path().join(BoardRecording::file_name(1));
        let mut text = std::fs::read_to_string(&path).unwrap();
        text += ",{\"turn\":1,\"popul";
        std::fs::write(&cut, text).unwrap();
        assert_eq!(BoardRecording::read_so_far(&cut).unwrap().frames.len(), 1);
        // At the board's end the whole recording replaces it.
        recording.last(2, &board, &mut player);
        recording.write(&path).unwrap();
        let whole = BoardRecording::read(&path).unwrap();
        assert_eq!(whole.frames, recording.frames);
        assert_eq!(whole.frames.len(), 3);
        assert_eq!(BoardRecording::read_so_far(&path).unwrap().frames.len(), 3);
    }
}
