//! `koth replay LOGDIR --drive BOTDIR --as NAME`: feeds a (new build of a) bot the exact lines
//! bot NAME received in a recorded game of any kind, read from its transcript, through the real
//! bot process layer with the game's time limits, and reports where the answers now differ.
//!
//! The game is not played again: every message is the recorded one, whatever the bot answers
//! now, so the bot sees exactly what it saw then — the way to reproduce a crash or a timeout.
//! As in the game, a new process is started wherever the transcript has a `# round R` note
//! (every round of paths; after a fault in noughts and crosses and the rat race; once in flag),
//! and the bot's private file, if the game has one (paths' `data.txt`), is emptied once at the
//! start and kept between rounds.
//!
//! Transcripts are bounded (see [`Transcript`]), so a recording may be inexact in two ways: an
//! answer longer than [`TRANSCRIPT_LINE_BYTES`] was kept as its start and its length, and is
//! compared by those; a transcript that reached its size limit ends mid-game, and is driven up
//! to the round it ends in, which is then reported as not driven.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use koth_bot::FuelStats;
pub use koth_bot::running::{Running, Start};
use koth_bot::seat::{
    self, BOT_NOTE, DROPPED_NOTE, LIMITS_NOTE, PRIVATE_FILE_NOTE, ROUND_NOTE, SEED_NOTE,
    TRANSCRIPTS_DIR,
};
use koth_bot::stderr::STDERR_CAP;
use koth_bot::transcript::{FUEL_NOTE, TRANSCRIPT_FULL_NOTE, TRANSCRIPT_LINE_BYTES, TURN_NOTE};
use koth_bot::{self as bot, BotError, BotSpec, Ending, Limits, StderrLog, Transcript};
use koth_game::Numbering;

/// One round of a transcript, as the bot lived it.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundScript {
    pub round: u32,
    pub steps: Vec<Step>,
    /// A fault recorded after the round's last prompt (a bot that did not exit in time).
    pub end_fault: Option<RecordedFault>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A line sent without expecting an answer.
    Send(String),
    /// A prompt, at `line` (1-based) of the transcript, and what the bot did then.
    Ask {
        line: usize,
        /// The turn the game named for this prompt (its transcript's last `# turn` note).
        turn: Option<u32>,
        prompt: String,
        recorded: Recorded,
        /// Milliseconds from the prompt to the answer, as the transcript's clock recorded
        /// them; `None` without an answer.
        took_ms: Option<u64>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum Recorded {
    Answer(String),
    /// An answer too long to keep whole: its first bytes, and its length.
    CutAnswer {
        start: String,
        bytes: usize,
    },
    Fault(RecordedFault),
    /// The transcript ends before any answer or fault (koth was stopped mid-game).
    Nothing,
}

impl std::fmt::Display for Recorded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Recorded::Answer(line) => f.write_str(line),
            Recorded::CutAnswer { start, bytes } => {
                write!(f, "{start}… ({bytes} bytes; only its start was recorded)")
            }
            Recorded::Fault(fault) => fault.fmt(f),
            Recorded::Nothing => f.write_str("nothing"),
        }
    }
}

/// A fault as the transcript states it: `! ms kind: reason`.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedFault {
    pub kind: String,
    pub reason: String,
}

impl std::fmt::Display for RecordedFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.kind, self.reason)
    }
}

/// A whole transcript: the bot's name (from its `# bot` note), the match's limits and the bot's
/// private file (from theirs), and its rounds.
#[derive(Debug, Clone, PartialEq)]
pub struct Script {
    pub bot: Option<String>,
    pub limits: Option<Limits>,
    /// A file in the bot's folder that the game emptied at the start of the match.
    pub private_file: Option<String>,
    /// The match's seed (its `# seed` note; 0 in a transcript written before there was one).
    pub seed: u64,
    /// Whether the game asked the bot to exit at its end (its `# no exit expected` note).
    pub ending: Ending,
    pub rounds: Vec<RoundScript>,
    /// The round in which the transcript reached its size limit and stopped: that round and
    /// the later ones were not recorded whole.
    pub full_in_round: Option<u32>,
    /// A WASI bot's fuel per answer, from its `# fuel F` notes, against its budget.
    pub fuel: Option<FuelStats>,
}

