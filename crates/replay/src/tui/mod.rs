//! The terminal viewers (ratatui) of the games with a board: a paths game (`paths.rs`), a
//! rat-race board (`ratrace.rs`), a noughts & crosses match (`tictactoe.rs`) and a flag game
//! (`flag.rs`). Each explains its game from the same data as its web page, and prints what it
//! shows as plain text for `koth replay --text`.
//!
//! What they share is here, and nothing here knows a game: the terminal's set-up and teardown
//! around the loop of keys and ticks ([`run`]), the playing speeds and their timing
//! ([`Playback`]), the position in a game of parts — a match's games, a flag game's levels —
//! ([`Place`]), the keys line and `--help`'s tables ([`Keys`]), the cursor keys, titled panels
//! that draw as boxes and print as text ([`Panel`]), the fault and stderr panels, and the legend.

pub mod story;

/// The terminal library the viewers draw with, for a game's viewer to name its types through the
/// kit rather than depend on it itself: one version, chosen here.
pub use ratatui;

use std::time::{Duration, Instant};

use ratatui::Frame as Screen;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

/// A viewer in the terminal.
pub trait View {
    /// Draws the whole screen: the board, the panels, the legend and the keys.
    fn draw(&mut self, screen: &mut Screen);
    /// Applies one key; returns false to quit.
    fn key(&mut self, code: KeyCode) -> bool;
    /// Plays one step (a turn, a move, a frame); playing stops at the game's end.
    fn tick(&mut self);
    /// Whether it plays, and how fast.
    fn playback(&self) -> &Playback;
    /// What is shown, as plain text: `koth replay --text`.
    fn text(&self) -> String;
}

/// How long a viewer waits for a key when nothing plays.
const IDLE: Duration = Duration::from_secs(1);

/// Runs `view` in the terminal until `q`, and gives the terminal back as it was, also after an
/// error.
pub fn run(view: &mut impl View) -> anyhow::Result<()> {
    // Without a terminal (a pipe, a script, a test) there is nothing to draw on: said, not a panic.
    let mut terminal = ratatui::try_init().map_err(|e| {
        anyhow::anyhow!(
            "no terminal to show the viewer in ({e}): --text prints what it would show, --html FILE writes a web page"
        )
    })?;
    let outcome = (|| -> anyhow::Result<()> {
        let mut next_step = Instant::now();
        loop {
            terminal.draw(|screen| view.draw(screen))?;
            let wait = if view.playback().playing() {
                next_step.saturating_duration_since(Instant::now())
            } else {
                IDLE
            };
            if event::poll(wait)?
                && let Event::Key(key) = event::read()?
                && key.kind == KeyEventKind::Press
            {
                let was_playing = view.playback().playing();
                if !view.key(key.code) {
                    return Ok(());
                }
                if view.playback().playing() && !was_playing {
                    next_step = Instant::now() + view.playback().interval();
                }
            }
            if view.playback().playing() && Instant::now() >= next_step {
                view.tick();
                next_step = Instant::now() + view.playback().interval();
            }
        }
    })();
    ratatui::restore();
    outcome
}

/// Playing speeds and their labels: multiples of a viewer's step at 1×, as the web viewers offer
/// them.
const SPEEDS: [(f64, &str); 6] = [
    (0.25, "¼×"),
    (0.5, "½×"),
    (1.0, "1×"),
    (2.0, "2×"),
    (4.0, "4×"),
    (8.0, "8×"),
];
const NORMAL_SPEED: usize = 2;

/// Whether a viewer plays, and at which speed.
#[derive(Debug, Clone)]
pub struct Playback {
    playing: bool,
    /// An index into [`SPEEDS`].
    speed: usize,
    /// How long a step shows at 1×, in ms.
    step_ms: u32,
}

impl Playback {
    /// Paused at 1×, where a step shows for `step_ms`.
    pub fn new(step_ms: u32) -> Playback {
        Playback {
            playing: false,
            speed: NORMAL_SPEED,
            step_ms,
        }
    }

    pub fn playing(&self) -> bool {
        self.playing
    }

    pub fn stop(&mut self) {
        self.playing = false;
    }

    /// How long a step shows while playing.
    pub fn interval(&self) -> Duration {
        Duration::from_secs_f64(f64::from(self.step_ms) / SPEEDS[self.speed].0 / 1000.0)
    }

