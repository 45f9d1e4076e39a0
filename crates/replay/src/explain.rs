//! What a game's log folder says beyond its moves, for the viewers to explain a game: each
//! answer a bot gave, placed in its game, with how long it took (from its transcript), and each
//! bot's last stderr lines. Everything here is optional: a folder without a transcript, or with
//! a damaged one, explains less and still shows.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use serde::Serialize;

use super::drive::{self, Recorded, Step};

/// The stderr shown per bot: its last lines, from at most its last bytes.
const STDERR_LINES: usize = 20;
const STDERR_BYTES: u64 = 4096;

/// The last lines of the file at `path` (empty if it cannot be read).
pub fn tail(path: &Path) -> String {
    let read = || -> std::io::Result<String> {
        let mut file = std::fs::File::open(path)?;
        let length = file.metadata()?.len();
        file.seek(SeekFrom::Start(length.saturating_sub(STDERR_BYTES)))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let lines: Vec<&str> = text.lines().collect();
        Ok(lines[lines.len().saturating_sub(STDERR_LINES)..].join("\n"))
    };
    read().unwrap_or_default()
}

/// The most of one answer a viewer page embeds: a rat-race answer is a move per specimen, and
/// thousands of turns of them would weigh megabytes; the start says what the bot did.
const ANSWER_CHARS: usize = 160;

/// One prompt a bot was asked, placed in its game, and what it did then, from its transcript:
/// for the viewers of the games other than paths.
#[derive(Debug, Clone, Serialize)]
pub struct Answered {
    /// The round of the transcript's `# round` note above it: where its process started.
    #[serde(skip)]
    pub round: u32,
    /// The last line koth sent that opens a part of the game (see [`transcribed`]), if any.
    #[serde(skip)]
    pub opener: Option<String>,
    /// How many such lines the round had sent by then.
    #[serde(skip)]
    pub openers: u32,
    /// The turn the game named for the prompt.
    pub turn: Option<u32>,
    /// The answer (its start, if long), or the fault the transcript recorded instead.
    pub answer: String,
    /// Whether `answer` is a fault rather than a line the bot wrote.
    pub fault: bool,
    /// Milliseconds from the prompt to the answer; `None` without one.
    pub ms: Option<u64>,
}

impl Answered {
    /// The part of the game (a game of a match, a Mad Cars match…) it was asked in, counted from
    /// 1 as the game counts its rounds: the round its process started in, and the parts it had
    /// opened since (numbers from a file: any, so checked).
    pub fn part(&self) -> Option<u32> {
        self.openers
            .checked_sub(1)
            .and_then(|later| self.round.checked_add(later))
    }
}

/// One bot's transcript and stderr, as a viewer explains them.
#[derive(Debug, Clone)]
pub struct Transcribed {
    /// The bot's name, from its transcript's `# bot` note.
    pub bot: String,
    /// The transcript's file name without `.txt`: the bot's seat in the game.
    pub stem: String,
    /// Every prompt in the order it was asked.
    pub answers: Vec<Answered>,
    /// Its stderr's last lines.
    pub stderr: String,
    /// The round in which the transcript reached its size limit, after which nothing is known.
    pub full_in_round: Option<u32>,
}

/// Every transcript in the game folder `folder` that reads (a damaged one is left out: a page
/// explains less and still shows), with its stderr. A game opens its parts with a line that
/// needs no answer — noughts & crosses a game with `START`, the rat race a board with
/// `RATRACE b`, flag a level with `LEVEL` —, or with a prompt when its round is one prompt
/// (lowbid's `BID`): each answer is placed after the last line, sent or prompted, that starts
/// with `opener`.
pub fn transcribed(folder: &Path, opener: &str) -> Vec<Transcribed> {
    let mut found = Vec::new();
    for (path, script) in drive::scripts(folder).unwrap_or_default() {
        let Some(stem) = path.file_stem().map(|s| s.to_string_lossy().into_owned()) else {
            continue;
        };
        let mut answers = Vec::new();
        for round in &script.rounds {
            let mut last_opener = None;
            let mut openers = 0;
            for step in &round.steps {
                match step {
                    Step::Send(line) if line.starts_with(opener) => {
                        last_opener = Some(line.clone());
                        openers += 1;
                    }
                    Step::Send(_) => {}
                    Step::Ask {
                        turn,
                        prompt,
                        recorded,
                        took_ms,
                        ..
                    } => {
                        // A game whose round is one prompt opens each part with it.
                        if prompt.starts_with(opener) {
                            last_opener = Some(prompt.clone());
                            openers += 1;
                        }
                        let fault = matches!(recorded, Recorded::Fault(_));
                        let answer = match recorded {
                            Recorded::Answer(line) => line.clone(),
                            other => other.to_string(),
                        };
                        answers.push(Answered {
                            round: round.round,
                            opener: last_opener.clone(),
                            openers,
                            turn: *turn,
                            answer: koth_bot::cut_line(&answer, ANSWER_CHARS).into_owned(),
                            fault,
                            ms: *took_ms,
                        });
                    }
                }
            }
        }
        let stderr = tail(&folder.join("stderr").join(format!("{stem}.log")));
        found.push(Transcribed {
            bot: script.bot.clone().unwrap_or_else(|| stem.clone()),
            stem,
            answers,
            stderr,
            full_in_round: script.full_in_round,
        });
    }
    found
}
