//! Reads a paths `graphical_log.txt` back into rounds, grids and results.
//!
//! The original controller and koth write the same shape (see the "graphical_log.txt" section
//! of the paths spec). The reader is strict about structure, so a damaged file is reported with
//! its line number, and lenient about trailing spaces, which editors trim: grid rows are padded
//! back to the grid's side (a trailing space is a broken vertex).

use std::path::Path;

/// One round: its final grid (top row first) and each bot's points in bot-list order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Round {
    pub index: u32,
    pub rows: Vec<String>,
    pub points: Vec<u64>,
}

/// A whole graphical log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameLog {
    /// Names in bot-list order.
    pub bots: Vec<String>,
    /// The number of rounds announced by `Running R rounds.`.
    pub rounds_announced: u32,
    pub rounds: Vec<Round>,
    /// `(name, total)` as listed under `Final results:`; empty if the game did not finish.
    pub standings: Vec<(String, u64)>,
    pub too_slow: Vec<String>,
}

impl GameLog {
    /// The side of the grid, taken from the bot count as the rules define it.
    pub fn side(&self) -> usize {
        crate::rules::side(self.bots.len())
    }
}

/// Reads and parses the log at `path`; errors name the file and line.
pub fn read(path: &Path) -> anyhow::Result<GameLog> {
    let text = koth_base::text::read(path)?;
    parse(&text).map_err(|e| anyhow::anyhow!("{}:{e}", path.display()))
}

/// Parses a log's text. Errors read `LINE: what was expected, what was found`.
pub fn parse(text: &str) -> anyhow::Result<GameLog> {
    let mut all: Vec<&str> = text.lines().collect();
    while all.last().is_some_and(|l| l.trim().is_empty()) {
        all.pop();
    }
    // A file with no trailing space anywhere went through an editor that trims them: its short
    // grid rows lost their broken vertices at the right edge, and are padded back. In an
    // untrimmed file a short row is damage.
    let trimmed = !all.iter().any(|l| l.ends_with(' '));
    let mut lines = Lines {
        lines: all,
        next: 0,
    };
    lines.expect_exact("Initializing bots.")?;
    lines.expect_exact("Bots:")?;
    let bots = lines.bots()?;
    let side = crate::rules::side(bots.len());
    let running = lines.take("`Running R rounds.`")?;
    let rounds_announced = running
        .trim_end()
        .strip_prefix("Running ")
        .and_then(|rest| rest.strip_suffix(" rounds."))
        .and_then(|r| r.parse().ok())
        .ok_or_else(|| {
            lines.error_prev(&format!("expected `Running R rounds.`, found {running:?}"))
        })?;
    let mut rounds = Vec::new();
    while let Some(line) = lines.peek() {
        let Some(index) = line.trim_end().strip_prefix("  Round ") else {
            break;
        };
        let index: u32 = index
            .parse()
            .map_err(|_| lines.error_here(&format!("expected a round number, found {index:?}")))?;
        lines.next += 1;
        lines.expect_exact("  Finished, computing score.")?;
        let rows = lines.grid(side, trimmed)?;
        let points = lines.points(bots.len())?;
        rounds.push(Round {
            index,
            rows,
            points,
        });
    }
    let FinalResults {
        standings,
        too_slow,
    } = lines.final_results()?;
    Ok(GameLog {
        bots,
        rounds_announced,
        rounds,
        standings,
        too_slow,
    })
}

/// What a finished game's log lists after its rounds (as [`GameLog`] keeps them).
struct FinalResults {
    standings: Vec<(String, u64)>,
    too_slow: Vec<String>,
}

fn is_grid_char(c: char) -> bool {
    c == '.' || c == ' ' || c.is_ascii_alphanumeric()
}

