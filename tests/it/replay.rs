//! Replays read back from real games of `koth paths` among copies of the sample bots.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use koth::bot::Transcript;
use koth::games::paths::viewer::Game;
use koth::games::paths::viewer::graphical;
use koth::games::paths::viewer::tui::Viewer;
use koth::games::paths::viewer::turns::Replay;
use koth::replay::tui::View;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::KeyCode;
use serde_json::Value;

use crate::support::arena;
use crate::support::paths_bots;
use crate::support::ratrace;
use crate::support::survivors;
use arena::arena;
use paths_bots::{paths_bot, test_bot_command};
use ratrace::ratrace;

const KOTH: &str = env!("CARGO_BIN_EXE_koth");

/// Plays a 3-round game (seed 1) in a temporary copy of the `paths-*` sample bots and returns
/// the temporary folder and the game's log folder.
fn played_game() -> (tempfile::TempDir, PathBuf) {
    let dir = arena();
    let out = dir.path().join("out");
    let output = Command::new(KOTH)
        .args([
            "paths",
            "--rounds",
            "3",
            "--seed",
            "1",
            "--timeout-ms",
            "10000",
        ])
        .arg("--log-dir")
        .arg(&out)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "koth failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    (dir, out)
}

#[test]
fn a_real_log_reads_back_to_the_results_and_the_turns_rebuild_its_grids() {
    let (_dir, out) = played_game();
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let log = graphical::read(&out.join("graphical_log.txt")).unwrap();

    let bots: Vec<String> = serde_json::from_value(results["bots"].clone()).unwrap();
    let points: Vec<Vec<u64>> = serde_json::from_value(results["points"].clone()).unwrap();
    let totals: Vec<u64> = serde_json::from_value(results["totals"].clone()).unwrap();
    assert_eq!(log.bots, bots);
    assert_eq!(log.rounds_announced, 3);
    assert_eq!(log.rounds.len(), 3);
    let read_points: Vec<Vec<u64>> = log.rounds.iter().map(|r| r.points.clone()).collect();
    assert_eq!(read_points, points);
    for (name, total) in &log.standings {
        let index = bots.iter().position(|b| b == name).unwrap();
        assert_eq!(*total, totals[index], "{name}");
    }
    assert_eq!(log.standings.len(), bots.len());

    let replay = Replay::read(&out.join("replay.jsonl")).unwrap();
    assert_eq!(replay.header.bots, bots);
    assert_eq!(replay.header.seed, 1);
    let n = bots.len();
    for round in &log.rounds {
        assert_eq!(replay.turns_in(round.index), n * n);
        let rebuilt = replay.grid(round.index, n * n).rows();
        assert_eq!(rebuilt, round.rows, "round {}", round.index);
        // Something happened: the grid at the end is not the empty grid.
        assert_ne!(rebuilt, replay.grid(round.index, 0).rows());
        // The round's paying vertices account for every point: each owner of a vertex earned
        // one point per paying search through it.
        let grid = replay.grid(round.index, n * n);
        let paid = &replay
            .paid
            .iter()
            .find(|p| p.round == round.index)
            .expect("every round records its paying vertices")
            .paid;
        let earned: Vec<u64> = (0..n)
            .map(|bot| {
                paid.iter()
                    .filter(|&&(x, y, _)| match grid.cell((x, y)) {
                        koth::games::paths::rules::Cell::Active(owners) => owners >> bot & 1 == 1,
                        _ => false,
                    })
                    .map(|&(_, _, searches)| u64::from(searches))
                    .sum()
            })
            .collect();
        assert_eq!(earned, round.points, "round {}", round.index);
    }
}

