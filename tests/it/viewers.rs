//! The replay viewers of noughts & crosses, the rat-race board and flag in a real browser
//! (headless Chromium through WebDriver): real games with a bot that faults part-way, stepped
//! through with the page's own controls, each answer and the fault's reason read off the page.
//! Screenshots are kept in `target/test-screenshots/`.

use std::path::Path;

use fantoccini::{Client, Locator};

use crate::dashboard::{browser, screenshot, serve, text_of, until};
use crate::flag_game::{play_with, script_bot};
use crate::support::ratrace::faulty_rat_race;
use crate::support::tournament::{koth, repo, run_tournament, succeed};
use crate::support::viewer_files::TICTACTOE_RESULTS;

pub(crate) async fn click(client: &Client, css: &str) {
    client
        .find(Locator::Css(css))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

/// `koth replay FOLDER --html PAGE`; returns the page's `file://` address.
fn replay_page(folder: &Path, page: &Path) -> String {
    succeed(koth().arg("replay").arg(folder).arg("--html").arg(page));
    let html = std::fs::read_to_string(page).unwrap();
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "the page must need no network"
    );
    format!("file://{}", page.display())
}

#[test]
fn the_noughts_and_crosses_viewer_steps_through_each_answer_to_the_fault() {
    let tmp = tempfile::tempdir().unwrap();
    // Win or Block plays X in the first game; Always Centre answers the centre, taken by then.
    let file = tmp.path().join("t.toml");
    std::fs::write(
        &file,
        format!(
            "game = \"tictactoe\"\nbots = [{:?}, {:?}]\ngames = 1\nrounds = 2\njobs = 1\n\
             sandbox = false\nseed = 5\nanswer_ms = 5000\n",
            repo().join("bots/ttt-python"),
            repo().join("tests/menace_bots/illegal"),
        ),
    )
    .unwrap();
    let dir = tmp.path().join("t");
    run_tournament(&file, &dir, &[]);
    let (_server, port) = serve(&dir);
    let runtime = koth::game::runtime().unwrap();
    runtime.block_on(async {
        let (_driver, client) = browser().await;
        // The dashboard's page of the game is the viewer.
        client
            .goto(&format!("http://127.0.0.1:{port}/games/0"))
            .await
            .unwrap();
        until("the viewer shows the match", || async {
            text_of(&client, "#title").await.contains("Always Centre")
        })
        .await;
        assert!(text_of(&client, "#answer").await.contains("no move yet"));
        assert!(text_of(&client, "#legend").await.contains("moves first"));

        click(&client, "#next").await;
        let first = text_of(&client, "#answer").await;
        assert!(
            first.starts_with("Move 1: X Win or Block (Python) answered"),
            "{first}"
        );
        assert!(first.ends_with(" ms"), "the answer's time: {first}");
        click(&client, "#next").await;
        let second = text_of(&client, "#answer").await;
        assert_ne!(first, second, "a step shows the next answer");
        assert!(
            second.contains("Always Centre answered \"4\"")
                && second.contains("bad_output: answered \"4\" as O: square 4 is taken"),
            "{second}"
        );
        assert_eq!(
            text_of(&client, "#moves").await,
            "2",
            "two moves, the second refused"
        );
        assert!(text_of(&client, "#result").await.contains("lost by fault"));
        let faults = text_of(&client, "#faults").await;
        assert!(
            faults.contains("game 1 move 2: Always Centre bad_output: answered \"4\""),
            "{faults}"
        );
        // A square's history: who took it, and the answer that named it and was refused.
        client
            .execute(
                "document.querySelector('[data-square=\"4\"]')\
                 .dispatchEvent(new Event('mouseenter'));",
                vec![],
            )
            .await
            .unwrap();
        let square = text_of(&client, "#square-info").await;
        assert!(
            square.contains("taken at move 1 by X") && square.contains("refused"),
            "{square}"
        );
        screenshot(&client, "viewer-tictactoe-fault.png").await;

        // Playing at 8× goes on into the second game by itself.
        client
            .find(Locator::Css("#speed"))
            .await
            .unwrap()
            .select_by_label("8×")
            .await
            .unwrap();
        click(&client, "#play").await;
        until("play reaches the second game", || async {
            text_of(&client, "#game").await == "2"
        })
        .await;
        client.close().await.unwrap();
    });
}

/// The data a viewer page embeds after `const NAME = `.
pub(crate) fn embedded(page: &str, name: &str) -> serde_json::Value {
    let start = page.find(&format!("const {name} = ")).unwrap() + name.len() + 9;
    let line = page[start..].lines().next().unwrap();
    serde_json::from_str(&line.trim_end_matches(';').replace("<\\/", "</")).unwrap()
}

#[test]
fn each_noughts_and_crosses_answer_is_placed_in_its_game_across_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("results.json"), TICTACTOE_RESULTS).unwrap();
    // Always Centre's process was started again for game 2 (a `# round` note), where it plays
    // X; Win or Block is left without a transcript, as koth's own players are.
    std::fs::create_dir(dir.path().join("transcripts")).unwrap();
    std::fs::write(
        dir.path().join("transcripts/centre.txt"),
        "# bot Always Centre\n# round 1\n> 0 START O\n# turn 2\n? 10 MOVE ....X....\n< 15 4\n\
         > 15 END LOSS\n# round 2\n> 20 START X\n# turn 1\n? 20 MOVE .........\n< 27 4\n\
         # turn 3\n? 30 MOVE O...X....\n< 31 8\n",
    )
    .unwrap();
    // The page is drawn by the game its folder names, through koth\'s registry.
    koth::games::install();
    let page = koth::replay::page_of(dir.path(), None).unwrap();
    let games = &embedded(&page, "MATCH")["games"];
    // By game and move, both from 1.
    let answer = |game: usize, turn: usize| games[game - 1]["answers"][turn - 1].clone();
    assert_eq!(answer(1, 1), serde_json::Value::Null, "no transcript");
    assert_eq!(answer(1, 2)["answer"], "4");
    assert_eq!(answer(1, 2)["ms"], 5);
    assert_eq!(answer(2, 1)["answer"], "4");
    assert_eq!(answer(2, 1)["ms"], 7);
    assert_eq!(answer(2, 3)["answer"], "8");
    assert_eq!(answer(2, 3)["ms"], 1);
    assert_eq!(answer(2, 2), serde_json::Value::Null);
}

