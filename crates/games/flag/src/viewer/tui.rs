//! The terminal viewer of a flag game: each level's map and the bot's walk over it, move by
//! move, explained from the same data as the web page ([`FlagExplained`], walked by koth with
//! the game's rules): the answer with how long it took, what the move shown did, the walk with
//! that move marked, the level's result, the faults with their reasons, the bot's last stderr
//! lines, and what the tile under a cursor is and which moves stepped onto it.

use std::path::Path;

use anyhow::bail;
use koth_replay::tui::ratatui::Frame as Screen;
use koth_replay::tui::ratatui::crossterm::event::KeyCode;
use koth_replay::tui::ratatui::layout::{Constraint, Layout, Rect};
use koth_replay::tui::ratatui::style::{Color, Modifier, Style};
use koth_replay::tui::ratatui::text::{Line, Span};
use koth_replay::tui::ratatui::widgets::{Block, Paragraph};

use super::explain::{FlagExplained, LevelExplained, explain};
use koth_replay::tui::{
    self, BOLD, CURSOR_KEYS, DIM, FAULT, Keys, NOW, Panel, Place, Playback, View,
};

/// The viewer's own keys.
pub const KEYS: Keys = Keys {
    game: "A flag game",
    normal_speed: "a move each 0.4 s, level after level",
    keys: &[
        (
            CURSOR_KEYS,
            "cursor",
            "move the cursor: its tile's kind, steps left, and the moves that stepped onto it",
        ),
        (
            "n/p",
            "next/previous move",
            "the next / previous move of the walk",
        ),
        ("N/P PgDn/PgUp", "level", "the next / previous level"),
        (
            "Home/End",
            "level's start/end",
            "the walker on the start / the walk's end",
        ),
    ],
};

/// How many times the walk stepped onto a tile, written after it; `⁺` for ten or more.
const SUPERSCRIPTS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];

/// How long a move shows at 1×, as on the web page.
const MOVE_MS: u32 = 400;
/// A tile's width on the map, in terminal cells: the walker, the tile, the steps onto it.
const TILE_WIDTH: usize = 3;

const YELLOW: Style = Style::new().fg(Color::Black).bg(Color::LightYellow);
const DARK: Style = Style::new().fg(Color::Black).bg(Color::Yellow);
const GREY: Style = Style::new().fg(Color::Black).bg(Color::Gray);
const HOLE: Style = Style::new().fg(Color::DarkGray);
const WALKER: Style = Style::new().fg(Color::Red).add_modifier(Modifier::BOLD);

/// What a tile is now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tile {
    /// Falls after this many more steps (1 or 2).
    Standing(u8),
    Fallen,
    Hole,
    /// Never falls.
    Grey,
}

/// The steps each tile has left before any move: 1 yellow (also `S`), 2 dark yellow, 0 for a
/// hole, `None` for grey (also `s` and `F`): never.
fn initial(level: &LevelExplained) -> Vec<Option<u8>> {
    level
        .level
        .rows
        .iter()
        .flat_map(|row| row.chars())
        .map(|c| match c {
            '1' | 'S' => Some(1),
            '2' => Some(2),
            '.' => Some(0),
            _ => None,
        })
        .collect()
}

/// The tiles' steps left and where the walker stands after `step` moves, and how many times
/// the walk stepped onto each tile by then.
fn state(level: &LevelExplained, step: usize) -> (Vec<Option<u8>>, usize, Vec<u32>) {
    let mut left = initial(level);
    let mut visits = vec![0; left.len()];
    let mut at = level.level.start;
    for walked in level.walk.iter().take(step) {
        at = walked.to;
        if let Some(tile) = left.get_mut(at) {
            *tile = walked.left;
        }
        if walked.moved
            && let Some(n) = visits.get_mut(at)
        {
            *n += 1;
        }
    }
    (left, at, visits)
}

/// Where viewer is in a flag game, and what it knows of it.
pub struct Viewer {
    explained: FlagExplained,
    /// The level shown (an index) and its moves shown.
    place: Place,
    playback: Playback,
    /// The tile under the cursor: (column, row).
    cursor: (usize, usize),
}

impl Viewer {
    /// The flag game in the log folder `folder`, shown at level `level` (from 1, as its faults
    /// number it; default: the first) after `turn` moves (default: the walk's end).
    pub fn open(folder: &Path, level: Option<u32>, turn: Option<usize>) -> anyhow::Result<Viewer> {
        let explained = explain(folder)?;
        let results = folder.join("results.json");
        let levels = explained.levels.len();
        if levels == 0 {
            bail!("{}: the game has no levels", results.display());
        }
        let index = match level {
            None => 0,
            Some(level) if (1..=levels).contains(&(level as usize)) => level as usize - 1,
            Some(level) => bail!(
                "{}: no level {level}: the game has levels 1 to {levels}",
                results.display()
            ),
        };
        let moves = explained.levels[index].walk.len();
        let step = match turn {
            Some(turn) if turn > moves => bail!(
                "{}: level {} has moves 0 to {moves}",
                results.display(),
                index + 1
            ),
            Some(turn) => turn,
            None => moves,
        };
        Ok(Viewer {
            place: Place { part: index, step },
            playback: Playback::new(MOVE_MS),
            cursor: (0, 0),
            explained,
        })
    }

