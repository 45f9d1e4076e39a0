//! Property tests of every reader of a file or a bot's line: whatever the bytes — a valid
//! sample truncated, overwritten, spliced with random text, huge or negative numbers, invalid
//! UTF-8 — a reader returns `Ok` or `Err` and never panics; where koth has a writer, what it
//! writes reads back the same. Case counts are kept small so the whole file runs in seconds;
//! what the properties found is kept as named tests in `tests/damaged_input.rs` and in the
//! readers' unit tests.

use std::path::Path;
use std::sync::OnceLock;

use proptest::prelude::*;
use proptest::test_runner::Config as Cases;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::KeyCode;

use koth::bot::BotStatus;
use koth::bot::{AnswerStats, BotSpec, roster};
use koth::game::{BotResult, MatchResult};
use koth::games::flag::rules::{Level, moves_to_string, parse_moves as parse_walk};
use koth::games::menace::matchbox::Menace;
use koth::games::menace::protocol::parse_move;
use koth::games::menace::rules::{Board, Mark, square_name};
use koth::games::paths::protocol::Answer;
use koth::games::paths::rules::side;
use koth::games::paths::viewer::graphical;
use koth::games::paths::viewer::turns::Replay;
use koth::games::ratrace::protocol::{parse_lean_moves, parse_moves};
use koth::games::ratrace::recording::BoardRecording;
use koth::games::ratrace::track::Track;
use koth::replay::drive::Script;
use koth::replay::tui::View;
use koth::tournament::config::Config;
use koth::tournament::store::{self, Store};

use crate::support::paths_files;
use crate::support::viewer_files::{FLAG_RESULTS, TICTACTOE_RESULTS};
use paths_files::{LoggedRound, two_bot_game, write_game};

