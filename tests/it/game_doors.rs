//! Every game of the registry, and the test tree's newcomer Colonel Blotto (`tests/blotto/`,
//! added through the registry alone as `docs/adding-a-game.md` says), through its two doors and
//! its seats, with real bots and the real `koth` binary (Blotto's: koth's command line with it
//! installed):
//! - one door: a game played by its own command (for a game that has one) and the same game
//!   played in a tournament, with the same seed, bots and rounds, give the same results;
//! - the seat: the tournament's clock (`clock = "cpu"`) and `exit_ms` reach every game, every
//!   game writes a transcript and a stderr file per bot, named by the bot's folder,
//!   `koth replay --text` tells every game's answers, faults and stderr, and `koth replay
//!   --drive` plays a bot its transcript in every game.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::dashboard::{browser, console_errors, until};
use crate::support::cpus::own_cpu_locks;
use crate::support::tournament::{koth, query, repo, succeed};

/// One of the games, with bots that play it quickly and the same way every time.
struct Case {
    game: &'static str,
    /// The command line that has the game: `koth`, or a newcomer's example binary.
    binary: fn() -> Command,
    /// Bot folders, made under the test's folder.
    bots: Vec<PathBuf>,
    /// Rounds (boards, games) per match; `None`: the game's own.
    rounds: Option<u32>,
    /// The arguments of the game's own command that play the tournament's game (the seats'
    /// folders in order, its seed, its rounds), before the shared `--timeout-ms` and `--log-dir`;
    /// `None` for a game of tournaments only.
    command: Option<CommandArgs>,
}

type CommandArgs = fn(seats: &[String], seed: String, rounds: Option<String>) -> Vec<String>;

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

/// A copy of the repository's bot folder `folder` under `root`, running `run` if given.
fn sample_bot(root: &Path, folder: &str, run: Option<&str>) -> PathBuf {
    let source = repo().join("bots").join(folder);
    let dir = root.join(folder);
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(&source).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
        }
    }
    if let Some(run) = run {
        let manifest = std::fs::read_to_string(dir.join("bot.toml")).unwrap();
        let manifest: String = manifest
            .lines()
            .map(|l| {
                if l.starts_with("run =") {
                    format!("run = \"{run}\"\n")
                } else {
                    format!("{l}\n")
                }
            })
            .collect();
        std::fs::write(dir.join("bot.toml"), manifest).unwrap();
    }
    dir
}

/// A rat-race bot folder named `name` running `tests/ratrace_bots/faulty.py` with `mode`: a
/// player whose boards end after a turn, so that a match takes moments.
fn ratrace_bot(root: &Path, folder: &str, name: &str, mode: &str) -> PathBuf {
    let dir = root.join(folder);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        repo().join("tests/ratrace_bots/faulty.py"),
        dir.join("faulty.py"),
    )
    .unwrap();
    std::fs::write(
        dir.join("bot.toml"),
        format!("name = \"{name}\"\nrun = \"python3 faulty.py {mode}\"\ngames = [\"ratrace\"]\n"),
    )
    .unwrap();
    dir
}

/// A Mad Cars bot folder named `name` running `tests/madcars/bots/player.py` with seed `seed`.
fn madcars_bot(root: &Path, folder: &str, name: &str, seed: u32) -> PathBuf {
    let dir = root.join(folder);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        repo().join("tests/madcars/bots/player.py"),
        dir.join("player.py"),
    )
    .unwrap();
    std::fs::write(
        dir.join("bot.toml"),
        format!(
            "name = \"{name}\"\nrun = \"python3 player.py random {seed}\"\ngames = [\"madcars\"]\n"
        ),
    )
    .unwrap();
    dir
}

/// The example binary `blotto`: koth's command line with the newcomer Colonel Blotto installed.
fn blotto() -> Command {
    // target/<profile>/deps/it-… → target/<profile>/examples/blotto
    let exe = std::env::current_exe().unwrap();
    let path = exe
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .join("examples/blotto");
    assert!(
        path.is_file(),
        "{} is missing: `cargo test` builds it; for `cargo test --test it`, run \
         `cargo build --release --example blotto` first",
        path.display()
    );
    Command::new(path)
}

