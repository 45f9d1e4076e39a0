//! WASI bots (issue 31): real modules built here from C with clang (and Zig by a bot's build
//! step), played by koth in its own process. A WASI bot plays a match and `koth replay --drive`
//! plays its transcript to it again; a hostile one (reads outside its folder, opens sockets,
//! allocates without end, fills its scratch folder with bytes or folders, sleeps, loops forever,
//! traps, writes without end to stderr) ends as a bounded fault with its reason while the match goes on; a seeded tournament
//! of WASI bots under fuel budgets gives the same results and transcripts on an idle machine and
//! under full CPU load; a `wasm_only` tournament or hill refuses a process.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};

use serde_json::Value;

use crate::support::tournament::{koth, leaderboard, query, repo, run_tournament, succeed};

/// Compiles the C file `source` (from the repository) to `dir/<module>` for WASI.
fn compile(source: &str, dir: &Path, module: &str) {
    std::fs::create_dir_all(dir).unwrap();
    succeed(
        Command::new("clang")
            .args(["--target=wasm32-wasi", "-O2", "-o"])
            .arg(dir.join(module))
            .arg(repo().join(source)),
    );
}

/// A WASI noughts & crosses bot folder `root/name`: the sample `win_or_block.c`, or with
/// `mode` the hostile bot of `tests/wasi_bots/hostile.c` in that mode.
fn ttt_bot(root: &Path, name: &str, mode: Option<&str>) -> PathBuf {
    let dir = root.join(name);
    let source = match mode {
        Some(mode) => {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("mode"), mode).unwrap();
            "tests/wasi_bots/hostile.c"
        }
        None => "bots/wasi/ttt-win-or-block/win_or_block.c",
    };
    compile(source, &dir, "bot.wasm");
    std::fs::write(
        dir.join("bot.toml"),
        format!("name = \"{name}\"\nwasm = \"bot.wasm\"\ngames = [\"tictactoe\"]\n"),
    )
    .unwrap();
    dir
}

/// `koth tictactoe match` of `x` against the perfect player, `games` games, into `out`, with
/// koth's cache folder in `out`'s folder.
fn play_match(x: &Path, games: u32, out: &Path, extra: &[&str]) -> Value {
    succeed(
        koth()
            .env("XDG_CACHE_HOME", out.parent().unwrap().join("cache"))
            .args(["tictactoe", "match", "--o", "perfect", "--seed", "1"])
            .arg("--x")
            .arg(x)
            .args(["--games", &games.to_string(), "--log-dir"])
            .arg(out)
            .args(extra),
    );
    serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap()
}

/// The result of the bot called `name` in a match's `results.json`.
fn bot_result<'a>(results: &'a Value, name: &str) -> &'a Value {
    results["result"]["bots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == name)
        .unwrap_or_else(|| panic!("no bot {name} in {results}"))
}

#[test]
fn a_wasi_bot_plays_a_match_and_its_transcript_drives_it_again() {
    let root = tempfile::tempdir().unwrap();
    let bot = ttt_bot(root.path(), "blocker", None);
    let out = root.path().join("match");
    let results = play_match(&bot, 4, &out, &["--answer-fuel", "5000000"]);
    let blocker = bot_result(&results, "blocker");
    assert_eq!(blocker["status"], "finished", "{blocker}");
    assert!(
        blocker["timing"]["answers"].as_u64().unwrap() >= 8,
        "{blocker}"
    );
    let transcript = std::fs::read_to_string(out.join("transcripts/blocker.txt")).unwrap();
    assert!(
        transcript.contains("# limits answer_ms=1000 exit_ms=1000 clock=wall answer_fuel=5000000"),
        "{transcript}"
    );
    assert!(
        transcript.lines().any(|l| l.starts_with("< ")),
        "{transcript}"
    );
    // A second match instantiates the module compiled for the first, from the cache.
    let cached = root.path().join("cache/koth/wasm");
    let compiled = || {
        let mut files: Vec<_> = std::fs::read_dir(&cached)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (e.file_name(), e.metadata().unwrap().modified().unwrap())
            })
            .collect();
        files.sort();
        files
    };
    let first = compiled();
    assert_eq!(first.len(), 1, "one compiled module: {first:?}");
    play_match(&bot, 1, &root.path().join("again"), &[]);
    assert_eq!(compiled(), first, "compiled once");
    let drive = succeed(
        koth()
            .env("XDG_CACHE_HOME", root.path().join("cache"))
            .arg("replay")
            .arg(&out)
            .arg("--drive")
            .arg(&bot)
            .args(["--as", "blocker"]),
    );
    let said = String::from_utf8_lossy(&drive.stdout);
    assert!(said.contains("identical: 20 prompt(s)"), "{said}");
}