#[test]
fn koth_replay_text_prints_a_round_and_a_turn() {
    let (_dir, out) = played_game();
    let log = graphical::read(&out.join("graphical_log.txt")).unwrap();
    // Rounds count from 1 as a person reads them: round 3 is the log's `Round 2`.
    let replay = koth(&[out.to_str().unwrap(), "--round", "3", "--text"]);
    let lines: Vec<&str> = replay.lines().collect();
    assert_eq!(lines[0], "Round 3 of 3, end");
    let side = log.side();
    let rows: Vec<String> = lines[1..=side].iter().map(|l| l[2..].to_string()).collect();
    assert_eq!(rows, log.rounds[2].rows);
    let first = format!(
        "a {}: {} points, total {}",
        log.bots[0],
        log.rounds[2].points[0],
        log.rounds.iter().map(|r| r.points[0]).sum::<u64>()
    );
    assert_eq!(lines[side + 1], first);

    let turn = koth(&[
        out.to_str().unwrap(),
        "--round",
        "2",
        "--turn",
        "2",
        "--text",
    ]);
    let replay = Replay::read(&out.join("replay.jsonl")).unwrap();
    let expected: String = replay
        .grid(1, 2)
        .rows()
        .iter()
        .map(|r| format!("  {r}\n"))
        .collect();
    assert!(turn.starts_with("Round 2 of 3, after turn 2 of "), "{turn}");
    assert!(turn.contains(&expected), "{turn}");

    // The graphical log alone (no replay.jsonl) still shows rounds, and says what turns need.
    let lone = out.join("lone");
    std::fs::create_dir(&lone).unwrap();
    std::fs::copy(
        out.join("graphical_log.txt"),
        lone.join("graphical_log.txt"),
    )
    .unwrap();
    let output = Command::new(KOTH)
        .args(["replay", "--turn", "1", "--text"])
        .arg(lone.join("graphical_log.txt"))
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("replay.jsonl"), "{stderr}");
}

/// `koth replay ARGS`, which must succeed; returns its stdout.
fn koth(args: &[&str]) -> String {
    let (code, stdout, stderr) = replay_status(args);
    assert_eq!(code, 0, "koth replay failed: {stderr}");
    stdout
}

/// Runs headless Chromium on `page` with `args`, in a throw-away profile.
pub(crate) fn chromium(profile: &Path, args: &[&str], page: &str) -> Output {
    Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--virtual-time-budget=2000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(page)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run chromium ({e}): run scripts/test.sh, which installs it")
        })
}

