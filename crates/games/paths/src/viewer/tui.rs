//! The terminal viewer of a paths game: steps and plays through rounds and turns, owners
//! coloured, and explains each turn from the same data as the web viewer (`replay.jsonl` and
//! [`Explanation`]): every bot's answers with how long each took, the turn's faults with their
//! reasons, a chosen bot's last stderr lines, the vertices the round's paying searches ran
//! through (at its end), and the owners and history of the vertex under a cursor.

use std::collections::HashMap;

use koth_replay::tui::ratatui::Frame as Screen;
use koth_replay::tui::ratatui::crossterm::event::KeyCode;
use koth_replay::tui::ratatui::layout::{Constraint, Layout, Rect};
use koth_replay::tui::ratatui::style::{Color, Modifier, Style};
use koth_replay::tui::ratatui::text::{Line, Span};
use koth_replay::tui::ratatui::widgets::{Block, Paragraph, Row, Table, Wrap};

use super::Explanation;
use super::{Frame, Game};
use crate::log::TurnRecord;
use crate::rules::letter;
use koth_replay::tui::{self, CURSOR_KEYS, Keys, Panel, Playback, STDERR_KEY, View};

/// The viewer's own keys.
pub const KEYS: Keys = Keys {
    game: "A paths game",
    normal_speed: "a turn each 0.3 s, round after round",
    keys: &[
        (
            CURSOR_KEYS,
            "cursor",
            "move the cursor: its vertex's owners and history, and at a round's end its paying searches",
        ),
        ("n/p", "next/previous turn", "the next / previous turn"),
        (
            "N/P PgDn/PgUp",
            "round",
            "the next / previous round (at its start, or at its end if shown at its end)",
        ),
        ("z/Z", "zoom", "wider / narrower vertices"),
        STDERR_KEY,
    ],
};

/// How long a turn shows at 1×.
const TURN_MS: u32 = 300;

/// Terminal cells per vertex, horizontally: the most, and at the start.
const MAX_ZOOM: usize = 6;
const START_ZOOM: usize = 2;

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
    playback: Playback,
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
            playback: Playback::new(TURN_MS),
            zoom: START_ZOOM,
            scroll: (0, 0),
            bot: faulty.unwrap_or(0),
        }
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
            " Round {}/{} {turn} · {} ",
            self.frame.round + 1,
            self.game.rounds(),
            self.playback.label()
        );
        Paragraph::new(lines).block(Block::bordered().title(title))
    }

    /// Vertex `vertex` drawn from its letter `c` in the graphical log's rows.
    fn cell(&self, c: char, vertex: (usize, usize), paid: bool) -> Span<'static> {
        let owner = (0..self.game.log.bots.len()).find(|&b| letter(b) == c);
        let (mark, mut style) = match (c, owner) {
            (_, Some(b)) => (c, owner_style(b)),
            (' ', None) => (BROKEN, tui::DIM),
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
        let title = self.answers_title();
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

    fn answers_title(&self) -> String {
        let played = self.played().filter(|&t| self.record(t).is_some());
        match (&self.game.turns, played) {
            (None, _) => " answers: no replay.jsonl ".to_string(),
            (_, Some(turn)) => format!(" answers in turn {} ", turn + 1),
            (_, None) => " answers: none yet this round ".to_string(),
        }
    }

    /// [`answers`](Self::answers) as lines, for `--text`: each bot's broken and activated
    /// vertex with the ms each answer took, or the fault that stands in its place.
    fn answer_lines(&self) -> Vec<Line<'static>> {
        let Some((turn, record)) = self.played().and_then(|t| Some((t, self.record(t)?))) else {
            return Vec::new();
        };
        let round = self.frame.round;
        let vertex =
            |v: Option<(usize, usize)>| v.map_or("–".to_string(), |(x, y)| format!("({x},{y})"));
        let lines = self.game.log.bots.iter().enumerate().map(|(b, name)| {
            let [destroy_ms, activate_ms] = self.explanation.times_at(round, turn, b);
            let fault = self
                .explanation
                .faults_at(round, turn)
                .find(|f| f.bot == name)
                .map(|f| f.kind.to_string());
            let took = |ms: Option<u64>, fault: Option<&String>| match (ms, fault) {
                (Some(ms), _) => format!("{ms} ms"),
                (None, Some(fault)) => fault.clone(),
                (None, None) => "no answer".to_string(),
            };
            Line::raw(format!(
                "{} {name}: broke {} ({}), activated {} ({})",
                letter(b),
                vertex(record.destroy.get(b).copied().flatten()),
                took(destroy_ms, fault.as_ref()),
                vertex(record.activate.get(b).copied().flatten()),
                took(activate_ms, fault.as_ref().filter(|_| destroy_ms.is_some())),
            ))
        });
        lines.collect()
    }

    fn faults_title(&self) -> String {
        let total = self.explanation.faults.len();
        match self.played() {
            Some(turn) => format!(" faults in turn {} ({total} in the game) ", turn + 1),
            None => format!(" faults ({total} in the game) "),
        }
    }

    /// The faults of the turn just played, each with its bot, kind and reason.
    fn faults(&self) -> Vec<Line<'static>> {
        let Some(turn) = self.played() else {
            return Vec::new();
        };
        tui::or_none(
            self.explanation
                .faults_at(self.frame.round, turn)
                .map(|fault| tui::fault_line("", fault.bot, fault.kind, fault.reason, false))
                .collect(),
        )
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
            lines.push(Line::raw(format!(
                "turn {}: {what} by {name}",
                event.turn + 1
            )));
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
        tui::stderr_panel(name, text, height, true)
    }

    /// What the grid's colours and marks mean.
    fn legend(&self) -> Line<'static> {
        let mut spans: Vec<Span> = Vec::new();
        for (b, name) in self.game.log.bots.iter().enumerate() {
            spans.extend(tui::legend_entry(
                format!(" {} ", letter(b)),
                owner_style(b),
                name,
            ));
        }
        spans.extend(tui::legend_entry(BROKEN, tui::DIM, "broken"));
        spans.extend(tui::legend_entry(".", Style::new(), "not active"));
        spans.extend(tui::legend_entry(
            format!("a{PAID}"),
            Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
            "on a paying search (round's end)",
        ));
        spans.push(Span::raw("a vertex shows its first owner"));
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

    /// One turn on, or the next round's start; it stops playing at the game's end.
    fn advance(&mut self) {
        let available = self.game.turns_in(self.frame.round);
        match self.frame.turn {
            Some(t) if t < available => self.step_turn(true),
            _ if self.frame.round + 1 < self.game.rounds() => {
                let turn = (available > 0).then_some(0);
                self.show(self.frame.round + 1, turn);
            }
            _ => self.playback.stop(),
        }
    }
}