/// A Colonel Blotto bot folder named `name` that sends `army` every round and writes the seat
/// it was told to stderr.
fn blotto_bot(root: &Path, folder: &str, name: &str, army: &str) -> PathBuf {
    let dir = root.join(folder);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("bot.toml"),
        format!("name = {name:?}\nrun = \"python3 -u army.py\"\ngames = [\"blotto\"]\n"),
    )
    .unwrap();
    std::fs::write(
        dir.join("army.py"),
        format!(
            "import sys\nfor line in sys.stdin:\n    w = line.split()\n    if w[0] == 'SEAT':\n        \
             print('seat', w[1], file=sys.stderr)\n    elif w[0] == 'ALLOCATE':\n        \
             print({army:?})\n"
        ),
    )
    .unwrap();
    dir
}

/// Every game of the registry, then the newcomer Blotto, their bots made under `root`.
fn cases(root: &Path) -> Vec<Case> {
    let mut cases = vec![
        Case {
            binary: koth,
            game: "paths",
            bots: vec![
                sample_bot(root, "paths-destroyer", None),
                sample_bot(root, "paths-checkpoint", None),
            ],
            rounds: Some(2),
            command: Some(|seats, seed, rounds| {
                let mut args = strings(&["paths"]);
                for bot in seats {
                    args.extend(["--bot".into(), bot.clone()]);
                }
                args.extend(["--rounds".into(), rounds.unwrap(), "--seed".into(), seed]);
                args
            }),
        },
        Case {
            binary: koth,
            game: "ratrace",
            bots: vec![ratrace_bot(root, "edge-runner", "Edge Runner", "polite")],
            rounds: Some(3),
            command: Some(|seats, seed, rounds| {
                let boards = rounds.unwrap();
                strings(&[
                    "ratrace", "--bot", &seats[0], "--boards", &boards, "--seed", &seed,
                ])
            }),
        },
        Case {
            binary: koth,
            game: "tictactoe",
            bots: vec![
                sample_bot(root, "ttt-python", None),
                sample_bot(root, "ttt-js", None),
            ],
            rounds: Some(4),
            command: Some(|seats, seed, rounds| {
                let games = rounds.unwrap();
                strings(&[
                    "menace",
                    "match",
                    "--x",
                    &seats[0],
                    "--o",
                    &seats[1],
                    "--games",
                    &games,
                    "--alternate",
                    "--seed",
                    &seed,
                ])
            }),
        },
        Case {
            binary: koth,
            game: "flag",
            bots: vec![sample_bot(root, "flag-solver-py", None)],
            rounds: None,
            command: Some(|seats, _, _| strings(&["flag", "play", "--bot", &seats[0]])),
        },
        Case {
            binary: koth,
            game: "madcars",
            bots: vec![
                madcars_bot(root, "driver-one", "Driver One", 1),
                madcars_bot(root, "driver-two", "Driver Two", 2),
            ],
            rounds: Some(1),
            command: Some(|seats, seed, rounds| {
                let matches = rounds.unwrap();
                strings(&[
                    "madcars",
                    "--bot",
                    &seats[0],
                    "--bot",
                    &seats[1],
                    "--matches",
                    &matches,
                    "--seed",
                    &seed,
                ])
            }),
        },
        Case {
            binary: koth,
            game: "nim",
            bots: vec![
                crate::nim::nim_bot(root, "nim-perfect", "perfect"),
                crate::nim::nim_bot(root, "nim-one", "one"),
            ],
            rounds: Some(2),
            command: None,
        },
    ];
    let games: Vec<&str> = cases.iter().map(|case| case.game).collect();
    assert_eq!(
        games,
        {
            crate::support::installed_games();
            koth::game::registry::names()
        },
        "a case for every game of the registry"
    );
    for case in &cases {
        assert_eq!(
            case.command.is_some(),
            koth::game::registry::has_command(case.game),
            "{}: a game with a command of its own has its arguments in its case",
            case.game
        );
    }
    // Two of Blotto's armies tie on the first battlefield and share its point.
    cases.push(Case {
        binary: blotto,
        game: "blotto",
        bots: vec![
            blotto_bot(root, "blotto-even", "Even", "20 20 20 20 20"),
            blotto_bot(root, "blotto-left", "Left", "50 50 0 0 0"),
            blotto_bot(root, "blotto-split", "Split", "50 0 50 0 0"),
        ],
        rounds: Some(3),
        command: Some(|seats, seed, rounds| {
            let mut args = strings(&["blotto"]);
            for bot in seats {
                args.extend(["--bot".into(), bot.clone()]);
            }
            args.extend(["--rounds".into(), rounds.unwrap(), "--seed".into(), seed]);
            args
        }),
    });
    cases
}

