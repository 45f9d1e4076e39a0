//! The boards a rat-race match keeps in a tournament (`record_boards`): the first board and the
//! first board the bot faulted on, written into the game's folder by the match, and shown by the
//! dashboard (`/games/N`, `/games/N?board=B`), in a real tournament with a bot that crashes on a
//! later board.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::dashboard::{browser, get, screenshot, serve, text_of, until};
use crate::support::tournament::{koth, repo, run_tournament};
use crate::viewers::{click, embedded};

/// A bot folder in `dir` whose player (`tests/ratrace_bots/faulty.py`, copied in) crashes in
/// turn 3 of board 2 as the protocol counts (from 0), board 3 as a person does, and ends every
/// other board after one turn.
fn crashes_on_board_2(dir: &Path) -> PathBuf {
    let bot = dir.join("crashes-on-2");
    std::fs::create_dir_all(&bot).unwrap();
    std::fs::copy(
        repo().join("tests/ratrace_bots/faulty.py"),
        bot.join("faulty.py"),
    )
    .unwrap();
    std::fs::write(
        bot.join("bot.toml"),
        "name = \"Crashes on 2\"\nrun = \"python3 faulty.py crash 3 board=2\"\n\
         games = [\"ratrace\"]\n",
    )
    .unwrap();
    bot
}

/// A tournament file in `dir` of two rat-race games of four boards for `bot`, with `extra` keys.
fn tournament_file(dir: &Path, bot: &Path, extra: &str) -> PathBuf {
    let file = dir.join("t.toml");
    std::fs::write(
        &file,
        format!(
            "game = \"ratrace\"\nbots = [{bot:?}]\ngames = 2\nrounds = 4\njobs = 1\n\
             sandbox = false\nseed = 1\nanswer_ms = 5000\n{extra}"
        ),
    )
    .unwrap();
    file
}

/// The board files in a game's folder, by board.
fn board_files(game: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(game)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".replay.json"))
        .collect();
    names.sort();
    names
}

#[test]
fn a_tournament_keeps_board_0_and_the_faulted_board_and_the_dashboard_shows_each() {
    let tmp = tempfile::tempdir().unwrap();
    let bot = crashes_on_board_2(tmp.path());
    let out = tmp.path().join("t");
    run_tournament(&tournament_file(tmp.path(), &bot, ""), &out, &[]);
    for game in 0..2 {
        let folder = out.join(format!("games/{game}"));
        assert_eq!(
            board_files(&folder),
            ["board-1.replay.json", "board-3.replay.json"],
            "game {game}"
        );
        let results: Value =
            serde_json::from_str(&std::fs::read_to_string(folder.join("results.json")).unwrap())
                .unwrap();
        assert_eq!(results["recorded"], serde_json::json!([0, 2]));
        assert_eq!(results["boards"][2]["fault_kind"], "crashed");
        assert_eq!(results["boards"][2]["turns"], 3);
        // The faulted board is recorded up to its fault.
        let board: Value = serde_json::from_str(
            &std::fs::read_to_string(folder.join("board-3.replay.json")).unwrap(),
        )
        .unwrap();
        let turns: Vec<u64> = board["frames"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["turn"].as_u64().unwrap())
            .collect();
        assert_eq!(turns, [0, 1, 2, 3]);
    }

    let (_server, port) = serve(&out);
    let (status, page) = get(port, "/games/1");
    assert!(status.contains("200"), "{status}: {page}");
    assert!(page.contains("<title>koth replay: rat race board</title>"));
    let shown = embedded(&page, "BOARD");
    assert_eq!(shown["board"], 0);
    let listed: Vec<(u64, Value)> = shown["recorded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["board"].as_u64().unwrap(), r["fault"].clone()))
        .collect();
    assert_eq!(
        listed,
        [(0, Value::Null), (2, Value::String("crashed".into()))]
    );
    // Boards are stored from 0 and asked for from 1, as a person counts.
    let (status, page) = get(port, "/games/1?board=3");
    assert!(status.contains("200"), "{status}: {page}");
    let shown = embedded(&page, "BOARD");
    assert_eq!(shown["board"], 2);
    assert_eq!(shown["explanation"]["fault"]["kind"], "crashed");
    assert_eq!(shown["explanation"]["fault"]["turn"], 3);
    // A board that was not kept, and a board that is not a number.
    let (status, message) = get(port, "/games/1?board=2");
    assert!(status.contains("404"), "{status}");
    assert!(
        message.contains("game 1 has no replay to show")
            && message.contains("board 2 was not recorded (recorded: 1, 3)"),
        "{message}"
    );
    let (status, _) = get(port, "/games/1?board=two");
    assert!(status.contains("400"), "{status}");

    // In a browser: the page of board 1 links to board 3's, which shows the crash.
    let runtime = koth::game::runtime().unwrap();
    runtime.block_on(async {
        let (_driver, client) = browser().await;
        client
            .goto(&format!("http://127.0.0.1:{port}/games/1"))
            .await
            .unwrap();
        until("board 1 is shown", || async {
            text_of(&client, "#title").await.starts_with("Board 1 ")
        })
        .await;
        let boards = text_of(&client, "#boards").await;
        assert!(
            boards.contains("Recorded boards of this run (2): board 1, board 3 (crashed)"),
            "{boards}"
        );
        click(&client, "#boards a").await;
        until("board 3 is shown", || async {
            text_of(&client, "#title").await.starts_with("Board 3 ")
        })
        .await;
        assert!(
            client
                .current_url()
                .await
                .unwrap()
                .as_str()
                .ends_with("/games/1?board=3")
        );
        let fault = text_of(&client, "#fault").await;
        assert!(fault.starts_with("turn 3: crashed"), "{fault}");
        screenshot(&client, "dashboard-ratrace-faulted-board.png").await;
        client.close().await.unwrap();
    });
}

#[test]
fn record_boards_none_keeps_no_board_and_an_unknown_choice_is_an_error_naming_file_and_key() {
    let tmp = tempfile::tempdir().unwrap();
    let bot = crashes_on_board_2(tmp.path());
    let out = tmp.path().join("t");
    let file = tournament_file(tmp.path(), &bot, "record_boards = \"none\"\n");
    run_tournament(&file, &out, &[]);
    assert!(board_files(&out.join("games/0")).is_empty());
    let (_server, port) = serve(&out);
    let (status, message) = get(port, "/games/0");
    assert!(status.contains("404"), "{status}");
    assert!(
        message.contains("holds no recorded board") && message.contains("record_boards"),
        "{message}"
    );

    let file = tournament_file(tmp.path(), &bot, "record_boards = \"every\"\n");
    let output = koth()
        .args(["tournament", "run"])
        .arg(&file)
        .arg("--dir")
        .arg(tmp.path().join("bad"))
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("t.toml")
            && stderr.contains("record_boards")
            && stderr.contains("every")
            && stderr.contains("first-and-faulted"),
        "{stderr}"
    );
}
