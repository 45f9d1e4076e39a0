//! The terminal viewers of a rat-race board, a noughts & crosses match and a flag game: real
//! games with a bot that faults part-way, drawn with ratatui's `TestBackend` and stepped with
//! the viewers' keys to the fault, whose reason, an answer's time (the same as the web page
//! embeds) and the bot's stderr must be on screen; and `koth replay DIR --text` of each.

use std::path::{Path, PathBuf};

use koth::replay::tui::View;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::KeyCode;

use crate::flag_game::{play_with, script_bot};
use crate::support::ratrace::faulty_rat_race;
use crate::support::tournament::{koth, repo, succeed};
use crate::viewers::embedded;

const WIDTH: u16 = 130;
const HEIGHT: u16 = 44;
/// The side panel's columns: the last [`tui`]'s side width of the screen, borders and all.
const SIDE: usize = 60;

/// The viewer's screen as text lines.
fn screen(viewer: &mut impl View) -> Vec<String> {
    let mut terminal = Terminal::new(TestBackend::new(WIDTH, HEIGHT)).unwrap();
    terminal.draw(|screen| viewer.draw(screen)).unwrap();
    let buffer = terminal.backend().buffer();
    (0..HEIGHT)
        .map(|y| (0..WIDTH).map(|x| buffer[(x, y)].symbol()).collect())
        .collect()
}

/// The side panel's text, its lines inside their borders joined by spaces: a reason wrapped
/// over several lines reads whole.
fn side(screen: &[String]) -> String {
    screen
        .iter()
        .map(|line| {
            let chars: Vec<char> = line.chars().collect();
            let inner: String = chars[chars.len() - SIDE + 1..chars.len() - 1]
                .iter()
                .collect();
            inner.trim().to_string()
        })
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Asserts that the screen shows `what` on one line.
fn assert_shows(screen: &[String], what: &str) {
    assert!(
        screen.iter().any(|line| line.contains(what)),
        "{what:?} in\n{}",
        screen.join("\n")
    );
}

fn press(viewer: &mut impl View, keys: &[KeyCode]) {
    for &key in keys {
        assert!(viewer.key(key), "{key:?} quits");
    }
}

/// `koth replay` with `args`; returns its stdout, or its stderr if it failed.
fn replay(args: &[&str]) -> Result<String, String> {
    let output = koth().arg("replay").args(args).output().unwrap();
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

#[test]
fn the_rat_race_viewer_steps_to_the_fault_with_its_reason_the_answers_times_and_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let log = faulty_rat_race(dir.path());
    // The page is drawn by the game its folder names, through koth\'s registry.
    koth::games::install();
    let page = koth::replay::page_of(&log, None).unwrap();
    let explained = &embedded(&page, "BOARD")["explanation"];
    let mut viewer =
        koth::games::ratrace::viewer::tui::Viewer::open(&log.join("board-1.replay.json"), Some(0))
            .unwrap();
    let shown = screen(&mut viewer);
    assert_shows(&shown, "Board 1 (seed ");
    assert_shows(&shown, "Turn 0 of 6: population ");
    assert!(
        side(&shown).contains("Turn 0 is the board as placed"),
        "{}",
        shown.join("\n")
    );

    // Turn 1: the answer and its time, as the page has them.
    press(&mut viewer, &[KeyCode::Char('n')]);
    let shown = screen(&mut viewer);
    let first = &explained["answers"][0];
    assert_eq!(first["turn"], 1);
    assert_shows(&shown, "answer in turn 1");
    assert_shows(&shown, &format!("│{} ms", first["ms"]));
    assert_shows(&shown, "1,0 1,0 1,0");

    // On to the fault: turn 6, the board's last frame.
    press(&mut viewer, &[KeyCode::Char('n'); 6]);
    let shown = screen(&mut viewer);
    assert_shows(&shown, "Turn 6 of 6");
    let reason = explained["fault"]["reason"].as_str().unwrap();
    assert!(reason.contains("move 1 is \"hello\""), "{reason}");
    let text = side(&shown);
    assert!(
        text.contains(&format!("bad_output: {reason}")),
        "{reason} in\n{text}"
    );
    assert!(
        text.contains(&format!("turn 6: bad_output: {reason}")),
        "{text}"
    );
    assert_shows(&shown, "hello -1,0");
    assert_shows(&shown, "faulty player: turn 5, ");
    assert_shows(&shown, "stderr: python3 ");

    // The cursor's cell, the legend and the keys.
    assert_shows(&shown, "cell (0, 0)");
    press(&mut viewer, &[KeyCode::Char('l'), KeyCode::Down]);
    let shown = screen(&mut viewer);
    assert_shows(&shown, "cell (1, 1)");
    assert_shows(&shown, "specimen(s) on it now");
    assert_shows(&shown, "a start cell");
    assert_shows(&shown, "n/p next/previous frame");
    assert_shows(&shown, "space play/pause");

    // Home, play and End.
    press(&mut viewer, &[KeyCode::Home, KeyCode::Char(' ')]);
    assert_shows(&screen(&mut viewer), "Turn 0 of 6: population");
    assert_shows(&screen(&mut viewer), "▶ 1×");
    while viewer.playback().playing() {
        viewer.tick();
    }
    assert_shows(&screen(&mut viewer), "Turn 6 of 6");
    press(&mut viewer, &[KeyCode::Home, KeyCode::End]);
    assert_shows(&screen(&mut viewer), "Turn 6 of 6");
    assert!(!viewer.key(KeyCode::Char('q')));
}

/// A bot folder for noughts & crosses that says what it thinks on stderr and answers the centre:
/// its second answer in a game is on a taken square.
fn chatty_centre(root: &Path) -> PathBuf {
    let dir = root.join("chatty");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("bot.sh"),
        "while read -r line; do case \"$line\" in MOVE*) echo \"thinking about ${line#MOVE }\" >&2; \
         echo 4 ;; esac; done\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("bot.toml"),
        "name = \"Chatty Centre\"\nrun = \"bash bot.sh\"\ngames = [\"tictactoe\"]\n",
    )
    .unwrap();
    dir
}