    /// The speed as titles show it: `1×`, or `▶ 2×` while playing.
    pub fn label(&self) -> String {
        let playing = if self.playing { "▶ " } else { "" };
        format!("{playing}{}", SPEEDS[self.speed].1)
    }

    /// Applies space (play/pause), `+` (or `=`) and `-`; returns whether `code` was one of them.
    pub fn key(&mut self, code: KeyCode) -> bool {
        match code {
            KeyCode::Char(' ') => self.playing = !self.playing,
            KeyCode::Char('+') | KeyCode::Char('=') => {
                self.speed = (self.speed + 1).min(SPEEDS.len() - 1)
            }
            KeyCode::Char('-') => self.speed = self.speed.saturating_sub(1),
            _ => return false,
        }
        true
    }
}

/// Where a viewer of a game in parts is: a part (a match's game, a flag game's level, the one
/// board of a rat-race recording) and how many of its steps are shown, from 0 (none yet) to
/// all of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    pub part: usize,
    pub step: usize,
}

impl Place {
    /// Part `part` after `step` of its steps, both kept within `steps` (each part's number).
    pub fn at(part: usize, step: usize, steps: &[usize]) -> Place {
        let part = part.min(steps.len().saturating_sub(1));
        let step = step.min(steps.get(part).copied().unwrap_or(0));
        Place { part, step }
    }

    /// Applies n/p (a step), N/P (a part, from its start), Home/End (the part's start or end);
    /// returns whether `code` was one of them.
    pub fn key(&mut self, code: KeyCode, steps: &[usize]) -> bool {
        *self = match code {
            KeyCode::Char('n') => Place::at(self.part, self.step + 1, steps),
            KeyCode::Char('p') => Place::at(self.part, self.step.saturating_sub(1), steps),
            KeyCode::Char('N') | KeyCode::PageDown => Place::at(self.part + 1, 0, steps),
            KeyCode::Char('P') | KeyCode::PageUp => {
                Place::at(self.part.saturating_sub(1), 0, steps)
            }
            KeyCode::Home => Place::at(self.part, 0, steps),
            KeyCode::End => Place::at(self.part, usize::MAX, steps),
            _ => return false,
        };
        true
    }

    /// The next step, or the next part's start after a part's end; false at the last part's end.
    pub fn advance(&mut self, steps: &[usize]) -> bool {
        let last = steps.get(self.part).copied().unwrap_or(0);
        if self.step < last {
            self.step += 1;
        } else if self.part + 1 < steps.len() {
            *self = Place::at(self.part + 1, 0, steps);
        } else {
            return false;
        }
        true
    }
}

/// A viewer's keys: what each does, briefly for the keys line at the screen's foot and in full
/// for `koth replay --help`.
pub type Key = (&'static str, &'static str, &'static str);

/// The keys of one viewer, beside [`COMMON_KEYS`].
pub struct Keys {
    /// The game, as `--help` heads its keys: "a paths game".
    pub game: &'static str,
    /// What 1× plays: "a turn each 0.3 s".
    pub normal_speed: &'static str,
    pub keys: &'static [Key],
}

/// The keys every viewer has, after its own.
const COMMON_KEYS: [Key; 3] = [
    ("space", "play/pause", "play or pause"),
    ("+/-", "speed", "play faster / slower (¼× to 8×)"),
    ("q", "quit", "quit (also Esc)"),
];

/// The cursor's keys, as the key tables name them.
pub const CURSOR_KEYS: &str = "←↓↑→ hjkl";

/// Tab, in the viewers of games between several bots.
pub const STDERR_KEY: Key = (
    "tab",
    "whose stderr",
    "show the next bot's last stderr lines (shift+tab: the previous)",
);

/// A key's line in `koth replay --help`.
fn key_row((keys, _, does): &Key) -> String {
    format!("  {keys:<15} {does}\n")
}

impl Keys {
    /// The viewer's own keys as `koth replay --help` lists them (a game's
    /// [`koth_game::Replay::keys`]).
    pub fn help(&self) -> String {
        let mut help = format!("\n{} (1×: {}):\n", self.game, self.normal_speed);
        help.extend(self.keys.iter().map(key_row));
        help
    }
}

/// The viewers' keys as `koth replay --help` lists them: those of every viewer, then each
/// viewer's own ([`Keys::help`], one a game).
pub fn keys_help(viewers: impl IntoIterator<Item = String>) -> String {
    let mut help = String::from("Keys of the terminal viewers; in each:\n");
    help.extend(COMMON_KEYS.iter().map(key_row));
    help.extend(viewers);
    help
}

/// The keys line at the screen's foot: the viewer's own keys, then the common ones.
fn keys_line(keys: &Keys) -> Paragraph<'static> {
    let briefs: Vec<String> = keys
        .keys
        .iter()
        .chain(&COMMON_KEYS)
        .map(|(keys, does, _)| format!("{keys} {does}"))
        .collect();
    Paragraph::new(briefs.join("  ")).style(Style::new().fg(Color::DarkGray))
}

