//! The protocol's vocabulary: every line koth writes to a paths bot and every answer it reads,
//! displayed and parsed in this one place.

use std::fmt;

use super::rules::Vertex;
use koth_bot::quote;

/// A line koth sends to a bot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Message {
    /// Start of the round: bots, turns, side.
    Begin {
        bots: usize,
        turns: usize,
        side: usize,
    },
    /// Name a vertex to break in turn `t`.
    Destroy(usize),
    /// What every bot broke in turn `t`, the receiver first.
    Broken(usize, Vec<Option<Vertex>>),
    /// Name a vertex to activate in turn `t`.
    Activate(usize),
    /// What every bot activated in turn `t`, the receiver first.
    Owned(usize, Vec<Option<Vertex>>),
    /// The round's points, the receiver first. The bot must exit after it.
    Score(Vec<u64>),
}

impl Message {
    /// Appends the line to `out`. A game writes N reports of N choices every phase, so numbers
    /// go through `itoa` rather than the formatting machinery, which cost several times more.
    pub(crate) fn write_to(&self, out: &mut String) {
        let mut digits = itoa::Buffer::new();
        let mut number = |out: &mut String, n: u64| out.push_str(digits.format(n));
        match self {
            Message::Begin { bots, turns, side } => {
                out.push_str("BEGIN");
                for n in [bots, turns, side] {
                    out.push(' ');
                    number(out, *n as u64);
                }
            }
            Message::Destroy(t) => {
                out.push_str("DESTROY ");
                number(out, *t as u64);
            }
            Message::Activate(t) => {
                out.push_str("ACTIVATE ");
                number(out, *t as u64);
            }
            Message::Broken(t, choices) | Message::Owned(t, choices) => {
                out.push_str(if matches!(self, Message::Broken(..)) {
                    "BROKEN "
                } else {
                    "OWNED "
                });
                number(out, *t as u64);
                for choice in choices {
                    match choice {
                        Some((x, y)) => {
                            out.push(' ');
                            number(out, *x as u64);
                            out.push(',');
                            number(out, *y as u64);
                        }
                        None => out.push_str(" N"),
                    }
                }
            }
            Message::Score(points) => {
                out.push_str("SCORE");
                for p in points {
                    out.push(' ');
                    number(out, *p);
                }
            }
        }
    }
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut line = String::new();
        self.write_to(&mut line);
        f.write_str(&line)
    }
}

/// A bot's answer to `DESTROY` or `ACTIVATE`. Coordinates are kept signed and unchecked: whether
/// they lie on the grid is the rules' question, and an off-grid vertex is reported as such.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Vertex(i64, i64),
    None,
}

impl Answer {
    /// Parses `VERTEX x,y` or `NONE` (surrounding whitespace and spaces around the comma are
    /// forgiven). The error is a message for the bot's author.
    pub fn parse(line: &str) -> Result<Answer, String> {
        let line = line.trim();
        if line == "NONE" {
            return Ok(Answer::None);
        }
        // A line that is no try at an answer is most often a debug line printed to stdout,
        // which the bot then pays for with the answer it prints after: say where those go.
        let debugging = !line.starts_with("VERTEX") && !line.starts_with("NONE");
        let expected = || {
            format!(
                "expected `VERTEX x,y` or `NONE`, got {}{}",
                quote(line),
                koth_bot::debug_hint(!debugging)
            )
        };
        let coords = line.strip_prefix("VERTEX ").ok_or_else(expected)?;
        let (x, y) = coords.split_once(',').ok_or_else(expected)?;
        match (x.trim().parse(), y.trim().parse()) {
            (Ok(x), Ok(y)) => Ok(Answer::Vertex(x, y)),
            _ => Err(expected()),
        }
    }
}

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answer::Vertex(x, y) => write!(f, "VERTEX {x},{y}"),
            Answer::None => f.write_str("NONE"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_display_as_the_spec_writes_them() {
        assert_eq!(
            Message::Begin {
                bots: 2,
                turns: 4,
                side: 5
            }
            .to_string(),
            "BEGIN 2 4 5"
        );
        assert_eq!(
            Message::Broken(3, vec![Some((1, 2)), None]).to_string(),
            "BROKEN 3 1,2 N"
        );
        assert_eq!(Message::Owned(0, vec![None]).to_string(), "OWNED 0 N");
        assert_eq!(Message::Score(vec![8, 2]).to_string(), "SCORE 8 2");
    }

    #[test]
    fn answers_parse_and_display_round_trip() {
        for answer in [Answer::Vertex(3, 14), Answer::Vertex(-1, 7), Answer::None] {
            assert_eq!(Answer::parse(&answer.to_string()), Ok(answer));
        }
        assert_eq!(Answer::parse(" VERTEX 1 , 2 "), Ok(Answer::Vertex(1, 2)));
    }

    #[test]
    fn malformed_answers_are_errors_quoting_the_line() {
        for line in [
            "",
            "VERTEX",
            "VERTEX 1",
            "VERTEX a,b",
            "vertex 1,2",
            "NONE please",
        ] {
            let err = Answer::parse(line).unwrap_err();
            assert!(err.contains(&format!("{:?}", line.trim())), "{err}");
        }
        // A debug line is told where debug output goes; a try at an answer is not.
        let debug = Answer::parse("thinking about (3, 4)").unwrap_err();
        assert!(debug.ends_with("debug output goes to stderr)"), "{debug}");
        assert!(!Answer::parse("VERTEX 1").unwrap_err().contains("stderr"));
    }
}