/// Two games of Win or Block against Chatty Centre, seats swapped, each lost by Chatty Centre's
/// answer on the taken centre.
fn faulty_match(root: &Path) -> PathBuf {
    let log = root.join("match");
    succeed(
        koth()
            .args(["menace", "match", "--x"])
            .arg(repo().join("bots/ttt-python"))
            .arg("--o")
            .arg(chatty_centre(root))
            .args(["--games", "2", "--alternate", "--seed", "5"])
            .args(["--timeout-ms", "10000", "--log-dir"])
            .arg(&log),
    );
    log
}

#[test]
fn the_noughts_and_crosses_viewer_steps_to_the_fault_with_its_reason_the_times_and_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let log = faulty_match(dir.path());
    // The page is drawn by the game its folder names, through koth\'s registry.
    koth::games::install();
    let page = koth::replay::page_of(&log, None).unwrap();
    let games = &embedded(&page, "MATCH")["games"];
    let mut viewer = koth::games::menace::viewer::tui::Viewer::open(&log, None, Some(0)).unwrap();
    let shown = screen(&mut viewer);
    assert_shows(
        &shown,
        "Noughts & crosses: Win or Block (Python) against Chatty Centre, 2 game(s)",
    );
    assert_shows(&shown, "Game 1 of 2, move 0 of 2");
    assert!(side(&shown).contains("no move yet"), "{}", shown.join("\n"));

    // Move 1: Win or Block's answer and its time, as the page has them.
    press(&mut viewer, &[KeyCode::Char('n')]);
    let shown = screen(&mut viewer);
    let ms = &games[0]["answers"][0]["ms"];
    assert!(ms.is_u64(), "{games}");
    assert!(
        side(&shown).contains(&format!(
            "Move 1: X Win or Block (Python) answered \"4\" in {ms} ms"
        )),
        "{}",
        side(&shown)
    );

    // Move 2: Chatty Centre's answer on the taken centre, refused, with its reason.
    press(&mut viewer, &[KeyCode::Char('n')]);
    let shown = screen(&mut viewer);
    let text = side(&shown);
    let reason = "answered \"4\" as O: square 4 is taken on ....X....";
    assert!(
        text.contains(&format!(
            "Chatty Centre answered \"4\" in {} ms — bad_output: {reason}",
            games[0]["answers"][1]["ms"]
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "game 1 move 2: Chatty Centre bad_output: {reason}"
        )),
        "{text}"
    );
    assert_shows(&shown, "X Win or Block (Python) wins (lost by fault: ");
    // The faulty bot's stderr is shown first; tab shows the other's.
    assert_shows(&shown, "stderr: Chatty Centre (tab)");
    assert_shows(&shown, "thinking about ....X....");
    // The cursor starts on the centre: taken by X, then asked for again and refused.
    assert_shows(&shown, "square 4 (centre)");
    assert_shows(
        &shown,
        "taken at move 1 by X Win or Block (Python); asked for at move 2",
    );
    assert_shows(&shown, "refused");
    press(&mut viewer, &[KeyCode::Up, KeyCode::Char('h')]);
    let shown = screen(&mut viewer);
    assert_shows(&shown, "square 0 (top left)");
    assert_shows(&shown, "│free");
    assert_shows(&shown, "the square a faulting answer named");
    assert_shows(&shown, "N/P PgDn/PgUp game");

    // The next game, played to its end; tab; playing stops at the match's end.
    press(&mut viewer, &[KeyCode::Char('N'), KeyCode::Tab]);
    let shown = screen(&mut viewer);
    assert_shows(&shown, "Game 2 of 2, move 0 of 3");
    assert_shows(&shown, "stderr: Win or Block (Python) (tab)");
    press(&mut viewer, &[KeyCode::Char(' '), KeyCode::Char('+')]);
    assert_eq!(viewer.playback().interval().as_millis(), 350);
    while viewer.playback().playing() {
        viewer.tick();
    }
    let shown = screen(&mut viewer);
    assert_shows(&shown, "Game 2 of 2, move 3 of 3");
    assert_shows(&shown, "O Win or Block (Python) wins (lost by fault: ");
}