    fn level(&self) -> &LevelExplained {
        &self.explained.levels[self.place.part]
    }

    fn steps(&self) -> Vec<usize> {
        self.explained.levels.iter().map(|l| l.walk.len()).collect()
    }

    /// The level's width and height, in tiles.
    fn size(&self) -> (usize, usize) {
        let level = &self.level().level;
        (level.width.max(1), level.rows.len())
    }

    fn tile_name(&self, at: usize) -> String {
        let width = self.size().0;
        format!("(row {}, column {})", at / width + 1, at % width + 1)
    }

    fn title(&self) -> String {
        let solved = self.explained.levels.iter().filter(|l| l.solved).count();
        format!(
            "Reach the flag: {}, {solved} of {} level(s) solved",
            self.explained.bot,
            self.explained.levels.len()
        )
    }

    fn step_title(&self) -> String {
        format!(
            "Level {} of {}, move {} of {}",
            self.place.part + 1,
            self.explained.levels.len(),
            self.place.step,
            self.level().walk.len()
        )
    }

    /// What tile `at` is after the moves shown, given its steps left then and before any move.
    fn tile(first: Option<u8>, left: Option<u8>) -> Tile {
        match (first, left) {
            (None, _) => Tile::Grey,
            (Some(0), _) => Tile::Hole,
            (_, Some(0)) => Tile::Fallen,
            (_, Some(n)) => Tile::Standing(n),
            (_, None) => Tile::Grey,
        }
    }

