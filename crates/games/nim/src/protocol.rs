//! Nim over the line protocol. One bot process plays every game of a match; koth writes:
//!
//! - `START <heap>`: a new game begins with `heap` stones.
//! - `TAKE <heap>`: the bot is to move with `heap` stones left; it answers one line, how many
//!   it takes (1 to 3, at most the heap).
//! - `END WIN` or `END LOSS`: the game is over (no answer expected).
//!
//! A bot that answers anything else, answers late or exits loses that game.

use koth_bot::quote;

/// The word that opens a game: what `koth replay` counts a match's games by.
pub(crate) const START: &str = "START";

pub(crate) fn start(heap: u32) -> String {
    format!("{START} {heap}")
}

pub(crate) fn take_prompt(heap: u32) -> String {
    format!("TAKE {heap}")
}

pub(crate) fn end(won: bool) -> &'static str {
    if won { "END WIN" } else { "END LOSS" }
}

/// The stones an answer takes from `heap`, or why it loses the game.
pub(crate) fn parse_take(answer: &str, heap: u32) -> Result<u32, String> {
    let taken = answer.trim().parse::<u32>().map_err(|_| {
        // A line that does not even start with a digit is most likely a debug line.
        let tried = answer
            .trim()
            .starts_with(|c: char| c.is_ascii_digit() || c == '-');
        format!(
            "answered {}, which is not a number of stones{}",
            quote(answer),
            koth_bot::debug_hint(tried)
        )
    })?;
    super::rules::take(heap, taken).map(|_| taken)
}
