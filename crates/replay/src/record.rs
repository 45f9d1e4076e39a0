//! A game's public record (`replay.jsonl`, [`koth_bot::record`]) read back: what a viewer draws
//! a game from while it is played, before the files it draws a finished game from are written
//! (`results.json`, at the end). The lines written so far, each whole: a server makes a page
//! of a game in progress from them, and makes it again as more arrive.

use std::path::Path;

use serde::Deserialize;

use koth_bot::record::RECORD_FILE;
use koth_bot::{Fault, FaultKind};

/// A record as written so far.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Record {
    /// The game's seed, as its first line writes it (a string: it needs all 64 bits).
    pub seed: String,
    /// The seats' names, in seat order (its first line).
    pub seats: Vec<String>,
    /// Every later line a viewer reads, in the record's order.
    pub lines: Vec<Line>,
}

/// One line of a record after its first.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Line {
    /// A round begins, as the game counts it.
    Round { round: u32 },
    /// Seat `seat`'s answer `line`.
    Answer {
        seat: usize,
        round: u32,
        turn: Option<u32>,
        line: String,
    },
    /// Seat `seat`'s fault.
    Fault {
        seat: usize,
        round: u32,
        turn: Option<u32>,
        fault: FaultKind,
        reason: String,
    },
}

impl Record {
    /// The record in `folder` as it stands, or `None` where it has none; a line cut short by
    /// the writer, damaged, or of a kind a viewer does not read, is left out.
    pub fn read(folder: &Path) -> Option<Record> {
        #[derive(Deserialize)]
        struct Seats {
            seed: String,
            seats: Vec<String>,
        }
        let text = std::fs::read_to_string(folder.join(RECORD_FILE)).ok()?;
        // The text after the last newline is not a whole line yet.
        let whole = text.rfind('\n').map_or("", |end| &text[..end]);
        let mut lines = whole.lines();
        let Seats { seed, seats } = serde_json::from_str(lines.next()?).ok()?;
        let lines = lines
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect();
        Some(Record { seed, seats, lines })
    }

    /// Every fault recorded, as a match's result keeps them.
    pub fn faults(&self) -> Vec<Fault> {
        self.lines
            .iter()
            .filter_map(|line| match line {
                Line::Fault {
                    seat,
                    round,
                    turn,
                    fault,
                    reason,
                } => Some(Fault {
                    bot: self.seats.get(*seat).cloned().unwrap_or_default(),
                    kind: *fault,
                    round: Some(*round),
                    turn: *turn,
                    reason: reason.clone(),
                }),
                _ => None,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_read_to_its_last_whole_line() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(RECORD_FILE),
            "{\"kind\":\"seats\",\"seed\":\"3\",\"seats\":[\"A\",\"B\"]}\n\
             {\"kind\":\"round\",\"round\":1}\n\
             {\"kind\":\"answer\",\"seat\":0,\"round\":1,\"turn\":1,\"line\":\"4\"}\n\
             {\"kind\":\"fault\",\"seat\":1,\"round\":1,\"turn\":2,\"fault\":\"timed_out\",\"reason\":\"late\"}\n\
             {\"kind\":\"full\"}\n\
             {\"kind\":\"answer\",\"seat\":0,\"ro",
        )
        .unwrap();
        let record = Record::read(dir.path()).unwrap();
        assert_eq!(record.seed, "3");
        assert_eq!(record.seats, ["A", "B"]);
        assert_eq!(
            record.lines[..2],
            [
                Line::Round { round: 1 },
                Line::Answer {
                    seat: 0,
                    round: 1,
                    turn: Some(1),
                    line: "4".into()
                }
            ]
        );
        assert_eq!(record.lines.len(), 3, "{:?}", record.lines);
        let faults = record.faults();
        assert_eq!(faults.len(), 1);
        assert_eq!(
            (faults[0].bot.as_str(), faults[0].kind, faults[0].turn),
            ("B", FaultKind::TimedOut, Some(2))
        );
        assert!(Record::read(&dir.path().join("none")).is_none());
    }
}