impl Script {
    /// Parses a transcript's text; errors name `path` and the line.
    pub fn parse(text: &str, path: &Path) -> anyhow::Result<Script> {
        let mut reader = ScriptReader {
            script: Script {
                bot: None,
                limits: None,
                private_file: None,
                seed: 0,
                ending: Ending::Exit,
                rounds: Vec::new(),
                full_in_round: None,
                fuel: None,
            },
            path,
            turn: None,
            asked_at: 0,
        };
        for (index, line) in text.lines().enumerate() {
            match line.strip_prefix("# ") {
                Some(note) => reader.note(index, note)?,
                None => reader.exchange(index, line)?,
            }
        }
        Ok(reader.script)
    }
}

/// A transcript read line by line into a [`Script`], with what a line needs from the lines
/// before it.
struct ScriptReader<'a> {
    script: Script,
    path: &'a Path,
    /// The turn of the prompts that follow, from the last `# turn` note of the round.
    turn: Option<u32>,
    /// When the last prompt was sent, in the transcript's milliseconds.
    asked_at: u64,
}

/// The error for line `index` (from 0) of the transcript at `path`.
fn bad_line(path: &Path, index: usize, what: &str) -> anyhow::Error {
    anyhow::anyhow!("{}:{}: {what}", path.display(), index + 1)
}