#[test]
fn a_hostile_wasi_bot_ends_in_a_bounded_fault_with_its_reason_and_the_match_goes_on() {
    let root = tempfile::tempdir().unwrap();
    // Each mode: the fault's kind and a word of its reason, or none (the bot was refused what
    // it tried, and played).
    let modes: [(&str, Option<(&str, &str)>); 9] = [
        ("outside", None),
        ("socket", None),
        ("allocate", Some(("crashed", "cap of 1024 MiB"))),
        (
            "scratch",
            Some(("crashed", "scratch files reached its cap of 1024 MiB")),
        ),
        ("folders", Some(("crashed", "more than 4096 files"))),
        // Its sleep costs no fuel: its time limit, on its own time, ends it.
        ("sleep", Some(("timed_out", "no answer within 5000 ms"))),
        ("loop", Some(("timed_out", "fuel"))),
        ("trap", Some(("crashed", "unreachable"))),
        ("stderr", Some(("timed_out", "fuel"))),
    ];
    let played: Vec<_> = std::thread::scope(|scope| {
        let runs: Vec<_> = modes
            .iter()
            .map(|(mode, _)| {
                let root = root.path();
                scope.spawn(move || {
                    let bot = ttt_bot(root, mode, Some(mode));
                    let out = root.join(format!("match-{mode}"));
                    let results = play_match(
                        &bot,
                        2,
                        &out,
                        &["--answer-fuel", "50000000", "--timeout-ms", "5000"],
                    );
                    (results, out)
                })
            })
            .collect();
        runs.into_iter().map(|run| run.join().unwrap()).collect()
    });
    for ((mode, expected), (results, out)) in modes.iter().zip(played) {
        let bot = bot_result(&results, mode);
        let stderr = out.join(format!("stderr/{mode}.log"));
        let stderr_bytes = std::fs::metadata(&stderr).unwrap().len();
        assert!(
            stderr_bytes <= (1 << 20) + 100,
            "{mode}: {stderr_bytes} bytes"
        );
        // Two games were played whatever the bot did.
        assert_eq!(
            results["games"].as_array().map(Vec::len),
            Some(2),
            "{mode}: {results}"
        );
        match expected {
            None => {
                assert_eq!(bot["status"], "finished", "{mode}: {bot}");
                let said = std::fs::read_to_string(&stderr).unwrap();
                assert!(said.contains(&format!("{mode}: denied")), "{mode}: {said}");
            }
            Some((kind, word)) => {
                let faults = bot["faults"].as_array().unwrap();
                assert_eq!(faults.len(), 2, "{mode}: a fault per game: {bot}");
                for fault in faults {
                    assert_eq!(fault["kind"], *kind, "{mode}: {fault}");
                    let reason = fault["reason"].as_str().unwrap();
                    assert!(reason.contains(word), "{mode}: {reason}");
                }
            }
        }
    }
}

/// Busy loops on every CPU, killed when dropped: full load from other processes.
struct Load(Vec<Child>);