impl View for Viewer<'_> {
    /// Draws the grid, the side panel (points, answers, faults, the cursor's vertex, stderr),
    /// the legend and the keys.
    fn draw(&mut self, screen: &mut Screen) {
        let (main, legend_area) = tui::screen_areas(screen, 1, &KEYS);
        let [grid_area, side_area] = tui::board_and_side(main);
        self.follow_cursor(grid_area);
        screen.render_widget(self.grid(), grid_area);
        self.draw_side(screen, side_area);
        screen.render_widget(Paragraph::new(self.legend()), legend_area);
    }

    fn key(&mut self, code: KeyCode) -> bool {
        let side = self.side();
        let bots = self.game.log.bots.len().max(1);
        if let Some((right, down)) = tui::cursor_step(code) {
            // Rows go up the grid: (0, 0) is its bottom-left vertex.
            self.cursor = (
                tui::moved(self.cursor.0, right, side),
                tui::moved(self.cursor.1, -down, side),
            );
            return true;
        }
        if self.playback.key(code) {
            return true;
        }
        match code {
            KeyCode::Char('q') | KeyCode::Esc => return false,
            KeyCode::Char('n') => self.step_turn(true),
            KeyCode::Char('p') => self.step_turn(false),
            KeyCode::Char('N') | KeyCode::PageDown => self.step_round(true),
            KeyCode::Char('P') | KeyCode::PageUp => self.step_round(false),
            KeyCode::Char('z') => self.zoom = (self.zoom + 1).min(MAX_ZOOM),
            KeyCode::Char('Z') => self.zoom = (self.zoom - 1).max(1),
            KeyCode::Tab => self.bot = (self.bot + 1) % bots,
            KeyCode::BackTab => self.bot = (self.bot + bots - 1) % bots,
            _ => {}
        }
        true
    }

    /// Playing advances one turn, then to the next round's start; it stops at the game's end.
    fn tick(&mut self) {
        self.advance();
    }

    fn playback(&self) -> &Playback {
        &self.playback
    }

    /// The round or turn shown, as `koth replay --text` prints it: the grid and points, then
    /// what the side panels show (each bot's answers in the turn with their times, the turn's
    /// faults) and every bot's last stderr lines.
    fn text(&self) -> String {
        let mut panels = vec![
            Panel::new(self.answers_title().trim(), self.answer_lines()),
            Panel::new(self.faults_title().trim(), self.faults()),
        ];
        for (bot, name) in self.game.log.bots.iter().enumerate() {
            let text = self.explanation.stderr.get(bot).map_or("", String::as_str);
            panels.push(tui::stderr_text(name, text));
        }
        tui::text(self.game.text(&self.frame).trim_end(), &[], &panels)
    }
}

#[cfg(test)]
mod tests {
    use super::super::graphical;
    use super::super::turns::Replay;
    use super::*;
    use koth_replay::tui::ratatui::Terminal;
    use koth_replay::tui::ratatui::backend::TestBackend;

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
        assert!(screen[0].contains("Round 1/2 end · 1×"), "{screen:#?}");
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
        assert!(screen[0].contains("Round 2/2 end"), "{screen:#?}");
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
        assert_eq!(
            viewer.playback().interval(),
            std::time::Duration::from_millis(600)
        );
        let mut seen = Vec::new();
        while viewer.playback().playing() {
            viewer.tick();
            seen.push((viewer.frame.round, viewer.frame.turn));
        }
        assert_eq!(
            seen,
            [(0, Some(1)), (1, Some(0)), (1, Some(1)), (1, Some(1))]
        );
    }
}