/// Writes a tournament file of one game of `case` with `settings` and runs it into `out`.
fn tournament(case: &Case, dir: &Path, out: &Path, settings: &str) {
    let bots: Vec<String> = case.bots.iter().map(|b| format!("{b:?}")).collect();
    let rounds = case
        .rounds
        .map(|r| format!("rounds = {r}\n"))
        .unwrap_or_default();
    let file = dir.join(format!(
        "{}.toml",
        out.file_name().unwrap().to_str().unwrap()
    ));
    std::fs::write(
        &file,
        format!(
            "game = \"{}\"\nbots = [{}]\ngames = 1\nseed = 5\n{rounds}{settings}",
            case.game,
            bots.join(", ")
        ),
    )
    .unwrap();
    // A game koth could not judge has no result, only harness faults (every attempt's answer
    // late while other programs held the CPU: koth's own fault, on a loaded machine, and its
    // message says to try again): played again, at most three times in all.
    for attempt in 1..=3 {
        let mut command = (case.binary)();
        succeed(
            own_cpu_locks(&mut command, out.parent().unwrap())
                .args(["tournament", "run"])
                .arg(&file)
                .arg("--dir")
                .arg(out),
        );
        let judged = query(out, "SELECT COUNT(*) FROM results") > 0;
        if judged || attempt == 3 || query(out, "SELECT COUNT(*) FROM harness_faults") == 0 {
            return;
        }
        std::fs::remove_dir_all(out).unwrap();
    }
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// Each bot's name, score and status (and, for paths, every round's points) as a game's
/// results.json states them: the part of a result that must not depend on the door.
fn outcome(results: &Value) -> Value {
    if let Some(result) = results.get("result") {
        let bots: Vec<Value> = result["bots"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| serde_json::json!([b["name"], b["score"], b["status"]]))
            .collect();
        Value::Array(bots)
    } else {
        serde_json::json!([results["bots"], results["points"], results["fault_counts"]])
    }
}

/// The seed a game's results.json records.
fn seed_of(results: &Value) -> u64 {
    results
        .get("result")
        .map_or(&results["seed"], |r| &r["seed"])
        .as_u64()
        .unwrap()
}

/// The names of the bots in seat order, as a game's results.json lists them.
fn seat_names(results: &Value) -> Vec<String> {
    match results.get("result") {
        Some(result) => result["bots"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["name"].as_str().unwrap().to_string())
            .collect(),
        None => serde_json::from_value(results["bots"].clone()).unwrap(),
    }
}

/// A bot folder's name, from its bot.toml.
fn bot_name(dir: &Path) -> String {
    let text = std::fs::read_to_string(dir.join("bot.toml")).unwrap();
    let manifest: toml::Table = toml::from_str(&text).unwrap();
    manifest["name"].as_str().unwrap().to_string()
}

/// The game's own command for the match a tournament played with `seed`, its bots in `seats`
/// order, writing into `log_dir`.
fn own_command(case: &Case, seats: &[PathBuf], seed: u64, log_dir: &Path) -> Vec<String> {
    let path = |p: &Path| p.to_str().unwrap().to_string();
    let seats: Vec<String> = seats.iter().map(|seat| path(seat)).collect();
    let command = case.command.expect("a game with a command");
    let mut args = command(&seats, seed.to_string(), case.rounds.map(|r| r.to_string()));
    args.extend([
        "--timeout-ms".into(),
        "2000".into(),
        "--log-dir".into(),
        path(log_dir),
    ]);
    args
}

#[test]
fn each_game_played_by_its_command_and_in_a_tournament_gives_the_same_results() {
    let tmp = tempfile::tempdir().unwrap();
    for case in cases(tmp.path()) {
        // The tournament contains its bots (the default); the command runs them as they are.
        let out = tmp.path().join(format!("{}-tournament", case.game));
        tournament(&case, tmp.path(), &out, "answer_ms = 2000\n");
        let in_tournament = read_json(&out.join("games/0/results.json"));
        let names = seat_names(&in_tournament);
        let seats: Vec<PathBuf> = names
            .iter()
            .map(|name| {
                case.bots
                    .iter()
                    .find(|b| bot_name(b) == *name)
                    .unwrap_or_else(|| panic!("{}: no bot {name}", case.game))
                    .clone()
            })
            .collect();
        let finished = query(
            &out,
            "SELECT COUNT(*) FROM results WHERE status = 'finished'",
        );
        assert_eq!(
            finished,
            case.bots.len() as i64,
            "{}: every bot finished",
            case.game
        );
        if case.command.is_none() {
            // A game of tournaments only: its one door is the tournament's.
            continue;
        }
        let log_dir = tmp.path().join(format!("{}-command", case.game));
        let args = own_command(&case, &seats, seed_of(&in_tournament), &log_dir);
        succeed((case.binary)().args(&args));
        let by_command = read_json(&log_dir.join("results.json"));
        assert_eq!(
            outcome(&by_command),
            outcome(&in_tournament),
            "{}: koth {} played another game than the tournament",
            case.game,
            args.join(" ")
        );
    }
}

/// `case` with its first bot run through `tests/bots/wrap.py MODE MS`, which keeps its answers
/// and misbehaves in time only.
fn wrapped(root: &Path, case: &Case, mode: &str, ms: u32) -> Case {
    let first = &case.bots[0];
    let dir = root.join(format!("{}-{mode}-{ms}", case.game));
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(first).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
    }
    std::fs::copy(repo().join("tests/bots/wrap.py"), dir.join("wrap.py")).unwrap();
    let text = std::fs::read_to_string(dir.join("bot.toml")).unwrap();
    let manifest: toml::Table = toml::from_str(&text).unwrap();
    let run = manifest["run"].as_str().unwrap();
    std::fs::write(
        dir.join("bot.toml"),
        format!(
            "name = \"Wrapped\"\nrun = \"python3 wrap.py {mode} {ms} {run}\"\ngames = [\"{}\"]\n",
            case.game
        ),
    )
    .unwrap();
    let mut bots = case.bots.clone();
    bots[0] = dir;
    Case {
        binary: case.binary,
        game: case.game,
        bots,
        rounds: case.rounds,
        command: case.command,
    }
}