impl Load {
    fn start() -> Load {
        let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
        Load(
            (0..cpus)
                .map(|_| {
                    Command::new("sh")
                        .args(["-c", "while :; do :; done"])
                        .spawn()
                        .unwrap()
                })
                .collect(),
        )
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Every file of a tournament's games that must be the same on any machine: each game's
/// transcripts and stderr files, and its results without the wall-clock timings.
fn verdicts(out: &Path) -> Vec<(String, String)> {
    let mut files = Vec::new();
    let games = out.join("games");
    let mut stack = vec![games.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let name = path.strip_prefix(&games).unwrap().display().to_string();
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let text = if name.ends_with("results.json") {
                let mut results: Value = serde_json::from_str(&text).unwrap();
                strip_wall_times(&mut results);
                results.to_string()
            } else {
                text
            };
            files.push((name, text));
        }
    }
    files.sort();
    files
}

/// Removes what the wall clock measured (answer times, a game's duration): machine-dependent
/// by nature, and no part of a verdict.
fn strip_wall_times(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.retain(|key, _| !key.contains("wall") && !key.ends_with("_secs"));
            map.values_mut().for_each(strip_wall_times);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_wall_times),
        _ => {}
    }
}

#[test]
fn a_seeded_tournament_of_wasi_bots_is_the_same_idle_and_under_full_load() {
    let root = tempfile::tempdir().unwrap();
    let bots = [
        ttt_bot(root.path(), "blocker", None),
        ttt_bot(root.path(), "clock", Some("clock")),
        ttt_bot(root.path(), "looper", Some("loop")),
    ];
    let list: Vec<String> = bots.iter().map(|b| format!("{b:?}")).collect();
    let file = root.path().join("t.toml");
    std::fs::write(
        &file,
        format!(
            "game = \"tictactoe\"\nbots = [{}]\ngames = 3\nrounds = 2\nseed = 7\njobs = 1\nplayers_per_game = 2\n\
             sandbox = false\nwasm_only = true\nanswer_ms = 20000\nanswer_fuel = 20000000\n",
            list.join(", ")
        ),
    )
    .unwrap();
    let idle = root.path().join("idle");
    run_tournament(&file, &idle, &[]);
    let loaded = root.path().join("loaded");
    {
        let _load = Load::start();
        run_tournament(&file, &loaded, &[]);
    }
    let (idle_files, loaded_files) = (verdicts(&idle), verdicts(&loaded));
    assert!(
        idle_files
            .iter()
            .any(|(_, text)| text.contains("ran out of fuel")),
        "the looper's time-outs are part of what is compared"
    );
    assert!(
        idle_files.iter().any(|(_, text)| text.contains("clock ")),
        "the clock bot reported its clock"
    );
    assert_eq!(idle_files.len(), loaded_files.len());
    for ((name, idle), (loaded_name, loaded)) in idle_files.iter().zip(&loaded_files) {
        assert_eq!(name, loaded_name);
        assert_eq!(idle, loaded, "{name} differs under load");
    }
    // The scores the database holds, weighted by game and seat so that any difference shows.
    let scores = "SELECT CAST(ROUND(SUM(score * (game + 1) * 1000)) AS INTEGER) FROM results";
    assert_eq!(query(&idle, scores), query(&loaded, scores));
}

#[test]
fn wasm_only_refuses_a_process_bot_by_name() {
    let root = tempfile::tempdir().unwrap();
    let wasi = ttt_bot(root.path(), "blocker", None);
    let process = repo().join("bots/ttt-python");
    let file = root.path().join("t.toml");
    std::fs::write(
        &file,
        format!(
            "game = \"tictactoe\"\nbots = [{wasi:?}, {process:?}]\ngames = 1\nsandbox = false\n\
             wasm_only = true\n"
        ),
    )
    .unwrap();
    let output = koth()
        .args(["tournament", "run"])
        .arg(&file)
        .arg("--dir")
        .arg(root.path().join("t"))
        .output()
        .unwrap();
    assert!(!output.status.success());
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains("wasm_only") && said.contains("Win or Block (Python)"),
        "{said}"
    );
}

