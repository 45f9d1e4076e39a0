//! The terminal viewer of a recorded rat-race board: the track with the specimens on it, frame
//! by frame, explained from the same data as the web page (the recording and
//! [`BoardExplained`]): the player's answer to the turn shown with how long it took, the times
//! of the turns between two frames, the slowest answer so far, the fault that ended the board
//! with its reason, the bot's last stderr lines, points and population over the turns, and what
//! the cell under a cursor is and how many specimens stood on it.

use std::path::Path;

use anyhow::bail;
use koth_replay::tui::ratatui::Frame as Screen;
use koth_replay::tui::ratatui::crossterm::event::KeyCode;
use koth_replay::tui::ratatui::layout::{Constraint, Layout};
use koth_replay::tui::ratatui::style::{Color, Modifier, Style};
use koth_replay::tui::ratatui::symbols::Marker;
use koth_replay::tui::ratatui::text::{Line, Span};
use koth_replay::tui::ratatui::widgets::{Axis, Block, Chart, Dataset, GraphType, Paragraph};

use super::explain::{BoardExplained, explain};
use crate::recording::shown_board;
use crate::recording::{BoardRecording, Frame, LATER_EVERY};
use koth_replay::tui::{self, CURSOR_KEYS, DIM, FAULT, Keys, Panel, Place, Playback, View};

/// The viewer's own keys.
pub const KEYS: Keys = Keys {
    game: "A rat-race board",
    normal_speed: "a recorded frame each 0.1 s",
    keys: &[
        (
            CURSOR_KEYS,
            "cursor",
            "move the cursor: its cell's colour, what it does, and the specimens that stood on it",
        ),
        (
            "n/p",
            "next/previous frame",
            "the next / previous recorded frame",
        ),
        ("N/P PgDn/PgUp", "10 frames", "ten frames on / back"),
        (
            "Home/End",
            "first/last frame",
            "the board as placed / its last turn (where a fault ended it)",
        ),
    ],
};

/// How long a frame shows at 1×, as on the web page.
const FRAME_MS: u32 = 100;
/// How far N and P jump, in frames.
const JUMP: usize = 10;
/// The rows the chart of points and population takes, at most.
const CHART_ROWS: u16 = 10;

/// The chart's lines.
const POINTS: Color = Color::LightRed;
const POPULATION: Color = Color::LightBlue;

/// The specimens' mark: the number on the cell, `+` for ten or more.
const SPECIMENS: Style = Style::new()
    .fg(Color::White)
    .bg(Color::Red)
    .add_modifier(Modifier::BOLD);

/// Where the viewer is in a recorded board, and what it knows of it.
pub struct Viewer {
    recording: BoardRecording,
    /// What the run's folder tells; `None` for a recording with no run's results beside it.
    explained: Option<BoardExplained>,
    /// The frame shown (part 0 is the board).
    place: Place,
    playback: Playback,
    /// The cell under the cursor, `(x, y)` with y = 0 the top row, as recorded.
    cursor: (usize, usize),
    /// Per cell: deadly, a start cell.
    deadly: Vec<bool>,
    starts: Vec<bool>,
    /// Points and population per frame, as (turn, log10) for the chart.
    points: Vec<(f64, f64)>,
    population: Vec<(f64, f64)>,
}

impl Viewer {
    /// The board recorded in the file at `path`, explained from the run's folder around it,
    /// shown at the last recorded frame at or before turn `turn` (default: its last).
    pub fn open(path: &Path, turn: Option<u32>) -> anyhow::Result<Viewer> {
        let recording = BoardRecording::read(path)?;
        let explained = explain(&koth_replay::log_folder(path), recording.board)?;
        let Some(last) = recording.frames.last().map(|f| f.turn) else {
            bail!("{}: no frame recorded", path.display());
        };
        let frame = match turn {
            None => recording.frames.len() - 1,
            Some(turn) => match recording.frames.iter().rposition(|f| f.turn <= turn) {
                Some(frame) if turn <= last => frame,
                _ => bail!(
                    "{}: board {} has turns {} to {last}",
                    path.display(),
                    shown_board(recording.board),
                    recording.frames[0].turn
                ),
            },
        };
        let cells = recording.colours.len() * recording.width as usize;
        let mut deadly = vec![false; cells];
        let mut starts = vec![false; cells];
        // On the board: the recording's reader checked them.
        for &cell in &recording.deadly {
            deadly[cell as usize] = true;
        }
        for &cell in &recording.starts {
            starts[cell as usize] = true;
        }
        let over = |what: fn(&Frame) -> f64| -> Vec<(f64, f64)> {
            recording
                .frames
                .iter()
                .map(|f| (f64::from(f.turn), what(f).max(1.0).log10()))
                .collect()
        };
        let points = over(|f| f.points as f64);
        let population = over(|f| f.population as f64);
        Ok(Viewer {
            place: Place {
                part: 0,
                step: frame,
            },
            playback: Playback::new(FRAME_MS),
            cursor: (0, 0),
            deadly,
            starts,
            points,
            population,
            recording,
            explained,
        })
    }