#[test]
fn the_web_viewer_shows_the_asked_turn_and_scores_in_chromium() {
    let (dir, out) = played_game();
    let page = dir.path().join("game.html");
    koth(&[out.to_str().unwrap(), "--html", page.to_str().unwrap()]);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "the page must need no network"
    );
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let points: Vec<Vec<u64>> = serde_json::from_value(results["points"].clone()).unwrap();
    let profile = dir.path().join("chromium-profile");

    // Mid-round: the turn asked for, no points yet, totals of the rounds before.
    // Rounds count from 1, as a person reads them: round 2 is the log's `Round 1`.
    let url = format!("file://{}?round=2&turn=2", page.display());
    let output = chromium(&profile, &["--dump-dom"], &url);
    let dom = String::from_utf8_lossy(&output.stdout);
    assert!(dom.contains(r#"<span id="round">2</span>"#), "{dom}");
    assert!(dom.contains(r#"<span id="turn">2</span>"#), "{dom}");
    for (bot, round0) in points[0].iter().enumerate() {
        assert!(
            dom.contains(&format!(r#"<td id="points-{bot}">-</td>"#)),
            "{dom}"
        );
        assert!(
            dom.contains(&format!(r#"<td id="total-{bot}">{round0}</td>"#)),
            "{dom}"
        );
    }

    // A round's end: its points and the running totals.
    let url = format!("file://{}?round=3", page.display());
    let output = chromium(&profile, &["--dump-dom"], &url);
    let dom = String::from_utf8_lossy(&output.stdout);
    for bot in 0..points[0].len() {
        let total: u64 = points.iter().map(|p| p[bot]).sum();
        assert!(
            dom.contains(&format!(r#"<td id="points-{bot}">{}</td>"#, points[2][bot])),
            "{dom}"
        );
        assert!(
            dom.contains(&format!(r#"<td id="total-{bot}">{total}</td>"#)),
            "{dom}"
        );
    }

    // Cargo's scratch folder for integration tests (target/tmp), kept for a person to look at.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("replay-screenshot.png");
    let shot = format!("--screenshot={}", target.display());
    let url = format!("file://{}?round=2&turn=3", page.display());
    let _ = std::fs::remove_file(&target);
    chromium(&profile, &[&shot, "--window-size=1000,800"], &url);
    let png = std::fs::read(&target).expect("chromium wrote no screenshot");
    assert!(png.len() > 1000 && png.starts_with(b"\x89PNG\r\n\x1a\n"));
}

/// Plays a 2-round game (seed 3) of the column sample bot against a bot that answers its third
/// prompt of each round too late, into `dir/out`, and returns that log folder.
fn game_with_a_late_bot(dir: &Path) -> PathBuf {
    let out = dir.join("out");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = Command::new(KOTH)
        .args([
            "paths",
            "--rounds",
            "2",
            "--seed",
            "3",
            "--timeout-ms",
            "300",
        ])
        .arg("--bot")
        .arg(repo.join("bots/paths-column"))
        .arg("--bot")
        .arg(repo.join("tests/bots/late"))
        .arg("--log-dir")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    out
}

#[test]
fn the_web_viewer_explains_a_turn_its_answers_their_times_and_a_fault_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    let out = game_with_a_late_bot(dir.path());
    let page = dir.path().join("game.html");
    koth(&[out.to_str().unwrap(), "--html", page.to_str().unwrap()]);
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let fault = &results["faults"][0];
    let (round, turn) = (
        fault["round"].as_u64().unwrap(),
        fault["turn"].as_u64().unwrap(),
    );
    let reason = fault["reason"].as_str().unwrap();
    // The grid just after the turn of the late bot's fault.
    let url = format!(
        "file://{}?round={}&turn={}",
        page.display(),
        round + 1,
        turn + 1
    );
    let profile = dir.path().join("chromium-profile");
    let dom =
        String::from_utf8_lossy(&chromium(&profile, &["--dump-dom"], &url).stdout).into_owned();
    // Turns are numbered from 1 wherever a person reads them: the fault's turn (0-based in the
    // protocol and results.json) is the grid's "turn N of M" and its answers' "turn N".
    assert!(
        dom.contains(&format!("Answers in turn {}", turn + 1)),
        "{dom}"
    );
    // So are rounds: the fault is listed at the place the game's report names.
    assert!(
        dom.contains(&format!("round {} turn {}: ", round + 1, turn + 1)),
        "{dom}"
    );
    // Every fault is listed with its reason; the one of this turn is marked, and stands in its
    // bot's answer row.
    assert!(dom.contains(reason), "{dom}");
    assert!(
        dom.contains(r#"<li data-round=""#) && dom.contains(r#"class="now""#),
        "{dom}"
    );
    assert!(
        dom.contains(r#"<span class="fault">timed_out</span></td>"#),
        "{dom}"
    );
    // The column bot answered, its time is shown from its transcript: a number in the ms cells.
    let column_row = dom
        .split("<tr>")
        .find(|row| row.contains("Column") && row.contains("<td>("))
        .unwrap_or_else(|| panic!("a row of Column's answers in {dom}"));
    let cells: Vec<&str> = column_row.split("<td>").skip(1).collect();
    assert!(
        cells
            .iter()
            .any(|c| c.split('<').next().unwrap().parse::<u64>().is_ok()),
        "{column_row}"
    );
    assert!(
        dom.contains("speed") && dom.contains("broken"),
        "controls and legend: {dom}"
    );
}

/// The terminal viewer's screen in tests: wide enough for its side panel's whole width.
const WIDTH: u16 = 130;
const HEIGHT: u16 = 34;

/// The terminal viewer's screen, `width` × `height`, as text lines.
fn tui_screen(viewer: &mut Viewer, width: u16, height: u16) -> Vec<String> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|screen| viewer.draw(screen)).unwrap();
    let buffer = terminal.backend().buffer();
    (0..height)
        .map(|y| (0..width).map(|x| buffer[(x, y)].symbol()).collect())
        .collect()
}

#[test]
fn the_terminal_viewer_explains_a_turn_its_answers_a_fault_the_stderr_and_a_vertex() {
    let dir = tempfile::tempdir().unwrap();
    let out = game_with_a_late_bot(dir.path());
    let game = Game::open(&out).unwrap();
    let explanation = game.explanation(&out);
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let fault = &results["faults"][0];
    let turn = fault["turn"].as_u64().unwrap() as usize;
    let reason = fault["reason"].as_str().unwrap();
    // Round 0 just after the late bot's fault.
    let mut viewer = Viewer::new(&game, &explanation, game.frame(0, Some(turn + 1)).unwrap());
    let screen = tui_screen(&mut viewer, WIDTH, HEIGHT);
    let text = screen.join("\n");
    let shows = |what: &str| screen.iter().any(|line| line.contains(what));

    assert!(shows(&format!("answers in turn {}", turn + 1)), "{text}");
    assert!(shows(&format!("turn {}/", turn + 1)), "{text}");
    // Column answered: what it activated and a time from its transcript, in its row.
    let column_row = screen
        .iter()
        .find(|line| line.contains(" Column ") && line.contains("(2,"))
        .unwrap_or_else(|| panic!("a row of Column's answers in\n{text}"));
    assert!(
        column_row
            .split_whitespace()
            .any(|cell| cell.parse::<u64>().is_ok()),
        "{column_row}"
    );
    // The late bot's fault stands in its answers' row, and in the faults with its reason.
    assert!(
        screen
            .iter()
            .any(|line| line.contains("Faulty late") && line.contains("timed_out")),
        "{text}"
    );
    assert!(
        shows(&format!("faults in turn {} (2 in the game)", turn + 1)),
        "{text}"
    );
    // The reason may wrap: the side panel's lines, read as one text.
    let panel: Vec<String> = screen
        .iter()
        .map(|line| {
            let chars: Vec<char> = line.chars().collect();
            chars[chars.len() - 59..chars.len() - 1]
                .iter()
                .collect::<String>()
                .trim()
                .to_string()
        })
        .collect();
    assert!(panel.join(" ").contains(reason), "{reason} in\n{text}");
    // The faulty bot's stderr is shown first, and the legend and keys are there.
    assert!(shows("stderr: Faulty late"), "{text}");
    assert!(shows("committing late now"), "{text}");
    assert!(shows("broken") && shows("on a paying search"), "{text}");
    assert!(
        shows("space play/pause") && shows("n/p next/previous turn"),
        "{text}"
    );

    // Steps: n and p move a turn; the cursor moves with arrows and hjkl to Column's vertex
    // (2, 0), which it activated in its first turn (turn 1).
    assert!(viewer.key(KeyCode::Char('n')));
    assert_shows(&mut viewer, &format!("turn {}/", turn + 2));
    assert!(viewer.key(KeyCode::Char('p')));
    assert!(viewer.key(KeyCode::Char('p')));
    assert_shows(&mut viewer, &format!("turn {turn}/"));
    assert!(viewer.key(KeyCode::Right));
    assert!(viewer.key(KeyCode::Char('l')));
    for _ in 0..4 {
        assert!(viewer.key(KeyCode::Char('j')));
    }
    let screen = tui_screen(&mut viewer, WIDTH, HEIGHT);
    let text = screen.join("\n");
    assert!(text.contains("vertex (2, 0)"), "{text}");
    assert!(text.contains("owners: Column"), "{text}");
    assert!(text.contains("turn 1: activated by Column"), "{text}");
    // Speed, play/pause, and whose stderr: tab goes on from the late bot to Column.
    assert!(viewer.key(KeyCode::Char('+')));
    assert_shows(
        &mut viewer,
        &format!("turn {turn}/{} · 2× ", game.turns_in(0)),
    );
    assert!(viewer.key(KeyCode::Char(' ')));
    assert_shows(&mut viewer, "· ▶ 2× ");
    assert!(viewer.key(KeyCode::Tab));
    assert_shows(&mut viewer, "stderr: Column");
    assert!(!viewer.key(KeyCode::Char('q')));
}

#[test]
fn the_terminal_viewer_marks_the_vertices_paying_searches_ran_through_at_a_rounds_end() {
    let (_dir, out) = played_game();
    let game = Game::open(&out).unwrap();
    let explanation = game.explanation(&out);
    let replay = Replay::read(&out.join("replay.jsonl")).unwrap();
    let paid: Vec<(usize, usize, u32)> = replay.paid_in(1).copied().collect();
    assert!(!paid.is_empty(), "the sample bots' paths paid in round 1");
    // Round 1 from its start, stepped with n to its end.
    let mut viewer = Viewer::new(&game, &explanation, game.frame(1, Some(0)).unwrap());
    let side = game.log.side();
    let marks = |viewer: &mut Viewer| -> usize {
        tui_screen(viewer, WIDTH, HEIGHT)[1..=side]
            .iter()
            .map(|line| {
                line.chars()
                    .take(1 + 2 * side)
                    .filter(|&c| c == '*')
                    .count()
            })
            .sum()
    };
    assert_eq!(marks(&mut viewer), 0, "no marks before the round's end");
    for _ in 0..replay.turns_in(1) {
        assert!(viewer.key(KeyCode::Char('n')));
    }
    assert_eq!(marks(&mut viewer), paid.len());
    // The cursor on a paying vertex says how many searches ran through it.
    let (x, y, n) = paid[0];
    for _ in 0..x {
        viewer.key(KeyCode::Right);
    }
    for _ in y..side - 1 {
        viewer.key(KeyCode::Down);
    }
    let plural = if n == 1 { "" } else { "es" };
    assert_shows(&mut viewer, &format!("on {n} paying search{plural}"));
}

/// Asserts that the viewer's screen shows `what`.
fn assert_shows(viewer: &mut Viewer, what: &str) {
    let screen = tui_screen(viewer, WIDTH, HEIGHT);
    assert!(
        screen.iter().any(|line| line.contains(what)),
        "{what} in\n{}",
        screen.join("\n")
    );
}

/// Each transcript's answers (`< ms line`), grouped by round, checking that every answer follows
/// its prompt (`? ms line`).
fn answers_by_round(transcript: &str) -> Vec<Vec<String>> {
    let mut rounds: Vec<Vec<String>> = Vec::new();
    let mut asked = false;
    for line in transcript.lines() {
        if line.starts_with("# round ") {
            rounds.push(Vec::new());
            continue;
        } else if line.starts_with("# ") {
            // The bot's name, the limits, the turn.
            continue;
        }
        let (marker, rest) = line.split_once(' ').unwrap();
        let (ms, text) = rest.split_once(' ').unwrap();
        ms.parse::<u64>().unwrap();
        match marker {
            "?" => asked = true,
            "<" => {
                assert!(
                    std::mem::take(&mut asked),
                    "an answer without a prompt: {line}"
                );
                rounds.last_mut().unwrap().push(text.to_string());
            }
            ">" => assert!(!asked, "sent while an answer was awaited: {line}"),
            _ => panic!("unexpected transcript line {line}"),
        }
    }
    rounds
}

#[test]
fn transcripts_hold_every_answer_each_bot_gave() {
    let (_dir, out) = played_game();
    let replay = Replay::read(&out.join("replay.jsonl")).unwrap();
    let n = replay.header.bots.len();
    let mut transcripts = Vec::new();
    for entry in std::fs::read_dir(out.join("transcripts")).unwrap() {
        let text = Transcript::read(&entry.unwrap().path()).unwrap();
        let name = text.lines().next().unwrap().strip_prefix("# bot ").unwrap();
        assert!(replay.header.bots.iter().any(|b| b == name), "{name}");
        assert!(text.contains("> "), "nothing was sent");
        assert!(text.lines().any(|l| l.contains(" SCORE ")), "{text}");
        let rounds = answers_by_round(&text);
        assert_eq!(rounds.len(), 3);
        for answers in &rounds {
            // A destruction and an activation answer per turn.
            assert_eq!(answers.len(), 2 * n * n);
        }
        transcripts.push(rounds);
    }
    assert_eq!(transcripts.len(), n);
    // Every activation the rules accepted was answered, that round and turn, by some bot.
    for record in &replay.turns {
        for (x, y) in record.activate.iter().flatten() {
            let answer = format!("VERTEX {x},{y}");
            assert!(
                transcripts.iter().any(|rounds| {
                    rounds[record.round as usize][2 * record.turn as usize + 1] == answer
                }),
                "round {} turn {}: nobody answered {answer}",
                record.round,
                record.turn
            );
        }
    }
}

/// Runs `koth replay` with `args`; returns its exit code, stdout and stderr.
fn replay_status<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> (i32, String, String) {
    let output = Command::new(KOTH)
        .arg("replay")
        .args(args)
        .output()
        .unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// `koth replay LOG --drive BOT --as NAME [extra]`.
fn drive(log: &Path, bot: &Path, name: &str, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec![
        log.as_os_str(),
        "--drive".as_ref(),
        bot.as_os_str(),
        "--as".as_ref(),
        name.as_ref(),
    ];
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    replay_status(&args)
}

/// Replaces every transcript of the game by its gzipped form, as koth stores large ones.
fn gzip_transcripts(out: &Path) {
    use std::io::Write;
    for entry in std::fs::read_dir(out.join("transcripts")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read(&path).unwrap();
        let file = std::fs::File::create(format!("{}.gz", path.display())).unwrap();
        let mut encoder = flate2::write::GzEncoder::new(file, flate2::Compression::default());
        encoder.write_all(&text).unwrap();
        encoder.finish().unwrap();
        std::fs::remove_file(&path).unwrap();
    }
}

#[test]
fn driving_the_same_bot_is_identical_and_a_changed_build_differs() {
    let (dir, out) = played_game();
    let builder = dir.path().join("bots/paths-random-builder");
    let (code, stdout, stderr) = drive(&out, &builder, "Random Builder", &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains("(10000 ms per answer)"),
        "the game's limit: {stdout}"
    );
    // 3 rounds of 16 turns, two prompts a turn.
    assert!(
        stdout.contains("identical: 96 prompt(s) in 3 round(s)"),
        "{stdout}"
    );

    // Compressed transcripts read the same; the transcript's file name works as NAME too.
    gzip_transcripts(&out);
    let (code, stdout, stderr) = drive(&out, &builder, "paths-random-builder", &["--round", "3"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains("identical: 32 prompt(s) in 1 round(s)"),
        "{stdout}"
    );

    // A new build that seeds its choices differently answers differently from the first
    // activation on (the builder never destroys, so its DESTROY answers stay NONE).
    let changed = dir.path().join("changed-builder");
    std::fs::create_dir(&changed).unwrap();
    for file in ["bot.toml", "random_builder.py"] {
        let text = std::fs::read_to_string(builder.join(file)).unwrap();
        let text = text.replace(
            "random.Random(round_number)",
            "random.Random(round_number + 7)",
        );
        std::fs::write(changed.join(file), text).unwrap();
    }
    let (code, stdout, stderr) = drive(&out, &changed, "Random Builder", &[]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stderr.contains("differ from the recording"), "{stderr}");
    let difference = stdout.split_once("round 1, turn ").expect(&stdout).1;
    assert!(difference.contains("  prompt:   ACTIVATE "), "{stdout}");
    assert!(difference.contains("  recorded: VERTEX "), "{stdout}");
    assert!(difference.contains("  now:      VERTEX "), "{stdout}");
    assert_eq!(
        stdout.matches("recorded:").count(),
        1,
        "only the first: {stdout}"
    );
    let (code, all, _) = drive(&out, &changed, "Random Builder", &["--all-differences"]);
    assert_eq!(code, 1);
    assert!(all.matches("recorded:").count() > 1, "{all}");
    assert!(all.contains("round 3, turn "), "{all}");

    // A name that is not there: the error lists those that are.
    let (code, _, stderr) = drive(&out, &builder, "Nobody", &[]);
    assert_eq!(code, 1);
    assert!(stderr.contains("no transcript of \"Nobody\""), "{stderr}");
    assert!(
        stderr.contains("paths-column (\"Column\")") && stderr.contains("paths-random-builder"),
        "{stderr}"
    );
    // So is a round the game did not have.
    let (code, _, stderr) = drive(&out, &builder, "Column", &["--round", "4"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("no round 4 (it has 3 rounds, from 1)"),
        "{stderr}"
    );
    // A log folder without transcripts is named in the error.
    let lone = dir.path().join("lone");
    std::fs::create_dir(&lone).unwrap();
    let (code, _, stderr) = drive(&lone, &builder, "Column", &[]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains(&format!("{}", lone.join("transcripts").display())),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// A bot folder in `dir` running `tests/bots/faulty.py MODE`, named `name`.
fn faulty_bot(dir: &Path, name: &str, mode: &str) -> PathBuf {
    let run = test_bot_command("faulty.py", &format!("{mode} koth-test-drive"));
    paths_bot(dir, name, name, &run)
}

#[test]
fn driving_a_crashing_or_hanging_build_shows_the_round_turn_prompt_and_why() {
    let dir = tempfile::tempdir().unwrap();
    let polite = faulty_bot(dir.path(), "polite", "polite");
    let crasher = faulty_bot(dir.path(), "crasher", "crash");
    let out = dir.path().join("out");
    let status = Command::new(KOTH)
        .args([
            "paths",
            "--rounds",
            "2",
            "--seed",
            "4",
            "--timeout-ms",
            "10000",
        ])
        .arg("--bot")
        .arg(&polite)
        .arg("--bot")
        .arg(&crasher)
        .arg("--log-dir")
        .arg(&out)
        .output()
        .unwrap();
    assert!(status.status.success(), "{status:?}");

    // The crash reproduces: the recorded fault and the new one are the same kind.
    let (code, stdout, _) = drive(&out, &crasher, "crasher", &[]);
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.contains("identical: 6 prompt(s) in 2 round(s)"),
        "{stdout}"
    );

    // Fed what the polite bot received, the crashing build fails at its third prompt.
    let (code, stdout, stderr) = drive(&out, &crasher, "polite", &["--round", "2"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let expected = "round 2, turn 2 (transcript line ";
    let at = stdout.find(expected).expect(&stdout);
    let difference: Vec<&str> = stdout[at..].lines().collect();
    assert_eq!(difference[1], "  sent:     OWNED 0 N N", "{stdout}");
    assert_eq!(difference[2], "  prompt:   DESTROY 1", "{stdout}");
    assert_eq!(difference[3], "  recorded: NONE", "{stdout}");
    assert_eq!(
        difference[4],
        "  now:      crashed: exited (exit status: 3) while an answer was expected; \
         last stderr: faulty bot: committing crash now",
        "{stdout}"
    );
    // A build that hangs there is stopped at the limit asked for, and says so.
    let late = faulty_bot(dir.path(), "late", "late");
    let (code, stdout, _) = drive(&out, &late, "polite", &["--timeout-ms", "300"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("(300 ms per answer)"), "{stdout}");
    assert!(
        stdout.contains("round 1, turn 2 (transcript line "),
        "{stdout}"
    );
    assert!(
        stdout.contains("  now:      timed_out: no answer within 300 ms\n"),
        "{stdout}"
    );
    // And the fixed build answers where the recorded one crashed.
    let (code, stdout, _) = drive(&out, &polite, "crasher", &[]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("round 1, turn 2"), "{stdout}");
    assert!(
        stdout.contains("  recorded: crashed: exited (exit status: 3)"),
        "{stdout}"
    );
    assert!(stdout.contains("  now:      NONE ("), "{stdout}");
    // Killed processes take a moment to disappear.
    for _ in 0..50 {
        if survivors::survivors("koth-test-drive").is_empty() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    panic!(
        "processes survived: {:?}",
        survivors::survivors("koth-test-drive")
    );
}

/// `koth ratrace` with the built-in ColorScorePlayer on two boards of seed 1 into `log`, with
/// `extra` arguments; returns results.json.
fn colorscore(log: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["--player", "colorscore", "--boards", "2", "--seed", "1"];
    args.extend_from_slice(extra);
    ratrace(log, &args).1
}

#[test]
fn a_recorded_rat_race_board_plays_the_same_and_shows_in_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let recorded = dir.path().join("recorded");
    let with = colorscore(
        &recorded,
        // The second board, stored as board 1 (from 0), typed and named as a person counts.
        &["--record-boards", "none", "--also-record", "2"],
    );
    let without = colorscore(&dir.path().join("plain"), &["--record-boards", "none"]);
    // Recording only watches: the same boards, the same points, turns and history.
    for board in 0..2 {
        for key in ["seed", "points", "turns", "history"] {
            assert_eq!(
                with["boards"][board][key], without["boards"][board][key],
                "{key}"
            );
        }
    }
    assert!(!recorded.join("board-1.replay.json").exists());
    let path = recorded.join("board-2.replay.json");
    let size = std::fs::metadata(&path).unwrap().len();
    let board: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let frames = board["frames"].as_array().unwrap();
    let turns = with["boards"][1]["turns"].as_u64().unwrap();
    assert!(
        turns > 100,
        "board 1 should live long enough to test the page: {turns}"
    );
    assert!(size < 2_000_000, "{size} bytes");
    // Every turn up to 100, then every 10th, and the last.
    let recorded_turns: Vec<u64> = frames.iter().map(|f| f["turn"].as_u64().unwrap()).collect();
    assert_eq!(recorded_turns[..=100], (0..=100).collect::<Vec<_>>());
    assert_eq!(recorded_turns[101], 110);
    assert_eq!(*recorded_turns.last().unwrap(), turns);
    for frame in frames {
        let cells = frame["cells"].as_array().unwrap();
        let counted: u64 = cells
            .iter()
            .skip(1)
            .step_by(2)
            .map(|n| n.as_u64().unwrap())
            .sum();
        assert_eq!(counted, frame["population"].as_u64().unwrap());
    }
    // The results' samples (every 100 turns) agree with the frames.
    for sample in with["boards"][1]["history"].as_array().unwrap() {
        let frame = frames.iter().find(|f| f["turn"] == sample["turn"]).unwrap();
        assert_eq!(frame["points"], sample["points"]);
        assert_eq!(frame["population"], sample["population"]);
    }

    // The run's folder (its one recorded board) or the file itself gives the page.
    let page = dir.path().join("board.html");
    koth(&[recorded.to_str().unwrap(), "--html", page.to_str().unwrap()]);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.contains("http://") && !html.contains("https://"));
    let from_file = dir.path().join("from-file.html");
    koth(&[
        path.to_str().unwrap(),
        "--html",
        from_file.to_str().unwrap(),
    ]);
    assert_eq!(std::fs::read_to_string(&from_file).unwrap(), html);

    let profile = dir.path().join("chromium-profile");
    let frame = &frames[50];
    let url = format!("file://{}?turn=50", page.display());
    let dom =
        String::from_utf8_lossy(&chromium(&profile, &["--dump-dom"], &url).stdout).into_owned();
    assert!(dom.contains(r#"<span id="turn">50</span>"#), "{dom}");
    let title = format!(
        "Board 2 (seed {}), player colorscore",
        with["boards"][1]["seed"]
    );
    assert!(dom.contains(&title), "{dom}");
    assert!(
        dom.contains(&format!(r#"<span id="turns">{turns}</span>"#)),
        "{dom}"
    );
    assert!(
        dom.contains(&format!(
            r#"<span id="population">{}</span>"#,
            frame["population"]
        )),
        "{dom}"
    );
    assert!(
        dom.contains(&format!(r#"<span id="points">{}</span>"#, frame["points"])),
        "{dom}"
    );
    // Between frames (turn 115 is not recorded), the page shows the frame before.
    let url = format!("file://{}?turn=115", page.display());
    let dom =
        String::from_utf8_lossy(&chromium(&profile, &["--dump-dom"], &url).stdout).into_owned();
    assert!(dom.contains(r#"<span id="turn">110</span>"#), "{dom}");

    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ratrace-board-screenshot.png");
    let _ = std::fs::remove_file(&target);
    let shot = format!("--screenshot={}", target.display());
    let url = format!("file://{}?turn={turns}", page.display());
    chromium(&profile, &[&shot, "--window-size=1000,700"], &url);
    let png = std::fs::read(&target).expect("chromium wrote no screenshot");
    assert!(png.len() > 1000 && png.starts_with(b"\x89PNG\r\n\x1a\n"));

    // Boards not recorded are errors naming the folder, not panics.
    let html = dir.path().join("x.html");
    let (code, _, stderr) = replay_status(&[
        "--board".as_ref(),
        "1".as_ref(),
        "--html".as_ref(),
        html.as_os_str(),
        recorded.as_os_str(),
    ]);
    assert_ne!(code, 0);
    assert!(
        stderr.contains("board 1 was not recorded (recorded: 2)"),
        "{stderr}"
    );
}