#[test]
fn a_wasm_only_hill_plays_wasi_bots_and_refuses_a_process() {
    let root = tempfile::tempdir().unwrap();
    let bots = [
        ttt_bot(root.path(), "blocker", None),
        ttt_bot(root.path(), "clock", Some("clock")),
    ];
    let file = root.path().join("hill.toml");
    std::fs::write(
        &file,
        "game = \"tictactoe\"\nrounds = 2\nanswer_fuel = 10000000\nwasm_only = true\n\
         placement_games = 1\nsandbox = false\n",
    )
    .unwrap();
    let hill = root.path().join("hill");
    succeed(
        koth()
            .args(["hill", "create"])
            .arg(&file)
            .arg("--dir")
            .arg(&hill),
    );
    let added = koth()
        .args(["hill", "add"])
        .args(&bots)
        .arg(repo().join("bots/ttt-python"))
        .arg("--hill")
        .arg(&hill)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&added.stdout);
    assert!(said.contains("blocker v1: accepted"), "{said}");
    assert!(said.contains("clock v1: accepted"), "{said}");
    assert!(
        said.contains("Win or Block (Python): refused: `wasm_only`"),
        "{said}"
    );
    succeed(
        koth()
            .args(["hill", "run"])
            .arg(&hill)
            .args(["--games", "2"]),
    );
    let status = succeed(koth().args(["hill", "status"]).arg(&hill));
    let status = String::from_utf8_lossy(&status.stdout);
    let played = |bot: &str| {
        // The leaderboard's row: rank, bot, version, rating, interval, games.
        let row = status
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>())
            .find(|words| words.get(1) == Some(&bot))
            .unwrap();
        row.get(5).map(|games| games.to_string())
    };
    assert_eq!(played("blocker").as_deref(), Some("2"), "{status}");
    assert_eq!(played("clock").as_deref(), Some("2"), "{status}");
    // Each version's fuel per answer over its rated games, merged as each game is rated.
    let board = leaderboard(&hill);
    for standing in board["standings"].as_array().unwrap() {
        let fuel = &standing["fuel"];
        assert!(fuel["answers"].as_u64().unwrap() > 0, "{standing}");
        assert!(fuel["median"].as_u64().unwrap() <= fuel["max"].as_u64().unwrap());
        assert_eq!(fuel["budget"], 10_000_000, "{standing}");
    }
    let cell = board["standings"][0]["fuel"]["shown"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        status.contains("fuel med/max") && status.contains(&cell),
        "{status}"
    );
}

/// The leaderboard of a tournament shows a WASI bot's fuel per answer over its games (median,
/// maximum, near misses against its budget), and nothing for a process bot.
#[test]
fn a_tournament_s_leaderboard_shows_a_wasi_bot_s_fuel_and_none_for_a_process() {
    let root = tempfile::tempdir().unwrap();
    let wasi = ttt_bot(root.path(), "blocker", None);
    let process = repo().join("bots/ttt-python");
    let file = root.path().join("t.toml");
    std::fs::write(
        &file,
        format!(
            "game = \"tictactoe\"\nbots = [{wasi:?}, {process:?}]\ngames = 2\nrounds = 2\n\
             seed = 3\nsandbox = false\nanswer_fuel = 10000000\n"
        ),
    )
    .unwrap();
    let out = root.path().join("t");
    run_tournament(&file, &out, &[]);
    let board = leaderboard(&out);
    let standing = |name: &str| {
        board["standings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {board}"))
            .clone()
    };
    let fuel = standing("blocker")["fuel"].clone();
    // Two games of two rounds, each with its answers: the histograms of both merged.
    let answers = fuel["answers"].as_u64().unwrap();
    assert!(answers >= 4, "{fuel}");
    assert_eq!(standing("blocker")["answers"].as_u64(), Some(answers));
    assert!(fuel["median"].as_u64().unwrap() <= fuel["max"].as_u64().unwrap());
    assert!(fuel["max"].as_u64().unwrap() > 0, "{fuel}");
    assert_eq!(fuel["budget"], 10_000_000);
    assert_eq!(fuel["near_misses"], 0);
    assert!(standing("Win or Block (Python)")["fuel"].is_null());
    let table = succeed(koth().arg("leaderboard").arg(&out));
    let table = String::from_utf8_lossy(&table.stdout);
    let row = |name: &str| {
        table
            .lines()
            .find(|l| l.contains(name))
            .unwrap_or_else(|| panic!("no {name} in {table}"))
            .to_string()
    };
    assert!(table.contains("fuel med/max"), "{table}");
    assert!(
        row("blocker")
            .trim_end()
            .ends_with(fuel["shown"].as_str().unwrap()),
        "{table}"
    );
    assert!(row("Win or Block").trim_end().ends_with('—'), "{table}");
    let csv = succeed(koth().args(["leaderboard", "--format", "csv"]).arg(&out));
    let csv = String::from_utf8_lossy(&csv.stdout);
    let max = fuel["max"].to_string();
    assert!(
        csv.lines()
            .any(|l| l.contains("blocker") && l.ends_with(&format!(",{max},0,10000000"))),
        "{csv}"
    );
}