/// The wrapped bot's faults of `kind` in the one game of the tournament in `out`.
fn wrapped_faults(out: &Path, kind: &str) -> i64 {
    query(
        out,
        &format!(
            "SELECT r.{kind}_faults FROM results r JOIN bots b ON b.id = r.bot \
             WHERE b.name = 'Wrapped'"
        ),
    )
}

#[test]
fn a_tournament_s_cpu_clock_reaches_every_game() {
    let tmp = tempfile::tempdir().unwrap();
    for case in cases(tmp.path()) {
        // 1.2 s asleep before the second answer: over a 400 ms limit on the wall clock, nothing
        // at all on the CPU clock (the first answer of a process has extra time to start).
        let sleeper = wrapped(tmp.path(), &case, "sleep", 1200);
        let wall = tmp.path().join(format!("{}-wall", case.game));
        tournament(
            &sleeper,
            tmp.path(),
            &wall,
            "answer_ms = 400\nsandbox = false\n",
        );
        assert!(
            wrapped_faults(&wall, "timed_out") >= 1,
            "{}: a 1.2 s answer is late on a 400 ms wall clock",
            case.game
        );
        let cpu = tmp.path().join(format!("{}-cpu", case.game));
        tournament(
            &sleeper,
            tmp.path(),
            &cpu,
            // A second of CPU, still under the 1.2 s asleep: a loaded machine's start-up
            // (a JVM's) may spend more than 400 ms of CPU on a first answer.
            "answer_ms = 1000\nclock = \"cpu\"\nbackstop_ms = 6000\nsandbox = false\n",
        );
        assert_eq!(
            wrapped_faults(&cpu, "timed_out"),
            0,
            "{}: a bot asleep uses no CPU time",
            case.game
        );
        assert_eq!(
            query(
                &cpu,
                "SELECT COUNT(*) FROM results WHERE status <> 'finished'"
            ),
            0,
            "{}",
            case.game
        );
    }
}

