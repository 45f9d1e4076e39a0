//! The terminal viewer of a noughts & crosses match: every game move by move, explained from
//! the same data as the web page ([`MatchExplained`]): the answer to the move shown with how long
//! it took, the game's answers, the faults with their reasons (a game lost by a fault has one
//! step more than its moves: the refused answer, the square it named outlined), each bot's last
//! stderr lines, the result, and the history of the square under a cursor.

use std::path::Path;

use anyhow::bail;
use koth_replay::tui::ratatui::Frame as Screen;
use koth_replay::tui::ratatui::crossterm::event::KeyCode;
use koth_replay::tui::ratatui::layout::{Constraint, Layout, Rect};
use koth_replay::tui::ratatui::style::{Color, Modifier, Style};
use koth_replay::tui::ratatui::text::{Line, Span};
use koth_replay::tui::ratatui::widgets::{Block, Paragraph};

use super::explain::{GameExplained, MatchExplained, explain};
use koth_replay::tui::{
    self, BOLD, CURSOR_KEYS, DIM, FAULT, Keys, NOW, Panel, Place, Playback, STDERR_KEY, View,
};

/// The viewer's own keys.
pub const KEYS: Keys = Keys {
    game: "A noughts & crosses match",
    normal_speed: "a move each 0.7 s, game after game",
    keys: &[
        (
            CURSOR_KEYS,
            "cursor",
            "move the cursor: who took its square at which move, and a refused answer naming it",
        ),
        ("n/p", "next/previous move", "the next / previous move"),
        (
            "N/P PgDn/PgUp",
            "game",
            "the next / previous game of the match",
        ),
        (
            "Home/End",
            "game's start/end",
            "the empty board / the game's end",
        ),
        STDERR_KEY,
    ],
};

/// How long a move shows at 1×, as on the web page.
const MOVE_MS: u32 = 700;

const SQUARES: [&str; 9] = [
    "top left",
    "top middle",
    "top right",
    "middle left",
    "centre",
    "middle right",
    "bottom left",
    "bottom middle",
    "bottom right",
];

/// A square's size on the board, in terminal cells.
const SQUARE_WIDTH: usize = 7;
const SQUARE_ROWS: usize = 3;

const X_STYLE: Style = Style::new()
    .fg(Color::LightRed)
    .add_modifier(Modifier::BOLD);
const O_STYLE: Style = Style::new()
    .fg(Color::LightBlue)
    .add_modifier(Modifier::BOLD);
/// The move just played.
const LAST: Style = Style::new().bg(Color::Yellow);
/// The square a faulting answer named.
const REFUSED: Style = Style::new().bg(Color::Red);

/// The mark that moves in turn `turn` (from 1): X first.
fn mark_of(turn: usize) -> &'static str {
    if turn % 2 == 1 { "X" } else { "O" }
}

fn mark_style(mark: &str) -> Style {
    if mark == "X" { X_STYLE } else { O_STYLE }
}

/// Where the viewer is in a match, and what it knows of it.
pub struct Viewer {
    explained: MatchExplained,
    /// The game shown (an index into the match's games) and its moves shown.
    place: Place,
    playback: Playback,
    /// The square under the cursor (0–8, row by row from the top left).
    cursor: usize,
    /// The bot whose stderr is shown.
    bot: usize,
}

impl Viewer {
    /// The match in the log folder `folder`, shown at game `game` (numbered as `results.json`
    /// numbers them, from 1; default: the first) after `turn` moves (default: its end).
    pub fn open(folder: &Path, game: Option<u32>, turn: Option<usize>) -> anyhow::Result<Viewer> {
        let explained = explain(folder)?;
        let results = folder.join("results.json");
        let numbers: Vec<u32> = explained.games.iter().map(|g| g.record.game).collect();
        let (Some(first), Some(last)) = (numbers.first(), numbers.last()) else {
            bail!("{}: the match has no games", results.display());
        };
        let index = match game {
            None => 0,
            Some(game) => match numbers.iter().position(|&n| n == game) {
                Some(index) => index,
                None => bail!(
                    "{}: no game {game}: the match has games {first} to {last}",
                    results.display()
                ),
            },
        };
        let steps = steps(&explained);
        let step = match turn {
            Some(turn) if turn > steps[index] => bail!(
                "{}: game {} has moves 0 to {}",
                results.display(),
                numbers[index],
                steps[index]
            ),
            Some(turn) => turn,
            None => steps[index],
        };
        // The first bot with a fault: its stderr is the one worth reading.
        let faulty = explained
            .faults
            .first()
            .and_then(|f| explained.bots.iter().position(|b| *b == f.bot));
        Ok(Viewer {
            place: Place { part: index, step },
            playback: Playback::new(MOVE_MS),
            cursor: 4,
            bot: faulty.unwrap_or(0),
            explained,
        })
    }

