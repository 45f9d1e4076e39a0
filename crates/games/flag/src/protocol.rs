//! Flag over the line protocol: the question koth writes for each level, and the reading of
//! the bot's answer.
//!
//! Protocol, one exchange per level (koth → bot, then one line back):
//! ```text
//! LEVEL <width> <height> <flag-value>
//! <height lines of the map, in the level file's characters: 1 2 # . S s F>
//! SOLVE
//! ```
//! The bot answers one line of moves, `U` `D` `L` `R` (an empty line is an empty walk). koth
//! walks them with the game's rules: moves into fallen tiles, holes or edges do nothing, and the
//! walk ends once the level is solved. After the last level koth closes the bot's stdin and the
//! bot should exit.

use super::rules::{Level, Move, parse_moves};

/// The question for one level, as the bot reads it.
pub(crate) fn prompt(level: &Level) -> String {
    let mut text = format!(
        "LEVEL {} {} {}\n",
        level.width, level.height, level.flag_value
    );
    for row in level.map_rows() {
        text.push_str(&row);
        text.push('\n');
    }
    text.push_str("SOLVE");
    text
}

/// The walk a bot answered, or why the answer is not one.
pub(crate) fn parse_answer(line: &str) -> Result<Vec<Move>, String> {
    parse_moves(line.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_sends_the_size_the_flag_value_and_the_map() {
        let level = Level::parse("t", "flag-value -4\ns12\n.#F").unwrap();
        assert_eq!(prompt(&level), "LEVEL 3 2 -4\ns12\n.#F\nSOLVE");
    }

    #[test]
    fn an_answer_is_a_line_of_moves() {
        assert_eq!(parse_answer("UR\n").unwrap(), vec![Move::Up, Move::Right]);
        assert!(parse_answer("UX").unwrap_err().contains("character 2"));
    }
}