/// A copy of the sample bot folder `bots/wasi/<name>` in `root`, its sources only.
fn sample_copy(root: &Path, name: &str, files: &[&str]) -> PathBuf {
    let bot = root.join(name);
    std::fs::create_dir_all(&bot).unwrap();
    for file in files {
        let from = repo().join("bots/wasi").join(name).join(file);
        std::fs::copy(from, bot.join(file)).unwrap();
    }
    bot
}

#[test]
fn the_sample_zig_bots_are_built_by_their_build_steps_and_play() {
    let root = tempfile::tempdir().unwrap();
    let ttt = sample_copy(root.path(), "ttt-zig", &["bot.toml", "win_or_block.zig"]);
    let results = play_match(
        &ttt,
        2,
        &root.path().join("ttt"),
        &["--answer-fuel", "1000000"],
    );
    let zig = bot_result(&results, "Win or Block (Zig)");
    assert_eq!(zig["status"], "finished", "{zig}");
    assert!(ttt.join("win_or_block.wasm").is_file());
    let paths = sample_copy(root.path(), "paths-zig", &["bot.toml", "straight_up.zig"]);
    let out = root.path().join("paths");
    succeed(
        koth()
            .env("XDG_CACHE_HOME", root.path().join("cache"))
            .args(["paths", "--bot"])
            .arg(&paths)
            .args([
                "--rounds",
                "2",
                "--seed",
                "1",
                "--answer-fuel",
                "20000000",
                "--log-dir",
            ])
            .arg(&out),
    );
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    assert_eq!(results["bots"][0], "Straight Up (Zig)", "{results}");
    assert_eq!(results["faults"], serde_json::json!([]), "{results}");
    let transcript = std::fs::read_to_string(out.join("transcripts/paths-zig.txt")).unwrap();
    assert!(transcript.contains("< 0 VERTEX "), "{transcript}");
}