    fn steps(&self) -> [usize; 1] {
        [self.recording.frames.len() - 1]
    }

    fn frame(&self) -> &Frame {
        &self.recording.frames[self.place.step]
    }

    fn width(&self) -> usize {
        self.recording.width as usize
    }

    fn height(&self) -> usize {
        self.recording.colours.len()
    }

    /// The colour (0–15) of cell (x, y), and what it does.
    fn colour(&self, x: usize, y: usize) -> (usize, &str) {
        let colour = self.recording.colours[y]
            .chars()
            .nth(x)
            .and_then(|c| c.to_digit(16))
            .unwrap_or(0) as usize;
        let kind = self.recording.kinds.get(colour).map_or("", String::as_str);
        (colour, kind)
    }

    /// How many specimens stand on each cell in `frame`.
    fn counts(&self, frame: &Frame) -> Vec<u32> {
        let mut counts = vec![0u32; self.deadly.len()];
        for pair in frame.cells.chunks_exact(2) {
            if let Some(count) = counts.get_mut(pair[0] as usize) {
                *count = count.saturating_add(pair[1]);
            }
        }
        counts
    }

    fn title(&self) -> String {
        format!(
            "Board {} (seed {}), player {}",
            shown_board(self.recording.board),
            self.recording.seed,
            self.recording.player
        )
    }

    fn step_title(&self) -> String {
        let frame = self.frame();
        let last = self.recording.frames.last().map_or(0, |f| f.turn);
        format!(
            "Turn {} of {last}: population {}, points {}",
            frame.turn, frame.population, frame.points
        )
    }