    fn game(&self) -> &GameExplained {
        &self.explained.games[self.place.part]
    }

    fn title(&self) -> String {
        format!(
            "Noughts & crosses: {}, {} game(s)",
            self.explained.bots.join(" against "),
            self.explained.games.len()
        )
    }

    fn step_title(&self) -> String {
        let game = &self.game().record;
        format!(
            "Game {} of {}, move {} of {}",
            game.game,
            self.explained.games.len(),
            self.place.step,
            game.steps()
        )
    }

    /// The square the answer of move `turn` named, if it names one (0–8) and was refused: it
    /// is outlined on the board.
    fn refused(&self, turn: usize) -> Option<usize> {
        let game = self.game();
        if turn <= game.record.moves.len() {
            return None;
        }
        let answer = game.answers.get(turn.checked_sub(1)?)?.as_ref()?;
        answer
            .answer
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|&s| s < 9)
    }

    /// The board after the moves shown: each square its mark (or, free, nothing), its number in
    /// its corner; the last move and a refused square coloured.
    fn board(&self, cursor: bool) -> Vec<Line<'static>> {
        let game = &self.game().record;
        let step = self.place.step;
        let shown = &game.moves[..step.min(game.moves.len())];
        let refused = self.refused(step);
        let mut lines = Vec::new();
        for row in 0..3 {
            if row > 0 {
                let rule = vec!["─".repeat(SQUARE_WIDTH); 3].join("┼");
                lines.push(Line::styled(rule, DIM));
            }
            for line in 0..SQUARE_ROWS {
                let mut spans = Vec::new();
                for column in 0..3 {
                    if column > 0 {
                        spans.push(Span::styled("│", DIM));
                    }
                    let square = 3 * row + column;
                    let at = shown.iter().position(|&s| s == square);
                    let mut style = match at {
                        Some(at) if at + 1 == step => LAST,
                        _ if refused == Some(square) => REFUSED,
                        _ => Style::new(),
                    };
                    if cursor && square == self.cursor {
                        style = style.add_modifier(Modifier::REVERSED);
                    }
                    let text = match (line, at) {
                        (0, _) => {
                            Span::styled(format!("{square:<SQUARE_WIDTH$}"), style.patch(DIM))
                        }
                        (1, Some(at)) => {
                            let mark = mark_of(at + 1);
                            Span::styled(
                                format!("{mark:^SQUARE_WIDTH$}"),
                                style.patch(mark_style(mark)),
                            )
                        }
                        _ => Span::styled(" ".repeat(SQUARE_WIDTH), style),
                    };
                    spans.push(text);
                }
                lines.push(Line::from(spans));
            }
        }
        lines
    }

    /// The move shown: who answered what, in how many ms, and the fault it caused.
    fn describe(&self) -> Line<'static> {
        let game = self.game();
        let record = &game.record;
        let turn = self.place.step;
        if turn == 0 {
            return Line::raw(format!(
                "Game {}: X {}, O {}; no move yet",
                record.game, record.x, record.o
            ));
        }
        let mark = mark_of(turn);
        let mut spans = vec![
            Span::raw(format!("Move {turn}: ")),
            Span::styled(mark, mark_style(mark)),
            Span::raw(format!(" {} ", record.mover(turn))),
        ];
        match game.answers.get(turn - 1).and_then(Option::as_ref) {
            None if turn <= record.moves.len() => spans.push(Span::raw(format!(
                "took {} (no transcript: koth's own player, or none kept)",
                SQUARES[record.moves[turn - 1]]
            ))),
            None => spans.push(Span::raw("answered nothing recorded")),
            Some(answer) if answer.fault => spans.push(Span::styled(answer.answer.clone(), FAULT)),
            Some(answer) => spans.push(Span::raw(format!(
                "answered {:?} in {} ms",
                answer.answer,
                answer.ms.map_or("?".into(), |ms| ms.to_string())
            ))),
        }
        if let Some(fault) = self.explained.fault_at(record.game, turn) {
            spans.push(Span::raw(" — "));
            spans.push(Span::styled(
                format!("{}: {}", fault.kind.as_str(), fault.reason),
                FAULT,
            ));
        } else if let Some(why) = record.fault.as_ref().filter(|_| turn > record.moves.len()) {
            spans.push(Span::raw(" — "));
            spans.push(Span::styled(why.clone(), FAULT));
        }
        Line::from(spans)
    }

    /// At the game's end, who won and how.
    fn result(&self) -> Option<Line<'static>> {
        let record = &self.game().record;
        if self.place.step < record.steps() {
            return None;
        }
        let winner = match record.winner.as_str() {
            "X" => format!("X {} wins", record.x),
            "O" => format!("O {} wins", record.o),
            _ => "a draw".to_string(),
        };
        let mut spans = vec![Span::styled(winner, BOLD)];
        if let Some(why) = &record.fault {
            spans.push(Span::raw(" (lost by fault: "));
            spans.push(Span::styled(why.clone(), FAULT));
            spans.push(Span::raw(")"));
        }
        Some(Line::from(spans))
    }

    /// The game's answers, move by move: mark, bot, ms, what it answered and the fault it
    /// caused; the move shown highlighted.
    fn answers(&self) -> Panel {
        let game = self.game();
        let record = &game.record;
        let width = [&record.x, &record.o]
            .iter()
            .map(|n| n.chars().count())
            .max()
            .unwrap_or(0)
            .min(24);
        let mut lines = vec![Line::styled(
            format!("move mark {:<width$} {:>5}  answered", "bot", "ms"),
            BOLD,
        )];
        for turn in 1..=record.steps() {
            let answer = game.answers.get(turn - 1).and_then(Option::as_ref);
            let mark = mark_of(turn);
            let ms = answer
                .and_then(|a| a.ms)
                .map_or(String::new(), |ms| ms.to_string());
            let bot: String = record.mover(turn).chars().take(width).collect();
            let mut spans = vec![
                Span::raw(format!("{turn:>4} ")),
                Span::styled(format!("{mark:^4}"), mark_style(mark)),
                Span::raw(format!(" {bot:<width$} {ms:>5}  ")),
            ];
            match answer {
                Some(a) if a.fault => spans.push(Span::styled(a.answer.clone(), FAULT)),
                Some(a) => spans.push(Span::raw(a.answer.clone())),
                None => spans.push(Span::raw(
                    record
                        .moves
                        .get(turn - 1)
                        .map_or(String::new(), |s| s.to_string()),
                )),
            }
            if let Some(fault) = self.explained.fault_at(record.game, turn) {
                spans.push(Span::styled(format!(" {}", fault.kind.as_str()), FAULT));
            }
            let line = Line::from(spans);
            lines.push(if turn == self.place.step {
                line.style(NOW)
            } else {
                line
            });
        }
        Panel::new(format!("answers in game {}", record.game), lines)
    }

    /// Every fault kept, with its game and move; the one of the step shown highlighted.
    fn faults(&self) -> Panel {
        let game = self.game().record.game;
        let lines = self
            .explained
            .faults
            .iter()
            .map(|f| {
                let at = [
                    f.round.map(|r| format!("game {r}")),
                    f.turn.map(|t| format!("move {t}")),
                ]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" ");
                let now = f.round == Some(game) && f.turn == Some(self.place.step as u32);
                tui::fault_line(&at, &f.bot, f.kind.as_str(), &f.reason, now)
            })
            .collect();
        Panel::new(
            format!("faults ({})", self.explained.faults.len()),
            tui::or_none(lines),
        )
    }

    /// Who took the square under the cursor up to the move shown, and a refused answer that
    /// named it.
    fn square(&self) -> Panel {
        let record = &self.game().record;
        let square = self.cursor;
        let mut events: Vec<Span> = Vec::new();
        for (index, &taken) in record.moves.iter().take(self.place.step).enumerate() {
            if taken == square {
                let mark = mark_of(index + 1);
                events.push(Span::raw(format!(
                    "taken at move {} by {mark} {}",
                    index + 1,
                    record.mover(index + 1)
                )));
            }
        }
        if self.refused(self.place.step) == Some(square) {
            events.push(Span::styled(
                format!(
                    "asked for at move {} by {}, and refused",
                    self.place.step,
                    record.mover(self.place.step)
                ),
                FAULT,
            ));
        }
        if events.is_empty() {
            events.push(Span::raw("free"));
        }
        let mut spans = Vec::new();
        for (index, event) in events.into_iter().enumerate() {
            if index > 0 {
                spans.push(Span::raw("; "));
            }
            spans.push(event);
        }
        Panel::new(
            format!("square {square} ({})", SQUARES[square]),
            vec![Line::from(spans)],
        )
    }

    fn legend(&self) -> Vec<Span<'static>> {
        let mut spans = Vec::new();
        spans.extend(tui::legend_entry("X", X_STYLE, "moves first,"));
        spans.extend(tui::legend_entry("O", O_STYLE, "second"));
        spans.extend(tui::legend_entry("   ", LAST, "the move just played"));
        spans.extend(tui::legend_entry(
            "   ",
            REFUSED,
            "the square a faulting answer named",
        ));
        spans.extend(tui::legend_entry(
            "0",
            DIM,
            "a square's number, as bots may answer it (0–8; or two letters, see docs/games/menace.md)",
        ));
        spans.push(Span::raw(
            "Times are from each bot's transcript, prompt to answer.",
        ));
        spans
    }

    fn stderr_of(&self, bot: usize) -> (&str, &str) {
        (
            self.explained.bots.get(bot).map_or("", String::as_str),
            self.explained.stderr.get(bot).map_or("", String::as_str),
        )
    }
}