/// `sample` damaged by one to three edits: cut at a byte, text or a number (huge, negative)
/// inserted or written over it, a byte changed (which can break UTF-8).
fn damaged(sample: Vec<u8>) -> impl Strategy<Value = Vec<u8>> {
    let len = sample.len();
    let edit = (0..=len, 0..4u8, "\\PC{0,8}|-?[0-9]{1,25}|\n|\"|\\[|\\]|,");
    prop::collection::vec(edit, 1..4).prop_map(move |edits| {
        let mut text = sample.clone();
        for (at, kind, insert) in edits {
            let at = at.min(text.len());
            match kind {
                0 => text.truncate(at),
                1 => {
                    text.splice(at..at, insert.bytes());
                }
                2 => {
                    let end = (at + insert.len()).min(text.len());
                    text.splice(at..end, insert.bytes());
                }
                _ => {
                    if let Some(byte) = text.get_mut(at) {
                        *byte = byte.wrapping_add(insert.len() as u8 + 0x7f);
                    }
                }
            }
        }
        text
    })
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Bot names, rounds of grid rows and points for a game of 1 to 3 bots.
fn game_strategy() -> impl Strategy<Value = (Vec<String>, Vec<LoggedRound>)> {
    (1..=3usize).prop_flat_map(|bots| {
        let side = side(bots);
        let row = prop::collection::vec(prop::sample::select(vec!['.', ' ', 'a', 'b', 'c']), side)
            .prop_map(|cells| cells.into_iter().collect::<String>());
        let round = (
            prop::collection::vec(row, side),
            prop::collection::vec(any::<u64>(), bots),
        );
        (
            prop::collection::hash_set("[A-Za-z][A-Za-z0-9 _-]{0,10}[A-Za-z0-9]", bots)
                .prop_map(|names| names.into_iter().collect::<Vec<_>>()),
            prop::collection::vec(round, 0..3),
        )
    })
}

/// A sample game's two files, as bytes.
fn sample_game() -> (Vec<u8>, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    two_bot_game(dir.path());
    (
        std::fs::read(dir.path().join("graphical_log.txt")).unwrap(),
        std::fs::read(dir.path().join("replay.jsonl")).unwrap(),
    )
}

const TRANSCRIPT: &str = "# bot Late one\n# round 0\n> 1 BEGIN 2 4 5\n? 1 DESTROY 0\n< 2 NONE\n\
    ? 3 ACTIVATE 0\n< 1500 NONE\n! 1500 timed out: no answer within 1000 ms\n# round 1\n\
    > 1 BEGIN 2 4 5\n? 1 DESTROY 0\n< 2 \n> 3 SCORE 0 0\n\
    ! 1004 timed out: did not exit within 1000 ms after its last message\n";

const LEVEL: &str = "flag-value -16\n# a small level\nS..#\n.#..\n...F\n";

/// What `koth replay` does with a game's folder: every frame as text, and the web page.
fn every_replay_command(dir: &Path) {
    if let Ok(game) = koth::games::paths::viewer::Game::open(dir) {
        for round in 0..game.rounds() {
            for turn in (0..=game.turns_in(round)).map(Some).chain([None]) {
                let frame = game.frame(round, turn).unwrap();
                let _ = game.text(&frame);
            }
        }
        let _ = koth::games::paths::viewer::page(&game, None);
    }
}

proptest! {
    #![proptest_config(Cases::with_cases(256))]

    #[test]
    fn the_graphical_log_reader_never_panics(text in damaged(sample_game().0)) {
        let _ = graphical::parse(&lossy(&text));
    }

    #[test]
    fn replay_files_never_panic_any_replay_command(
        log in damaged(sample_game().0),
        replay in damaged(sample_game().1),
    ) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("graphical_log.txt"), &log).unwrap();
        std::fs::write(dir.path().join("replay.jsonl"), &replay).unwrap();
        every_replay_command(dir.path());
    }

    #[test]
    fn replays_with_any_numbers_never_panic_any_replay_command(
        (bots, replay) in replay_with_any_numbers(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let names: Vec<String> = (0..bots).map(|b| format!("bot {b}")).collect();
        let rows = vec![".".repeat(side(bots)); side(bots)];
        write_game(dir.path(), &names, &[(rows.clone(), vec![1; bots]), (rows, vec![2; bots])]);
        std::fs::write(dir.path().join("replay.jsonl"), replay).unwrap();
        every_replay_command(dir.path());
    }

    #[test]
    fn a_written_game_reads_back_the_same((names, rounds) in game_strategy()) {
        let dir = tempfile::tempdir().unwrap();
        let turns = write_game(dir.path(), &names, &rounds);
        let log = graphical::read(&dir.path().join("graphical_log.txt")).unwrap();
        prop_assert_eq!(&log.bots, &names);
        let read: Vec<_> = log.rounds.iter().map(|r| (r.rows.clone(), r.points.clone())).collect();
        prop_assert_eq!(read, rounds);
        let replay = Replay::read(&dir.path().join("replay.jsonl")).unwrap();
        prop_assert_eq!(replay.turns, turns);
    }

    #[test]
    fn the_transcript_reader_never_panics(text in damaged(TRANSCRIPT.as_bytes().to_vec())) {
        let _ = Script::parse(&lossy(&text), Path::new("t.txt"));
    }

    #[test]
    fn the_tournament_file_reader_never_panics(
        text in damaged(include_bytes!("../../config/tournament-paths.toml").to_vec()),
    ) {
        let path = Path::new("t.toml");
        if let Ok(config) = Config::parse(&lossy(&text), path) {
            let _ = (config.settings.limits(), config.settings.jobs(), config.settings.name(path), config.settings.build_limit());
        }
    }

    #[test]
    fn the_manifest_reader_never_panics(
        text in damaged(include_bytes!("../../bots/paths-column/bot.toml").to_vec()),
    ) {
        if let Ok((spec, _)) = roster::parse_manifest(&lossy(&text), Path::new("/nonexistent")) {
            let _ = (spec.program(), spec.check_runnable());
        }
    }

    #[test]
    fn the_bots_txt_reader_never_panics(text in damaged(include_bytes!("../../bots.txt").to_vec())) {
        // One folder for every case (they run one after another): its bots/ holds the folders
        // the sample names.
        static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
        let dir = DIR.get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            for folder in ["paths-random-builder", "paths-column", "paths-destroyer", "paths-checkpoint"] {
                std::fs::create_dir_all(dir.path().join("bots").join(folder)).unwrap();
            }
            dir
        });
        let path = dir.path().join("bots.txt");
        std::fs::write(&path, &text).unwrap();
        if let Ok(bots) = roster::load_bots_txt(&path) {
            bots.iter().for_each(|b: &BotSpec| { let _ = b.program(); });
        }
    }

    #[test]
    fn paths_answers_never_panic_and_read_back_as_displayed(line in "\\PC{0,30}|VERTEX -?[0-9]{1,22} ?, ?-?[0-9]{1,22}") {
        if let Ok(answer) = Answer::parse(&line) {
            prop_assert_eq!(Answer::parse(&answer.to_string()), Ok(answer));
        }
    }

    #[test]
    fn paths_answers_display_and_parse_back(x in any::<i64>(), y in any::<i64>()) {
        prop_assert_eq!(Answer::parse(&Answer::Vertex(x, y).to_string()), Ok(Answer::Vertex(x, y)));
    }

    #[test]
    fn ratrace_answers_never_panic(line in "([-+]?[01]?,?[-+]?[01]?[ \t]?){0,12}|\\PC{0,40}", expected in 0..8usize) {
        let mut moves = Vec::new();
        if parse_moves(&line, expected, &mut moves).is_ok() {
            prop_assert_eq!(moves.len(), expected);
            prop_assert!(moves.iter().all(|&(dx, dy)| (-1..=1).contains(&dx) && (-1..=1).contains(&dy)));
        }
    }

    #[test]
    fn ratrace_moves_written_by_a_bot_read_back(
        moves in prop::collection::vec((-1i8..=1, -1i8..=1), 0..40),
        spaced in any::<bool>(),
    ) {
        let separator = if spaced { " \t " } else { " " };
        let line = moves.iter().map(|(dx, dy)| format!("{dx},{dy}")).collect::<Vec<_>>().join(separator);
        let mut read = Vec::new();
        parse_moves(&line, moves.len(), &mut read).unwrap();
        prop_assert_eq!(read, moves);
    }

    #[test]
    fn lean_ratrace_answers_never_panic_and_read_back(line in "[0-9]{0,12}|\\PC{0,40}", expected in 0..14usize) {
        let mut moves = Vec::new();
        if parse_lean_moves(&line, expected, &mut moves).is_ok() {
            prop_assert_eq!(moves.len(), expected);
            let digits: String = moves.iter().map(|&(dx, dy)| char::from(b'0' + (3 * (dy + 1) + dx + 1) as u8)).collect();
            prop_assert_eq!(digits, line);
        }
    }

    #[test]
    fn noughts_and_crosses_answers_never_panic(line in "\\PC{0,6}|[0-9]{1,25}") {
        let empty = Board::empty();
        if let Ok(square) = parse_move(&line, &empty, Mark::O) {
            prop_assert!(square < 9);
            prop_assert_eq!(parse_move(&square_name(square), &empty, Mark::O), Ok(square));
        }
    }

    #[test]
    fn flag_answers_never_panic_and_read_back(line in "[UDLR]{0,20}|\\PC{0,20}") {
        if let Ok(moves) = parse_walk(&line) {
            prop_assert_eq!(moves_to_string(&moves), line);
        }
    }

    #[test]
    fn the_level_reader_never_panics(text in damaged(LEVEL.as_bytes().to_vec())) {
        let _ = Level::parse("fuzz", &lossy(&text));
    }
}