    /// The track with the specimens, a line per row (y = 0 first), a cell per character: the
    /// number of specimens where there are some, else what the cell is (as `koth ratrace`'s
    /// track dump writes it).
    fn board(&self, cursor: bool) -> Vec<Line<'static>> {
        let counts = self.counts(self.frame());
        (0..self.height())
            .map(|y| {
                let spans: Vec<Span> = (0..self.width())
                    .map(|x| {
                        let cell = y * self.width() + x;
                        let (mark, style) = match counts[cell] {
                            0 => {
                                let mark = self.track_mark(x, y);
                                (mark, mark_style(mark))
                            }
                            n => (char::from_digit(n, 10).unwrap_or('+'), SPECIMENS),
                        };
                        let style = if cursor && (x, y) == self.cursor {
                            style.add_modifier(Modifier::REVERSED)
                        } else {
                            style
                        };
                        Span::styled(mark.to_string(), style)
                    })
                    .collect();
                Line::from(spans)
            })
            .collect()
    }

    /// What an empty cell is, as `koth ratrace`'s track dump marks it: a start cell, the goal,
    /// a wall, deadly (a trap's target), a teleporter, a trap, or empty.
    fn track_mark(&self, x: usize, y: usize) -> char {
        let cell = y * self.width() + x;
        let kind = self.colour(x, y).1.split(' ').next().unwrap_or("");
        if self.starts[cell] {
            'S'
        } else if x >= self.recording.goal_x as usize {
            if self.deadly[cell] { '!' } else { 'G' }
        } else if kind == "wall" {
            '#'
        } else if self.deadly[cell] {
            '!'
        } else if kind == "teleporter" {
            'T'
        } else if kind == "trap" {
            't'
        } else {
            '.'
        }
    }

    /// The cell under the cursor: its colour and what it does, and the specimens on it now and
    /// in the frames so far (a recording counts them per cell; it cannot say which ones).
    fn cell(&self) -> Panel {
        let (x, y) = self.cursor;
        let cell = y * self.width() + x;
        let (colour, kind) = self.colour(x, y);
        let mut what = vec![kind.to_string()];
        if self.deadly[cell] {
            what.push(
                if kind == "wall" {
                    "deadly to land on (by a teleporter)"
                } else {
                    "deadly: a trap's target"
                }
                .to_string(),
            );
        }
        if self.starts[cell] {
            what.push("a start cell".into());
        }
        if x >= self.recording.goal_x as usize {
            what.push("the goal".into());
        }
        let (mut now, mut total, mut first, mut occupied) = (0u64, 0u64, None, 0);
        for (index, frame) in self.recording.frames[..=self.place.step].iter().enumerate() {
            let on = frame
                .cells
                .chunks_exact(2)
                .filter(|pair| pair[0] as usize == cell)
                .map(|pair| u64::from(pair[1]))
                .sum::<u64>();
            if on > 0 {
                total += on;
                occupied += 1;
                first = first.or(Some(frame.turn));
                if index == self.place.step {
                    now = on;
                }
            }
        }
        let shown = self.place.step + 1;
        let history = match first {
            None => format!("none in the {shown} frame(s) so far."),
            Some(turn) => format!(
                "first reached in turn {turn}, occupied in {occupied} of the {shown} frame(s) so \
                 far, {total} specimen-frame(s) in all."
            ),
        };
        Panel::new(
            format!("cell ({x}, {y})"),
            vec![
                Line::raw(format!("colour {colour:x}: {}.", what.join(", "))),
                Line::raw(format!("{now} specimen(s) on it now; {history}")),
            ],
        )
    }

    /// The answer to the turn shown, how long it took, the fault if the board ended on it, the
    /// times of the turns between this frame and the one before, and the slowest answer so far.
    fn answer(&self) -> Panel {
        let turn = self.frame().turn;
        let Some(explained) = &self.explained else {
            return Panel::new(
                "answers",
                vec![Line::raw(
                    "No run's results beside this recording: no answers to show.",
                )],
            );
        };
        if !explained.bot {
            return Panel::new(
                "answers",
                vec![Line::raw(format!(
                    "{} is built into koth: it answers no prompts over a pipe.",
                    explained.player
                ))],
            );
        }
        let mut lines = vec![time_of_answer(explained, turn)];
        if let Some(answer) = explained.answer_at(turn) {
            lines.push(Line::raw(answer.answer.clone()));
        }
        lines.extend(self.times_between_frames(explained));
        lines.extend(slowest_answer(explained, turn));
        Panel::new(format!("answer in turn {turn}"), lines)
    }

    /// The answers' times of the turns between the frame shown and the one before, if any lie
    /// between. Past turn 100 frames are 10 turns apart (a damaged recording's frames may be
    /// any number of turns apart: none are listed then).
    fn times_between_frames(&self, explained: &BoardExplained) -> Option<Line<'static>> {
        let turn = self.frame().turn;
        let before = match self.place.step {
            0 => turn,
            step => self.recording.frames[step - 1].turn,
        };
        let between = if turn.saturating_sub(before) <= LATER_EVERY {
            before.saturating_add(1)..turn
        } else {
            turn..turn
        };
        let between: Vec<String> = between
            .map(|t| match explained.answer_at(t).and_then(|a| a.ms) {
                Some(ms) => ms.to_string(),
                None => "–".into(),
            })
            .collect();
        (!between.is_empty()).then(|| {
            Line::raw(format!(
                "Turns {} to {}, between the frames: {} ms",
                before + 1,
                turn - 1,
                between.join(", ")
            ))
        })
    }

    /// The fault that ended the board, highlighted at its turn.
    fn fault(&self) -> Panel {
        let line = self
            .explained
            .as_ref()
            .and_then(|e| e.fault.as_ref())
            .map(|fault| {
                let now = fault.turn == self.frame().turn;
                let at = format!("turn {}", fault.turn);
                tui::fault_line(&at, "", fault.kind.as_str(), &fault.reason, now)
            });
        Panel::new("fault", tui::or_none(line.into_iter().collect()))
    }

    /// The bot's stderr, when a bot played.
    fn stderr(&self) -> Option<(&str, &str)> {
        self.explained
            .as_ref()
            .filter(|e| e.bot)
            .map(|e| (e.player.as_str(), e.stderr.as_str()))
    }

    /// What the board's marks mean, and what each colour does.
    fn legend(&self) -> Vec<Span<'static>> {
        let mut spans = Vec::new();
        for (mark, style, means) in [
            ("3", SPECIMENS, "specimens on the cell (+: ten or more)"),
            ("S", mark_style('S'), "a start cell"),
            ("G", mark_style('G'), "the goal"),
            ("#", mark_style('#'), "wall"),
            ("!", mark_style('!'), "deadly (a trap's target)"),
            ("T", mark_style('T'), "teleporter"),
            ("t", mark_style('t'), "trap"),
            (".", mark_style('.'), "empty"),
        ] {
            spans.extend(tui::legend_entry(mark, style, means));
        }
        let colours: Vec<String> = self
            .recording
            .kinds
            .iter()
            .enumerate()
            .map(|(colour, kind)| format!("{colour:x} {kind}"))
            .collect();
        spans.push(Span::raw(format!("colours: {}.  ", colours.join(", "))));
        spans.push(Span::raw(
            "Frames: every turn up to 100, then every 10th, and the last.",
        ));
        spans
    }

    /// The highest point of the chart: the log10 of the most points or specimens.
    fn chart_top(&self) -> f64 {
        self.points
            .iter()
            .chain(&self.population)
            .map(|p| p.1)
            .fold(1.0, f64::max)
    }

    /// Points and population over the recorded turns, on a log scale, with `marker` (the turn
    /// shown, from the bottom to the top).
    fn chart<'a>(&'a self, marker: &'a [(f64, f64)]) -> Chart<'a> {
        let last = self.points.last().map_or(1.0, |p| p.0.max(1.0));
        let top = self.chart_top();
        let datasets = vec![
            Dataset::default()
                .graph_type(GraphType::Line)
                .style(Style::new().fg(Color::White))
                .data(marker),
            Dataset::default()
                .marker(Marker::Braille)
                .graph_type(GraphType::Line)
                .style(Style::new().fg(POINTS))
                .data(&self.points),
            Dataset::default()
                .marker(Marker::Braille)
                .graph_type(GraphType::Line)
                .style(Style::new().fg(POPULATION))
                .data(&self.population),
        ];
        let title = Line::from(vec![
            Span::raw(" "),
            Span::styled("points", Style::new().fg(POINTS)),
            Span::raw(" and "),
            Span::styled("population", Style::new().fg(POPULATION)),
            Span::raw(" (log scale) "),
        ]);
        Chart::new(datasets)
            .block(Block::bordered().title(title))
            .legend_position(None)
            .x_axis(
                Axis::default()
                    .bounds([0.0, last])
                    .labels(["0".to_string(), format!("turn {last}")]),
            )
            .y_axis(
                Axis::default()
                    .bounds([0.0, top])
                    .labels(["1".to_string(), format!("1e{top:.0}")]),
            )
    }
}