/// Fuel you can see: a WASI bot's fuel per answer is kept in its transcript (`# fuel F` after
/// each answer) and results, the game's report and `koth replay --text` print its median and
/// maximum, and `--measure-fuel` plays without a budget and says what one would need; that
/// budget then plays the same game without a fault, with its near misses counted.
#[test]
fn a_wasi_bot_s_fuel_per_answer_is_kept_shown_and_measured() {
    let root = tempfile::tempdir().unwrap();
    let bot = ttt_bot(root.path(), "fuelled", None);
    let measured = root.path().join("measured");
    let output = succeed(
        koth()
            .env("XDG_CACHE_HOME", root.path().join("cache"))
            .args(["tictactoe", "match", "--o", "perfect", "--seed", "1"])
            .arg("--x")
            .arg(&bot)
            .args(["--games", "2", "--measure-fuel", "--log-dir"])
            .arg(&measured),
    );
    let report = String::from_utf8_lossy(&output.stdout);
    let line = report
        .lines()
        .find(|l| l.starts_with("fuel: fuelled: median "))
        .unwrap_or_else(|| panic!("no fuel line in {report}"));
    let budget: u64 = line
        .split_once("--answer-fuel ")
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no budget suggested in {line}"));
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(measured.join("results.json")).unwrap())
            .unwrap();
    let fuel = &bot_result(&results, "fuelled")["timing"]["fuel"];
    let (answers, max) = (
        fuel["answers"].as_u64().unwrap(),
        fuel["max"].as_u64().unwrap(),
    );
    assert!(answers >= 2 && max > 0, "{fuel}");
    assert!(budget >= 2 * max, "{budget} for a maximum of {max}");
    let transcript = std::fs::read_to_string(measured.join("transcripts/fuelled.txt")).unwrap();
    let notes: Vec<u64> = transcript
        .lines()
        .filter_map(|l| l.strip_prefix("# fuel ")?.parse().ok())
        .collect();
    assert_eq!(notes.len() as u64, answers, "{transcript}");
    assert_eq!(notes.iter().max(), Some(&max));
    let replay = succeed(koth().args(["replay", "--text"]).arg(&measured));
    let replay = String::from_utf8_lossy(&replay.stdout);
    assert!(replay.contains(line), "{line} in {replay}");

    // `--answer-fuel` without a number measures as `--measure-fuel` does.
    let bare = succeed(
        koth()
            .env("XDG_CACHE_HOME", root.path().join("cache"))
            .args(["tictactoe", "match", "--o", "perfect", "--seed", "1"])
            .arg("--x")
            .arg(&bot)
            .args(["--games", "2", "--log-dir"])
            .arg(root.path().join("bare"))
            .arg("--answer-fuel"),
    );
    let bare = String::from_utf8_lossy(&bare.stdout);
    assert!(bare.contains(line), "{line} in {bare}");

    // The suggested budget plays the same match without a fault.
    let budgeted = root.path().join("budgeted");
    let results = play_match(&bot, 2, &budgeted, &["--answer-fuel", &budget.to_string()]);
    let mine = bot_result(&results, "fuelled");
    assert_eq!(mine["status"], "finished", "{mine}");
    assert_eq!(mine["timing"]["fuel"]["budget"], budget);
    assert_eq!(mine["timing"]["fuel"]["near_misses"], 0);
}

/// The answer that ran out of fuel is counted with the others: the fuel line's maximum is the
/// budget it burnt, and it is a near miss, in the report, results and transcript alike.
#[test]
fn the_answer_that_ran_out_of_fuel_is_counted_in_the_fuel_line() {
    let root = tempfile::tempdir().unwrap();
    let bot = ttt_bot(root.path(), "looper", Some("loop"));
    let out = root.path().join("out");
    let results = play_match(&bot, 1, &out, &["--answer-fuel", "2000000"]);
    let looper = bot_result(&results, "looper");
    assert_eq!(looper["status"], "timed_out", "{looper}");
    let fuel = &looper["timing"]["fuel"];
    assert!(fuel["answers"].as_u64().unwrap() >= 1, "{fuel}");
    assert_eq!(fuel["max"], 2_000_000, "{fuel}");
    assert!(fuel["near_misses"].as_u64().unwrap() >= 1, "{fuel}");
    let transcript = std::fs::read_to_string(out.join("transcripts/looper.txt")).unwrap();
    assert!(transcript.contains("# fuel 2000000"), "{transcript}");
    let replay = succeed(koth().args(["replay", "--text"]).arg(&out));
    let replay = String::from_utf8_lossy(&replay.stdout);
    assert!(replay.contains("max 2M fuel per answer"), "{replay}");
}