proptest! {
    // These cases write and read files of some size: fewer of them.
    #![proptest_config(Cases::with_cases(48))]

    #[test]
    fn the_matchbox_reader_never_panics(
        text in damaged(Menace::new([4, 3, 2, 1]).to_text().into_bytes()),
    ) {
        let _ = Menace::from_text(&lossy(&text), "boxes.txt");
    }

    #[test]
    fn the_board_recording_reader_never_panics(text in damaged(sample_recording())) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("board-1.replay.json");
        std::fs::write(&path, &text).unwrap();
        if let Ok(recording) = BoardRecording::read(&path) {
            let _ = koth::games::ratrace::viewer::board_page(&recording, None, &[]);
        }
        if let Ok(mut viewer) = koth::games::ratrace::viewer::tui::Viewer::open(&path, None) {
            look_around(&mut viewer);
        }
    }

    #[test]
    fn the_noughts_and_crosses_viewer_reads_any_results(text in damaged(TICTACTOE_RESULTS.as_bytes().to_vec())) {
        viewer_of_results(&text);
    }

    #[test]
    fn the_flag_viewer_reads_any_results(text in damaged(FLAG_RESULTS.as_bytes().to_vec())) {
        viewer_of_results(&text);
    }

    #[test]
    fn a_tampered_results_database_is_refused_or_read(
        statements in prop::collection::vec(tampering(), 1..4),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(store::FILE);
        std::fs::write(&path, sample_database_bytes()).unwrap();
        let conn = rusqlite::Connection::open(&path).unwrap();
        for statement in &statements {
            // A statement the database refuses (a broken constraint) is simply not applied.
            let _ = conn.execute_batch(statement);
        }
        drop(conn);
        if let Ok(store) = Store::open(&path) {
            read_everything(&store);
        }
    }

    #[test]
    fn a_damaged_results_database_is_refused_or_read(
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
    ) {
        let mut bytes = sample_database_bytes();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(store::FILE);
        for (at, byte) in edits {
            let at = at.index(bytes.len());
            bytes[at] = byte;
        }
        std::fs::write(&path, &bytes).unwrap();
        if let Ok(store) = Store::open(&path) {
            read_everything(&store);
        }
    }
}