#[test]
fn the_flag_viewer_walks_a_level_and_shows_the_next_level_s_fault_time_and_stderr() {
    let dir = tempfile::tempdir().unwrap();
    // Solves the first level, then answers a walk with a letter that is not a move.
    let bot = script_bot(
        dir.path(),
        "solves-one",
        "n=0; while read -r line; do if [ \"$line\" = SOLVE ]; then n=$((n+1)); \
         if [ $n = 1 ]; then echo DURRDDLL; else echo thinking it over >&2; echo DURX; fi; fi; done\n",
    );
    let logs = dir.path().join("g");
    play_with(&bot, &logs);
    // The page is drawn by the game its folder names, through koth\'s registry.
    koth::games::install();
    let page = koth::replay::page_of(&logs, None).unwrap();
    let levels = &embedded(&page, "GAME")["levels"];
    let mut viewer = koth::games::flag::viewer::tui::Viewer::open(&logs, None, Some(0)).unwrap();
    let shown = screen(&mut viewer);
    assert_shows(&shown, "Reach the flag: solves-one, 1 of 2 level(s) solved");
    assert_shows(&shown, "Level 1 of 2, move 0 of 8");
    assert!(
        side(&shown).contains(&format!(
            "Level 1, 1-ring (flag value -3): the bot answered 8 character(s) in {} ms",
            levels[0]["answer"]["ms"]
        )),
        "{}",
        side(&shown)
    );
    assert_shows(&shown, "The walker stands on the start.");
    assert_shows(&shown, "tile (row 1, column 1)");
    assert_shows(&shown, "grey, never falls, the start; not stepped onto yet");

    press(&mut viewer, &[KeyCode::Char('n')]);
    let shown = screen(&mut viewer);
    assert_shows(
        &shown,
        "Move 1: down — stepped onto (row 2, column 1), which falls",
    );
    assert_shows(&shown, "[D]URRDDLL");
    press(&mut viewer, &[KeyCode::End]);
    assert_shows(&screen(&mut viewer), "Solved, fitness 13");

    // The second level: the fault that scored it as the empty walk, and the bot's stderr.
    press(&mut viewer, &[KeyCode::Char('N')]);
    let shown = screen(&mut viewer);
    assert_shows(&shown, "Level 2 of 2, move 0 of 0");
    let text = side(&shown);
    assert!(
        text.contains("2-dark-centre (flag value -6): the bot answered 4 character(s) in")
            && text.contains(
                "— bad_output: answered \"DURX\" for level 2-dark-centre: character 4 ('X') is \
                 not one of U, D, L, R"
            ),
        "{text}"
    );
    assert!(
        text.contains("level 2 (2-dark-centre): bad_output: answered \"DURX\""),
        "{text}"
    );
    assert_shows(
        &shown,
        "(empty: a level with a fault scores as the empty walk)",
    );
    assert_shows(&shown, "stderr: solves-one");
    assert_shows(&shown, "thinking it over");
    assert_shows(&shown, "× a fallen");
}

