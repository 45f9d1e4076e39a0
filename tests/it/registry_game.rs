//! A game is its folder plus one registry line: the test tree's throw-away game, lowest unique
//! bid (`tests/lowbid/`, built as the example `lowbid`), added to koth through the registry
//! alone, is found by every command of koth's own command line: its own command and `--help`,
//! a tournament and its leaderboard, a hill, the dashboard, `koth replay` in the terminal, as
//! text (the story of a round whose one prompt opens it, `--round`) and as a web page (and
//! `--board`, which its viewer does not take, refused), and `--drive`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::dashboard::{Killed, free_port, get};
use crate::support::tournament::{query, succeed};

/// The example binary: koth's command line with lowbid installed beside koth's games.
pub(crate) fn lowbid() -> Command {
    // target/<profile>/deps/it-… → target/<profile>/examples/lowbid
    let exe = std::env::current_exe().unwrap();
    let path = exe
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .join("examples/lowbid");
    assert!(
        path.is_file(),
        "{} is missing: `cargo test` builds it; for `cargo test --test it`, run \
         `cargo build --release --example lowbid` first",
        path.display()
    );
    Command::new(path)
}

/// A bot folder for lowbid that bids `bid` each round (`bad`: a word instead in round 2).
fn bidder(root: &Path, name: &str, bid: u32, bad: bool) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("bot.toml"),
        format!("name = {name:?}\nrun = \"python3 -u bid.py\"\ngames = [\"lowbid\"]\n"),
    )
    .unwrap();
    std::fs::write(
        dir.join("bid.py"),
        format!(
            "import sys\nfor line in sys.stdin:\n    w = line.split()\n    if w[0] == 'BID':\n        \
             print('many' if {bad} and w[1] == '2' else {bid})\n",
            bad = if bad { "True" } else { "False" }
        ),
    )
    .unwrap();
    dir
}