impl ScriptReader<'_> {
    /// A `# ` note (`note` is what follows it): the bot, the limits, the seed, a round, a turn,
    /// a WASI answer's fuel, the ending; a note koth does not know is skipped.
    fn note(&mut self, index: usize, note: &str) -> anyhow::Result<()> {
        let bad = |what: &str| bad_line(self.path, index, what);
        let script = &mut self.script;
        if let Some(name) = note.strip_prefix(BOT_NOTE) {
            script.bot = Some(name.to_string());
        } else if let Some(limits) = note.strip_prefix(LIMITS_NOTE) {
            script.limits =
                Some(seat::parse_limits_note(limits).ok_or_else(|| bad("damaged limits note"))?);
        } else if let Some(seed) = note.strip_prefix(SEED_NOTE) {
            script.seed = seed.parse().map_err(|_| bad("expected `# seed N`"))?;
        } else if let Some(file) = note.strip_prefix(PRIVATE_FILE_NOTE) {
            // Only a plain file name in the bot's folder: a damaged or hostile
            // transcript must not name a file elsewhere to be emptied.
            let plain = Path::new(file).file_name().is_some_and(|name| name == file);
            if !plain || file.starts_with('.') {
                return Err(bad("a private file must be a plain file name"));
            }
            script.private_file = Some(file.to_string());
        } else if let Some(round) = note.strip_prefix(ROUND_NOTE) {
            let round = round.parse().map_err(|_| bad("expected `# round R`"))?;
            self.turn = None;
            script.rounds.push(RoundScript {
                round,
                steps: Vec::new(),
                end_fault: None,
            });
        } else if let Some(number) = note.strip_prefix(TURN_NOTE) {
            self.turn = Some(number.parse().map_err(|_| bad("expected `# turn T`"))?);
        } else if let Some(fuel) = note.strip_prefix(FUEL_NOTE) {
            let fuel = fuel.parse().map_err(|_| bad("expected `# fuel F`"))?;
            let budget = script.limits.and_then(|l| l.answer_fuel);
            script.fuel.get_or_insert_default().record(fuel, budget);
        } else if note == DROPPED_NOTE {
            script.ending = Ending::Dropped;
        } else if note.starts_with(TRANSCRIPT_FULL_NOTE) {
            script.full_in_round = script.rounds.last().map(|r| r.round);
        }
        Ok(())
    }

    /// A `MARKER MS LINE` line: a line sent (`>`), a prompt (`?`), an answer (`<`) or a fault
    /// (`!`), added to the current round.
    fn exchange(&mut self, index: usize, line: &str) -> anyhow::Result<()> {
        let path = self.path;
        let bad = |what: &str| bad_line(path, index, what);
        let (marker, rest) = line
            .split_once(' ')
            .ok_or_else(|| bad("expected `MARKER MS LINE`"))?;
        // The line itself may be empty (an empty answer): then there is no space after ms.
        let (ms, text) = rest.split_once(' ').unwrap_or((rest, ""));
        let ms = ms
            .parse::<u64>()
            .map_err(|_| bad("expected milliseconds after the marker"))?;
        let round = self
            .script
            .rounds
            .last_mut()
            .ok_or_else(|| bad("a line before the first `# round` note"))?;
        let (last_ask, took) = match round.steps.last_mut() {
            Some(Step::Ask {
                recorded, took_ms, ..
            }) => (Some(recorded), Some(took_ms)),
            _ => (None, None),
        };
        let cut = bot::cut_line_parts(text);
        if let (Some((_, bytes)), ">" | "?") = (cut, marker) {
            return Err(bad(&format!(
                "this line koth sent was {bytes} bytes long, and only its start was \
                 recorded: it cannot be sent again"
            )));
        }
        match (marker, last_ask) {
            (">", _) => round.steps.push(Step::Send(text.to_string())),
            ("?", _) => {
                self.asked_at = ms;
                round.steps.push(Step::Ask {
                    line: index + 1,
                    turn: self.turn,
                    prompt: text.to_string(),
                    recorded: Recorded::Nothing,
                    took_ms: None,
                })
            }
            ("<", Some(recorded @ Recorded::Nothing)) => {
                if let Some(took) = took {
                    *took = Some(ms.saturating_sub(self.asked_at));
                }
                *recorded = match cut {
                    Some((start, bytes)) => Recorded::CutAnswer {
                        start: start.to_string(),
                        bytes,
                    },
                    None => Recorded::Answer(text.to_string()),
                }
            }
            ("!", last_ask) => {
                let fault = RecordedFault::parse(text);
                match last_ask {
                    // A late answer is recorded, then the fault it was.
                    Some(recorded) => *recorded = Recorded::Fault(fault),
                    None => round.end_fault = Some(fault),
                }
            }
            ("<", _) => return Err(bad("an answer without a prompt (`?`) before it")),
            _ => return Err(bad("expected `>`, `?`, `<`, `!` or `#`")),
        }
        Ok(())
    }
}

impl RecordedFault {
    /// A `!` line's text, `kind: reason` (a bare reason is a `fault`).
    fn parse(text: &str) -> RecordedFault {
        let (kind, reason) = text.split_once(": ").unwrap_or(("fault", text));
        RecordedFault {
            // Transcripts before koth spelt every kind in snake case wrote `timed out`.
            kind: kind.replace(' ', "_"),
            reason: reason.to_string(),
        }
    }
}

/// The transcripts' folder of the log folder `log_dir`, and its transcripts' names, sorted.
fn transcript_stems(log_dir: &Path) -> anyhow::Result<(PathBuf, Vec<String>)> {
    let dir = log_dir.join(TRANSCRIPTS_DIR);
    let entries = std::fs::read_dir(&dir).with_context(|| {
        format!(
            "no transcripts in {} (every game writes them; this is not a game's log folder)",
            dir.display()
        )
    })?;
    let mut stems: Vec<String> = entries
        .flatten()
        .filter_map(|e| Transcript::stem(&e.file_name().to_string_lossy()).map(str::to_string))
        .collect();
    stems.sort();
    Ok((dir, stems))
}