#[test]
fn koth_replay_text_prints_a_boards_a_matchs_and_a_flag_games_state_at_a_turn() {
    let dir = tempfile::tempdir().unwrap();

    // A rat-race board after turn 3: the title, 15 rows of 53 cells, the answer of turn 3.
    let log = faulty_rat_race(dir.path());
    let text = replay(&[log.to_str().unwrap(), "--text", "--turn", "3"]).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("Board 1 (seed "), "{text}");
    assert!(lines[1].starts_with("Turn 3 of 6: population "), "{text}");
    for row in &lines[2..17] {
        assert_eq!(row.chars().count(), 2 + 53, "{row:?} in\n{text}");
    }
    assert!(lines[2].ends_with("GGGG"), "the goal: {text}");
    assert_eq!(lines[17], "answer in turn 3:", "{text}");
    assert!(lines[18].trim().ends_with(" ms"), "{text}");
    assert!(text.contains("fault:\n  turn 6: bad_output: "), "{text}");
    assert!(text.contains("faulty player: turn 3,"), "{text}");
    // Its end by default; a turn past it, or a round, is an error naming the file.
    let end = replay(&[log.to_str().unwrap(), "--text"]).unwrap();
    assert!(end.contains("Turn 6 of 6"), "{end}");
    let error = replay(&[log.to_str().unwrap(), "--text", "--turn", "7"]).unwrap_err();
    assert!(
        error.contains("board-1.replay.json: board 1 has turns 0 to 6"),
        "{error}"
    );
    let error = replay(&[log.to_str().unwrap(), "--text", "--round", "1"]).unwrap_err();
    assert!(error.contains("--round does not apply"), "{error}");

    // Noughts & crosses: game 1 after its first move, X on the centre.
    let log = faulty_match(dir.path());
    let text = replay(&[
        log.to_str().unwrap(),
        "--text",
        "--round",
        "1",
        "--turn",
        "1",
    ])
    .unwrap();
    let expected_board = "  0      │1      │2\n         │       │\n         │       │\n  \
        ───────┼───────┼───────\n  3      │4      │5\n         │   X   │\n         │       │\n  \
        ───────┼───────┼───────\n  6      │7      │8\n         │       │\n         │       │\n";
    assert!(
        text.starts_with(&format!(
            "Noughts & crosses: Win or Block (Python) against Chatty Centre, 2 game(s)\n\
             Game 1 of 2, move 1 of 2\n{expected_board}answer:\n  Move 1: X Win or Block \
             (Python) answered \"4\" in "
        )),
        "{text}"
    );
    assert!(!text.contains("result:"), "not at the game's end: {text}");
    // Game 2 at its end: who won, and the fault.
    let text = replay(&[log.to_str().unwrap(), "--text", "--round", "2"]).unwrap();
    assert!(text.contains("Game 2 of 2, move 3 of 3"), "{text}");
    assert!(
        text.contains(
            "result:\n  O Win or Block (Python) wins (lost by fault: answered \"4\" as X: square 4 \
             is taken on O...X....)"
        ),
        "{text}"
    );
    assert!(text.contains("thinking about O...X...."), "{text}");
    let error = replay(&[log.to_str().unwrap(), "--text", "--round", "3"]).unwrap_err();
    assert!(
        error.contains("match/results.json: no game 3: the match has games 1 to 2"),
        "{error}"
    );

    // Flag: the first level after three moves (down, up, right): the walker on row 1, column
    // 2; the tiles it left fallen; each tile stepped onto once so far.
    let bot = script_bot(
        dir.path(),
        "solves-one",
        "n=0; while read -r line; do if [ \"$line\" = SOLVE ]; then n=$((n+1)); \
         if [ $n = 1 ]; then echo DURRDDLL; else echo DURX; fi; fi; done\n",
    );
    let logs = dir.path().join("g");
    play_with(&bot, &logs);
    let text = replay(&[logs.to_str().unwrap(), "--text", "--turn", "3"]).unwrap();
    assert!(
        text.starts_with(
            "Reach the flag: solves-one, 1 of 2 level(s) solved\nLevel 1 of 2, move 3 of 8\n   \
             s¹@×¹ 1\n   ×¹ .  1\n   F  1  1\nanswer:\n  Level 1, 1-ring (flag value -3): the \
             bot answered 8 character(s) in "
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "move:\n  Move 3: right — stepped onto (row 1, column 2), which falls\nthe walk:\n  \
             DU[R]RDDLL\n"
        ),
        "{text}"
    );
    let text = replay(&[logs.to_str().unwrap(), "--text", "--round", "2"]).unwrap();
    assert!(text.contains("Level 2 of 2, move 0 of 0"), "{text}");
    assert!(text.contains("result:\n  Not solved, fitness "), "{text}");
    let error = replay(&[logs.to_str().unwrap(), "--text", "--turn", "9"]).unwrap_err();
    assert!(
        error.contains("g/results.json: level 1 has moves 0 to 8"),
        "{error}"
    );
}

