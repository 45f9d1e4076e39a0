//! The subprocess protocol's vocabulary: how a turn is written and how an answer is read.
//!
//! ```text
//! RATRACE b seed        board b starts                      (no answer)
//! TURN t n              then n lines `GENOME VIEW`          one line: n tokens `dx,dy`
//! END b points          board b ended                       (no answer)
//! ```

use super::player::{Ask, Move};

const HEX: &[u8; 16] = b"0123456789abcdef";

pub fn begin_line(board: usize, seed: u64) -> String {
    format!("RATRACE {board} {seed}")
}

pub fn end_line(board: usize, points: u64) -> String {
    format!("END {board} {points}")
}

/// Appends the 25 hex digits of a 100-bit genome, most significant first.
pub fn push_genome(genome: u128, out: &mut Vec<u8>) {
    let mut digits = [0u8; 25];
    for (i, digit) in digits.iter_mut().enumerate() {
        *digit = HEX[((genome >> (4 * (24 - i))) & 15) as usize];
    }
    out.extend_from_slice(&digits);
}

/// Appends a view: one hex digit per colour, `x` beyond the edges.
pub fn push_view(view: &[i8; 25], out: &mut Vec<u8>) {
    let mut text = [0u8; 25];
    for (c, &colour) in text.iter_mut().zip(view) {
        *c = if colour < 0 {
            b'x'
        } else {
            HEX[colour as usize]
        };
    }
    out.extend_from_slice(&text);
}

/// Writes the whole `TURN` message into `out` (cleared first), without the final newline.
/// Bytes rather than a `String`: pushing chars one by one was a quarter of a subprocess board's
/// time; the message is all ASCII, checked once per turn by [`as_text`].
pub fn write_turn(turn: u32, asks: &[Ask], out: &mut Vec<u8>) {
    use std::io::Write;
    out.clear();
    let _ = write!(out, "TURN {turn} {}", asks.len());
    for ask in asks {
        out.push(b'\n');
        push_genome(ask.genome, out);
        out.push(b' ');
        push_view(ask.view, out);
    }
}

/// A message built by [`write_turn`], as text.
pub fn as_text(message: &[u8]) -> &str {
    std::str::from_utf8(message).expect("protocol messages are ASCII")
}

/// Reads an answer line of `expected` moves onto `out`. The error names the offending token.
pub fn parse_moves(line: &str, expected: usize, out: &mut Vec<Move>) -> Result<(), String> {
    let mut count = 0;
    for token in line.split_ascii_whitespace() {
        count += 1;
        if count > expected {
            continue;
        }
        out.push(parse_move(token).ok_or_else(|| {
            format!("move {count} is `{token}`, not `dx,dy` with dx and dy in -1, 0, 1")
        })?);
    }
    if count != expected {
        return Err(format!(
            "answered {count} moves for {expected} specimens (answer starts `{}`)",
            line.chars().take(40).collect::<String>()
        ));
    }
    Ok(())
}

fn parse_move(token: &str) -> Option<Move> {
    let (dx, dy) = token.split_once(',')?;
    let unit = |s: &str| match s {
        "-1" => Some(-1),
        "0" => Some(0),
        "1" | "+1" => Some(1),
        _ => None,
    };
    Some((unit(dx)?, unit(dy)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn genome_is_25_hex_digits_most_significant_first() {
        let mut s = Vec::new();
        push_genome((1u128 << 99) | 0xab, &mut s);
        assert_eq!(as_text(&s), "80000000000000000000000ab");
        s.clear();
        push_genome(super::super::board::GENOME_MASK, &mut s);
        assert_eq!(as_text(&s), "f".repeat(25));
    }

    #[test]
    fn view_is_hex_digits_with_x_beyond_edges() {
        let mut view = [-1i8; 25];
        view[12] = 15;
        view[13] = 0;
        view[0] = 10;
        let mut s = Vec::new();
        push_view(&view, &mut s);
        assert_eq!(as_text(&s), "axxxxxxxxxxxf0xxxxxxxxxxx");
    }

    #[test]
    fn turn_message_has_one_line_per_specimen() {
        let view = [3i8; 25];
        let asks = [
            Ask {
                genome: 1,
                view: &view,
            },
            Ask {
                genome: 2,
                view: &view,
            },
        ];
        let mut s = Vec::new();
        write_turn(7, &asks, &mut s);
        let lines: Vec<&str> = as_text(&s).lines().collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0], "TURN 7 2");
        assert_eq!(lines[2], format!("{}2 {}", "0".repeat(24), "3".repeat(25)));
    }

    #[test]
    fn answers_are_checked_token_by_token() {
        let mut out = Vec::new();
        parse_moves("1,0 -1,1 0,-1", 3, &mut out).unwrap();
        assert_eq!(out, vec![(1, 0), (-1, 1), (0, -1)]);
        out.clear();
        let err = parse_moves("1,0 2,0", 2, &mut out).unwrap_err();
        assert!(err.contains("move 2 is `2,0`"), "{err}");
        out.clear();
        let err = parse_moves("1,0 hello", 2, &mut out).unwrap_err();
        assert!(err.contains("`hello`"), "{err}");
        out.clear();
        let err = parse_moves("1,0", 2, &mut out).unwrap_err();
        assert!(err.contains("answered 1 moves for 2"), "{err}");
        out.clear();
        let err = parse_moves("1,0 1,0 1,0", 2, &mut out).unwrap_err();
        assert!(err.contains("answered 3 moves for 2"), "{err}");
    }
}