/// Every transcript in the log folder `log_dir` that parses, with its path.
pub fn scripts(log_dir: &Path) -> anyhow::Result<Vec<(PathBuf, Script)>> {
    let (dir, stems) = transcript_stems(log_dir)?;
    Ok(stems
        .iter()
        .filter_map(|stem| {
            let path = dir.join(format!("{stem}.txt"));
            let script = Script::parse(&Transcript::read(&path).ok()?, &path).ok()?;
            Some((path, script))
        })
        .collect())
}

/// The transcript of `name` in the log folder `log_dir`: `name` is a transcript's file name
/// (without `.txt`) or the name of the bot it records. The error lists the names there are.
pub fn find(log_dir: &Path, name: &str) -> anyhow::Result<(PathBuf, Script)> {
    let (dir, stems) = transcript_stems(log_dir)?;
    let mut available = Vec::new();
    for stem in &stems {
        let path = dir.join(format!("{stem}.txt"));
        let script = Script::parse(&Transcript::read(&path)?, &path)?;
        if stem == name || script.bot.as_deref() == Some(name) {
            return Ok((path, script));
        }
        available.push(match &script.bot {
            Some(bot) => format!("{stem} (\"{bot}\")"),
            None => stem.clone(),
        });
    }
    bail!(
        "no transcript of \"{name}\" in {}; there are: {}",
        dir.display(),
        if available.is_empty() {
            "none".to_string()
        } else {
            available.join(", ")
        }
    )
}

/// What the driven bot did now, where it differs from the recording: its round and turn as a
/// person reads them, from 1 ([`DriveOptions::numbering`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    pub round: u32,
    pub at: Moment,
    pub recorded: String,
    pub now: String,
}

/// Where in a round a difference shows.
#[derive(Debug, Clone, PartialEq)]
pub enum Moment {
    /// Starting the process.
    Start,
    /// A prompt at `line` of the transcript, after the lines `sent` since the previous one.
    Prompt {
        line: usize,
        turn: Option<u32>,
        sent: Vec<String>,
        prompt: String,
    },
    /// The exit after the round's last line.
    Exit,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "round {}", self.round)?;
        match &self.at {
            Moment::Start => writeln!(f, ", starting the bot:")?,
            Moment::Prompt {
                line,
                turn,
                sent,
                prompt,
            } => {
                if let Some(turn) = turn {
                    write!(f, ", turn {turn}")?;
                }
                writeln!(f, " (transcript line {line}):")?;
                for sent in sent {
                    writeln!(f, "  sent:     {sent}")?;
                }
                writeln!(f, "  prompt:   {prompt}")?;
            }
            Moment::Exit => writeln!(f, ", at its end (the exit after the last line):")?,
        }
        writeln!(f, "  recorded: {}", self.recorded)?;
        writeln!(f, "  now:      {}", self.now)
    }
}

/// How to drive.
pub struct DriveOptions {
    /// Only this round is compared; the rounds before it are still played (unreported), so the
    /// bot's private file holds what it held then.
    pub round: Option<u32>,
    /// Go on after the first difference (to the end of each round that still can).
    pub all_differences: bool,
    /// The bot's limits per answer (its first answer per process gets the start-up grace too)
    /// and for exiting after the round's last line, on their clock.
    pub limits: Limits,
    /// Where the driven bot's stderr goes; without one, only its last lines are kept, quoted in
    /// crash reasons.
    pub stderr_log: Option<PathBuf>,
    /// How the game numbers its rounds and turns: a difference and a message name them as a
    /// person reads them, from 1, as the game's report does.
    pub numbering: Numbering,
}