/// The screen's rows: the main area, `legend` lines of legend, and the keys line (drawn here).
pub fn screen_areas(screen: &mut Screen, legend: u16, keys: &Keys) -> (Rect, Rect) {
    let [main, legend_area, keys_area] = Layout::vertical([
        Constraint::Min(5),
        Constraint::Length(legend),
        Constraint::Length(1),
    ])
    .areas(screen.area());
    screen.render_widget(keys_line(keys), keys_area);
    (main, legend_area)
}

/// The width of a side panel, at most: it takes no more than half the screen.
pub const SIDE_WIDTH: u16 = 60;

/// A board viewer's screen: its legend (at most `legend_rows` rows) and its keys line at the
/// foot, its title on top, and below the title the board's column and the side column, which
/// are returned.
pub fn board_screen(
    screen: &mut Screen,
    legend: Vec<Span<'static>>,
    legend_rows: u16,
    keys: &Keys,
    title: String,
) -> [Rect; 2] {
    let rows = legend_height(&legend, screen.area().width, legend_rows);
    let (main, legend_area) = screen_areas(screen, rows, keys);
    screen.render_widget(self::legend(legend), legend_area);
    let [title_area, main] =
        Layout::vertical([Constraint::Length(1), Constraint::Min(3)]).areas(main);
    screen.render_widget(Paragraph::new(title).style(BOLD), title_area);
    board_and_side(main)
}

/// `area` cut into the board's part (left) and the side panel's (right).
pub fn board_and_side(area: Rect) -> [Rect; 2] {
    Layout::horizontal([
        Constraint::Min(10),
        Constraint::Length(SIDE_WIDTH.min(area.width / 2)),
    ])
    .areas(area)
}

/// The screen direction a cursor key moves in: (columns, rows), rows counted downwards.
pub fn cursor_step(code: KeyCode) -> Option<(isize, isize)> {
    match code {
        KeyCode::Left | KeyCode::Char('h') => Some((-1, 0)),
        KeyCode::Right | KeyCode::Char('l') => Some((1, 0)),
        KeyCode::Up | KeyCode::Char('k') => Some((0, -1)),
        KeyCode::Down | KeyCode::Char('j') => Some((0, 1)),
        _ => None,
    }
}

/// `at` moved by `by`, kept within `0..len`.
pub fn moved(at: usize, by: isize, len: usize) -> usize {
    at.saturating_add_signed(by).min(len.saturating_sub(1))
}

/// Faults and what failed.
pub const FAULT: Style = Style::new().fg(Color::LightRed);
/// What the step shown is about: its row, its fault.
pub const NOW: Style = Style::new()
    .fg(Color::Black)
    .bg(Color::LightYellow)
    .add_modifier(Modifier::BOLD);
/// What is not there, or no longer matters.
pub const DIM: Style = Style::new().fg(Color::DarkGray);
pub const BOLD: Style = Style::new().add_modifier(Modifier::BOLD);

/// A titled box of lines: drawn bordered with its lines wrapped, or printed by `--text` as its
/// title and its lines.
#[derive(Debug, Clone)]
pub struct Panel {
    pub title: String,
    pub lines: Vec<Line<'static>>,
}

impl Panel {
    pub fn new(title: impl Into<String>, lines: Vec<Line<'static>>) -> Panel {
        Panel {
            title: title.into(),
            lines,
        }
    }