/// Each game's steps: its moves, and the refused answer of a game lost by a fault.
fn steps(explained: &MatchExplained) -> Vec<usize> {
    explained.games.iter().map(|g| g.record.steps()).collect()
}

impl View for Viewer {
    fn draw(&mut self, screen: &mut Screen) {
        let [left, side] = tui::board_screen(screen, self.legend(), 3, &KEYS, self.title());
        let board = self.board(true);
        let square = self.square();
        let result = self.result().map(|line| Panel::new("result", vec![line]));
        let [board_area, result_area, square_area] = Layout::vertical([
            Constraint::Length(board.len() as u16 + 2),
            Constraint::Length(result.as_ref().map_or(0, |r| r.height(left.width))),
            Constraint::Length(square.height(left.width)),
        ])
        .areas(left);
        let title = format!(" {} · {} ", self.step_title(), self.playback.label());
        // As wide as the board and its title, no wider.
        let width = (3 * SQUARE_WIDTH + 4).max(title.chars().count() + 2) as u16;
        let board_area = Rect {
            width: width.min(board_area.width),
            ..board_area
        };
        screen.render_widget(
            Paragraph::new(board).block(Block::bordered().title(title)),
            board_area,
        );
        if let Some(result) = result {
            screen.render_widget(result.widget(), result_area);
        }
        screen.render_widget(square.widget(), square_area);
        let panels = [
            Panel::new("answer", vec![self.describe()]),
            self.answers(),
            self.faults(),
        ];
        let height: u16 = panels.iter().map(|p| p.height(side.width)).sum();
        let [above, below] =
            Layout::vertical([Constraint::Length(height), Constraint::Min(3)]).areas(side);
        tui::draw_panels(screen, above, &panels);
        let (name, text) = self.stderr_of(self.bot);
        let rows = below.height.saturating_sub(2);
        let others = self.explained.bots.len() > 1;
        screen.render_widget(tui::stderr_panel(name, text, rows, others), below);
    }

