//! The terminal viewer of a paths game: steps and plays through rounds and turns, owners
//! coloured, and explains each turn from the same data as the web viewer (`replay.jsonl` and
//! [`Explanation`]): every bot's answers with how long each took, the turn's faults with their
//! reasons, a chosen bot's last stderr lines, the vertices the round's paying searches ran
//! through (at its end), and the owners and history of the vertex under a cursor.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use ratatui::Frame as Screen;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Row, Table, Wrap};

use super::explain::Explanation;
use super::{Frame, Game};
use crate::games::paths::log::TurnRecord;
use crate::games::paths::rules::letter;

/// The viewer's keys: what each does, briefly for the keys line at the screen's foot and in
/// full for `koth replay --help`.
const KEYS: [(&str, &str, &str); 8] = [
    (
        "←↓↑→ hjkl",
        "cursor",
        "move the cursor: its vertex's owners and history, and at a round's end its paying searches",
    ),
    ("n/p", "next/previous turn", "the next / previous turn"),
    (
        "N/P PgDn/PgUp",
        "round",
        "the next / previous round (at its start, or at its end if shown at its end)",
    ),
    (
        "space",
        "play/pause",
        "play or pause, a turn at a time, round after round",
    ),
    (
        "+/-",
        "speed",
        "play faster / slower (¼× to 8×, 1× is a turn each 0.3 s)",
    ),
    ("z/Z", "zoom", "wider / narrower vertices"),
    (
        "tab",
        "whose stderr",
        "show the next bot's last stderr lines (shift+tab: the previous)",
    ),
    ("q", "quit", "quit (also Esc)"),
];

/// The keys as `koth replay --help` lists them.
pub(crate) fn keys_help() -> String {
    let mut help = String::from("Keys of the terminal viewer of a paths game:\n");
    for (keys, _, does) in KEYS {
        help += &format!("  {keys:<15} {does}\n");
    }
    help
}

/// Playing speeds and their labels: multiples of one turn per [`TURN_MS`], as the web viewer
/// offers them.
const SPEEDS: [(f64, &str); 6] = [
    (0.25, "¼×"),
    (0.5, "½×"),
    (1.0, "1×"),
    (2.0, "2×"),
    (4.0, "4×"),
    (8.0, "8×"),
];
const NORMAL_SPEED: usize = 2;
const TURN_MS: f64 = 300.0;

/// Terminal cells per vertex, horizontally: the most, and at the start.
const MAX_ZOOM: usize = 6;
const START_ZOOM: usize = 2;

/// The width of the side panel, at most: it takes no more than half the screen.
const SIDE_WIDTH: u16 = 60;

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

const BROKEN: char = '×';
/// Marks a vertex a paying search ran through, beside its owner's letter.
const PAID: char = '*';

fn owner_style(bot: usize) -> Style {
    Style::new()
        .fg(Color::Black)
        .bg(COLOURS[bot % COLOURS.len()])
}

/// Where the viewer is and how it draws.
pub struct Viewer<'a> {
    game: &'a Game,
    explanation: &'a Explanation,
    frame: Frame,
    playing: bool,
    /// An index into [`SPEEDS`].
    speed: usize,
    /// Terminal cells per vertex, horizontally.
    zoom: usize,
    /// The first vertex column and grid row (top first) on screen; it follows the cursor.
    scroll: (usize, usize),
    /// The vertex under the cursor, `(x, y)` with (0, 0) bottom-left as in replays.
    cursor: (usize, usize),
    /// The bot whose stderr is shown.
    bot: usize,
}