/// The parts of a log, each read from the cursor on.
impl Lines<'_> {
    /// The names under `Bots:` (`  Name (letter)`), at least one and at most a game's.
    fn bots(&mut self) -> anyhow::Result<Vec<String>> {
        let mut bots = Vec::new();
        while let Some(line) = self.peek() {
            let Some(entry) = line.strip_prefix("  ") else {
                break;
            };
            let Some((name, tag)) = entry.trim_end().rsplit_once(" (") else {
                return Err(self.error_here(&format!("expected `  Name (letter)`, found {line:?}")));
            };
            if !tag.ends_with(')') {
                return Err(self.error_here(&format!("expected `  Name (letter)`, found {line:?}")));
            }
            if bots.len() == crate::rules::MAX_BOTS {
                return Err(self.error_here(&format!(
                    "more than {} bots, the most a paths game holds",
                    crate::rules::MAX_BOTS
                )));
            }
            bots.push(name.to_string());
            self.next += 1;
        }
        if bots.is_empty() {
            return Err(self.error_here("expected at least one bot under `Bots:`"));
        }
        Ok(bots)
    }

    /// A round's grid: `side` rows of `side` characters, a short row padded back if the file
    /// was `trimmed` by an editor.
    fn grid(&mut self, side: usize, trimmed: bool) -> anyhow::Result<Vec<String>> {
        let mut rows = Vec::with_capacity(side);
        for _ in 0..side {
            let line = self.take(&format!("a grid row of {side} characters"))?;
            let row = line.strip_prefix("  ").unwrap_or(line);
            let chars = row.chars().count();
            if chars > side || (chars < side && !trimmed) {
                return Err(self.error_prev(&format!(
                    "expected a grid row of {side} characters, found {chars}"
                )));
            }
            if let Some(bad) = row.chars().find(|c| !is_grid_char(*c)) {
                return Err(self.error_prev(&format!("unexpected character {bad:?} in a grid row")));
            }
            rows.push(format!("{row:<side$}"));
        }
        Ok(rows)
    }

    /// A round's `  Results: ...` line: the points of each of the `bots`.
    fn points(&mut self, bots: usize) -> anyhow::Result<Vec<u64>> {
        let results = self.take("`  Results: ...`")?;
        let Some(numbers) = results.trim_end().strip_prefix("  Results:") else {
            return Err(self.error_prev(&format!("expected `  Results: ...`, found {results:?}")));
        };
        let points = numbers
            .split_whitespace()
            .map(|p| {
                p.parse::<u64>().map_err(|_| {
                    self.error_prev(&format!("expected a number of points, found {p:?}"))
                })
            })
            .collect::<anyhow::Result<Vec<u64>>>()?;
        if points.len() != bots {
            return Err(self.error_prev(&format!(
                "expected {} numbers of points, found {}",
                bots,
                points.len()
            )));
        }
        Ok(points)
    }

    /// What follows the rounds, if the game finished: `Final results:` with each bot's total,
    /// then the bots that were too slow, if any.
    fn final_results(&mut self) -> anyhow::Result<FinalResults> {
        let mut standings = Vec::new();
        let mut too_slow = Vec::new();
        if self.peek().is_none() {
            return Ok(FinalResults {
                standings,
                too_slow,
            });
        }
        self.expect_exact("Final results:")?;
        while let Some(line) = self.peek() {
            let Some(entry) = line.strip_prefix("  ") else {
                break;
            };
            let Some((name, total)) = entry.trim_end().rsplit_once(": ") else {
                return Err(self.error_here(&format!("expected `  Name: total`, found {line:?}")));
            };
            let total = total
                .parse()
                .map_err(|_| self.error_here(&format!("expected a total, found {total:?}")))?;
            standings.push((name.to_string(), total));
            self.next += 1;
        }
        if self.peek().is_some() {
            self.expect_exact("The following bots were too slow:")?;
            while let Some(line) = self.peek() {
                let Some(name) = line.strip_prefix("  ") else {
                    return Err(self.error_here(&format!("expected `  Name`, found {line:?}")));
                };
                too_slow.push(name.trim_end().to_string());
                self.next += 1;
            }
        }
        Ok(FinalResults {
            standings,
            too_slow,
        })
    }
}

/// The file's lines with a cursor; numbers in errors are 1-based.
struct Lines<'a> {
    lines: Vec<&'a str>,
    next: usize,
}