#[test]
fn the_rat_race_board_viewer_shows_each_turn_s_answer_and_the_fault_that_ended_it() {
    let tmp = tempfile::tempdir().unwrap();
    let log = faulty_rat_race(tmp.path());
    let url = replay_page(&log, &tmp.path().join("board.html"));
    let runtime = koth::game::runtime().unwrap();
    runtime.block_on(async {
        let (_driver, client) = browser().await;
        client.goto(&url).await.unwrap();
        until("the board is shown", || async {
            text_of(&client, "#turn").await == "0"
        })
        .await;
        let mut answers = Vec::new();
        for turn in 1..=6 {
            click(&client, "#next").await;
            assert_eq!(text_of(&client, "#turn").await, turn.to_string());
            assert_eq!(
                text_of(&client, "#answer-title").await,
                format!("Answer in turn {turn}")
            );
            let time = text_of(&client, "#answer-time").await;
            if turn < 6 {
                assert!(time.ends_with(" ms"), "turn {turn}: {time}");
            }
            answers.push(text_of(&client, "#answer").await);
        }
        assert!(answers[0].starts_with("1,0 1,0"), "{answers:?}");
        assert!(
            answers.windows(2).any(|pair| pair[0] != pair[1]),
            "the answer shown changes as the turns go: {answers:?}"
        );
        assert!(answers[5].starts_with("hello"), "{answers:?}");
        let time = text_of(&client, "#answer-time").await;
        assert!(
            time.contains("bad_output") && time.contains("move 1 is \"hello\""),
            "{time}"
        );
        let fault = text_of(&client, "#fault").await;
        assert!(fault.starts_with("turn 6: bad_output"), "{fault}");
        // The bot's stderr, folded: its own lines up to the fault.
        let stderr = client
            .execute(
                "return document.querySelector('#stderr pre').textContent;",
                vec![],
            )
            .await
            .unwrap();
        assert!(
            stderr
                .as_str()
                .unwrap()
                .contains("faulty player: turn 5"),
            "{stderr}"
        );
        // A cell on hover: its colour, what it does and the specimens that stood on it.
        client
            .execute(
                "const board = document.getElementById('board'), r = board.getBoundingClientRect(); \
                 board.dispatchEvent(new MouseEvent('mousemove', \
                 { clientX: r.left + 7, clientY: r.top + 7, bubbles: true }));",
                vec![],
            )
            .await
            .unwrap();
        let cell = text_of(&client, "#cell").await;
        assert!(
            cell.starts_with("Cell (0, 0), colour") && cell.contains("specimen"),
            "{cell}"
        );
        assert!(text_of(&client, "#legend").await.contains("a start cell"));
        screenshot(&client, "viewer-ratrace-fault.png").await;
        client.close().await.unwrap();
    });
}

#[test]
fn the_flag_viewer_walks_a_level_step_by_step_and_shows_the_fault_of_the_next() {
    let tmp = tempfile::tempdir().unwrap();
    // Solves the first level, then answers a walk with a letter that is not a move.
    let bot = script_bot(
        tmp.path(),
        "solves-one",
        "n=0; while read -r line; do if [ \"$line\" = SOLVE ]; then n=$((n+1)); \
         if [ $n = 1 ]; then echo DURRDDLL; else echo thinking >&2; echo DURX; fi; fi; done\n",
    );
    let logs = tmp.path().join("g");
    play_with(&bot, &logs);
    let url = replay_page(&logs, &tmp.path().join("flag.html"));
    let runtime = koth::game::runtime().unwrap();
    runtime.block_on(async {
        let (_driver, client) = browser().await;
        client.goto(&url).await.unwrap();
        until("the first level is shown", || async {
            text_of(&client, "#moves").await == "8"
        })
        .await;
        assert!(
            text_of(&client, "#answer")
                .await
                .contains("8 character(s) in")
        );
        click(&client, "#next").await;
        let first = text_of(&client, "#step").await;
        assert!(first.starts_with("Move 1: down"), "{first}");
        click(&client, "#next").await;
        assert_ne!(text_of(&client, "#step").await, first);
        client.goto(&format!("{url}?move=8")).await.unwrap();
        assert!(
            text_of(&client, "#result")
                .await
                .starts_with("Solved, fitness")
        );
        click(&client, "#next-level").await;
        let answer = text_of(&client, "#answer").await;
        assert!(
            answer.contains("2-dark-centre") && answer.contains("bad_output: answered \"DURX\""),
            "{answer}"
        );
        let faults = text_of(&client, "#faults").await;
        assert!(
            faults.contains("level 2 (2-dark-centre): bad_output") && faults.contains("'X'"),
            "{faults}"
        );
        assert!(
            client.find(Locator::Css("#faults li.now")).await.is_ok(),
            "the level's fault is marked"
        );
        screenshot(&client, "viewer-flag-fault.png").await;
        client.close().await.unwrap();
    });
}