    pub fn widget(&self) -> Paragraph<'static> {
        Paragraph::new(self.lines.clone())
            .wrap(Wrap { trim: false })
            .block(Block::bordered().title(format!(" {} ", self.title)))
    }

    /// The rows the box needs `width` columns wide: its lines wrapped at spaces, and its
    /// borders.
    pub fn height(&self, width: u16) -> u16 {
        let inner = usize::from(width.saturating_sub(2)).max(1);
        let rows: usize = self
            .lines
            .iter()
            .map(|line| wrapped_rows(&plain(line), inner))
            .sum();
        u16::try_from(rows + 2).unwrap_or(u16::MAX)
    }

    /// The panel as text: its title, then its lines indented.
    fn text(&self) -> String {
        let mut text = format!("{}:\n", self.title);
        for line in &self.lines {
            text += &format!("  {}\n", plain(line));
        }
        text
    }
}

/// The rows `text` takes wrapped at spaces `width` columns wide, as a wrapped paragraph
/// draws it: a word that does not fit on a row starts the next, and a word longer than a row
/// is cut.
fn wrapped_rows(text: &str, width: usize) -> usize {
    let (mut rows, mut used) = (1, 0);
    for word in text.split(' ') {
        let length = word.chars().count();
        let needed = if used == 0 { length } else { used + 1 + length };
        if needed <= width {
            used = needed;
        } else if length <= width {
            rows += 1;
            used = length;
        } else {
            rows += usize::from(used > 0) + (length - 1) / width;
            used = (length - 1) % width + 1;
        }
    }
    rows
}

/// Draws `panels` one under the other in `area`, each as high as it needs (the last, and any
/// that does not fit, get what is left).
pub fn draw_panels(screen: &mut Screen, area: Rect, panels: &[Panel]) {
    let mut constraints: Vec<Constraint> = panels
        .iter()
        .map(|panel| Constraint::Length(panel.height(area.width)))
        .collect();
    if let Some(last) = constraints.last_mut() {
        *last = Constraint::Min(3);
    }
    let areas = Layout::vertical(constraints).split(area);
    for (panel, area) in panels.iter().zip(areas.iter()) {
        screen.render_widget(panel.widget(), *area);
    }
}

/// A line's text without its styles.
pub fn plain(line: &Line) -> String {
    line.spans
        .iter()
        .map(|span| span.content.as_ref())
        .collect()
}

/// A viewer's screen as `--text` prints it: the title, the board's lines, then each panel. A
/// control or format character (a bot's stderr or answer may hold any) is written escaped,
/// `\u{1b}` ([`koth_base::text::shown`]), so that printing the text cannot drive the terminal; the
/// screen leaves them out.
pub fn text(title: &str, board: &[Line], panels: &[Panel]) -> String {
    let mut text = format!("{title}\n");
    for line in board {
        text += &format!("  {}\n", plain(line).trim_end());
    }
    for panel in panels {
        text += &panel.text();
    }
    koth_base::text::shown_lines(&text)
}

/// A fault as the viewers list it: where it happened (`game 1 move 2: `, or nothing), its bot in
/// bold, its kind in red and its reason; the one of the step shown is highlighted.
pub fn fault_line(at: &str, bot: &str, kind: &str, reason: &str, now: bool) -> Line<'static> {
    let mut spans = Vec::new();
    if !at.is_empty() {
        spans.push(Span::raw(format!("{at}: ")));
    }
    if !bot.is_empty() {
        spans.push(Span::styled(bot.to_string(), BOLD));
        spans.push(Span::raw(" "));
    }
    spans.push(Span::styled(kind.to_string(), FAULT));
    spans.push(Span::raw(format!(": {reason}")));
    let line = Line::from(spans);
    if now { line.style(NOW) } else { line }
}

/// `lines`, or one line saying there are none.
pub fn or_none(lines: Vec<Line<'static>>) -> Vec<Line<'static>> {
    if lines.is_empty() {
        vec![Line::raw("none")]
    } else {
        lines
    }
}

/// A bot's last stderr lines, as many as fit `height` rows, titled with its name (and the key
/// that shows another bot's, if there are others).
pub fn stderr_panel(name: &str, text: &str, height: u16, tab: bool) -> Paragraph<'static> {
    let lines = stderr_lines(text);
    let shown = lines[lines.len().saturating_sub(height.into())..].to_vec();
    let tab = if tab { " (tab)" } else { "" };
    Paragraph::new(shown).block(Block::bordered().title(format!(" stderr: {name}{tab} ")))
}