/// How long the answer to `turn` took (or why there is none), and the fault if the board ended
/// on it.
fn time_of_answer(explained: &BoardExplained, turn: u32) -> Line<'static> {
    let mut time = vec![match explained.answer_at(turn) {
        _ if turn == 0 => Span::raw("Turn 0 is the board as placed: nothing asked yet."),
        Some(answer) if answer.fault => Span::styled("a fault instead of an answer", FAULT),
        Some(answer) => Span::raw(answer.ms.map_or("? ms".into(), |ms| format!("{ms} ms"))),
        None => match explained.unrecorded_from {
            Some(from) if turn >= from => Span::raw(format!(
                "not recorded: the transcript reached its size limit before turn {from}"
            )),
            _ => Span::raw("no answer recorded"),
        },
    }];
    if let Some(fault) = explained.fault.as_ref().filter(|f| f.turn == turn) {
        time.push(Span::raw(" — "));
        time.push(Span::styled(
            format!("{}: {}", fault.kind.as_str(), fault.reason),
            FAULT,
        ));
    }
    Line::from(time)
}

/// The slowest answer up to `turn`, with its turn (the first of the slowest).
fn slowest_answer(explained: &BoardExplained, turn: u32) -> Option<Line<'static>> {
    let slowest = explained
        .answers
        .iter()
        .filter(|a| a.turn.is_some_and(|t| t <= turn))
        .filter_map(|a| Some((a.ms?, a.turn?)))
        .fold(None, |slowest: Option<(u64, u32)>, (ms, t)| match slowest {
            Some((most, _)) if most >= ms => slowest,
            _ => Some((ms, t)),
        });
    slowest.map(|(ms, t)| Line::raw(format!("Slowest answer up to here: {ms} ms, in turn {t}.")))
}