#[test]
fn a_tournament_s_exit_limit_reaches_every_game() {
    let tmp = tempfile::tempdir().unwrap();
    for case in cases(tmp.path()) {
        // The bot plays, then takes 1.2 s to exit once its input is closed.
        let lingerer = wrapped(tmp.path(), &case, "linger", 1200);
        let short = tmp.path().join(format!("{}-short-exit", case.game));
        tournament(
            &lingerer,
            tmp.path(),
            &short,
            "answer_ms = 3000\nexit_ms = 300\nsandbox = false\n",
        );
        // Mad Cars' organisers never asked a bot to exit: koth ends it after exit_ms, with no
        // fault (docs/games/madcars.md); every other game's protocol asks for the exit.
        let asks_exit = case.game != "madcars";
        assert_eq!(
            wrapped_faults(&short, "timed_out") >= 1,
            asks_exit,
            "{}: 1.2 s to exit is over exit_ms = 300",
            case.game
        );
        let long = tmp.path().join(format!("{}-long-exit", case.game));
        tournament(
            &lingerer,
            tmp.path(),
            &long,
            "answer_ms = 3000\nexit_ms = 4000\nsandbox = false\n",
        );
        assert_eq!(
            wrapped_faults(&long, "timed_out"),
            0,
            "{}: 1.2 s to exit is within exit_ms = 4000",
            case.game
        );
    }
}

/// `koth replay LOG --drive BOT --as NAME`: exit code and stdout.
fn drive(binary: fn() -> Command, log: &Path, bot: &Path, name: &str) -> (i32, String) {
    let out = binary()
        .arg("replay")
        .arg(log)
        .arg("--drive")
        .arg(bot)
        .args(["--as", name])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap(), format!("{stdout}{stderr}"))
}

#[test]
fn every_game_writes_a_transcript_and_a_stderr_file_per_bot_which_drive_plays_again() {
    let tmp = tempfile::tempdir().unwrap();
    for case in cases(tmp.path()) {
        let out = tmp.path().join(format!("{}-tournament", case.game));
        tournament(&case, tmp.path(), &out, "answer_ms = 2000\n");
        let game = out.join("games/0");
        for bot in &case.bots {
            // Named by the bot's folder, contained in a working copy or not, in every game.
            let folder = bot.file_name().unwrap().to_str().unwrap();
            assert!(
                game.join(format!("stderr/{folder}.log")).is_file(),
                "{}: stderr/{folder}.log",
                case.game
            );
            let transcript =
                std::fs::read_to_string(game.join(format!("transcripts/{folder}.txt")))
                    .unwrap_or_else(|e| panic!("{}: transcripts/{folder}.txt: {e}", case.game));
            assert!(
                transcript.starts_with(&format!("# bot {}\n", bot_name(bot))),
                "{}: {transcript}",
                case.game
            );
            assert!(
                transcript.lines().any(|l| l.starts_with("< ")),
                "{}: the bot's answers are in its transcript",
                case.game
            );
        }

        // Every game's text view tells its story: answers, faults, each bot's stderr.
        let told = succeed((case.binary)().arg("replay").arg(&game).arg("--text"));
        let told = String::from_utf8_lossy(&told.stdout);
        assert!(told.contains("answer"), "{}: {told}", case.game);
        assert!(told.contains("fault"), "{}: {told}", case.game);
        for bot in &case.bots {
            assert!(
                told.contains(&format!("stderr: {}", bot_name(bot))),
                "{}: {told}",
                case.game
            );
        }

        // The same bot, fed its transcript, answers the same.
        let first = &case.bots[0];
        let (code, text) = drive(case.binary, &game, first, &bot_name(first));
        assert_eq!(code, 0, "{}: {text}", case.game);
        assert!(text.contains("identical: "), "{}: {text}", case.game);
    }

    // A changed bot answers otherwise, and the drive says where: one game whose bot can be
    // changed by an argument, and noughts & crosses with a bot answering another square.
    let root = tmp.path().join("changed");
    let ratrace = cases(&root).remove(1);
    let out = root.join("ratrace-tournament");
    tournament(&ratrace, &root, &out, "answer_ms = 2000\n");
    let changed = ratrace_bot(&root, "edge-runner-changed", "Edge Runner", "range");
    let (code, text) = drive(koth, &out.join("games/0"), &changed, "Edge Runner");
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("recorded:") && text.contains("now:"),
        "{text}"
    );
    assert!(
        text.contains("round 1, turn 1"),
        "the first board's first turn: {text}"
    );
}