    /// The map after the moves shown, a line per row, each tile [`TILE_WIDTH`] cells: the
    /// walker (`@`), the tile (its steps left, or the level file's letter), and how many times
    /// the walk stepped onto it so far.
    fn map(&self, cursor: bool) -> Vec<Line<'static>> {
        let level = self.level();
        let (width, height) = self.size();
        let first = initial(level);
        let (left, walker, visits) = state(level, self.place.step);
        (0..height)
            .map(|row| {
                let spans: Vec<Span> = (0..width)
                    .flat_map(|column| {
                        let at = row * width + column;
                        let tile = Self::tile(
                            first.get(at).copied().flatten(),
                            left.get(at).copied().flatten(),
                        );
                        let (mark, mut style) = match tile {
                            Tile::Grey if at == level.level.flag => ('F', GREY),
                            Tile::Grey if at == level.level.start => ('s', GREY),
                            Tile::Grey => ('#', GREY),
                            Tile::Hole => ('.', HOLE),
                            Tile::Fallen => ('×', HOLE),
                            Tile::Standing(1) if at == level.level.start => ('S', YELLOW),
                            Tile::Standing(2) => ('2', DARK),
                            Tile::Standing(n) => {
                                (char::from_digit(n.into(), 10).unwrap_or('?'), YELLOW)
                            }
                        };
                        if cursor && (column, row) == self.cursor {
                            style = style.add_modifier(Modifier::REVERSED);
                        }
                        let count = match visits.get(at).copied().unwrap_or(0) {
                            0 => ' ',
                            n => SUPERSCRIPTS.get(n as usize).copied().unwrap_or('⁺'),
                        };
                        let walker = if at == walker { "@" } else { " " };
                        [
                            Span::styled(walker, style.patch(WALKER)),
                            Span::styled(format!("{mark}{count}"), style),
                        ]
                    })
                    .collect();
                Line::from(spans)
            })
            .collect()
    }

    /// The level, the answer's length and time, and its fault.
    fn answer(&self) -> Line<'static> {
        let level = self.level();
        let mut spans = vec![Span::raw(format!(
            "Level {}, {} (flag value {}): ",
            self.place.part + 1,
            level.name,
            level.level.flag_value
        ))];
        match &level.answer {
            None => spans.push(Span::raw("no answer recorded")),
            Some(answer) if answer.fault => spans.push(Span::styled(answer.answer.clone(), FAULT)),
            Some(answer) => spans.push(Span::raw(format!(
                "the bot answered {} character(s) in {} ms",
                answer.answer.chars().count(),
                answer.ms.map_or("?".into(), |ms| ms.to_string())
            ))),
        }
        if let Some(fault) = self.explained.fault_of(self.place.part) {
            spans.push(Span::raw(" — "));
            spans.push(Span::styled(
                format!("{}: {}", fault.kind.as_str(), fault.reason),
                FAULT,
            ));
        }
        Line::from(spans)
    }

    /// What the move shown did.
    fn step(&self) -> Line<'static> {
        let step = self.place.step;
        let Some(done) = step.checked_sub(1).and_then(|i| self.level().walk.get(i)) else {
            return Line::raw("The walker stands on the start.");
        };
        let direction = match done.letter {
            'U' => "up",
            'D' => "down",
            'L' => "left",
            _ => "right",
        };
        let what = if !done.moved {
            "blocked (a fallen tile, a hole or the edge): nothing happens".to_string()
        } else {
            let left = match done.left {
                None => String::new(),
                Some(0) => ", which falls".into(),
                Some(n) => format!(", {n} step(s) left"),
            };
            format!("stepped onto {}{left}", self.tile_name(done.to))
        };
        Line::raw(format!("Move {step}: {direction} — {what}"))
    }

    /// The answer's moves, the one shown marked, those never read (after the walk was over)
    /// dimmed.
    fn walk(&self) -> Line<'static> {
        let level = self.level();
        if level.moves.is_empty() {
            let fault = self.explained.fault_of(self.place.part).is_some();
            return Line::raw(if fault {
                "(empty: a level with a fault scores as the empty walk)"
            } else {
                "(empty)"
            });
        }
        let walked = level.walk.len();
        let now = self.place.step.checked_sub(1);
        let letters: Vec<char> = level.moves.chars().collect();
        let mut spans = vec![Span::raw(
            letters[..now.unwrap_or(0)].iter().collect::<String>(),
        )];
        if let Some(now) = now {
            spans.push(Span::styled(format!("[{}]", letters[now]), NOW));
        }
        let next = now.map_or(0, |n| n + 1);
        spans.push(Span::raw(
            letters[next..walked.max(next)].iter().collect::<String>(),
        ));
        spans.push(Span::styled(
            letters[walked.max(next)..].iter().collect::<String>(),
            DIM,
        ));
        Line::from(spans)
    }

    /// At the walk's end, the level's result.
    fn result(&self) -> Option<Line<'static>> {
        let level = self.level();
        if self.place.step < level.walk.len() {
            return None;
        }
        let solved = if level.solved { "Solved" } else { "Not solved" };
        let mut spans = vec![Span::styled(
            format!("{solved}, fitness {}", level.fitness),
            BOLD,
        )];
        if level.moves.chars().count() > level.walk.len() {
            spans.push(Span::raw(format!(
                " (the moves after move {} were not read: the walk was over)",
                level.walk.len()
            )));
        }
        Some(Line::from(spans))
    }

    /// Every fault kept, with its level; the shown level's highlighted.
    fn faults(&self) -> Panel {
        let lines = self
            .explained
            .faults
            .iter()
            .map(|f| {
                // A level is a round, counted from 1; a fault after the last level has none.
                let index = f.round.and_then(|r| (r as usize).checked_sub(1));
                let level = index.and_then(|i| Some((i, self.explained.levels.get(i)?)));
                let at = level.map_or(String::new(), |(i, l)| {
                    format!("level {} ({})", i + 1, l.name)
                });
                let now = index == Some(self.place.part);
                tui::fault_line(&at, "", f.kind.as_str(), &f.reason, now)
            })
            .collect();
        Panel::new(
            format!("faults ({})", self.explained.faults.len()),
            tui::or_none(lines),
        )
    }

    /// The tile under the cursor: its kind, its steps left now, and the moves onto it so far.
    fn tile_panel(&self) -> Panel {
        let level = self.level();
        let (width, _) = self.size();
        let at = self.cursor.1 * width + self.cursor.0;
        let first = initial(level).get(at).copied().flatten();
        let (left, _, _) = state(level, self.place.step);
        let mut text = match first {
            None => "grey, never falls",
            Some(0) => "a hole",
            Some(2) => "dark yellow, falls after 2 steps",
            Some(_) => "yellow, falls after 1 step",
        }
        .to_string();
        if at == level.level.start {
            text += ", the start";
        }
        if at == level.level.flag {
            text += ", the flag";
        }
        if first.is_some_and(|n| n > 0) {
            text += &match left.get(at).copied().flatten() {
                Some(0) => "; fallen".to_string(),
                Some(n) => format!("; {n} step(s) left"),
                None => String::new(),
            };
        }
        let onto: Vec<String> = level
            .walk
            .iter()
            .take(self.place.step)
            .enumerate()
            .filter(|(_, w)| w.moved && w.to == at)
            .map(|(i, _)| (i + 1).to_string())
            .collect();
        text += &if onto.is_empty() {
            "; not stepped onto yet".to_string()
        } else {
            format!("; stepped onto at move {}", onto.join(", "))
        };
        Panel::new(
            format!("tile {}", self.tile_name(at)),
            vec![Line::raw(text)],
        )
    }

    fn legend(&self) -> Vec<Span<'static>> {
        let mut spans = Vec::new();
        spans.extend(tui::legend_entry(
            "1",
            YELLOW,
            "yellow (falls after 1 step)",
        ));
        spans.extend(tui::legend_entry(
            "2",
            DARK,
            "dark yellow (2 steps; the digit is the steps left)",
        ));
        spans.extend(tui::legend_entry("#", GREY, "grey (never falls)"));
        spans.extend(tui::legend_entry(".", HOLE, "a hole"));
        spans.extend(tui::legend_entry("×", HOLE, "a fallen tile"));
        spans.extend(tui::legend_entry("F", GREY, "the flag"));
        spans.extend(tui::legend_entry("S s", YELLOW, "the start (yellow, grey)"));
        spans.extend(tui::legend_entry("@", WALKER, "the walker;"));
        spans.push(Span::raw(
            "¹ ² … after a tile: the steps onto it so far. Solved: every yellow tile \
             fallen, the walker on the flag. The answer's time is from the bot's transcript, \
             prompt to answer.",
        ));
        spans
    }

    fn panels(&self) -> Vec<Panel> {
        let mut panels = vec![
            Panel::new("answer", vec![self.answer()]),
            Panel::new("move", vec![self.step()]),
            Panel::new("the walk", vec![self.walk()]),
        ];
        if let Some(result) = self.result() {
            panels.push(Panel::new("result", vec![result]));
        }
        panels.push(self.faults());
        panels
    }
}