/// The style of an empty cell's mark ([`Viewer::track_mark`]).
fn mark_style(mark: char) -> Style {
    match mark {
        'S' => Style::new()
            .fg(Color::LightGreen)
            .add_modifier(Modifier::BOLD),
        'G' => Style::new().fg(Color::Black).bg(Color::Green),
        '#' => Style::new().fg(Color::Gray).bg(Color::DarkGray),
        '!' => Style::new()
            .fg(Color::LightRed)
            .add_modifier(Modifier::BOLD),
        'T' => Style::new().fg(Color::LightBlue),
        't' => Style::new().fg(Color::Yellow),
        _ => DIM,
    }
}

impl View for Viewer {
    fn draw(&mut self, screen: &mut Screen) {
        let [left, side] = tui::board_screen(screen, self.legend(), 4, &KEYS, self.title());
        let cell = self.cell();
        let [board, cell_area, chart] = Layout::vertical([
            Constraint::Length(self.height() as u16 + 2),
            Constraint::Length(cell.height(left.width)),
            Constraint::Max(CHART_ROWS),
        ])
        .areas(left);
        let title = format!(" {} · {} ", self.step_title(), self.playback.label());
        screen.render_widget(
            Paragraph::new(self.board(true)).block(Block::bordered().title(title)),
            board,
        );
        screen.render_widget(cell.widget(), cell_area);
        let turn = f64::from(self.frame().turn);
        let marker = [(turn, 0.0), (turn, self.chart_top())];
        screen.render_widget(self.chart(&marker), chart);
        let panels = [self.answer(), self.fault()];
        match self.stderr() {
            Some((name, text)) => {
                let height: u16 = panels.iter().map(|p| p.height(side.width)).sum();
                let [above, below] =
                    Layout::vertical([Constraint::Length(height), Constraint::Min(3)]).areas(side);
                tui::draw_panels(screen, above, &panels);
                let rows = below.height.saturating_sub(2);
                screen.render_widget(tui::stderr_panel(name, text, rows, false), below);
            }
            None => tui::draw_panels(screen, side, &panels),
        }
    }

    fn key(&mut self, code: KeyCode) -> bool {
        if let Some((right, down)) = tui::cursor_step(code) {
            self.cursor = (
                tui::moved(self.cursor.0, right, self.width()),
                tui::moved(self.cursor.1, down, self.height()),
            );
            return true;
        }
        let steps = self.steps();
        match code {
            KeyCode::Char('q') | KeyCode::Esc => return false,
            KeyCode::Char('N') | KeyCode::PageDown => {
                self.place = Place::at(0, self.place.step + JUMP, &steps)
            }
            KeyCode::Char('P') | KeyCode::PageUp => {
                self.place = Place::at(0, self.place.step.saturating_sub(JUMP), &steps)
            }
            _ => {
                let _ = self.playback.key(code) || self.place.key(code, &steps);
            }
        }
        true
    }

    /// The next recorded frame; playing stops at the last.
    fn tick(&mut self) {
        if !self.place.advance(&self.steps()) {
            self.playback.stop();
        }
    }

    fn playback(&self) -> &Playback {
        &self.playback
    }

    fn text(&self) -> String {
        let mut panels = vec![self.answer(), self.fault()];
        if let Some((name, text)) = self.stderr() {
            panels.push(tui::stderr_text(name, text));
        }
        panels.push(Panel::new("legend", vec![Line::from(self.legend())]));
        let title = format!("{}\n{}", self.title(), self.step_title());
        tui::text(&title, &self.board(false), &panels)
    }
}
