//! `koth replay --text` of a game whose terminal view is text only (Nim, Mad Cars): what the
//! game's own summary says, then the story of one part of it — a game of a Nim match, a match of
//! a Mad Cars game, each a round as the game numbers its faults — told from the transcripts as
//! the other viewers tell a turn: each answer with its time, the faults, and each bot's stderr
//! lines. It knows no game: the game hands it its summary, what its parts and turns are called
//! and the line that opens a part.

use std::path::Path;

use anyhow::Context;
use ratatui::text::{Line, Span};
use serde::Deserialize;

use super::{BOLD, FAULT, NOW, Panel};
use crate::explain::{Answered, transcribed};
use koth_bot::Fault;
use koth_game::{MatchResult, Numbering};

/// How a game's parts and turns are called, and which one to tell.
pub struct Story<'a> {
    /// The game's title line.
    pub title: String,
    /// The game's own summary, a line each.
    pub summary: Vec<String>,
    /// What a part is (`game`, `match`) and a turn (`move`, `tick`).
    pub part_name: &'a str,
    pub turn_name: &'a str,
    /// The start of the line koth sends to open a part (`START`, `{"type": "new_match"`), or of
    /// the prompt that is a part by itself (lowbid's `BID`), by which an answer's part is
    /// counted ([`Answered::part`]).
    pub opener: &'a str,
    /// The part to tell (a round, from 1); the first if none.
    pub part: Option<u32>,
    /// The turn up to which to tell it (from 1, as a person counts); its last if none.
    pub turn: Option<u32>,
    /// The most turns listed, those up to `turn`: a Mad Cars match has thousands of ticks.
    pub most_turns: usize,
}

/// What the game's `results.json` holds that a story reads.
#[derive(Deserialize)]
struct Results {
    result: MatchResult,
}

/// The story of the game in `folder` as `--text` prints it.
pub fn text(folder: &Path, story: &Story) -> anyhow::Result<String> {
    let path = folder.join(koth_game::RESULTS_FILE);
    let results: Results = serde_json::from_str(&koth_base::text::read(&path)?)
        .with_context(|| format!("{}: not a match's result", path.display()))?;
    let faults: Vec<Fault> = results
        .result
        .bots
        .iter()
        .flat_map(|b| b.faults.iter().cloned())
        .collect();
    // The records' own numbers, shown and typed as a person counts, from 1.
    let numbering = koth_game::Numbering::of(&results.result.game);
    let transcripts = transcribed(folder, story.opener);
    let part = story.part.unwrap_or(1);
    // Each bot's answers in the part, with the bot's name, in the order of their turns.
    let mut answers: Vec<(&str, &Answered)> = transcripts
        .iter()
        .flat_map(|t| {
            t.answers
                .iter()
                .filter(|a| a.part() == Some(part))
                .map(|a| (t.bot.as_str(), a))
        })
        .collect();
    answers.sort_by_key(|(_, a)| a.turn);
    let last = answers.iter().filter_map(|(_, a)| a.turn).max();
    let until = match story.turn {
        None => last,
        Some(shown) => {
            // Turn 0, the start, in records counting from 0: nothing answered yet.
            let stored = numbering.stored_turn(shown);
            if stored.is_none() {
                answers.clear();
            }
            stored
        }
    };
    answers.retain(|(_, a)| a.turn <= until);
    let turns: Vec<Option<u32>> = {
        let mut turns: Vec<Option<u32>> = answers.iter().map(|(_, a)| a.turn).collect();
        turns.dedup();
        turns
    };
    // The first turn listed, when the part has more than are listed.
    let first_listed =
        (turns.len() > story.most_turns).then(|| turns[turns.len() - story.most_turns]);
    answers.retain(|(_, a)| first_listed.is_none_or(|first| a.turn >= first));
    let mut panels = vec![answers_panel(
        story,
        numbering,
        part,
        &answers,
        first_listed.is_some(),
        until,
    )];
    panels.push(faults_panel(story, numbering, &faults, part, until));
    for t in &transcripts {
        panels.push(super::stderr_text(&t.bot, &t.stderr));
    }
    let summary: Vec<Line> = story
        .summary
        .iter()
        .map(|l| Line::raw(l.as_str()))
        .collect();
    Ok(super::text(&story.title, &summary, &panels))
}

/// The part's answers, a line each: its turn, bot, time and what it answered (a fault in red).
fn answers_panel(
    story: &Story,
    numbering: Numbering,
    part: u32,
    answers: &[(&str, &Answered)],
    cut: bool,
    until: Option<u32>,
) -> Panel {
    let width = answers
        .iter()
        .map(|(bot, _)| bot.chars().count())
        .max()
        .unwrap_or(3)
        .clamp(3, 24);
    let mut lines = vec![Line::styled(
        format!(
            "{:>5} {:<width$} {:>5}  answered",
            story.turn_name, "bot", "ms"
        ),
        BOLD,
    )];
    for (bot, answer) in answers {
        let turn = answer
            .turn
            .map_or(String::new(), |t| numbering.turn(t).to_string());
        let ms = answer.ms.map_or(String::new(), |ms| ms.to_string());
        let bot: String = bot.chars().take(width).collect();
        let said = if answer.fault {
            Span::styled(answer.answer.clone(), FAULT)
        } else {
            Span::raw(answer.answer.clone())
        };
        let line = Line::from(vec![
            Span::raw(format!("{turn:>5} {bot:<width$} {ms:>5}  ")),
            said,
        ]);
        lines.push(if answer.turn == until {
            line.style(NOW)
        } else {
            line
        });
    }
    let mut title = format!("answers in {} {part}", story.part_name);
    if cut {
        title += &format!(
            " (its last {} {}s up to {})",
            story.most_turns,
            story.turn_name,
            until.map_or(String::new(), |t| numbering.turn(t).to_string())
        );
    }
    if answers.is_empty() {
        lines = vec![Line::raw("none recorded")];
    }
    Panel::new(title, lines)
}

/// Every fault kept, with its part and turn; those of the turn told highlighted.
fn faults_panel(
    story: &Story,
    numbering: Numbering,
    faults: &[Fault],
    part: u32,
    until: Option<u32>,
) -> Panel {
    let lines = faults
        .iter()
        .map(|f| {
            let at = [
                f.round
                    .map(|r| format!("{} {}", story.part_name, numbering.round(r))),
                f.turn
                    .map(|t| format!("{} {}", story.turn_name, numbering.turn(t))),
            ]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" ");
            let now = f.round.map(|r| numbering.round(r)) == Some(part)
                && f.turn.is_some()
                && f.turn == until;
            super::fault_line(&at, &f.bot, f.kind.as_str(), &f.reason, now)
        })
        .collect();
    Panel::new(format!("faults ({})", faults.len()), super::or_none(lines))
}
