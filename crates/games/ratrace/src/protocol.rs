//! The subprocess protocols' vocabulary: how a turn is written and how an answer is read.
//!
//! The text protocol, every bot's unless its `bot.toml` asks for another:
//!
//! ```text
//! RATRACE b seed        board b starts                      (no answer)
//! TURN t n              then n lines `GENOME VIEW`          one line: n tokens `dx,dy`
//! END b points          board b ended                       (no answer)
//! ```
//!
//! The lean protocol (`[protocols] ratrace = "lean"`): the board once, a genome once, and
//! then only where each specimen is, so a turn costs both sides a few bytes per specimen:
//!
//! ```text
//! RATRACE b seed        board b starts                      (no answer)
//! BOARD colours         every cell's colour, one hex digit  (no answer)
//! TURN t n k            then k lines `GENOME` (born since   one line: n digits 0-8
//!                       the last turn), then one line: a
//!                       cell or `x` (died) per specimen of
//!                       the last turn, then one per newborn
//! END b points          board b ended                       (no answer)
//! ```

use super::player::{Move, Specimen};

use super::track::{CELLS, View};
use koth_bot::quote;

/// Which protocol a bot speaks, as its `bot.toml` names it under `[protocols]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Protocol {
    /// Every living specimen's genome and view, every turn; moves as `dx,dy` tokens.
    Text,
    /// The board once, each genome once, then cells; moves as one digit each.
    Lean,
    /// No text: koth calls a WASI module's move function per specimen (see [`super::direct`]).
    Direct,
}

impl Protocol {
    /// The names `[protocols] ratrace = "…"` takes.
    pub(crate) const NAMES: &[&str] = &["text", "lean", "direct"];