/// The outcome of a drive.
#[derive(Debug, Default)]
pub struct Driven {
    pub rounds: usize,
    pub prompts: usize,
    pub differences: Vec<Difference>,
    /// Differences in the rounds played before `--round` only to rebuild the bot's private file.
    pub unreported_differences: usize,
    /// Answers recorded cut (too long to keep whole), compared by their start and length only.
    pub cut_answers: usize,
    /// The round the transcript reached its size limit in: it and the later rounds were not
    /// driven, since the recording of them is incomplete.
    pub not_driven_from: Option<u32>,
}

/// Drives `spec` through `script`, calling `on_difference` as each difference is found.
pub async fn drive(
    spec: &BotSpec,
    script: &Script,
    options: &DriveOptions,
    on_difference: &mut dyn FnMut(&Difference),
) -> anyhow::Result<Driven> {
    check_round_drivable(script, options)?;
    let scratch = bot::seat::prepare_files(spec, script.private_file.as_deref())?;
    let stderr = match &options.stderr_log {
        Some(path) => StderrLog::create(path, STDERR_CAP)
            .with_context(|| format!("cannot create {}", path.display()))?,
        None => StderrLog::discard(),
    };
    let mut driven = Driven::default();
    for round in &script.rounds {
        if script.full_in_round == Some(round.round) {
            driven.not_driven_from = Some(round.round);
            break;
        }
        let reported = options.round.is_none_or(|r| r == round.round);
        let stop_at_first = reported && !options.all_differences;
        let mut differences = Vec::new();
        let start = Start {
            pipe_bytes: None,
            limits: &options.limits,
            scratch: scratch.as_ref().map(|s| s.path()),
            seed: script.seed,
            round: round.round,
        };
        let (prompts, cut_answers) = drive_round(
            spec,
            start,
            round,
            script.ending,
            stop_at_first,
            &stderr,
            &mut differences,
        )
        .await;
        if !reported {
            driven.unreported_differences += differences.len();
        } else {
            driven.rounds += 1;
            driven.prompts += prompts;
            driven.cut_answers += cut_answers;
            driven.report(differences, options.numbering, on_difference);
            if !options.all_differences && !driven.differences.is_empty() {
                break;
            }
        }
        if options.round == Some(round.round) {
            break;
        }
    }
    Ok(driven)
}

/// An error unless the round `--round` asks for (if any) is in `script` and recorded whole.
fn check_round_drivable(script: &Script, options: &DriveOptions) -> anyhow::Result<()> {
    let shown = |round: u32| options.numbering.round(round);
    if let Some(round) = options.round
        && !script.rounds.iter().any(|r| r.round == round)
    {
        bail!(
            "the transcript has no round {} (it has {} rounds, from 1)",
            shown(round),
            script.rounds.len()
        );
    }
    if let (Some(round), Some(full)) = (options.round, script.full_in_round)
        && round >= full
    {
        let (round, full) = (shown(round), shown(full));
        bail!(
            "the transcript reached its size limit in round {full} and stopped, so round {round} \
             was not recorded whole and cannot be driven (rounds before {full} can)"
        );
    }
    Ok(())
}

impl Driven {
    /// Adds a reported round's `differences`, each passed to `on_difference` first.
    fn report(
        &mut self,
        differences: Vec<Difference>,
        numbering: Numbering,
        on_difference: &mut dyn FnMut(&Difference),
    ) {
        for mut difference in differences {
            // Named as a person reads them, as the game's report names its faults.
            difference.round = numbering.round(difference.round);
            if let Moment::Prompt { turn, .. } = &mut difference.at {
                *turn = turn.map(|turn| numbering.turn(turn));
            }
            on_difference(&difference);
            self.differences.push(difference);
        }
    }
}