#[test]
fn every_game_s_web_replay_opens_in_chromium_without_a_console_error() {
    let tmp = tempfile::tempdir().unwrap();
    let mut pages = Vec::new();
    for case in cases(tmp.path()) {
        let out = tmp.path().join(format!("{}-tournament", case.game));
        tournament(&case, tmp.path(), &out, "answer_ms = 2000\n");
        let page = tmp.path().join(format!("{}.html", case.game));
        let made = (case.binary)()
            .arg("replay")
            .arg(out.join("games/0"))
            .arg("--html")
            .arg(&page)
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&made.stderr);
        if !made.status.success() && said.contains("which has no web viewer") {
            // A game with no page (Nim): said so, and nothing to open.
            continue;
        }
        assert!(made.status.success(), "{}: {said}", case.game);
        pages.push((case.game, page));
    }
    assert!(pages.len() >= 5, "every game with a page: {pages:?}");
    let runtime = koth::game::runtime().unwrap();
    runtime.block_on(async {
        let (_driver, client) = browser().await;
        for (game, page) in &pages {
            client
                .goto(&format!("file://{}", page.display()))
                .await
                .unwrap();
            until(&format!("{game}'s page loads"), || async {
                client
                    .execute("return document.readyState === 'complete';", vec![])
                    .await
                    .unwrap()
                    == true
            })
            .await;
            let errors = console_errors(&client).await;
            assert!(errors.is_empty(), "{game}'s replay page: {errors:?}");
        }
        client.close().await.unwrap();
    });
}

/// What Blotto proves beyond the checks every game passes: the seat hook tells a bot restarted
/// after a fault its seat again, and a battlefield tied by two armies gives each half its point,
/// as results.json, the dashboard's per-round points and `replay --round` show.
#[test]
fn blotto_tells_a_restarted_bot_its_seat_and_shares_a_tied_field() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let crasher = blotto_bot(root, "blotto-crash", "Crash", "50 0 50 0 0");
    // It dies when asked for round 2's army; koth starts it again for round 3.
    std::fs::write(
        crasher.join("army.py"),
        "import sys\nfor line in sys.stdin:\n    w = line.split()\n    \
         if w[0] == 'ALLOCATE' and w[1] == '2':\n        sys.exit(3)\n    \
         elif w[0] == 'ALLOCATE':\n        print('50 0 50 0 0')\n",
    )
    .unwrap();
    let bots = [
        blotto_bot(root, "blotto-even", "Even", "20 20 20 20 20"),
        blotto_bot(root, "blotto-left", "Left", "50 50 0 0 0"),
        crasher,
    ];
    let game = root.join("game");
    let mut command = blotto();
    command.args(["blotto", "--rounds", "3", "--seed", "2", "--dir"]);
    command.arg(&game);
    for bot in &bots {
        command.arg("--bot").arg(bot);
    }
    succeed(&mut command);

    let transcript = std::fs::read_to_string(game.join("transcripts/blotto-crash.txt")).unwrap();
    let told: Vec<&str> = transcript
        .lines()
        .filter(|l| l.ends_with("SEAT 2 OF 3"))
        .collect();
    assert_eq!(
        told.len(),
        2,
        "its first process and its restart:\n{transcript}"
    );
    assert!(transcript.contains("# round 3"), "{transcript}");

    let results = read_json(&game.join("results.json"));
    // Round 1: Left and Crash tie on the first battlefield (0.5 each) and win one more each.
    assert_eq!(results["points"][0], serde_json::json!([2.0, 1.5, 1.5]));
    // Round 2, Crash gave nothing: Left takes the first two, Even the other three.
    assert_eq!(results["points"][1], serde_json::json!([3.0, 2.0, 0.0]));
    let scores: Vec<f64> = (0..3)
        .map(|b| results["result"]["bots"][b]["score"].as_f64().unwrap())
        .collect();
    assert_eq!(scores, [7.0, 5.0, 3.0], "{results}");

    let round = succeed(
        blotto()
            .arg("replay")
            .arg(&game)
            .args(["--round", "2", "--text"]),
    );
    let round = String::from_utf8_lossy(&round.stdout);
    let answers = round
        .split("answers in round 2")
        .nth(1)
        .and_then(|rest| rest.split("faults").next())
        .unwrap_or_default();
    assert!(
        answers.contains("50 50 0 0 0") && answers.contains("crashed"),
        "round 2's answers, Crash's crash among them:\n{round}"
    );
}