/// A number as a damaged file may hold it: mostly small, sometimes anything, negative or huge.
fn any_number() -> impl Strategy<Value = serde_json::Value> {
    prop_oneof![
        4 => (0..8u64).prop_map(serde_json::Value::from),
        1 => any::<u64>().prop_map(serde_json::Value::from),
        1 => any::<i64>().prop_map(serde_json::Value::from),
        1 => Just(serde_json::Value::from(u64::MAX)),
    ]
}

/// The number of bots of a game and a `replay.jsonl` for it whose every number may be wrong: a
/// side that is not the bots', rounds, turns and vertices anywhere, a choice too many or few.
fn replay_with_any_numbers() -> impl Strategy<Value = (usize, String)> {
    (1..=3usize).prop_flat_map(|bots| {
        let side = prop_oneof![3 => Just(serde_json::Value::from(side(bots))), 1 => any_number()];
        let choices = move || {
            let vertex = prop::option::of(
                (any_number(), any_number()).prop_map(|(x, y)| serde_json::json!([x, y])),
            );
            prop::collection::vec(vertex, bots.saturating_sub(1)..=bots + 1)
        };
        let turn = (any_number(), any_number(), choices(), choices());
        (
            Just(bots),
            side,
            any_number(),
            prop::collection::vec(turn, 0..6),
        )
            .prop_map(|(bots, side, rounds, turns)| {
                let names: Vec<String> = (0..bots).map(|b| format!("bot {b}")).collect();
                let header = serde_json::json!({
                    "game": "paths", "bots": names, "side": side, "rounds": rounds, "seed": 1
                });
                let mut text = header.to_string() + "\n";
                for (round, turn, destroy, activate) in turns {
                    let record = serde_json::json!({
                        "round": round, "turn": turn, "destroy": destroy, "activate": activate
                    });
                    text += &(record.to_string() + "\n");
                }
                (bots, text)
            })
    })
}

/// An SQL statement that tampers with one thing of a tournament database, with any value.
fn tampering() -> impl Strategy<Value = String> {
    let value = prop_oneof![
        (-2..5i64).prop_map(|n| n.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        Just("NULL".to_string()),
        prop::sample::select(vec!["1e999", "-1e999", "1e300", "0.5"]).prop_map(String::from),
        "'[a-z\\[\\]\",]{0,8}'",
        Just("x'00ff'".to_string()),
    ];
    let target = prop::sample::select(vec![
        "UPDATE seats SET bot = {}",
        "UPDATE results SET bot = {}",
        "UPDATE results SET seat = {}",
        "UPDATE results SET status = {}",
        "UPDATE results SET score = {}",
        "UPDATE bots SET id = {} WHERE id = 1",
        "UPDATE bots SET command = {}",
        "UPDATE bots SET name = {}",
        "UPDATE games SET idx = {} WHERE idx = 2",
        "UPDATE games SET seed = {}",
        "UPDATE games SET state = {}",
        "UPDATE meta SET value = {}",
        "DELETE FROM meta WHERE key = 'seed' OR {} IS NULL",
        "DELETE FROM bots WHERE id = {}",
        "DROP TABLE results -- {}",
        "ALTER TABLE games DROP COLUMN wall_ms -- {}",
    ]);
    (target, value).prop_map(|(target, value)| target.replace("{}", &value))
}

/// A rat-race board recording with a few frames, as bytes.
/// The viewer page of a game folder holding only `results` as its `results.json`: a page or an
/// error, never a panic.
fn viewer_of_results(results: &[u8]) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("results.json"), results).unwrap();
    let _ = koth::replay::page_of(dir.path(), None);
    // The terminal viewers read the same data: each opens or refuses, then draws.
    if let Ok(mut viewer) = koth::games::menace::viewer::tui::Viewer::open(dir.path(), None, None) {
        look_around(&mut viewer);
    }
    if let Ok(mut viewer) = koth::games::flag::viewer::tui::Viewer::open(dir.path(), None, None) {
        look_around(&mut viewer);
    }
}

