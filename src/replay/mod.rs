//! Replays people can read: parsing a paths game's `graphical_log.txt` (koth's or the original
//! controller's) and rebuilding every turn from koth's `replay.jsonl`.

pub mod graphical;
pub mod turns;
