//! Nim, the example game: one heap, each player in turn takes 1 to 3 stones, and whoever takes
//! the last stone wins. Small on purpose: it is what ARCHITECTURE.md's "Adding a game" recipe
//! builds, a game of its folder and one registry line, played in tournaments (it has no command;
//! `koth replay --text` tells its games from their transcripts). The rules are in `docs/games/nim.md`.

pub(crate) mod play;
pub(crate) mod protocol;
pub(crate) mod rules;
pub(crate) mod viewer;

pub use play::Nim;