impl<'a> Lines<'a> {
    fn peek(&self) -> Option<&'a str> {
        self.lines.get(self.next).copied()
    }

    fn take(&mut self, expected: &str) -> anyhow::Result<&'a str> {
        match self.lines.get(self.next) {
            Some(line) => {
                self.next += 1;
                Ok(line)
            }
            None => {
                Err(self.error_here(&format!("expected {expected}, found the end of the file")))
            }
        }
    }

    fn expect_exact(&mut self, expected: &str) -> anyhow::Result<()> {
        let line = self.take(&format!("`{expected}`"))?;
        if line.trim_end() != expected {
            return Err(self.error_prev(&format!("expected `{expected}`, found {line:?}")));
        }
        Ok(())
    }

    fn error_here(&self, message: &str) -> anyhow::Error {
        anyhow::anyhow!("{}: {message}", self.next + 1)
    }

    fn error_prev(&self, message: &str) -> anyhow::Error {
        anyhow::anyhow!("{}: {message}", self.next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two bots (side 5), one round, in the exact shape the original controller writes; the
    /// top row ends in a broken vertex, so the file keeps a trailing space.
    const LOG: &str = "Initializing bots.\nBots:\n  Random Builder (a)\n  Checkpoint (b)\n\
        Running 1 rounds.\n  Round 0\n  Finished, computing score.\n  ab.. \n  .b...\n  .ba..\n\
        \x20  a b.\n  .b...\n  Results: 3 29\nFinal results:\n  Checkpoint: 29\n  Random Builder: 3\n\
        The following bots were too slow:\n  Random Builder\n";

    fn error(text: &str) -> String {
        format!("{:#}", parse(text).unwrap_err())
    }

    #[test]
    fn a_well_formed_log_parses_into_rounds_and_results() {
        let log = parse(LOG).unwrap();
        assert_eq!(log.bots, ["Random Builder", "Checkpoint"]);
        assert_eq!(log.rounds[0].rows[0], "ab.. ");
        assert_eq!(log.rounds[0].points, [3, 29]);
        assert_eq!(log.standings[0], ("Checkpoint".to_string(), 29));
        assert_eq!(log.too_slow, ["Random Builder"]);
    }

    #[test]
    fn a_trimmed_log_gets_its_rows_padded_back() {
        let trimmed: String = LOG
            .lines()
            .map(|l| l.trim_end().to_string() + "\n")
            .collect();
        assert_eq!(parse(&trimmed).unwrap(), parse(LOG).unwrap());
    }

    #[test]
    fn a_short_row_is_reported_with_its_line() {
        let text = LOG.replace("  .ba..\n", "  .ba.\n");
        assert_eq!(
            error(&text),
            "10: expected a grid row of 5 characters, found 4"
        );
    }

    #[test]
    fn a_long_row_is_reported_even_in_a_trimmed_file() {
        let trimmed: String = LOG
            .lines()
            .map(|l| l.trim_end().to_string() + "\n")
            .collect();
        let text = trimmed.replace("  .b...\n  .ba", "  .b....\n  .ba");
        assert_eq!(
            error(&text),
            "9: expected a grid row of 5 characters, found 6"
        );
    }

    #[test]
    fn a_missing_results_line_is_reported_with_its_line() {
        let text = LOG.replace("  Results: 3 29\n", "");
        assert!(
            error(&text).starts_with("13: expected `  Results: ...`, found \"Final results:\""),
            "{}",
            error(&text)
        );
    }

    #[test]
    fn a_non_number_is_reported_with_its_line() {
        let text = LOG.replace("Results: 3 29", "Results: 3 x9");
        assert_eq!(
            error(&text),
            "13: expected a number of points, found \"x9\""
        );
        let text = LOG.replace("Checkpoint: 29", "Checkpoint: lots");
        assert_eq!(error(&text), "15: expected a total, found \"lots\"");
    }

    #[test]
    fn read_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("graphical_log.txt");
        std::fs::write(&path, LOG.replace("  .ba..\n", "  .ba.\n")).unwrap();
        let message = format!("{:#}", read(&path).unwrap_err());
        assert_eq!(
            message,
            format!(
                "{}:10: expected a grid row of 5 characters, found 4",
                path.display()
            )
        );
    }
}