/// Plays one round's script to a new process (or WASI module, started as `start` says); returns
/// the number of prompts answered or not, and how many of them were compared with an answer
/// recorded cut.
async fn drive_round(
    spec: &BotSpec,
    start: Start<'_>,
    round: &RoundScript,
    ending: Ending,
    stop_at_first: bool,
    stderr: &StderrLog,
    differences: &mut Vec<Difference>,
) -> (usize, usize) {
    let differ = |at, recorded, now| Difference {
        round: round.round,
        at,
        recorded,
        now,
    };
    let limits = *start.limits;
    let mut process = match Running::start(spec, stderr, start) {
        Ok(process) => process,
        Err(e) => {
            // A round without a single line is one where the recorded bot did not start either.
            if !round.steps.is_empty() {
                differences.push(differ(Moment::Start, "started".into(), e.with_status()));
            }
            return (0, 0);
        }
    };
    // As in the game: answers are timed on the limits' clock.
    process.set_clock(limits.clock);
    let mut sent = Vec::new();
    let mut prompts = 0;
    let mut cut_answers = 0;
    for step in &round.steps {
        let (line, turn, prompt, recorded) = match step {
            Step::Send(line) => {
                sent.push(line.clone());
                // Only queued (it fails only for a stopped bot, and a fault ends the round
                // below): a bot that stopped reading shows when the next prompt is written.
                let _ = process.send(line);
                continue;
            }
            Step::Ask {
                line,
                turn,
                prompt,
                recorded,
                ..
            } => (*line, *turn, prompt, recorded),
        };
        if *recorded == Recorded::Nothing {
            // Nothing to compare with: the recording stops here.
            break;
        }
        prompts += 1;
        let now = process.ask(prompt, limits.answer).await;
        if now.is_ok() && matches!(recorded, Recorded::CutAnswer { .. }) {
            cut_answers += 1;
        }
        if !answered_as_recorded(&now, recorded) {
            let at = Moment::Prompt {
                line,
                turn,
                sent: sent.clone(),
                prompt: prompt.clone(),
            };
            differences.push(differ(at, recorded.to_string(), now_text(&now)));
            // A fault stops the bot; later prompts of the round could only fail too.
            if now.is_err() || stop_at_first {
                process.kill().await;
                return (prompts, cut_answers);
            }
        }
        sent.clear();
    }
    let exit = process.finish(limits.exit, ending).await;
    differences.extend(exit_difference(round, exit));
    (prompts, cut_answers)
}

/// Whether the answer (or fault) `now` is the one `recorded`: the same line, the same start and
/// length for an answer recorded cut, or a fault of the same kind.
fn answered_as_recorded(now: &Result<bot::Answer, BotError>, recorded: &Recorded) -> bool {
    match (now, recorded) {
        (Ok(answer), Recorded::Answer(then)) => answer.line == *then,
        (Ok(answer), Recorded::CutAnswer { start, bytes }) => {
            answer.line.len() == *bytes && answer.line.starts_with(start.as_str())
        }
        (Err(e), Recorded::Fault(then)) => e.status_name() == then.kind,
        _ => false,
    }
}

/// The answer (cut as a transcript cuts it, with its time) or the fault `now`, for a report.
fn now_text(now: &Result<bot::Answer, BotError>) -> String {
    match now {
        Ok(answer) => format!(
            "{} ({} ms)",
            bot::cut_line(&answer.line, TRANSCRIPT_LINE_BYTES),
            answer.wall.as_millis()
        ),
        Err(e) => e.with_status(),
    }
}