/// Draws `viewer`, and again after each key that moves it, and prints it as text.
fn look_around(viewer: &mut impl View) {
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    let _ = viewer.text();
    for key in [
        KeyCode::Home,
        KeyCode::Char('n'),
        KeyCode::Right,
        KeyCode::Down,
        KeyCode::End,
        KeyCode::Char('N'),
        KeyCode::Char('p'),
        KeyCode::Tab,
    ] {
        terminal.draw(|screen| viewer.draw(screen)).unwrap();
        viewer.key(key);
        viewer.tick();
    }
    let _ = viewer.text();
}

fn sample_recording() -> Vec<u8> {
    let track = Track::generate(&mut koth::seed::rng(1, 0));
    let mut recording = BoardRecording::new("fuzz", 0, 1, &track);
    recording
        .frames
        .push(koth::games::ratrace::recording::Frame {
            turn: 0,
            population: 3,
            points: 1,
            cells: vec![0, 2, 40, 1],
        });
    serde_json::to_vec(&recording).unwrap()
}

/// What status, leaderboard and resume read from a database, used as they use it: every
/// scheduled seat and stored result names one of the bots.
fn read_everything(store: &Store) {
    let _ = store.progress();
    // A tournament folder that does not exist: no game folder to read a breakdown from.
    let _ = koth::tournament::leaderboard_of(store, std::path::Path::new("/nonexistent/koth"));
    if let (Ok(bots), Ok(games), Ok(results)) = (store.bots(), store.schedule(), store.results()) {
        for bot in &bots {
            let _ = bot.program();
        }
        for seat in games.iter().flat_map(|g| &g.seats) {
            let _ = &bots[*seat];
        }
        for result in &results {
            let _ = &bots[result.bot];
        }
    }
}

/// The bytes of [`sample_database`], made once.
fn sample_database_bytes() -> Vec<u8> {
    static SAMPLE: OnceLock<Vec<u8>> = OnceLock::new();
    SAMPLE
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            std::fs::read(sample_database(dir.path())).unwrap()
        })
        .clone()
}

/// A tournament database of three bots and four games in `dir`, closed (its log checkpointed).
fn sample_database(dir: &Path) -> std::path::PathBuf {
    let path = dir.join(store::FILE);
    let bot = |name: &str| BotSpec {
        name: name.into(),
        dir: dir.into(),
        command: vec!["true".into()],
        build: None,
        origin: "fuzz".into(),
        sandbox: None,
        benched: None,
        data: None,
        protocols: Default::default(),
    };
    let meta = [
        ("name", "fuzz".to_string()),
        ("game", "paths".into()),
        ("seed", "1".into()),
    ];
    let schedule = koth::tournament::schedule::schedule(3, 2, 4, 1);
    let store = Store::create(&path, &meta, &[bot("a"), bot("b"), bot("c")], &schedule).unwrap();
    let result = MatchResult {
        game: "paths".into(),
        seed: schedule[0].seed,
        bots: ["x", "y"]
            .iter()
            .map(|name| BotResult {
                name: name.to_string(),
                score: 3.0,
                status: BotStatus::Finished,
                faults: vec![],
                fault_counts: Default::default(),
                timing: AnswerStats::default(),
            })
            .collect(),
    };
    let me = store::Claimant::new(30);
    let first = store.claim(&me, &[], 3).unwrap().unwrap();
    assert_eq!(first.game, schedule[0]);
    let recorded = store.record_result(
        &first.game,
        first.attempt,
        &result,
        5.0,
        dir,
        &Default::default(),
    );
    assert!(recorded.unwrap());
    let second = store.claim(&me, &[], 3).unwrap().unwrap();
    store
        .record_harness_fault(second.game.index, second.attempt, "boom", false)
        .unwrap();
    drop(store);
    path
}
