//! The likely mistake behind a time-out, named in its fault: what the bot had written on its
//! stdout when its time ran out. A bot that wrote nothing at all most often printed its answer
//! into a buffer it never flushed (a pipe is not a terminal: Python, C and Java buffer their
//! output until told), and a bot that wrote part of a line forgot its newline. The hint says how
//! to flush in the bot's language where koth can tell it from the bot's command, its script's
//! `#!` line or its build step.

use std::path::Path;

use super::BotSpec;

/// What a bot that timed out had written on its stdout.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Unanswered {
    /// It had answered before, or its answer came late: nothing to add.
    #[default]
    Answered,
    /// Nothing at all, since it started; `flush` is how its language flushes, if known.
    Nothing { flush: Option<&'static str> },
    /// The start of a line without its newline, quoted ([`super::quote`]).
    Unended { start: String },
}

impl std::fmt::Display for Unanswered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unanswered::Answered => Ok(()),
            Unanswered::Nothing { flush } => {
                write!(
                    f,
                    "; nothing at all arrived on its stdout: was its answer flushed?"
                )?;
                match flush {
                    Some(how) => write!(f, " ({how})"),
                    None => write!(f, " (flush stdout after each answer)"),
                }
            }
            Unanswered::Unended { start } => write!(
                f,
                "; it printed {start} without a newline: an answer is a line, ended by \"\\n\""
            ),
        }
    }
}

/// How `spec`'s language flushes its stdout, where koth can tell the language.
pub(crate) fn flush_hint(spec: &BotSpec) -> Option<&'static str> {
    let first = spec.command.first()?;
    let mut words = vec![first.clone()];
    let program = spec.dir.join(first);
    if first.contains('/') && program.is_file() {
        words.extend(super::sandbox::shebang_names(&program));
    }
    // A compiled bot's language is its compiler's, named in its build step.
    if let Some(build) = &spec.build {
        words.extend(
            build
                .split(|c: char| c.is_whitespace() || ";&|()".contains(c))
                .map(str::to_string),
        );
    }
    words.iter().find_map(|word| {
        let name = Path::new(word).file_name()?.to_str()?;
        language_flush(name)
    })
}

/// How a program named `name` (an interpreter or a compiler) has its bots flush.
fn language_flush(name: &str) -> Option<&'static str> {
    let starts = |prefix: &str| name.starts_with(prefix);
    Some(if starts("python") || starts("pypy") {
        "Python: print(..., flush=True) or sys.stdout.flush(), or run it with python3 -u"
    } else if matches!(name, "java" | "javac") {
        "Java: System.out.flush() after printing, and flush() on a PrintWriter or BufferedWriter"
    } else if matches!(name, "g++" | "c++" | "clang++") {
        "C++: std::cout << std::endl, or fflush(stdout) after printf"
    } else if matches!(name, "gcc" | "cc" | "clang" | "tcc") {
        "C: fflush(stdout) after printf, or setvbuf(stdout, NULL, _IOLBF, 0) at the start"
    } else if matches!(name, "node" | "nodejs" | "deno" | "bun") {
        "JavaScript: console.log and process.stdout.write need no flush; \
         does it read its input line by line (readline's 'line' event)?"
    } else if starts("ruby") {
        "Ruby: $stdout.flush, or $stdout.sync = true at the start"
    } else {
        return None;
    })
}