    fn key(&mut self, code: KeyCode) -> bool {
        if let Some((right, down)) = tui::cursor_step(code) {
            let row = tui::moved(self.cursor / 3, down, 3);
            let column = tui::moved(self.cursor % 3, right, 3);
            self.cursor = 3 * row + column;
            return true;
        }
        let bots = self.explained.bots.len().max(1);
        match code {
            KeyCode::Char('q') | KeyCode::Esc => return false,
            KeyCode::Tab => self.bot = (self.bot + 1) % bots,
            KeyCode::BackTab => self.bot = (self.bot + bots - 1) % bots,
            _ => {
                let _ = self.playback.key(code) || self.place.key(code, &steps(&self.explained));
            }
        }
        true
    }

    /// The next move, then the next game; playing stops at the match's end.
    fn tick(&mut self) {
        if !self.place.advance(&steps(&self.explained)) {
            self.playback.stop();
        }
    }

    fn playback(&self) -> &Playback {
        &self.playback
    }

    fn text(&self) -> String {
        let mut panels = vec![Panel::new("answer", vec![self.describe()])];
        if let Some(result) = self.result() {
            panels.push(Panel::new("result", vec![result]));
        }
        panels.push(self.answers());
        panels.push(self.faults());
        for bot in 0..self.explained.bots.len() {
            let (name, text) = self.stderr_of(bot);
            panels.push(tui::stderr_text(name, text));
        }
        let title = format!("{}\n{}", self.title(), self.step_title());
        tui::text(&title, &self.board(false), &panels)
    }
}