/// A bot's last stderr lines as `--text` prints them.
pub fn stderr_text(name: &str, text: &str) -> Panel {
    Panel::new(format!("stderr: {name}"), stderr_lines(text))
}

fn stderr_lines(text: &str) -> Vec<Line<'static>> {
    let lines: Vec<Line> = text.lines().map(|l| Line::raw(l.to_string())).collect();
    if lines.is_empty() {
        vec![Line::raw("(nothing)")]
    } else {
        lines
    }
}

/// A legend's entry: a sample of the mark as the board draws it, and what it means.
pub fn legend_entry(mark: impl ToString, style: Style, means: &str) -> [Span<'static>; 2] {
    [
        Span::styled(mark.to_string(), style),
        Span::raw(format!(" {means}  ")),
    ]
}

/// A legend over the rows it takes at the screen's width, wrapped.
fn legend(spans: Vec<Span<'static>>) -> Paragraph<'static> {
    Paragraph::new(Line::from(spans)).wrap(Wrap { trim: true })
}

/// The rows a legend of `spans` takes `width` columns wide, at most `most`.
fn legend_height(spans: &[Span], width: u16, most: u16) -> u16 {
    let width = usize::from(width.max(1));
    let total: usize = spans.iter().map(Span::width).sum();
    u16::try_from(total.div_ceil(width).max(1))
        .unwrap_or(most)
        .min(most)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_place_steps_through_parts_and_stops_at_the_last_end() {
        let steps = [2, 0, 1];
        let mut place = Place::at(0, 0, &steps);
        let mut seen = Vec::new();
        while place.advance(&steps) {
            seen.push((place.part, place.step));
        }
        assert_eq!(seen, [(0, 1), (0, 2), (1, 0), (2, 0), (2, 1)]);
        assert!(place.key(KeyCode::Char('P'), &steps));
        assert_eq!(place, Place { part: 1, step: 0 });
        assert!(place.key(KeyCode::Char('n'), &steps));
        assert_eq!(place, Place { part: 1, step: 0 }, "a part of no steps");
        assert!(place.key(KeyCode::Char('P'), &steps));
        assert!(place.key(KeyCode::End, &steps));
        assert_eq!(place, Place { part: 0, step: 2 });
        assert!(!place.key(KeyCode::Char('x'), &steps));
        assert_eq!(Place::at(9, 9, &steps), Place { part: 2, step: 1 });
        assert_eq!(Place::at(3, 3, &[]), Place { part: 0, step: 0 });
    }

    #[test]
    fn a_panel_is_as_high_as_its_lines_wrapped_at_spaces() {
        assert_eq!(wrapped_rows("", 10), 1);
        assert_eq!(wrapped_rows("one two three", 13), 1);
        assert_eq!(wrapped_rows("one two three", 12), 2);
        // A word longer than a row is cut across rows.
        assert_eq!(wrapped_rows("one two three", 3), 4);
        assert_eq!(wrapped_rows("a abcdefghijk b", 4), 5);
        let panel = Panel::new("t", vec![Line::raw("one two"), Line::raw("three")]);
        assert_eq!(panel.height(9), 4);
        assert_eq!(panel.height(6), 6);
    }

    #[test]
    fn text_escapes_control_characters_and_keeps_its_lines() {
        let panel = Panel::new("stderr: bot", vec![Line::raw("\u{1b}[2Jgone\tx")]);
        assert_eq!(
            text("title", &[Line::raw("a b  ")], &[panel]),
            "title\n  a b\nstderr: bot:\n  \\u{1b}[2Jgone\\u{9}x\n"
        );
    }

    #[test]
    fn playing_speeds_go_from_a_quarter_to_eight_times() {
        let mut playback = Playback::new(400);
        assert_eq!(playback.interval(), Duration::from_millis(400));
        assert!(playback.key(KeyCode::Char('-')));
        assert!(playback.key(KeyCode::Char('-')));
        assert!(playback.key(KeyCode::Char('-')));
        assert_eq!(playback.interval(), Duration::from_millis(1600));
        for _ in 0..9 {
            playback.key(KeyCode::Char('+'));
        }
        assert_eq!(playback.interval(), Duration::from_millis(50));
        assert!(playback.key(KeyCode::Char(' ')));
        assert_eq!(playback.label(), "▶ 8×");
        assert!(!playback.key(KeyCode::Char('n')));
    }
}