impl<'a> Viewer<'a> {
    /// A viewer of `frame` of `game`, its cursor at the top-left vertex, showing the stderr of
    /// the first bot with a fault (the one worth reading), else of the first bot.
    pub fn new(game: &'a Game, explanation: &'a Explanation, frame: Frame) -> Viewer<'a> {
        let faulty = explanation
            .fault_notes()
            .next()
            .and_then(|fault| game.log.bots.iter().position(|name| name == fault.bot));
        Viewer {
            game,
            explanation,
            cursor: (0, frame.rows.len().saturating_sub(1)),
            frame,
            playing: false,
            speed: NORMAL_SPEED,
            zoom: START_ZOOM,
            scroll: (0, 0),
            bot: faulty.unwrap_or(0),
        }
    }

    /// Draws the grid, the side panel (points, answers, faults, the cursor's vertex, stderr),
    /// the legend and the keys.
    pub fn draw(&mut self, screen: &mut Screen) {
        let [main, legend_area, keys_area] = Layout::vertical([
            Constraint::Min(5),
            Constraint::Length(1),
            Constraint::Length(1),
        ])
        .areas(screen.area());
        let [grid_area, side_area] = Layout::horizontal([
            Constraint::Min(10),
            Constraint::Length(SIDE_WIDTH.min(main.width / 2)),
        ])
        .areas(main);
        self.follow_cursor(grid_area);
        screen.render_widget(self.grid(), grid_area);
        self.draw_side(screen, side_area);
        screen.render_widget(Paragraph::new(self.legend()), legend_area);
        let keys: Vec<String> = KEYS
            .iter()
            .map(|(keys, does, _)| format!("{keys} {does}"))
            .collect();
        screen.render_widget(
            Paragraph::new(keys.join("  ")).style(Style::new().fg(Color::DarkGray)),
            keys_area,
        );
    }

    /// Scrolls just enough to keep the cursor's vertex inside the grid's frame `area`.
    fn follow_cursor(&mut self, area: Rect) {
        let columns = (usize::from(area.width.saturating_sub(2)) / self.zoom).max(1);
        let rows = usize::from(area.height.saturating_sub(2)).max(1);
        let column = self.cursor.0;
        let row = self.side().saturating_sub(1 + self.cursor.1);
        let follow = |scroll: usize, at: usize, visible: usize| {
            scroll.min(at).max((at + 1).saturating_sub(visible))
        };
        self.scroll = (
            follow(self.scroll.0, column, columns),
            follow(self.scroll.1, row, rows),
        );
    }

    fn side(&self) -> usize {
        self.frame.rows.len()
    }

    /// Whether the frame is its round's end, where the round is scored.
    fn at_round_end(&self) -> bool {
        self.frame.points.is_some()
    }

    /// The turn the frame has just played (from 0), if replay.jsonl recorded it.
    fn played(&self) -> Option<usize> {
        let available = self.game.turns_in(self.frame.round);
        let played = self.frame.turn.unwrap_or(available).checked_sub(1)?;
        (played < available).then_some(played)
    }

    fn record(&self, turn: usize) -> Option<&'a TurnRecord> {
        let round = self.frame.round;
        self.game
            .turns
            .as_ref()?
            .turns
            .iter()
            .filter(|t| t.round == round)
            .nth(turn)
    }

    /// At the round's end, how many paying searches ran through each vertex they ran through.
    fn paid(&self) -> HashMap<(usize, usize), u32> {
        match &self.game.turns {
            Some(replay) if self.at_round_end() => replay
                .paid_in(self.frame.round)
                .map(|&(x, y, n)| ((x, y), n))
                .collect(),
            _ => HashMap::new(),
        }
    }

    fn grid(&self) -> Paragraph<'static> {
        let side = self.side();
        let paid = self.paid();
        let lines: Vec<Line> = self
            .frame
            .rows
            .iter()
            .enumerate()
            .skip(self.scroll.1)
            .map(|(row, text)| {
                let y = side - 1 - row;
                Line::from(
                    text.chars()
                        .enumerate()
                        .skip(self.scroll.0)
                        .map(|(x, c)| self.cell(c, (x, y), paid.contains_key(&(x, y))))
                        .collect::<Vec<_>>(),
                )
            })
            .collect();
        let turn = match self.frame.turn {
            Some(t) => format!("turn {t}/{}", self.game.turns_in(self.frame.round)),
            None => "end".to_string(),
        };
        let title = format!(
            " Round {}/{} {turn} · {}{} ",
            self.frame.round,
            self.game.rounds(),
            if self.playing { "▶ " } else { "" },
            SPEEDS[self.speed].1
        );
        Paragraph::new(lines).block(Block::bordered().title(title))
    }

    /// Vertex `vertex` drawn from its letter `c` in the graphical log's rows.
    fn cell(&self, c: char, vertex: (usize, usize), paid: bool) -> Span<'static> {
        let owner = (0..self.game.log.bots.len()).find(|&b| letter(b) == c);
        let (mark, mut style) = match (c, owner) {
            (_, Some(b)) => (c, owner_style(b)),
            (' ', None) => (BROKEN, Style::new().fg(Color::DarkGray)),
            _ => (c, Style::new()),
        };
        let mut text = mark.to_string();
        if paid {
            style = style.add_modifier(Modifier::BOLD | Modifier::UNDERLINED);
            if self.zoom > 1 {
                text.push(PAID);
            }
        }
        if vertex == self.cursor {
            style = style.add_modifier(Modifier::REVERSED);
        }
        Span::styled(format!("{text:<width$}", width = self.zoom), style)
    }

    fn draw_side(&self, screen: &mut Screen, area: Rect) {
        let bots = self.game.log.bots.len() as u16;
        let faults = self.faults();
        let [scores, answers, faults_area, vertex, stderr] = Layout::vertical([
            Constraint::Length(bots + 2),
            Constraint::Length(bots + 3),
            // A fault's reason takes about two lines; five faults at most before the rest.
            Constraint::Length(faults.len().clamp(1, 5) as u16 * 2 + 2),
            Constraint::Length(6),
            Constraint::Min(3),
        ])
        .areas(area);
        screen.render_widget(self.scores(), scores);
        screen.render_widget(self.answers(), answers);
        screen.render_widget(
            Paragraph::new(faults)
                .wrap(Wrap { trim: false })
                .block(Block::bordered().title(self.faults_title())),
            faults_area,
        );
        screen.render_widget(self.vertex(), vertex);
        screen.render_widget(self.stderr(stderr.height.saturating_sub(2)), stderr);
    }

    fn scores(&self) -> Paragraph<'static> {
        let lines: Vec<Line> = self
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
                    Span::styled(format!(" {} ", letter(b)), owner_style(b)),
                    Span::raw(format!(" {name}: {points} / {}", self.frame.totals[b])),
                ])
            })
            .collect();
        Paragraph::new(lines).block(Block::bordered().title(" points / total "))
    }

    /// Each bot's answers in the turn just played: what it broke and activated, and how many
    /// ms each took; a fault in that turn stands where its answer's time would, as on the web.
    fn answers(&self) -> Table<'static> {
        let round = self.frame.round;
        let played = self.played().and_then(|t| Some((t, self.record(t)?)));
        let title = match (&self.game.turns, played) {
            (None, _) => " answers: no replay.jsonl ".to_string(),
            (_, Some((turn, _))) => format!(" answers in turn {turn} "),
            (_, None) => " answers: none yet this round ".to_string(),
        };
        let vertex =
            |v: Option<(usize, usize)>| v.map_or("–".to_string(), |(x, y)| format!("({x},{y})"));
        let rows: Vec<Row> = played
            .map(|(turn, record)| {
                self.game
                    .log
                    .bots
                    .iter()
                    .enumerate()
                    .map(|(b, name)| {
                        let [destroy_ms, activate_ms] = self.explanation.times_at(round, turn, b);
                        let fault = self
                            .explanation
                            .faults_at(round, turn)
                            .find(|f| f.bot == name)
                            .map(|f| f.kind.to_string())
                            .unwrap_or_default();
                        // A time, or in red the fault that stands in its place.
                        let ms = |ms: Option<u64>, fault: &str| match ms {
                            Some(ms) => Span::raw(ms.to_string()),
                            None => {
                                Span::styled(fault.to_string(), Style::new().fg(Color::LightRed))
                            }
                        };
                        Row::new(vec![
                            Span::styled(format!(" {} ", letter(b)), owner_style(b)),
                            Span::raw(name.clone()),
                            Span::raw(vertex(record.destroy.get(b).copied().flatten())),
                            ms(destroy_ms, &fault),
                            Span::raw(vertex(record.activate.get(b).copied().flatten())),
                            ms(activate_ms, if destroy_ms.is_some() { &fault } else { "" }),
                        ])
                    })
                    .collect()
            })
            .unwrap_or_default();
        Table::new(
            rows,
            [
                Constraint::Length(3),
                Constraint::Min(6),
                Constraint::Length(9),
                Constraint::Length(9),
                Constraint::Length(9),
                Constraint::Length(9),
            ],
        )
        .header(
            Row::new(["", "bot", "broke", "ms", "activated", "ms"])
                .style(Style::new().add_modifier(Modifier::BOLD)),
        )
        .block(Block::bordered().title(title))
    }

    fn faults_title(&self) -> String {
        let total = self.explanation.faults.len();
        match self.played() {
            Some(turn) => format!(" faults in turn {turn} ({total} in the game) "),
            None => format!(" faults ({total} in the game) "),
        }
    }

    /// The faults of the turn just played, each with its bot, kind and reason.
    fn faults(&self) -> Vec<Line<'static>> {
        let Some(turn) = self.played() else {
            return Vec::new();
        };
        let lines: Vec<Line> = self
            .explanation
            .faults_at(self.frame.round, turn)
            .map(|fault| {
                Line::from(vec![
                    Span::styled(
                        fault.bot.to_string(),
                        Style::new().add_modifier(Modifier::BOLD),
                    ),
                    Span::raw(" "),
                    Span::styled(fault.kind.to_string(), Style::new().fg(Color::LightRed)),
                    Span::raw(format!(": {}", fault.reason)),
                ])
            })
            .collect();
        if lines.is_empty() {
            vec![Line::raw("none")]
        } else {
            lines
        }
    }

    /// The cursor's vertex: its owners, the paying searches through it at the round's end, and
    /// what happened to it this round up to the turn shown.
    fn vertex(&self) -> Paragraph<'static> {
        let (x, y) = self.cursor;
        let bots = &self.game.log.bots;
        let mut lines = Vec::new();
        let history = self.game.turns.as_ref().map(|replay| {
            let available = replay.turns_in(self.frame.round);
            let shown = self.frame.turn.unwrap_or(available);
            replay.history(self.frame.round, shown, (x, y))
        });
        match &history {
            Some(events) => {
                let owners: Vec<&str> = events
                    .iter()
                    .filter(|e| e.activated)
                    .filter_map(|e| bots.get(e.bot).map(String::as_str))
                    .collect();
                let owners = if owners.is_empty() {
                    "none".to_string()
                } else {
                    owners.join(", ")
                };
                lines.push(Line::raw(format!("owners: {owners}")));
            }
            None => {
                // The graphical log alone names a vertex's first owner only.
                let row = self.side().saturating_sub(1 + y);
                let c = self.frame.rows.get(row).and_then(|r| r.chars().nth(x));
                let owner = (0..bots.len()).find(|&b| Some(letter(b)) == c);
                let owner = owner.map_or("none", |b| bots[b].as_str());
                lines.push(Line::raw(format!("first owner: {owner}")));
            }
        }
        if let Some(n) = self.paid().get(&(x, y)) {
            let plural = if *n == 1 { "" } else { "es" };
            lines.push(Line::raw(format!(
                "on {n} paying search{plural}: {n} point(s) to each owner"
            )));
        }
        for event in history.iter().flatten() {
            let what = if event.activated {
                "activated"
            } else {
                "broken"
            };
            let name = bots.get(event.bot).map_or("?", String::as_str);
            lines.push(Line::raw(format!("turn {}: {what} by {name}", event.turn)));
        }
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(Block::bordered().title(format!(" vertex ({x}, {y}) ")))
    }

    /// The selected bot's last `height` stderr lines.
    fn stderr(&self, height: u16) -> Paragraph<'static> {
        let name = self.game.log.bots.get(self.bot).map_or("", String::as_str);
        let text = self
            .explanation
            .stderr
            .get(self.bot)
            .map_or("", String::as_str);
        let lines: Vec<&str> = text.lines().collect();
        let shown: Vec<Line> = if lines.is_empty() {
            vec![Line::raw("(nothing)")]
        } else {
            lines[lines.len().saturating_sub(height.into())..]
                .iter()
                .map(|line| Line::raw(line.to_string()))
                .collect()
        };
        Paragraph::new(shown).block(Block::bordered().title(format!(" stderr: {name} (tab) ")))
    }

    /// What the grid's colours and marks mean.
    fn legend(&self) -> Line<'static> {
        let mut spans: Vec<Span> = Vec::new();
        for (b, name) in self.game.log.bots.iter().enumerate() {
            spans.push(Span::styled(format!(" {} ", letter(b)), owner_style(b)));
            spans.push(Span::raw(format!(" {name}  ")));
        }
        spans.push(Span::styled(
            BROKEN.to_string(),
            Style::new().fg(Color::DarkGray),
        ));
        spans.push(Span::raw(" broken  . not active  "));
        spans.push(Span::styled(
            format!("a{PAID}"),
            Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
        ));
        spans.push(Span::raw(
            " on a paying search (round's end)  a vertex shows its first owner",
        ));
        Line::from(spans)
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

    /// How long a turn shows while playing.
    fn turn_interval(&self) -> Duration {
        Duration::from_secs_f64(TURN_MS / SPEEDS[self.speed].0 / 1000.0)
    }

    /// Applies one key; returns false to quit.
    pub fn key(&mut self, code: KeyCode) -> bool {
        let last = self.side().saturating_sub(1);
        let bots = self.game.log.bots.len().max(1);
        match code {
            KeyCode::Char('q') | KeyCode::Esc => return false,
            KeyCode::Left | KeyCode::Char('h') => self.cursor.0 = self.cursor.0.saturating_sub(1),
            KeyCode::Right | KeyCode::Char('l') => self.cursor.0 = (self.cursor.0 + 1).min(last),
            KeyCode::Up | KeyCode::Char('k') => self.cursor.1 = (self.cursor.1 + 1).min(last),
            KeyCode::Down | KeyCode::Char('j') => self.cursor.1 = self.cursor.1.saturating_sub(1),
            KeyCode::Char('n') => self.step_turn(true),
            KeyCode::Char('p') => self.step_turn(false),
            KeyCode::Char('N') | KeyCode::PageDown => self.step_round(true),
            KeyCode::Char('P') | KeyCode::PageUp => self.step_round(false),
            KeyCode::Char(' ') => self.playing = !self.playing,
            KeyCode::Char('+') | KeyCode::Char('=') => {
                self.speed = (self.speed + 1).min(SPEEDS.len() - 1)
            }
            KeyCode::Char('-') => self.speed = self.speed.saturating_sub(1),
            KeyCode::Char('z') => self.zoom = (self.zoom + 1).min(MAX_ZOOM),
            KeyCode::Char('Z') => self.zoom = (self.zoom - 1).max(1),
            KeyCode::Tab => self.bot = (self.bot + 1) % bots,
            KeyCode::BackTab => self.bot = (self.bot + bots - 1) % bots,
            _ => {}
        }
        true
    }
}