/// The difference at the end of `round`, if the bot's `exit` (a fault, or `None` for one in
/// time) is not what was recorded.
fn exit_difference(round: &RoundScript, exit: Option<BotError>) -> Option<Difference> {
    let then = round.end_fault.as_ref().map(|f| f.kind.as_str());
    let now = exit.as_ref().map(BotError::status_name);
    if then == now {
        return None;
    }
    let recorded = round
        .end_fault
        .as_ref()
        .map_or("exited in time".to_string(), RecordedFault::to_string);
    let now = exit.map_or("exited in time".to_string(), |e| e.with_status());
    Some(Difference {
        round: round.round,
        at: Moment::Exit,
        recorded,
        now,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> anyhow::Result<Script> {
        Script::parse(text, Path::new("t.txt"))
    }

    #[test]
    fn a_transcript_parses_into_rounds_of_sends_and_prompts_with_what_happened() {
        let script = parse(
            "# bot Late one\n# round 0\n> 1 BEGIN 2 4 5\n# turn 0\n? 1 DESTROY 0\n< 2 NONE\n\
             ? 3 ACTIVATE 0\n< 1500 NONE\n! 1500 timed out: no answer within 1000 ms\n\
             # round 1\n> 1 BEGIN 2 4 5\n? 1 DESTROY 0\n< 2 \n> 3 SCORE 0 0\n\
             ! 1004 timed out: did not exit within 1000 ms after its last message\n",
        )
        .unwrap();
        assert_eq!(script.bot.as_deref(), Some("Late one"));
        let ask = |line, turn, prompt: &str, recorded, took_ms| Step::Ask {
            line,
            turn,
            prompt: prompt.into(),
            recorded,
            took_ms,
        };
        let late = RecordedFault {
            kind: "timed_out".into(),
            reason: "no answer within 1000 ms".into(),
        };
        assert_eq!(
            script.rounds[0].steps,
            vec![
                Step::Send("BEGIN 2 4 5".into()),
                ask(
                    5,
                    Some(0),
                    "DESTROY 0",
                    Recorded::Answer("NONE".into()),
                    Some(1)
                ),
                // A late answer is recorded, but what counted was the timeout.
                ask(7, Some(0), "ACTIVATE 0", Recorded::Fault(late), Some(1497)),
            ]
        );
        assert_eq!(script.rounds[0].end_fault, None);
        let round = &script.rounds[1];
        assert_eq!(
            round.steps[1],
            // A new round's turns are named again: this one was not.
            ask(12, None, "DESTROY 0", Recorded::Answer("".into()), Some(1))
        );
        assert_eq!(round.end_fault.as_ref().unwrap().kind, "timed_out");
    }

    #[test]
    fn a_cut_answer_is_recorded_as_its_start_and_length_and_a_full_transcript_ends_its_round() {
        let script = parse(
            "# round 0\n? 1 DESTROY 0\n< 2 xyz… [koth: 1048575 bytes, cut]\n# round 1\n\
             > 3 BEGIN 2 4 5\n# koth: transcript full at 8388608 bytes: the rest is not recorded\n",
        )
        .unwrap();
        assert_eq!(
            script.rounds[0].steps,
            vec![Step::Ask {
                line: 2,
                turn: None,
                prompt: "DESTROY 0".into(),
                recorded: Recorded::CutAnswer {
                    start: "xyz".into(),
                    bytes: 1_048_575
                },
                took_ms: Some(1),
            }]
        );
        assert_eq!(script.full_in_round, Some(1));
        // A line koth sent cannot be sent again from its start alone.
        let error = parse("# round 0\n> 1 BEGIN… [koth: 9000 bytes, cut]\n")
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("t.txt:2: ") && error.contains("cannot be sent again"),
            "{error}"
        );
    }

    #[test]
    fn a_damaged_transcript_is_an_error_naming_the_file_and_line() {
        for (text, line, what) in [
            ("> 1 BEGIN\n", 1, "before the first `# round`"),
            (
                "# round 0\n? 1 DESTROY 0\nNONE\n",
                3,
                "expected `MARKER MS LINE`",
            ),
            ("# round 0\n< 1 NONE\n", 2, "without a prompt"),
            ("# round 0\n> x BEGIN\n", 2, "milliseconds"),
            ("# round zero\n", 1, "`# round R`"),
            (
                "# round 0\n* 1 what\n",
                2,
                "expected `>`, `?`, `<`, `!` or `#`",
            ),
        ] {
            let error = parse(text).unwrap_err().to_string();
            assert!(error.starts_with(&format!("t.txt:{line}: ")), "{error}");
            assert!(error.contains(what), "{error}");
        }
    }
}
