//! Text koth did not write: reading a person's files intact (every error names the file, and a
//! byte that is not UTF-8, a binary or damaged file, is reported with its line), showing a
//! bot's bytes on a terminal or in a log line without letting them drive it ([`shown`]), and
//! the rule every name follows ([`check_name`]).

use std::borrow::Cow;
use std::path::Path;

use anyhow::Context;
use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

/// The longest name, in characters, of a bot or a tournament: names head tables and log lines.
pub const NAME_MAX_CHARS: usize = 64;

/// Whether `c` would act on a terminal, or deceive its reader, if printed as itself: a control
/// character (C0 — ESC starts the sequences that move the cursor, clear the screen, set the
/// title or write the clipboard (OSC 52), CR overwrites a line, BEL rings —, DEL, and the C1
/// controls U+0080–U+009F, which some terminals obey as ESC sequences), a format character
/// (zero-width characters and the bidi controls, which make text read other than it is) or a
/// line or paragraph separator.
pub fn is_unprintable(c: char) -> bool {
    matches!(
        c.general_category(),
        GeneralCategory::Control
            | GeneralCategory::Format
            | GeneralCategory::LineSeparator
            | GeneralCategory::ParagraphSeparator
    )
}

/// `text` as it may be printed on a terminal or written in a log line: every character
/// [`is_unprintable`] is written as its escape, `\u{1b}`, so a bot's stderr, answers or name
/// can show what they hold but never act on the terminal. Stored data stays as it was: this is
/// for the point of display only.
pub fn shown(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unprintable) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .map(|c| match is_unprintable(c) {
                true => c.escape_unicode().to_string(),
                false => c.to_string(),
            })
            .collect(),
    )
}

/// [`shown`] for a text of several lines koth wrote: its newlines are kept, everything else
/// escaped.
pub fn shown_lines(text: &str) -> String {
    text.split('\n').map(shown).collect::<Vec<_>>().join("\n")
}

/// A name as koth keeps it: trimmed, and in Unicode's composed form (NFC), so that a name typed
/// with composed or with decomposed accents is one name.
pub fn normalized_name(name: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    name.trim().nfc().collect()
}

/// How a name looks: its confusable skeleton (Unicode's UTS #39), the same for two names a
/// reader cannot tell apart ("Pythоn" with a Cyrillic "о", and "Python"), with each run of
/// spaces one space, as a web page shows it ("Win  or Block" is "Win or Block" in HTML).
pub fn look(name: &str) -> String {
    let skeleton: String = unicode_security::skeleton(name).collect();
    skeleton.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Why `name` cannot name a bot or a tournament, if it cannot: names are written one per line
/// in logs and transcripts and shown in tables and terminals, so a name is not empty, holds no
/// control or format character (a newline, ESC, a zero-width space, a bidi control — which
/// would let two names look alike), and is at most [`NAME_MAX_CHARS`] characters.
pub fn check_name(name: &str) -> Result<(), String> {
    if name.trim().is_empty() {
        return Err("is empty".into());
    }
    if let Some(c) = name.chars().find(|&c| is_unprintable(c)) {
        return Err(format!(
            "holds {} (a control or format character: a newline, a tab, ESC, a zero-width \
             or bidi character…)",
            c.escape_unicode()
        ));
    }
    let chars = name.chars().count();
    if chars > NAME_MAX_CHARS {
        return Err(format!(
            "is {chars} characters long, more than the {NAME_MAX_CHARS} a name may have"
        ));
    }
    Ok(())
}

/// The text of the file at `path`.
pub fn read(path: &Path) -> anyhow::Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    from_bytes(bytes, path)
}

/// `bytes` (read from `path`) as text.
pub fn from_bytes(bytes: Vec<u8>, path: &Path) -> anyhow::Result<String> {
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = valid.iter().filter(|&&b| b == b'\n').count() + 1;
        anyhow::anyhow!(
            "{}:{line}: not text (a byte that is not UTF-8); is the file damaged?",
            path.display()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_would_drive_a_terminal_is_shown_escaped() {
        // ESC (a title, OSC 52 to the clipboard), CR, BEL, a C1 CSI, a bidi override, a
        // zero-width space, a line separator.
        let hostile =
            "\u{1b}]0;pwned\u{7}\u{1b}]52;c;aGk=\u{7}\r\u{9b}2J\u{202e}abc\u{200b}\u{2028}";
        let printed = shown(hostile);
        assert!(!printed.chars().any(is_unprintable), "{printed}");
        assert_eq!(
            printed,
            "\\u{1b}]0;pwned\\u{7}\\u{1b}]52;c;aGk=\\u{7}\\u{d}\\u{9b}2J\\u{202e}abc\\u{200b}\\u{2028}"
        );
        assert!(matches!(
            shown("Win or Block (Python) é ✓"),
            Cow::Borrowed(_)
        ));
        assert_eq!(shown_lines("a\u{1b}\nb\n"), "a\\u{1b}\nb\n");
    }

    #[test]
    fn a_name_is_plain_and_short() {
        assert!(check_name("Win or Block (Python)").is_ok());
        assert!(check_name(&"é".repeat(NAME_MAX_CHARS)).is_ok());
        for bad in [
            "",
            "  ",
            "a\nb",
            "Win\u{200b} or Block",
            "a\u{202e}b",
            "x\u{1b}[2J",
        ] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
        let long = check_name(&"a".repeat(NAME_MAX_CHARS + 1)).unwrap_err();
        assert!(long.contains("65 characters"), "{long}");
    }

    #[test]
    fn a_binary_byte_is_reported_with_its_line() {
        let error = from_bytes(b"one\ntwo\nth\xffree\n".to_vec(), Path::new("f.txt")).unwrap_err();
        assert!(
            error.to_string().starts_with("f.txt:3: not text"),
            "{error}"
        );
        assert_eq!(
            from_bytes(b"ok\n".to_vec(), Path::new("f")).unwrap(),
            "ok\n"
        );
    }
}