impl View for Viewer {
    fn draw(&mut self, screen: &mut Screen) {
        let [left, side] = tui::board_screen(screen, self.legend(), 3, &KEYS, self.title());
        let map = self.map(true);
        let tile = self.tile_panel();
        let [map_area, tile_area] = Layout::vertical([
            Constraint::Length(map.len() as u16 + 2),
            Constraint::Length(tile.height(left.width)),
        ])
        .areas(left);
        let title = format!(" {} · {} ", self.step_title(), self.playback.label());
        // As wide as the map and its title, no wider.
        let width = (self.size().0 * TILE_WIDTH).max(title.chars().count()) + 2;
        let map_area = Rect {
            width: (width as u16).min(map_area.width),
            ..map_area
        };
        screen.render_widget(
            Paragraph::new(map).block(Block::bordered().title(title)),
            map_area,
        );
        screen.render_widget(tile.widget(), tile_area);
        let panels = self.panels();
        let height: u16 = panels.iter().map(|p| p.height(side.width)).sum();
        let [above, below] =
            Layout::vertical([Constraint::Length(height), Constraint::Min(3)]).areas(side);
        tui::draw_panels(screen, above, &panels);
        let rows = below.height.saturating_sub(2);
        let stderr = tui::stderr_panel(&self.explained.bot, &self.explained.stderr, rows, false);
        screen.render_widget(stderr, below);
    }

    fn key(&mut self, code: KeyCode) -> bool {
        if let Some((right, down)) = tui::cursor_step(code) {
            let (width, height) = self.size();
            self.cursor = (
                tui::moved(self.cursor.0, right, width),
                tui::moved(self.cursor.1, down, height),
            );
            return true;
        }
        match code {
            KeyCode::Char('q') | KeyCode::Esc => return false,
            _ => {
                let steps = self.steps();
                let part = self.place.part;
                let _ = self.playback.key(code) || self.place.key(code, &steps);
                if self.place.part != part {
                    self.keep_cursor_on_the_map();
                }
            }
        }
        true
    }

    /// The next move, then the next level; playing stops at the game's end.
    fn tick(&mut self) {
        let part = self.place.part;
        if !self.place.advance(&self.steps()) {
            self.playback.stop();
        }
        if self.place.part != part {
            self.keep_cursor_on_the_map();
        }
    }

    fn playback(&self) -> &Playback {
        &self.playback
    }

    fn text(&self) -> String {
        let mut panels = self.panels();
        panels.push(tui::stderr_text(
            &self.explained.bot,
            &self.explained.stderr,
        ));
        let title = format!("{}\n{}", self.title(), self.step_title());
        tui::text(&title, &self.map(false), &panels)
    }
}

impl Viewer {
    /// Another level may be smaller: the cursor stays on its map.
    fn keep_cursor_on_the_map(&mut self) {
        let (width, height) = self.size();
        self.cursor = (
            self.cursor.0.min(width - 1),
            self.cursor.1.min(height.saturating_sub(1)),
        );
    }
}
