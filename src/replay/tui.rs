//! The terminal viewer: steps and plays through rounds and turns, owners coloured.

use std::time::Duration;

use ratatui::Frame as Screen;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use super::{Frame, Game};
use crate::games::paths::rules::letter;

/// Where the viewer is and how it draws.
pub(crate) struct Viewer<'a> {
    game: &'a Game,
    frame: Frame,
    playing: bool,
    /// Terminal cells per vertex, horizontally.
    zoom: usize,
    scroll: (usize, usize),
}

const COLOURS: [Color; 8] = [
    Color::Red,
    Color::Green,
    Color::Yellow,
    Color::Blue,
    Color::Magenta,
    Color::Cyan,
    Color::LightRed,
    Color::LightGreen,
];

impl<'a> Viewer<'a> {
    pub(crate) fn new(game: &'a Game, frame: Frame) -> Viewer<'a> {
        Viewer {
            game,
            frame,
            playing: false,
            zoom: 2,
            scroll: (0, 0),
        }
    }

    /// Draws the grid and the scores panel.
    pub(crate) fn draw(&self, screen: &mut Screen) {
        let [grid_area, side_area] =
            Layout::horizontal([Constraint::Min(10), Constraint::Length(36)]).areas(screen.area());
        let bots = self.game.log.bots.len();
        let lines: Vec<Line> = self
            .frame
            .rows
            .iter()
            .skip(self.scroll.1)
            .map(|row| {
                Line::from(
                    row.chars()
                        .skip(self.scroll.0)
                        .map(|c| {
                            let cell = format!("{c:<width$}", width = self.zoom);
                            let owner = (0..bots).find(|&b| letter(b) == c);
                            match owner {
                                Some(b) => Span::styled(
                                    cell,
                                    Style::new().fg(Color::Black).bg(COLOURS[b % COLOURS.len()]),
                                ),
                                None => Span::raw(cell),
                            }
                        })
                        .collect::<Vec<_>>(),
                )
            })
            .collect();
        let turn = match self.frame.turn {
            Some(t) => format!("turn {t}/{}", self.game.turns_in(self.frame.round)),
            None => "end".to_string(),
        };
        let title = format!(
            " Round {}/{} {turn}{} ",
            self.frame.round,
            self.game.rounds(),
            if self.playing { " ▶" } else { "" }
        );
        screen.render_widget(
            Paragraph::new(lines).block(Block::bordered().title(title)),
            grid_area,
        );
        let mut scores: Vec<Line> = self
            .game
            .log
            .bots
            .iter()
            .enumerate()
            .map(|(b, name)| {
                let points = self
                    .frame
                    .points
                    .as_ref()
                    .map_or("-".to_string(), |p| p[b].to_string());
                Line::from(vec![
                    Span::styled(
                        format!(" {} ", letter(b)),
                        Style::new().fg(Color::Black).bg(COLOURS[b % COLOURS.len()]),
                    ),
                    Span::raw(format!(" {name}: {points} / {}", self.frame.totals[b])),
                ])
            })
            .collect();
        scores.push(Line::raw(""));
        scores.push(Line::raw("←/→ turn  ↑/↓ round  space play"));
        scores.push(Line::raw("+/- zoom  hjkl scroll  q quit"));
        screen.render_widget(
            Paragraph::new(scores).block(Block::bordered().title(" points / total ")),
            side_area,
        );
    }

    /// Moves to another turn of the round (clamped); `None` stays at the round's end.
    fn step_turn(&mut self, forward: bool) {
        let available = self.game.turns_in(self.frame.round);
        if available == 0 {
            return;
        }
        let now = self.frame.turn.unwrap_or(available);
        let next = if forward {
            (now + 1).min(available)
        } else {
            now.saturating_sub(1)
        };
        self.show(self.frame.round, Some(next));
    }

    fn step_round(&mut self, forward: bool) {
        let round = if forward {
            (self.frame.round + 1).min(self.game.rounds().saturating_sub(1))
        } else {
            self.frame.round.saturating_sub(1)
        };
        let turn = self
            .frame
            .turn
            .map(|_| 0)
            .filter(|_| round != self.frame.round);
        self.show(round, turn.or(self.frame.turn));
    }

    fn show(&mut self, round: u32, turn: Option<usize>) {
        if let Ok(frame) = self.game.frame(round, turn) {
            self.frame = frame;
        }
    }

    /// Playing advances one turn, then to the next round's start; it stops at the game's end.
    fn tick(&mut self) {
        let available = self.game.turns_in(self.frame.round);
        match self.frame.turn {
            Some(t) if t < available => self.step_turn(true),
            _ if self.frame.round + 1 < self.game.rounds() => {
                let turn = (available > 0).then_some(0);
                self.show(self.frame.round + 1, turn);
            }
            _ => self.playing = false,
        }
    }

    /// Applies one key; returns false to quit.
    pub(crate) fn key(&mut self, code: KeyCode, modifiers: KeyModifiers) -> bool {
        let shift = modifiers.contains(KeyModifiers::SHIFT);
        match code {
            KeyCode::Char('q') | KeyCode::Esc => return false,
            KeyCode::Left if shift => self.scroll.0 = self.scroll.0.saturating_sub(1),
            KeyCode::Right if shift => self.scroll.0 += 1,
            KeyCode::Up if shift => self.scroll.1 = self.scroll.1.saturating_sub(1),
            KeyCode::Down if shift => self.scroll.1 += 1,
            KeyCode::Char('h') => self.scroll.0 = self.scroll.0.saturating_sub(1),
            KeyCode::Char('l') => self.scroll.0 += 1,
            KeyCode::Char('k') => self.scroll.1 = self.scroll.1.saturating_sub(1),
            KeyCode::Char('j') => self.scroll.1 += 1,
            KeyCode::Left => self.step_turn(false),
            KeyCode::Right => self.step_turn(true),
            KeyCode::Up | KeyCode::PageUp => self.step_round(false),
            KeyCode::Down | KeyCode::PageDown => self.step_round(true),
            KeyCode::Char(' ') => self.playing = !self.playing,
            KeyCode::Char('+') => self.zoom = (self.zoom + 1).min(6),
            KeyCode::Char('-') => self.zoom = (self.zoom - 1).max(1),
            _ => {}
        }
        let side = self.frame.rows.len();
        self.scroll = (self.scroll.0.min(side), self.scroll.1.min(side));
        true
    }
}

/// Runs the viewer in the terminal until `q`.
pub(crate) fn run(game: &Game, frame: Frame) -> anyhow::Result<()> {
    let mut viewer = Viewer::new(game, frame);
    let mut terminal = ratatui::init();
    let outcome = (|| -> anyhow::Result<()> {
        loop {
            terminal.draw(|screen| viewer.draw(screen))?;
            if event::poll(Duration::from_millis(250))? {
                if let Event::Key(key) = event::read()?
                    && key.kind == KeyEventKind::Press
                    && !viewer.key(key.code, key.modifiers)
                {
                    return Ok(());
                }
            } else if viewer.playing {
                viewer.tick();
            }
        }
    })();
    ratatui::restore();
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::graphical;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    const LOG: &str = "Initializing bots.\nBots:\n  Random Builder (a)\n  Checkpoint (b)\n\
        Running 2 rounds.\n  Round 0\n  Finished, computing score.\n  ab.. \n  .b...\n  .ba..\n\
        \x20  a b.\n  .b...\n  Results: 3 29\n  Round 1\n  Finished, computing score.\n  aaaaa\n\
        \x20 .....\n  .....\n  .....\n  b....\n  Results: 40 7\nFinal results:\n  Random Builder: 43\n\
        \x20 Checkpoint: 36\n";

    fn rendered(viewer: &Viewer) -> Vec<String> {
        let mut terminal = Terminal::new(TestBackend::new(60, 10)).unwrap();
        terminal.draw(|screen| viewer.draw(screen)).unwrap();
        let buffer = terminal.backend().buffer();
        (0..buffer.area.height)
            .map(|y| {
                (0..buffer.area.width)
                    .map(|x| buffer[(x, y)].symbol())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn the_viewer_draws_the_grid_and_the_scores_and_steps_rounds() {
        let game = Game {
            log: graphical::parse(LOG).unwrap(),
            turns: None,
        };
        let mut viewer = Viewer::new(&game, game.frame(0, None).unwrap());
        let screen = rendered(&viewer);
        assert!(screen[0].contains("Round 0/2 end"), "{screen:#?}");
        // Zoom 2: each vertex is two cells wide.
        assert!(screen[1].starts_with("│a b . .   "), "{screen:#?}");
        assert!(screen[4].starts_with("│  a   b . "), "{screen:#?}");
        assert!(screen[1].contains("Random Builder: 3 / 3"), "{screen:#?}");
        assert!(screen[2].contains("Checkpoint: 29 / 29"), "{screen:#?}");

        assert!(viewer.key(KeyCode::Down, KeyModifiers::NONE));
        assert!(viewer.key(KeyCode::Char('-'), KeyModifiers::NONE));
        let screen = rendered(&viewer);
        assert!(screen[0].contains("Round 1/2 end"), "{screen:#?}");
        assert!(screen[1].starts_with("│aaaaa"), "{screen:#?}");
        assert!(screen[1].contains("Random Builder: 40 / 43"), "{screen:#?}");
        assert!(screen[2].contains("Checkpoint: 7 / 36"), "{screen:#?}");
        assert!(!viewer.key(KeyCode::Char('q'), KeyModifiers::NONE));
    }
}