    pub(crate) fn named(name: &str) -> Option<Protocol> {
        match name {
            "text" => Some(Protocol::Text),
            "lean" => Some(Protocol::Lean),
            "direct" => Some(Protocol::Direct),
            _ => None,
        }
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// The two hex digits of every byte, so a genome is written a byte, not a digit, at a time.
const HEX_PAIRS: [[u8; 2]; 256] = {
    let mut pairs = [[0u8; 2]; 256];
    let mut byte = 0;
    while byte < 256 {
        pairs[byte] = [HEX[byte >> 4], HEX[byte & 15]];
        byte += 1;
    }
    pairs
};

/// A view as the protocol writes it: 25 characters.
pub(crate) type ViewText = [u8; 25];

pub(crate) fn begin_line(board: usize, seed: u64) -> String {
    format!("RATRACE {board} {seed}")
}

pub(crate) fn end_line(board: usize, points: u64) -> String {
    format!("END {board} {points}")
}

/// Writes the 25 hex digits of a 100-bit genome, most significant first.
pub(crate) fn write_genome(genome: u128, digits: &mut [u8; 25]) {
    // Big-endian bytes 4..16 hold bits 95..0; the low nibble of byte 3 holds bits 99..96.
    let bytes = genome.to_be_bytes();
    digits[0] = HEX[(bytes[3] & 15) as usize];
    for (pair, &byte) in digits[1..].chunks_exact_mut(2).zip(&bytes[4..]) {
        pair.copy_from_slice(&HEX_PAIRS[byte as usize]);
    }
}

/// A view's text: one hex digit per colour, `x` beyond the edges.
pub(crate) fn view_text(view: &View) -> ViewText {
    view.map(|colour| {
        if colour < 0 {
            b'x'
        } else {
            HEX[colour as usize]
        }
    })
}

/// The text of every cell's view, by cell: a specimen's line then copies its cell's 25 bytes
/// instead of converting them every turn.
pub(crate) fn view_texts(views: &[View]) -> Vec<ViewText> {
    views.iter().map(view_text).collect()
}

/// Bytes of one specimen's line: genome, space, view, newline.
const LINE_BYTES: usize = 25 + 1 + 25 + 1;

/// Writes the whole `TURN` message into `out` (cleared first), without the final newline.
/// `view_texts` are [`view_texts`] of the board's views. Bytes rather than a `String`: the
/// message is all ASCII, checked once per turn by [`as_text`]. Each line is written in place:
/// assembled on the stack two digits at a time and then copied 16 bytes at a time, it made the
/// CPU wait for the small stores before every copy (a third of this function's time).
pub(crate) fn write_turn(
    turn: u32,
    specimens: &[Specimen],
    view_texts: &[ViewText],
    out: &mut Vec<u8>,
) {
    use std::io::Write;
    out.clear();
    let _ = write!(out, "TURN {turn} {}", specimens.len());
    let header = out.len();
    out.resize(header + specimens.len() * LINE_BYTES, b' ');
    for (line, specimen) in out[header..].chunks_exact_mut(LINE_BYTES).zip(specimens) {
        let (newline, rest) = line.split_at_mut(1);
        let (genome, rest) = rest.split_at_mut(25);
        newline[0] = b'\n';
        write_genome(specimen.genome, genome.try_into().expect("25 bytes"));
        // rest[0] is the space already.
        rest[1..].copy_from_slice(&view_texts[specimen.cell as usize]);
    }
}

/// A message built by [`write_turn`], as text.
pub(crate) fn as_text(message: &[u8]) -> &str {
    std::str::from_utf8(message).expect("protocol messages are ASCII")
}

/// The lean protocol's `BOARD` line: every cell's colour as one hex digit, cell `53·y + x`.
/// A view's centre is its own cell's colour, so the views say it all.
pub(crate) fn board_line(views: &[View]) -> String {
    debug_assert_eq!(views.len(), CELLS);
    let digits = views.iter().map(|view| HEX[view[12] as usize] as char);
    "BOARD ".chars().chain(digits).collect()
}

/// A token of the lean protocol's cells line, with the space after it: one copy of four bytes
/// per specimen, of which `len` count.
#[derive(Clone, Copy)]
struct Token {
    bytes: [u8; 4],
    len: u8,
}

/// The token of each fate ([`Mover::fates`](super::player::Mover::fates)): a cell's number
/// for each cell, then `x` for a specimen gone, at index [`CELLS`], where
/// [`GONE`](super::player::GONE) is clamped.
const FATE_TOKENS: [Token; CELLS + 1] = {
    let mut tokens = [Token {
        bytes: [b' '; 4],
        len: 0,
    }; CELLS + 1];
    let mut cell = 0;
    while cell < CELLS {
        let token = &mut tokens[cell];
        let mut digits = [0u8; 3];
        let (mut n, mut value) = (0, cell);
        loop {
            digits[n] = b'0' + (value % 10) as u8;
            n += 1;
            value /= 10;
            if value == 0 {
                break;
            }
        }
        let mut i = 0;
        while i < n {
            token.bytes[i] = digits[n - 1 - i];
            i += 1;
        }
        token.len = n as u8 + 1;
        cell += 1;
    }
    tokens[CELLS] = Token {
        bytes: [b'x', b' ', b' ', b' '],
        len: 2,
    };
    tokens
};

/// What the lean protocol keeps between the turns of a board: the tokens of the last `TURN`'s
/// specimens, written from their fates as the board applied their moves, and the first id it
/// has not yet sent a genome for.
#[derive(Debug, Default)]
pub(crate) struct LeanState {
    /// A token and a space for each specimen of the last `TURN`, in order.
    fate_tokens: Vec<u8>,
    next_new: u32,
}

impl LeanState {
    /// Writes the tokens of the last turn's specimens from their `fates`: one lookup and one
    /// copy each, with no branch.
    pub(crate) fn note_fates(&mut self, fates: &[u16]) {
        let text = &mut self.fate_tokens;
        text.clear();
        text.resize(4 * fates.len(), 0);
        let mut end = 0;
        for (&fate, room) in fates.iter().zip(4..) {
            let token = FATE_TOKENS[usize::from(fate.min(CELLS as u16))];
            // `end` is at most 4 less than `room`, which is at most the text's length.
            text[end..end + 4].copy_from_slice(&token.bytes);
            end += token.len as usize;
            debug_assert!(end <= room);
        }
        text.truncate(end);
    }
}

/// Writes the lean protocol's `TURN` message into `out` (cleared first), without the final
/// newline, and moves `state` on to this turn. Ids ascend along `specimens`, so the newborns,
/// whose genomes go out, are those from the first id not yet sent; the others' tokens are
/// those [`LeanState::note_fates`] wrote.
pub(crate) fn write_lean_turn(
    turn: u32,
    specimens: &[Specimen],
    state: &mut LeanState,
    out: &mut Vec<u8>,
) {
    use std::io::Write;
    out.clear();
    let old = specimens.partition_point(|specimen| specimen.id < state.next_new);
    let born = &specimens[old..];
    let _ = write!(out, "TURN {turn} {} {}", specimens.len(), born.len());
    for specimen in born {
        out.push(b'\n');
        let at = out.len();
        out.resize(at + 25, 0);
        write_genome(
            specimen.genome,
            (&mut out[at..]).try_into().expect("25 bytes"),
        );
    }
    out.push(b'\n');
    let line = out.len();
    debug_assert_eq!(
        state
            .fate_tokens
            .split(|&byte| byte == b' ')
            .filter(|token| !token.is_empty() && *token != b"x")
            .count(),
        old,
        "the fates of the last turn tell of the specimens before the newborns"
    );
    out.extend_from_slice(&state.fate_tokens);
    state.fate_tokens.clear();
    for specimen in born {
        let token = FATE_TOKENS[specimen.cell as usize];
        out.extend_from_slice(&token.bytes[..token.len as usize]);
    }
    // Without the space after the last token.
    if out.len() > line {
        out.pop();
    }
    if let Some(last) = born.last() {
        state.next_new = last.id + 1;
    }
}

/// Whether `line` is a try at moves: it starts as a move does. A line that does not is most
/// likely a debug line.
fn tried(line: &str) -> bool {
    line.trim_start()
        .starts_with(|c: char| c.is_ascii_digit() || c == '-')
}

/// Reads a lean answer: exactly `expected` digits, one move each, `3·(dy+1) + (dx+1)`.
pub fn parse_lean_moves(line: &str, expected: usize, out: &mut Vec<Move>) -> Result<(), String> {
    if line.len() != expected {
        return Err(format!(
            "answered {} characters for {expected} specimens: {}{}",
            line.len(),
            quote(line),
            koth_bot::debug_hint(tried(line))
        ));
    }
    // Checked whole first, in a pass with no branch (the compiler does it 16 or 32 bytes at a
    // time), then converted with no branch and no length stored per move.
    let bytes = line.as_bytes();
    let highest = bytes
        .iter()
        .fold(0, |highest: u8, &byte| highest.max(byte.wrapping_sub(b'0')));
    if highest > 8
        && let Some(i) = bytes.iter().position(|byte| !(b'0'..=b'8').contains(byte))
    {
        // Every byte before was an ASCII digit, so a character starts here.
        let token = line[i..].chars().next().expect("a byte, so a character");
        return Err(format!(
            "move {} is {}, not a digit 0 to 8",
            i + 1,
            quote(&token.to_string())
        ));
    }
    out.extend(bytes.iter().map(|&byte| DIGIT_MOVES[byte as usize]));
    Ok(())
}

/// The move of each code `3·(dy+1) + (dx+1)`, 0 to 8, the order of a view's middle 3×3: a
/// lean answer's digits, and what a direct call's move function returns.
pub(crate) const MOVE_CODES: [Move; 9] = {
    let mut moves = [(0, 0); 9];
    let mut code = 0;
    while code < 9 {
        moves[code] = ((code % 3) as i8 - 1, (code / 3) as i8 - 1);
        code += 1;
    }
    moves
};

/// The move each byte stands for in a lean answer: digit `3·(dy+1) + (dx+1)`. Any other byte
/// is refused before this is read, and reads (0, 0).
const DIGIT_MOVES: [Move; 256] = {
    let mut moves = [(0, 0); 256];
    let mut digit = 0;
    while digit < 9 {
        moves[b'0' as usize + digit] = MOVE_CODES[digit];
        digit += 1;
    }
    moves
};

/// Reads an answer line of `expected` moves onto `out`. The error names the offending token.
pub fn parse_moves(line: &str, expected: usize, out: &mut Vec<Move>) -> Result<(), String> {
    let before = out.len();
    if parse_canonical(line.as_bytes(), expected, out) {
        return Ok(());
    }
    out.truncate(before);
    parse_tokens(line, expected, out)
}

/// The usual answer, read fast: exactly `expected` well-formed tokens separated by single
/// spaces. Returns false for anything else (`out` then holds a prefix), which
/// [`parse_tokens`] reads or rejects with a reason. Each token is read from the eight bytes
/// at its start, loaded at once; where it ends comes from those bytes by arithmetic, so the
/// next token's load waits on no table, and the decoding runs alongside. Branches are only
/// on what is rare: which of `1,-1`, `1,0` or `1,1` comes next is unpredictable, and a
/// byte-by-byte parser that branched on it took a tenth of a subprocess board's time.
fn parse_canonical(line: &[u8], expected: usize, out: &mut Vec<Move>) -> bool {
    const SPACES: u64 = u64::from_le_bytes([b' '; 8]);
    out.reserve(expected);
    let mut i = 0;
    for n in 0..expected {
        let word = match line.get(i..i + 8) {
            Some(bytes) => u64::from_le_bytes(bytes.try_into().expect("eight bytes")),
            None => {
                let mut padded = [0u8; 8];
                let rest = &line[i.min(line.len())..];
                padded[..rest.len()].copy_from_slice(rest);
                u64::from_le_bytes(padded)
            }
        };
        // The token ends at the first space, or at the end of the line (zero padding).
        let len = first_zero_byte(word ^ SPACES).min(first_zero_byte(word));
        let byte = |k: usize| (word >> (8 * k)) as u8;
        let (dx, dx_len) = UNITS[byte(0) as usize];
        let comma = dx_len as usize;
        let (dy, dy_len) = UNITS[byte(comma + 1) as usize];
        let well_formed = (dx_len != 0)
            & (dx_len == 1 || byte(1) == b'1')
            & (byte(comma) == b',')
            & (dy_len != 0)
            & (dy_len == 1 || byte(comma + 2) == b'1')
            & (comma + 1 + dy_len as usize == len);
        if !well_formed {
            return false;
        }
        out.push((dx, dy));
        i += len;
        if n + 1 < expected {
            if byte(len) != b' ' {
                return false;
            }
            i += 1;
        }
    }
    i == line.len()
}

/// The index of the first zero byte of `word` (little-endian), 8 if it has none. The borrow
/// of the subtraction can only mark bytes above a true zero, so the lowest mark is exact.
fn first_zero_byte(word: u64) -> usize {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    (word.wrapping_sub(LOW) & !word & HIGH).trailing_zeros() as usize / 8
}

/// What a unit (`-1`, `0`, `1`, `+1`) starting with each byte is worth, and its length in
/// bytes; length 0 for bytes no unit starts with. A signed unit's second byte must be `1`.
const UNITS: [(i8, u8); 256] = {
    let mut units = [(0, 0); 256];
    units[b'-' as usize] = (-1, 2);
    units[b'+' as usize] = (1, 2);
    units[b'0' as usize] = (0, 1);
    units[b'1' as usize] = (1, 1);
    units
};

/// Any answer: tokens separated by any ASCII whitespace, each `dx,dy`. The error names the
/// offending token, or says how many moves came.
fn parse_tokens(line: &str, expected: usize, out: &mut Vec<Move>) -> Result<(), String> {
    let mut count = 0;
    for token in line.split_ascii_whitespace() {
        count += 1;
        if count > expected {
            continue;
        }
        out.push(parse_move(token).ok_or_else(|| {
            format!(
                "move {count} is {}, not `dx,dy` with dx and dy in -1, 0, 1",
                quote(token)
            )
        })?);
    }
    if count != expected {
        return Err(format!(
            "answered {count} moves for {expected} specimens: {}{}",
            quote(line),
            koth_bot::debug_hint(tried(line))
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
        let text = |genome: u128| {
            let mut digits = [0u8; 25];
            write_genome(genome, &mut digits);
            as_text(&digits).to_string()
        };
        assert_eq!(text((1u128 << 99) | 0xab), "80000000000000000000000ab");
        assert_eq!(text(super::super::rules::GENOME_MASK), "f".repeat(25));
        assert_eq!(
            text(0x1_2345_6789_abcd_ef01_2345_6789),
            "123456789abcdef0123456789"
        );
    }

    #[test]
    fn view_is_hex_digits_with_x_beyond_edges() {
        let mut view = [-1i8; 25];
        view[12] = 15;
        view[13] = 0;
        view[0] = 10;
        assert_eq!(as_text(&view_text(&view)), "axxxxxxxxxxxf0xxxxxxxxxxx");
    }

    #[test]
    fn turn_message_has_one_line_per_specimen() {
        let views = [[3i8; 25], [-1i8; 25]];
        let specimens = [
            Specimen {
                id: 0,
                genome: 1,
                cell: 0,
                age: 1,
                goals: 0,
            },
            Specimen {
                id: 1,
                genome: 2,
                cell: 1,
                age: 1,
                goals: 0,
            },
        ];
        let mut s = Vec::new();
        write_turn(7, &specimens, &view_texts(&views), &mut s);
        let lines: Vec<&str> = as_text(&s).lines().collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0], "TURN 7 2");
        assert_eq!(lines[1], format!("{}1 {}", "0".repeat(24), "3".repeat(25)));
        assert_eq!(lines[2], format!("{}2 {}", "0".repeat(24), "x".repeat(25)));
    }

    #[test]
    fn a_lean_turn_sends_newborns_once_and_marks_the_dead() {
        use super::super::player::GONE;
        let specimen = |id, genome, cell| Specimen {
            id,
            genome,
            cell,
            age: 1,
            goals: 0,
        };
        let mut state = LeanState::default();
        let mut s = Vec::new();
        write_lean_turn(
            1,
            &[specimen(0, 1, 53), specimen(1, 2, 106)],
            &mut state,
            &mut s,
        );
        let zeros = "0".repeat(24);
        assert_eq!(
            as_text(&s),
            format!("TURN 1 2 2\n{zeros}1\n{zeros}2\n53 106")
        );
        // Specimen 0 died, 1 moved, 2 and 3 were born.
        state.note_fates(&[GONE, 107]);
        let turn = [
            specimen(1, 2, 107),
            specimen(2, 0xab, 0),
            specimen(3, 3, 794),
        ];
        write_lean_turn(2, &turn, &mut state, &mut s);
        let ab = format!("{}ab", "0".repeat(23));
        assert_eq!(
            as_text(&s),
            format!("TURN 2 3 2\n{ab}\n{zeros}3\nx 107 0 794")
        );
        // Nobody born, everybody dead.
        state.note_fates(&[GONE; 3]);
        write_lean_turn(3, &[], &mut state, &mut s);
        assert_eq!(as_text(&s), "TURN 3 0 0\nx x x");
    }

    #[test]
    fn the_board_line_is_every_cells_colour() {
        let mut views = vec![[0i8; 25]; CELLS];
        views[0][12] = 10;
        views[CELLS - 1][12] = 3;
        let line = board_line(&views);
        assert_eq!(line.len(), 6 + CELLS);
        assert!(line.starts_with("BOARD a0"));
        assert!(line.ends_with("03"));
    }

    #[test]
    fn lean_answers_are_one_digit_per_move() {
        let mut out = Vec::new();
        parse_lean_moves("012345678", 9, &mut out).unwrap();
        assert_eq!(
            out,
            vec![
                (-1, -1),
                (0, -1),
                (1, -1),
                (-1, 0),
                (0, 0),
                (1, 0),
                (-1, 1),
                (0, 1),
                (1, 1)
            ]
        );
        let err = |line: &str, n| parse_lean_moves(line, n, &mut Vec::new()).unwrap_err();
        assert_eq!(
            err("55", 3),
            "answered 2 characters for 3 specimens: \"55\""
        );
        assert_eq!(
            err("5 5", 2),
            "answered 3 characters for 2 specimens: \"5 5\""
        );
        assert_eq!(err("59", 2), "move 2 is \"9\", not a digit 0 to 8");
        assert_eq!(err("5é", 3), "move 2 is \"é\", not a digit 0 to 8");
        let huge = err(&"5".repeat(1 << 20), 2);
        assert!(huge.len() < 300, "{huge}");
    }

    #[test]
    fn the_fast_reading_agrees_with_the_general_one() {
        // Every token shape, valid or not, in lines of one to three tokens with single spaces,
        // and the same lines with other whitespace, which only the general reader takes.
        let units = ["-1", "0", "1", "+1", "2", "-0", "", "1x", "--1", "+"];
        let mut tokens: Vec<String> = Vec::new();
        for dx in units {
            for dy in units {
                tokens.push(format!("{dx},{dy}"));
            }
        }
        tokens.extend(["1", "1,", ",1", "1,0,1", "1;0", "x", "1,0\0"].map(String::from));
        let mut lines = Vec::new();
        for a in &tokens {
            lines.push(a.clone());
            for b in ["1,0", "-1,-1", "1,1x"] {
                lines.push(format!("{a} {b}"));
                lines.push(format!("{b} {a} 0,+1"));
                lines.push(format!("{a}  {b}"));
                lines.push(format!(" {a}\t{b} "));
            }
        }
        let mut read_fast = 0;
        for line in &lines {
            for expected in 1..=3 {
                let mut general = Vec::new();
                let general = parse_tokens(line, expected, &mut general).map(|()| general);
                let mut fast = Vec::new();
                let fast = parse_moves(line, expected, &mut fast).map(|()| fast);
                assert_eq!(fast, general, "{line:?}, {expected} expected");
                let mut canonical = Vec::new();
                if parse_canonical(line.as_bytes(), expected, &mut canonical) {
                    assert_eq!(Ok(&canonical), general.as_ref(), "{line:?}");
                    read_fast += 1;
                }
            }
        }
        assert!(read_fast > 50, "only {read_fast} lines took the fast path");
    }

    #[test]
    fn answers_are_checked_token_by_token() {
        let mut out = Vec::new();
        parse_moves("1,0 -1,1 0,-1", 3, &mut out).unwrap();
        assert_eq!(out, vec![(1, 0), (-1, 1), (0, -1)]);
        out.clear();
        let err = parse_moves("1,0 2,0", 2, &mut out).unwrap_err();
        assert!(err.contains("move 2 is \"2,0\""), "{err}");
        out.clear();
        let err = parse_moves("1,0 hello", 2, &mut out).unwrap_err();
        assert!(err.contains("\"hello\""), "{err}");
        out.clear();
        let err = parse_moves("1,0", 2, &mut out).unwrap_err();
        assert!(err.contains("answered 1 moves for 2"), "{err}");
        out.clear();
        let err = parse_moves("1,0 1,0 1,0", 2, &mut out).unwrap_err();
        assert!(err.contains("answered 3 moves for 2"), "{err}");
        // A huge answer is quoted by its start and its length.
        let huge = format!("1,0 {}", "x".repeat(1 << 20));
        out.clear();
        let err = parse_moves(&huge, 2, &mut out).unwrap_err();
        assert!(
            err.ends_with(" (1048576 bytes), not `dx,dy` with dx and dy in -1, 0, 1"),
            "{err}"
        );
        assert!(err.len() < 300, "{err}");
    }
}