/// How long the viewer waits for a key when nothing plays.
const IDLE: Duration = Duration::from_secs(1);

/// Runs the viewer in the terminal until `q`.
pub(crate) fn run(game: &Game, explanation: &Explanation, frame: Frame) -> anyhow::Result<()> {
    let mut viewer = Viewer::new(game, explanation, frame);
    let mut terminal = ratatui::init();
    let outcome = (|| -> anyhow::Result<()> {
        let mut next_turn = Instant::now();
        loop {
            terminal.draw(|screen| viewer.draw(screen))?;
            let wait = if viewer.playing {
                next_turn.saturating_duration_since(Instant::now())
            } else {
                IDLE
            };
            if event::poll(wait)?
                && let Event::Key(key) = event::read()?
                && key.kind == KeyEventKind::Press
            {
                let was_playing = viewer.playing;
                if !viewer.key(key.code) {
                    return Ok(());
                }
                if viewer.playing && !was_playing {
                    next_turn = Instant::now() + viewer.turn_interval();
                }
            }
            if viewer.playing && Instant::now() >= next_turn {
                viewer.tick();
                next_turn = Instant::now() + viewer.turn_interval();
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
    use crate::replay::turns::Replay;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    const LOG: &str = "Initializing bots.\nBots:\n  Random Builder (a)\n  Checkpoint (b)\n\
        Running 2 rounds.\n  Round 0\n  Finished, computing score.\n  ab.. \n  .b...\n  .ba..\n\
        \x20  a b.\n  .b...\n  Results: 3 29\n  Round 1\n  Finished, computing score.\n  aaaaa\n\
        \x20 .....\n  .....\n  .....\n  b....\n  Results: 40 7\nFinal results:\n  Random Builder: 43\n\
        \x20 Checkpoint: 36\n";

    fn rendered(viewer: &mut Viewer) -> Vec<String> {
        let mut terminal = Terminal::new(TestBackend::new(80, 30)).unwrap();
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

    /// A bare graphical log (the original controller's): rounds' ends only, no explanation.
    #[test]
    fn a_graphical_log_alone_shows_its_rounds_ends_and_first_owners() {
        let game = Game {
            log: graphical::parse(LOG).unwrap(),
            turns: None,
        };
        let explanation = Explanation::default();
        let mut viewer = Viewer::new(&game, &explanation, game.frame(0, None).unwrap());
        let screen = rendered(&mut viewer);
        assert!(screen[0].contains("Round 0/2 end · 1×"), "{screen:#?}");
        // Zoom 2: each vertex is two cells wide; a broken vertex is a cross.
        assert!(screen[1].starts_with("│a b . . × "), "{screen:#?}");
        assert!(screen[4].starts_with("│× a × b . "), "{screen:#?}");
        assert!(screen[1].contains("Random Builder: 3 / 3"), "{screen:#?}");
        assert!(screen[2].contains("Checkpoint: 29 / 29"), "{screen:#?}");
        assert!(
            screen
                .iter()
                .any(|l| l.contains("answers: no replay.jsonl")),
            "{screen:#?}"
        );
        // The cursor starts at the top-left vertex, first owned by Random Builder.
        assert!(
            screen.iter().any(|l| l.contains("vertex (0, 4)")),
            "{screen:#?}"
        );
        assert!(
            screen
                .iter()
                .any(|l| l.contains("first owner: Random Builder")),
            "{screen:#?}"
        );

        assert!(viewer.key(KeyCode::Char('N')));
        assert!(viewer.key(KeyCode::Char('Z')));
        assert!(viewer.key(KeyCode::Down));
        let screen = rendered(&mut viewer);
        assert!(screen[0].contains("Round 1/2 end"), "{screen:#?}");
        assert!(screen[1].starts_with("│aaaaa"), "{screen:#?}");
        assert!(screen[1].contains("Random Builder: 40 / 43"), "{screen:#?}");
        assert!(screen[2].contains("Checkpoint: 7 / 36"), "{screen:#?}");
        assert!(
            screen.iter().any(|l| l.contains("vertex (0, 3)")),
            "{screen:#?}"
        );
        assert!(
            screen.iter().any(|l| l.contains("first owner: none")),
            "{screen:#?}"
        );
        assert!(!viewer.key(KeyCode::Char('q')));
    }

    #[test]
    fn the_grid_scrolls_to_keep_the_cursor_in_view() {
        let game = Game {
            log: graphical::parse(LOG).unwrap(),
            turns: None,
        };
        let explanation = Explanation::default();
        let mut viewer = Viewer::new(&game, &explanation, game.frame(0, None).unwrap());
        // 20 columns: the grid's frame gets 10, room for 4 vertices two cells wide, of 5.
        let first_row = |viewer: &mut Viewer| {
            let mut terminal = Terminal::new(TestBackend::new(20, 12)).unwrap();
            terminal.draw(|screen| viewer.draw(screen)).unwrap();
            let buffer = terminal.backend().buffer();
            (0..10).map(|x| buffer[(x, 1)].symbol()).collect::<String>()
        };
        assert_eq!(first_row(&mut viewer), "│a b . . │");
        for _ in 0..4 {
            assert!(viewer.key(KeyCode::Char('l')));
        }
        assert_eq!(first_row(&mut viewer), "│b . . × │");
        assert!(viewer.key(KeyCode::Left));
        assert_eq!(first_row(&mut viewer), "│b . . × │");
        for _ in 0..3 {
            assert!(viewer.key(KeyCode::Left));
        }
        assert_eq!(first_row(&mut viewer), "│a b . . │");
    }

    #[test]
    fn playing_steps_each_turn_then_the_next_round_and_stops_at_the_games_end() {
        let replay = "{\"game\":\"paths\",\"bots\":[\"Random Builder\",\"Checkpoint\"],\
            \"side\":5,\"rounds\":2,\"seed\":1}\n\
            {\"round\":0,\"turn\":0,\"destroy\":[null,null],\"activate\":[[0,4],[1,4]]}\n\
            {\"round\":1,\"turn\":0,\"destroy\":[null,null],\"activate\":[[0,4],null]}\n";
        let game = Game {
            log: graphical::parse(LOG).unwrap(),
            turns: Some(Replay::parse(replay, "replay.jsonl".as_ref()).unwrap()),
        };
        let explanation = Explanation::default();
        let mut viewer = Viewer::new(&game, &explanation, game.frame(0, Some(0)).unwrap());
        assert!(viewer.key(KeyCode::Char(' ')));
        assert!(viewer.key(KeyCode::Char('-')));
        assert_eq!(viewer.turn_interval(), Duration::from_millis(600));
        let mut seen = Vec::new();
        while viewer.playing {
            viewer.tick();
            seen.push((viewer.frame.round, viewer.frame.turn));
        }
        assert_eq!(
            seen,
            [(0, Some(1)), (1, Some(0)), (1, Some(1)), (1, Some(1))]
        );
    }
}