/// `koth replay --help` lists every viewer's keys.
#[test]
fn koth_replay_help_lists_the_keys_of_each_terminal_viewer() {
    let output = succeed(koth().args(["replay", "--help"]));
    let help = String::from_utf8_lossy(&output.stdout);
    for heading in [
        "A paths game (1×: a turn each 0.3 s",
        "A rat-race board (1×: a recorded frame each 0.1 s)",
        "A noughts & crosses match (1×: a move each 0.7 s",
        "A flag game (1×: a move each 0.4 s",
        "  space           play or pause",
        "  N/P PgDn/PgUp   ten frames on / back",
    ] {
        assert!(help.contains(heading), "{heading:?} in\n{help}");
    }
}

/// `koth replay DIR` with no terminal to draw on (a pipe, a script) says so and names the
/// options that work there, with a non-zero exit; it never panics.
#[test]
fn a_viewer_without_a_terminal_names_text_and_html() {
    let tmp = tempfile::tempdir().unwrap();
    let game = tmp.path().join("game");
    succeed(
        koth()
            .args(["menace", "match", "--games", "1", "--x"])
            .arg(repo().join("bots/ttt-python"))
            .arg("--o")
            .arg(repo().join("bots/ttt-js"))
            .arg("--dir")
            .arg(&game),
    );
    let shown = koth()
        .arg("replay")
        .arg(&game)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&shown.stderr);
    assert_eq!(shown.status.code(), Some(1), "{said}");
    assert!(
        said.contains("no terminal") && said.contains("--text") && !said.contains("panicked"),
        "{said}"
    );
}