fn text(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn a_game_added_through_the_registry_alone_is_in_every_command() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let bots = [
        bidder(root, "one", 1, false),
        bidder(root, "two", 2, false),
        bidder(root, "also-two", 2, false),
        bidder(root, "wordy", 3, true),
    ];

    // Its own command, listed by --help with koth's.
    let help = text(&succeed(lowbid().arg("--help")));
    assert!(help.contains("lowbid") && help.contains("paths"), "{help}");
    let game = root.join("game");
    let mut command = lowbid();
    command
        .arg("lowbid")
        .args(["--rounds", "3", "--seed", "5", "--log-dir"]);
    command.arg(&game);
    for bot in &bots {
        command.arg("--bot").arg(bot);
    }
    succeed(&mut command);
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(game.join("results.json")).unwrap()).unwrap();
    assert_eq!(results["result"]["game"], "lowbid");
    // Bids of 1 are unique every round; the word of round 2 is a fault of round 2, no turn.
    let scores: Vec<f64> = (0..4)
        .map(|b| results["result"]["bots"][b]["score"].as_f64().unwrap())
        .collect();
    assert_eq!(scores, [3.0, 0.0, 0.0, 0.0], "{results}");
    let fault = &results["result"]["bots"][3]["faults"][0];
    assert_eq!(fault["round"], 2, "{fault}");
    assert!(
        fault.get("turn").is_none(),
        "a round borrows no turn: {fault}"
    );
    let transcript = std::fs::read_to_string(game.join("transcripts/one.txt")).unwrap();
    assert!(transcript.contains("# in round 2\n"), "{transcript}");

    // koth replay: the terminal and --text (the kit's view of results.json, then the story
    // of a round told from the transcripts: a round is one BID prompt, and its answers are
    // found by it), the page, and an option its viewer does not take refused by name.
    for extra in [&[][..], &["--text"][..]] {
        let shown = text(&succeed(lowbid().arg("replay").arg(&game).args(extra)));
        assert!(
            shown.contains("lowbid (seed 5)") && shown.contains("wordy"),
            "{shown}"
        );
        assert!(shown.contains("answers in round 1"), "{shown}");
        assert!(!shown.contains("none recorded"), "{shown}");
    }
    let round = text(&succeed(
        lowbid()
            .arg("replay")
            .arg(&game)
            .args(["--round", "2", "--text"]),
    ));
    let told = round
        .split("answers in round 2")
        .nth(1)
        .and_then(|rest| rest.split("faults").next())
        .unwrap_or_default()
        .to_string();
    assert!(
        told.contains("wordy") && told.contains("many") && !told.contains("none recorded"),
        "round 2's answers, wordy's word among them:\n{round}"
    );
    let page = root.join("page.html");
    succeed(lowbid().arg("replay").arg(&game).arg("--html").arg(&page));
    let page = std::fs::read_to_string(page).unwrap();
    assert!(
        page.contains(r#""seed":"5""#),
        "a seed is a string on a page"
    );
    let refused = lowbid()
        .arg("replay")
        .arg(&game)
        .args(["--board", "1"])
        .output()
        .unwrap();
    let error = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(
        error.contains("--board does not apply to a game of lowbid"),
        "{error}"
    );

    // --drive: a bot's transcript played again by its folder, the same answers.
    let driven = lowbid()
        .arg("replay")
        .arg(&game)
        .arg("--drive")
        .arg(&bots[0])
        .args(["--as", "one"])
        .output()
        .unwrap();
    assert!(
        driven.status.success(),
        "{}{}",
        text(&driven),
        String::from_utf8_lossy(&driven.stderr)
    );

    // A tournament, its leaderboard, and its dashboard with the game's replay page.
    let file = root.join("t.toml");
    let listed: Vec<String> = bots.iter().map(|b| format!("{b:?}")).collect();
    std::fs::write(
        &file,
        format!(
            "game = \"lowbid\"\nbots = [{}]\ngames = 2\nrounds = 2\nseed = 7\nsandbox = false\n",
            listed.join(", ")
        ),
    )
    .unwrap();
    // Too few bots: the remedy named is more bots, not a key that cannot help.
    let few = root.join("few.toml");
    std::fs::write(
        &few,
        format!(
            "game = \"lowbid\"\ngames = 1\nbots = [{}]\n",
            listed[..2].join(", ")
        ),
    )
    .unwrap();
    let refused = lowbid()
        .args(["tournament", "run"])
        .arg(&few)
        .arg("--dir")
        .arg(root.join("few"))
        .output()
        .unwrap();
    let error = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(
        error.contains("list at least 3") && !error.contains("players_per_game"),
        "{error}"
    );
    let out = root.join("tournament");
    succeed(
        lowbid()
            .args(["tournament", "run"])
            .arg(&file)
            .arg("--dir")
            .arg(&out),
    );
    assert_eq!(
        query(&out, "SELECT COUNT(*) FROM games WHERE state = 'done'"),
        2
    );
    let board = text(&succeed(lowbid().arg("leaderboard").arg(&out)));
    assert!(board.contains("one") && board.contains("wordy"), "{board}");
    let port = free_port();
    let _server = Killed(
        lowbid()
            .arg("serve")
            .arg(&out)
            .arg("--addr")
            .arg(format!("127.0.0.1:{port}"))
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "never listened"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let (status, games) = get(port, "/api/games");
    assert!(
        status.contains("200") && games.contains("wordy"),
        "{status} {games}"
    );
    let (status, page) = get(port, "/games/0");
    assert!(
        status.contains("200") && page.contains("const GAME"),
        "{status} {page}"
    );

    // A hill: a version added is validated by a game of lowbid against copies of itself.
    let hill_file = root.join("hill.toml");
    std::fs::write(&hill_file, "game = \"lowbid\"\nrounds = 2\nseed = 3\n").unwrap();
    let hill = root.join("hill");
    succeed(
        lowbid()
            .args(["hill", "create"])
            .arg(&hill_file)
            .arg("--dir")
            .arg(&hill),
    );
    let added = succeed(
        lowbid()
            .args(["hill", "add"])
            .arg(&bots[0])
            .arg("--hill")
            .arg(&hill),
    );
    assert!(text(&added).contains("one"), "{}", text(&added));
}
