//! Games followed while they are played: a real tournament served on 127.0.0.1 with bots slow
//! enough to watch, its games' records read as Server-Sent Events while they are played,
//! resumed by id, and compared with the `replay.jsonl` each game leaves; the delay the server
//! holds them for; the page of a game in progress in Chromium, whose own board (every game's
//! viewer) advances while the game is played and becomes its replay at the end.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant, SystemTime};

use fantoccini::Locator;

use crate::dashboard::{Killed, browser, console_errors, screenshot, serving, text_of, until};
use crate::support::tournament::koth;

/// The file under `root` whose presence keeps the slow bots there slow: a browser test removes
/// it once it has followed the game live, and the rest of the game is played at full speed
/// (waiting for a slow game's end added nothing the test looks at).
fn pace_marker(root: &Path) -> PathBuf {
    root.join("slow-pace")
}

/// A noughts & crosses bot taking the first free cell after `pause_s` seconds while the pace
/// marker under `root` is there.
fn slow_bot(root: &Path, name: &str, pause_s: f64) -> PathBuf {
    std::fs::write(pace_marker(root), "").unwrap();
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("bot.toml"),
        format!("name = \"{name}\"\nrun = \"python3 -u slow.py\"\ngames = [\"tictactoe\"]\n"),
    )
    .unwrap();
    std::fs::write(
        dir.join("slow.py"),
        format!(
            "import os, sys, time\n\
             for line in sys.stdin:\n\
             \x20   parts = line.split()\n\
             \x20   if len(parts) == 2 and parts[0] == 'MOVE':\n\
             \x20       if os.path.exists({marker:?}): time.sleep({pause_s})\n\
             \x20       print(parts[1].index('.'), flush=True)\n",
            marker = pace_marker(root)
        ),
    )
    .unwrap();
    dir
}

/// A tournament of two slow bots, one game at a time, each game `rounds` games of noughts &
/// crosses (about 0.9 s each: the first free cell, X wins in 7 moves).
fn slow_tournament(root: &Path, games: u32, rounds: u32, extra: &str) -> PathBuf {
    let a = slow_bot(root, "Slow", 0.12);
    let b = slow_bot(root, "Slower", 0.12);
    let path = root.join("t.toml");
    std::fs::write(
        &path,
        format!(
            "game = \"tictactoe\"\nbots = [{a:?}, {b:?}]\ngames = {games}\nrounds = {rounds}\n\
             jobs = 1\nsandbox = false\nanswer_ms = 3000\nseed = 3\n{extra}"
        ),
    )
    .unwrap();
    path
}

/// A tournament of `games` slow games of `rounds` rounds (with `extra` in its file) run in
/// `root/t` and served on a free port until the test ends: the run, its address and its folder.
fn served(
    root: &Path,
    games: u32,
    rounds: u32,
    extra: &str,
    flags: &[&str],
) -> (Killed, String, PathBuf) {
    let dir = root.join("t");
    let (run, base) = serving(
        koth()
            .args(["tournament", "run"])
            .arg(slow_tournament(root, games, rounds, extra))
            .arg("--dir")
            .arg(&dir)
            .args(["--serve", "127.0.0.1:0", "--serve-after"])
            .args(flags),
    );
    (run, base, dir)
}

/// One event of a stream.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Event {
    pub(crate) id: Option<u64>,
    pub(crate) name: String,
    data: String,
    /// When it arrived.
    at: SystemTime,
}

/// Reads the events of `url` (after `last` if given) until `enough` holds of those read, or
/// the stream ends.
pub(crate) fn events(
    url: &str,
    last: Option<u64>,
    enough: impl Fn(&[Event]) -> bool,
) -> Vec<Event> {
    let client = koth::hill::submit::http_client(Some(Duration::from_secs(120))).unwrap();
    let mut request = client.get(url);
    if let Some(last) = last {
        request = request.header("Last-Event-ID", last.to_string());
    }
    let response = request.send().unwrap();
    assert_eq!(response.status(), 200, "{url}");
    assert_eq!(
        response.headers()["content-type"],
        "text/event-stream",
        "{url}"
    );
    let mut read = Vec::new();
    let (mut id, mut name, mut data) = (None, String::new(), Vec::new());
    for line in BufReader::new(response).lines() {
        let Ok(line) = line else { break };
        if line.is_empty() {
            if !data.is_empty() {
                read.push(Event {
                    id: id.take(),
                    name: std::mem::take(&mut name),
                    data: std::mem::take(&mut data).join("\n"),
                    at: SystemTime::now(),
                });
                if enough(&read) {
                    break;
                }
            }
            continue;
        }
        if let Some(value) = line.strip_prefix("id: ") {
            id = Some(value.parse().unwrap());
        } else if let Some(value) = line.strip_prefix("event: ") {
            name = value.to_string();
        } else if let Some(value) = line.strip_prefix("data: ") {
            data.push(value.to_string());
        }
    }
    read
}

fn get(url: &str) -> reqwest::blocking::Response {
    let client = koth::hill::submit::http_client(Some(Duration::from_secs(30))).unwrap();
    client.get(url).send().unwrap()
}

fn get_json(url: &str) -> serde_json::Value {
    get(url).json().unwrap()
}

/// The games `/api/live` lists, once it lists at least one.
fn live_games(base: &str) -> Vec<serde_json::Value> {
    let started = Instant::now();
    loop {
        let listed = get_json(&format!("{base}api/live"));
        let games = listed.as_array().unwrap().clone();
        if !games.is_empty() {
            return games;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no game went live"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

pub(crate) fn joined(events: &[Event]) -> String {
    events
        .iter()
        .filter(|e| e.name != "end")
        .map(|e| format!("{}\n", e.data))
        .collect()
}

#[test]
fn a_game_is_read_live_resumed_by_id_and_its_records_are_its_replay() {
    let tmp = tempfile::tempdir().unwrap();
    let (run, base, dir) = served(tmp.path(), 2, 4, "", &[]);
    let games = live_games(&base);
    let game = &games[0];
    let index = game["index"].as_u64().unwrap();
    assert_eq!(game["game"], "tictactoe");
    let seats: Vec<&str> = game["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert!(
        seats.contains(&"Slow") && seats.contains(&"Slower"),
        "{game}"
    );
    let stream = format!(
        "{base}{}",
        game["stream"].as_str().unwrap().trim_start_matches('/')
    );

    // Read while it is played: the first records, then the watcher goes away.
    let first = events(&stream, None, |read| read.len() >= 6);
    assert_eq!(first.len(), 6);
    let ids: Vec<u64> = first.iter().map(|e| e.id.unwrap()).collect();
    assert_eq!(ids, [1, 2, 3, 4, 5, 6]);
    assert_eq!(first[0].name, "seats");
    let results = dir
        .join("games")
        .join(index.to_string())
        .join("results.json");
    assert!(
        !results.exists(),
        "the records were read before the game ended"
    );

    // Resumed after the last id it had, by header and by query: none missing, none twice.
    let rest = events(&stream, Some(6), |_| false);
    let end = rest.last().unwrap();
    assert_eq!(end.name, "end", "{rest:?}");
    let ended: serde_json::Value = serde_json::from_str(&end.data).unwrap();
    assert_eq!(ended["state"], "done");
    assert_eq!(ended["result"]["game"], "tictactoe");
    assert_eq!(rest[0].id, Some(7));
    let by_query = events(&format!("{stream}?from=6"), None, |_| false);
    assert_eq!(
        by_query
            .iter()
            .map(|e| (&e.id, &e.data))
            .collect::<Vec<_>>(),
        rest.iter().map(|e| (&e.id, &e.data)).collect::<Vec<_>>()
    );
    let mut whole = first.clone();
    whole.extend(rest.iter().cloned());
    let replay = std::fs::read_to_string(results.with_file_name("replay.jsonl")).unwrap();
    assert_eq!(
        joined(&whole),
        replay,
        "the stream is the replay, byte for byte"
    );
    let kinds: Vec<&str> = whole.iter().map(|e| e.name.as_str()).collect();
    assert!(
        kinds.contains(&"answer") && kinds.contains(&"round"),
        "{kinds:?}"
    );

    // A finished game answers its whole stream at once, then its end.
    let again = events(&stream, None, |_| false);
    assert_eq!(joined(&again), replay);
    assert_eq!(again.last().unwrap().name, "end");
    // An id that is no number is refused; a game that does not exist is not found.
    let refused = get(&format!("{stream}?from=x"));
    assert_eq!(refused.status(), 400);
    let missing = get(&format!("{base}api/games/99/live"));
    assert_eq!(missing.status(), 404);
    drop(run);
}

#[test]
fn the_server_holds_every_record_for_the_delay_the_tournament_file_gives() {
    let tmp = tempfile::tempdir().unwrap();
    let (_run, base, dir) = served(tmp.path(), 1, 4, "live_delay_s = 2\n", &[]);
    let games = live_games(&base);
    let index = games[0]["index"].as_u64().unwrap();
    let folder = dir.join("games").join(index.to_string());
    let stream = format!("{base}api/games/{index}/live");
    let read = events(&stream, None, |_| false);
    // The first record is the seats line, written as the game began: it came 2 s later at
    // the earliest; the end, 2 s after the game's result was written.
    let began = std::fs::metadata(folder.join("replay.jsonl"))
        .unwrap()
        .created()
        .unwrap();
    let first = read.first().unwrap();
    assert!(
        first.at.duration_since(began).unwrap() >= Duration::from_millis(1900),
        "{:?}",
        first.at.duration_since(began)
    );
    let end = read.last().unwrap();
    assert_eq!(end.name, "end");
    let ended = std::fs::metadata(folder.join("results.json"))
        .unwrap()
        .modified()
        .unwrap();
    assert!(
        end.at.duration_since(ended).unwrap() >= Duration::from_millis(1900),
        "{:?}",
        end.at.duration_since(ended)
    );
    let replay = std::fs::read_to_string(folder.join("replay.jsonl")).unwrap();
    assert_eq!(joined(&read), replay);
}

#[test]
fn a_game_s_page_follows_it_live_in_the_browser_and_becomes_its_replay() {
    let tmp = tempfile::tempdir().unwrap();
    let runtime = koth::game::runtime().unwrap();
    let (_run, base, index) = runtime.block_on(async {
        // The browser first, as it takes seconds to start on a loaded machine; then games of
        // 16 rounds (about 15 s each), opened once listed live: long enough to be watched.
        let (_driver, client) = browser().await;
        let (run, base, _) = served(tmp.path(), 2, 16, "", &[]);
        let games = live_games(&base);
        let index = games[0]["index"].as_u64().unwrap();
        client.goto(&format!("{base}games/{index}")).await.unwrap();
        until("the page says the game is live", || async {
            text_of(&client, ".koth-live-state").await.contains("live")
        })
        .await;
        let count = || async {
            let text = text_of(&client, ".koth-live-count").await;
            text.split(' ').next().unwrap().parse::<u32>().unwrap_or(0)
        };
        until("records arrive", || async { count().await > 0 }).await;
        let seen = count().await;
        screenshot(&client, "live-game.png").await;
        until("more records arrive while the page stays open", || async {
            count().await > seen
        })
        .await;
        assert!(
            text_of(&client, ".koth-live-lines").await.contains("Slow"),
            "the records name the seats"
        );
        // Scrubbed back, it stays where the watcher put it; "now" follows again.
        client
            .execute(
                "const s = document.querySelector('.koth-live-scrub'); s.value = 1; \
                 s.dispatchEvent(new Event('input'));",
                vec![],
            )
            .await
            .unwrap();
        assert!(
            text_of(&client, ".koth-live-count")
                .await
                .starts_with("1 of ")
        );
        client
            .find(Locator::Css(".koth-live-now"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        assert!(!text_of(&client, ".koth-live-count").await.contains(" of "));
        // At its end the page is the game's replay.
        until("the page becomes the finished game's replay", || async {
            client.find(Locator::Css("#in-progress")).await.is_err()
        })
        .await;
        let errors = console_errors(&client).await;
        assert!(errors.is_empty(), "{errors:?}");

        // The tv page follows a game in progress, the next one when it ends.
        client.goto(&format!("{base}tv")).await.unwrap();
        until("tv shows a game", || async {
            text_of(&client, "#title").await.contains("game ")
                || text_of(&client, "#title").await.contains("no game")
        })
        .await;
        let errors = console_errors(&client).await;
        assert!(errors.is_empty(), "{errors:?}");
        (run, base, index)
    });
    // `koth watch` follows a game in the terminal, to its end.
    let finished = Command::new(env!("CARGO_BIN_EXE_koth"))
        .args(["watch", &base, &index.to_string()])
        .output()
        .unwrap();
    assert!(finished.status.success(), "{finished:?}");
    let shown = String::from_utf8_lossy(&finished.stdout);
    assert!(shown.contains("Slow") && shown.contains("ended"), "{shown}");
}

/// How many records the page's panel holds.
async fn records(client: &fantoccini::Client) -> u32 {
    let text = text_of(client, ".koth-live-count").await;
    let all = text.split(" of ").last().unwrap_or_default();
    all.split(' ').next().unwrap().parse().unwrap_or(0)
}

/// Where the board shown in the live page's frame stands, by `measure` (a script's
/// expression over the frame's document `d`); -1 before it shows a board.
async fn progress(client: &fantoccini::Client, measure: &str) -> i64 {
    let script = format!(
        "const f = document.querySelector('.koth-live-view iframe:not(.koth-live-behind)'); \
         const d = f && f.contentDocument; \
         if (!d || !d.location.pathname.endsWith('/view')) return -1; \
         try {{ const n = {measure}; return Number.isFinite(n) ? n : -1; }} catch (e) {{ return -1; }}"
    );
    let value = client.execute(&script, vec![]).await.unwrap();
    value
        .as_i64()
        .or(value.as_f64().map(|f| f as i64))
        .unwrap_or(-1)
}

/// Where the board of the page itself stands (a finished game's replay), by `measure`.
async fn top_progress(client: &fantoccini::Client, measure: &str) -> i64 {
    let script = format!(
        "const d = document; try {{ const n = {measure}; return Number.isFinite(n) ? n : -1; }} \
         catch (e) {{ return -1; }}"
    );
    let value = client.execute(&script, vec![]).await.unwrap();
    value
        .as_i64()
        .or(value.as_f64().map(|f| f as i64))
        .unwrap_or(-1)
}

/// The open page of a game in progress: its board shows, then advances while the game is
/// still played, with no console error.
async fn board_follows(client: &fantoccini::Client, measure: &str) {
    until("the game's board shows in its live page", || async {
        progress(client, measure).await >= 0
    })
    .await;
    let first = progress(client, measure).await;
    until("the board advances as records arrive", || async {
        progress(client, measure).await > first
    })
    .await;
    assert!(
        client.find(Locator::Css("#in-progress")).await.is_ok(),
        "the board advanced while the game was played"
    );
    let errors = console_errors(client).await;
    assert!(errors.is_empty(), "{errors:?}");
}

/// A bot for `game` in Python, `name`, that sleeps `pause_s` before each answer while the pace
/// marker under `root` is there: `answer` is the body of a function of the prompt's words `w`
/// returning the answer, or `None` for a line that needs none.
fn slow_python_bot(root: &Path, name: &str, game: &str, pause_s: f64, answer: &str) -> PathBuf {
    std::fs::write(pace_marker(root), "").unwrap();
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("bot.toml"),
        format!("name = \"{name}\"\nrun = \"python3 -u slow.py\"\ngames = [\"{game}\"]\n"),
    )
    .unwrap();
    std::fs::write(
        dir.join("slow.py"),
        format!(
            "import json, os, random, sys, time\n\
             def answer(w):\n{answer}\n\
             for line in sys.stdin:\n\
             \x20   said = answer(line.split())\n\
             \x20   if said is not None:\n\
             \x20       if os.path.exists({marker:?}): time.sleep({pause_s})\n\
             \x20       print(said, flush=True)\n",
            marker = pace_marker(root)
        ),
    )
    .unwrap();
    dir
}

/// Runs `command` (a tournament run, its file given) with its dashboard on a free port,
/// follows its first game's page in Chromium while it is played: its own board, read by
/// `measure`, advances, and the page becomes the game's replay, whose board `measure` reads too.
fn followed_in_the_browser(command: &mut Command, dir: &Path, measure: &str, hold: bool) {
    let runtime = koth::game::runtime().unwrap();
    runtime.block_on(async {
        // The browser first: it takes longer to start than a short game to end.
        let (_driver, client) = browser().await;
        let (_run, base) = serving(command.arg("--dir").arg(dir).args([
            "--serve",
            "127.0.0.1:0",
            "--serve-after",
        ]));
        let games = live_games(&base);
        let index = games[0]["index"].as_u64().unwrap();
        client.goto(&format!("{base}games/{index}")).await.unwrap();
        board_follows(&client, measure).await;
        // The panel reads rounds and turns from 1, whatever the game's records count from.
        let lines = text_of(&client, ".koth-live-lines").await;
        assert!(
            ["round 0", "turn 0", "\"round\":0", "\"turn\":0"]
                .iter()
                .all(|stored| !lines.contains(stored)),
            "{lines}"
        );
        if hold {
            held_and_followed_again(&client, measure).await;
        }
        // Followed live: the bots under the test's folder may now play the rest at full speed.
        std::fs::remove_file(pace_marker(dir.parent().unwrap())).unwrap();
        until("the page becomes the finished game's replay", || async {
            client.find(Locator::Css("#in-progress")).await.is_err()
        })
        .await;
        until("the replay's board is drawn", || async {
            top_progress(&client, measure).await >= 0
        })
        .await;
        let errors = console_errors(&client).await;
        assert!(errors.is_empty(), "{errors:?}");
    });
}

/// A watcher who moves the board (a touch in its frame) keeps it where they put it while
/// records arrive; "now" follows again. The game is long enough for all of it to happen while
/// it is played, which is asserted: the page is live throughout.
async fn held_and_followed_again(client: &fantoccini::Client, measure: &str) {
    // The touch first, then the board read: a frame loading meanwhile is no longer shown.
    client
        .execute(
            "document.querySelector('.koth-live-view iframe:not(.koth-live-behind)')\
             .contentDocument.dispatchEvent(new Event('pointerdown'));",
            vec![],
        )
        .await
        .unwrap();
    let held = progress(client, measure).await;
    assert!(held >= 0, "a board is shown when held");
    assert!(text_of(client, ".koth-live-count").await.contains(" of "));
    let more = records(client).await + 3;
    until("more records arrive while the board is held", || async {
        records(client).await >= more
    })
    .await;
    // Well over the page's second between loads of the board.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        progress(client, measure).await,
        held,
        "the board stays held"
    );
    client
        .find(Locator::Css(".koth-live-now"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    until("the board follows again", || async {
        progress(client, measure).await > held
    })
    .await;
    assert!(
        client.find(Locator::Css("#in-progress")).await.is_ok(),
        "the board was held and followed again while the game was played"
    );
}

#[test]
fn a_paths_game_s_own_board_follows_it_live_turn_by_turn() {
    let tmp = tempfile::tempdir().unwrap();
    // Each turn: no vertex broken, a random one activated (a taken one is a wasted choice).
    let bot = |name: &str| {
        slow_python_bot(
            tmp.path(),
            name,
            "paths",
            0.08,
            "\x20   global side\n\
             \x20   if w and w[0] == 'BEGIN': side = int(w[3])\n\
             \x20   if w and w[0] == 'SCORE': sys.exit(0)\n\
             \x20   if w and w[0] == 'DESTROY': return 'NONE'\n\
             \x20   if w and w[0] == 'ACTIVATE': return 'VERTEX %d,%d' % (random.randrange(side), random.randrange(side))\n\
             \x20   return None",
        )
    };
    let (a, b) = (bot("Left"), bot("Right"));
    let file = tmp.path().join("t.toml");
    std::fs::write(
        &file,
        format!(
            "game = \"paths\"\nbots = [{a:?}, {b:?}]\ngames = 1\nrounds = 5\njobs = 1\n\
             sandbox = false\nseed = 3\n"
        ),
    )
    .unwrap();
    followed_in_the_browser(
        koth().args(["tournament", "run"]).arg(&file),
        &tmp.path().join("t"),
        "Number(d.getElementById('round').textContent) * 1000 + Number(d.getElementById('turn').textContent)",
        false,
    );
}

#[test]
fn a_noughts_and_crosses_game_s_own_board_follows_it_live_move_by_move() {
    let tmp = tempfile::tempdir().unwrap();
    // 16 games of noughts & crosses, about 15 s: long enough to watch a few of them.
    let file = slow_tournament(tmp.path(), 1, 16, "");
    followed_in_the_browser(
        koth().args(["tournament", "run"]).arg(&file),
        &tmp.path().join("t"),
        "Number(d.getElementById('game').textContent) * 100 + Number(d.getElementById('move').textContent)",
        true,
    );
}

#[test]
fn a_flag_game_s_own_board_follows_it_live_level_by_level() {
    let tmp = tempfile::tempdir().unwrap();
    // Each of the 5 shipped levels answered after 3 s (a walk right, then down): 15 s.
    let bot = slow_python_bot(
        tmp.path(),
        "Walker",
        "flag",
        3.0,
        "\x20   return 'RRDD' if w and w[0] == 'SOLVE' else None",
    );
    let file = tmp.path().join("t.toml");
    std::fs::write(
        &file,
        format!(
            "game = \"flag\"\nbots = [{bot:?}]\ngames = 1\njobs = 1\nsandbox = false\n\
             seed = 3\nanswer_ms = 10000\n"
        ),
    )
    .unwrap();
    followed_in_the_browser(
        koth().args(["tournament", "run"]).arg(&file),
        &tmp.path().join("t"),
        "Number(d.getElementById('levels').textContent) * 1000 + Number(d.getElementById('move').textContent)",
        false,
    );
}

#[test]
fn a_rat_race_board_follows_it_live_turn_by_turn() {
    let tmp = tempfile::tempdir().unwrap();
    // The example player's forward moves by colour, 30 ms a turn, gone after turn 300: a board of 9 s
    // or more, kept as every game's first board is, ended by the bot's leaving.
    let dir = tmp.path().join("Plodder");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(pace_marker(tmp.path()), "").unwrap();
    std::fs::write(
        dir.join("bot.toml"),
        "name = \"Plodder\"\nrun = \"python3 -u slow.py\"\ngames = [\"ratrace\"]\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("slow.py"),
        format!(
            r#"import os, sys, time
HEX = {{c: int(c, 16) for c in "0123456789abcdef"}}
FORWARD = ((8, "1,-1"), (13, "1,0"), (18, "1,1"))
def move(genome, view):
    scored = [((genome >> (6 * HEX[view[i]])) & 63, t) for i, t in FORWARD if view[i] in HEX]
    return max(scored)[1] if scored else "0,1"
for line in sys.stdin:
    w = line.split()
    if w and w[0] == "TURN":
        if int(w[1]) > 300:
            sys.exit(0)
        specimens = [sys.stdin.readline().split() for _ in range(int(w[2]))]
        if os.path.exists({marker:?}): time.sleep(0.03)
        print(" ".join(move(int(g, 16), v) for g, v in specimens), flush=True)
"#,
            marker = pace_marker(tmp.path())
        ),
    )
    .unwrap();
    let file = tmp.path().join("t.toml");
    std::fs::write(
        &file,
        format!(
            "game = \"ratrace\"\nbots = [{dir:?}]\ngames = 1\nrounds = 1\njobs = 1\n\
             sandbox = false\nseed = 3\nanswer_ms = 5000\n"
        ),
    )
    .unwrap();
    followed_in_the_browser(
        koth().args(["tournament", "run"]).arg(&file),
        &tmp.path().join("t"),
        "Number(d.getElementById('turn').textContent)",
        false,
    );
}

#[test]
fn a_game_added_through_the_registry_alone_is_followed_live_on_its_own_page() {
    let tmp = tempfile::tempdir().unwrap();
    let bots: Vec<PathBuf> = ["Low", "Mid", "High"]
        .iter()
        .enumerate()
        .map(|(i, name)| {
            slow_python_bot(
                tmp.path(),
                name,
                "lowbid",
                0.25,
                &format!("\x20   return {} if w and w[0] == 'BID' else None", i + 1),
            )
        })
        .collect();
    // 80 rounds, the bids a quarter of a second each: 20 s at least, to hold and follow again.
    let file = tmp.path().join("t.toml");
    std::fs::write(
        &file,
        format!(
            "game = \"lowbid\"\nbots = {bots:?}\ngames = 1\nrounds = 80\njobs = 1\n\
             sandbox = false\nseed = 3\n"
        ),
    )
    .unwrap();
    followed_in_the_browser(
        crate::registry_game::lowbid()
            .args(["tournament", "run"])
            .arg(&file),
        &tmp.path().join("t"),
        "d.getElementById('bids').textContent.split('\\n').length",
        true,
    );
}

#[test]
fn a_mad_cars_game_s_own_board_follows_it_live_tick_by_tick() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    // A driver that stands still, 40 ms a tick: each match lasts until the deadline reaches
    // it, some 1,000 ticks a game, 40 s or more, so the game is still played when a busy
    // machine's browser has loaded its page and the board again (a driver at random, 5 ms a
    // tick, ended its game in some 6 s: with both cores busy, before the browser showed it).
    let still = slow_python_bot(
        tmp.path(),
        "Dawdler",
        "madcars",
        0.04,
        "\x20   m = json.loads(' '.join(w)) if w else {}\n\
         \x20   if m.get('type') != 'tick': return None\n\
         \x20   return json.dumps({'command': 'stop'})",
    );
    let file = tmp.path().join("t.toml");
    std::fs::write(
        &file,
        format!(
            "game = \"madcars\"\nbots = [{:?}, {still:?}]\ngames = 1\nrounds = 2\njobs = 1\n\
             sandbox = false\nseed = 5\n",
            repo.join("bots/madcars-keepaway-py"),
        ),
    )
    .unwrap();
    followed_in_the_browser(
        koth().args(["tournament", "run"]).arg(&file),
        &tmp.path().join("t"),
        "Number(d.getElementById('slider').max)",
        false,
    );
}

/// When each line of the file at `path` was first seen, by its number from 1 (the file is
/// looked at every 2 ms, for at most two minutes, until `stop`), and whether it was there at
/// the first look (then it was written earlier, at an unknown time).
fn stamp_lines(
    path: PathBuf,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<Vec<(SystemTime, bool)>> {
    std::thread::spawn(move || {
        let mut follower = koth::bot::record::Follower::new(path);
        let mut stamps = Vec::new();
        let began = Instant::now();
        let mut first = true;
        while !stop.load(std::sync::atomic::Ordering::Relaxed)
            && began.elapsed() < Duration::from_secs(120)
        {
            let (lines, _) = follower.new_lines();
            let now = SystemTime::now();
            stamps.extend(lines.iter().map(|_| (now, first)));
            first = first && lines.is_empty();
            std::thread::sleep(Duration::from_millis(2));
        }
        stamps
    })
}

#[test]
fn a_worker_s_game_is_followed_live_through_postgresql_with_the_same_ids_and_resume() {
    let root = tempfile::tempdir().unwrap();
    let file = slow_tournament(root.path(), 1, 8, "");
    let url = crate::support::postgres::database("live");
    let submitted = crate::support::tournament::succeed(
        koth()
            .args(["tournament", "submit"])
            .arg(&file)
            .args(["--db", &url]),
    );
    let name = String::from_utf8_lossy(&submitted.stdout)
        .lines()
        .last()
        .unwrap()
        .to_string();
    let (_server, port) =
        crate::dashboard::serve_with(&["--db".as_ref(), url.as_ref(), name.as_ref()]);
    let base = format!("http://127.0.0.1:{port}/");
    // A worker on "another machine": its own folder, the server reads only the database.
    let worker = koth()
        .args(["worker", "--db", &url, "--jobs", "1", "--root"])
        .arg(root.path())
        .arg("--dir")
        .arg(root.path().join("w"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let worker = crate::dashboard::Killed(worker);
    let games = live_games(&base);
    let index = games[0]["index"].as_u64().unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    // The record as the worker writes it, on its machine.
    let written = root
        .path()
        .join("w")
        .join(&name)
        .join(format!("games/{index}/replay.jsonl"));
    let stamper = stamp_lines(written.clone(), stop.clone());
    let stream = format!("{base}api/games/{index}/live");
    let first = events(&stream, None, |read| read.len() >= 4);
    let ids: Vec<u64> = first.iter().map(|e| e.id.unwrap()).collect();
    assert_eq!(ids, [1, 2, 3, 4]);
    let progress = get_json(&format!("{base}api/progress"));
    assert_eq!(
        progress["done"], 0,
        "read while the worker played it: {progress}"
    );
    let rest = events(&stream, Some(4), |_| false);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let stamps = stamper.join().unwrap();
    assert_eq!(rest[0].id, Some(5));
    // The time from the worker's game writing a line of its record to a watcher's receipt of
    // it, for the lines written while the test looked (docs/benchmarks.md, "Watching games
    // live": a measurement, not a goal this test holds).
    let mut waits: Vec<f64> = rest
        .iter()
        .filter_map(|e| {
            let (written, before) = stamps.get(e.id? as usize - 1)?;
            let wait = e.at.duration_since(*written).ok()?;
            (!before).then_some(wait.as_secs_f64() * 1000.0)
        })
        .collect();
    waits.sort_by(f64::total_cmp);
    assert!(!waits.is_empty(), "no record was timed");
    eprintln!(
        "a worker's record, written to received through PostgreSQL: {} records, mean {:.1} ms, \
         p50 {:.1} ms, max {:.1} ms",
        waits.len(),
        waits.iter().sum::<f64>() / waits.len() as f64,
        waits[waits.len() / 2],
        waits[waits.len() - 1]
    );
    assert_eq!(rest.last().unwrap().name, "end");
    let mut whole = first;
    whole.extend(rest);
    // What was read while the worker played it, through the database, is the worker's file
    // byte for byte.
    assert_eq!(joined(&whole), std::fs::read_to_string(&written).unwrap());
    // Once played, the game's stream is its stored replay.jsonl: the same records, the same ids.
    let stored = events(&stream, None, |_| false);
    assert_eq!(
        whole.iter().map(|e| (&e.id, &e.data)).collect::<Vec<_>>(),
        stored.iter().map(|e| (&e.id, &e.data)).collect::<Vec<_>>()
    );
    assert!(joined(&stored).lines().count() > 10);
    drop(worker);
}

#[test]
fn a_worker_s_rows_sent_without_a_notice_still_reach_the_watchers() {
    // A notice lost (its connection dropped as the rows came) is made up for by the server's
    // slow look at a followed game's rows: rows written here without a `NOTIFY` arrive.
    let root = tempfile::tempdir().unwrap();
    let file = slow_tournament(root.path(), 1, 1, "");
    let url = crate::support::postgres::database("untold");
    let submitted = crate::support::tournament::succeed(
        koth()
            .args(["tournament", "submit"])
            .arg(&file)
            .args(["--db", &url]),
    );
    let name = String::from_utf8_lossy(&submitted.stdout)
        .lines()
        .last()
        .unwrap()
        .to_string();
    let mut db = crate::support::postgres::client(&url);
    let schema: String = db
        .query_one(
            "SELECT schema_name FROM koth_tournaments WHERE name = $1",
            &[&name],
        )
        .unwrap()
        .get(0);
    // Game 0 as a worker playing it leaves it, but for the notices.
    db.batch_execute(&format!(
        "UPDATE {schema}.games SET state = 'running' WHERE idx = 0"
    ))
    .unwrap();
    let (_server, port) =
        crate::dashboard::serve_with(&["--db".as_ref(), url.as_ref(), name.as_ref()]);
    let stream = format!("http://127.0.0.1:{port}/api/games/0/live");
    let watcher = std::thread::spawn(move || events(&stream, None, |read| read.len() >= 3));
    // The game is followed (its rows read once, none there) before any row comes.
    std::thread::sleep(Duration::from_secs(1));
    let lines: Vec<String> = (1..=3)
        .map(|n| format!("{{\"kind\":\"note\",\"n\":{n}}}"))
        .collect();
    for (seq, line) in (1i64..).zip(&lines) {
        db.execute(
            &format!("INSERT INTO {schema}.live_records (game, seq, line) VALUES (0, $1, $2)"),
            &[&seq, line],
        )
        .unwrap();
    }
    let read = watcher.join().unwrap();
    assert_eq!(
        read.iter()
            .map(|e| (e.id, e.data.clone()))
            .collect::<Vec<_>>(),
        (1..=3).map(Some).zip(lines).collect::<Vec<_>>()
    );
}

/// Whether the server's socket of the connection from 127.0.0.1:`client` to 127.0.0.1:`server`
/// is still established, as the kernel's table of TCP sockets (`/proc/net/tcp`) says: once the
/// server closes it, it leaves that state at once, though its unsent bytes and its FIN wait
/// behind a full window for the client to read.
fn server_side_is_open(server: u16, client: u16) -> bool {
    let (local, remote) = (
        format!("0100007F:{server:04X}"),
        format!("0100007F:{client:04X}"),
    );
    let table = std::fs::read_to_string("/proc/net/tcp").unwrap();
    table.lines().skip(1).any(|row| {
        let fields: Vec<&str> = row.split_whitespace().collect();
        // `st` 01: TCP_ESTABLISHED.
        fields.len() > 3 && fields[1] == local && fields[2] == remote && fields[3] == "01"
    })
}

#[test]
fn a_client_that_reads_nothing_is_dropped_while_another_reads_the_whole_game() {
    use std::io::{Read, Write};
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("t");
    crate::support::tournament::succeed(
        koth()
            .args(["tournament", "run"])
            .arg(slow_tournament(tmp.path(), 1, 4, ""))
            .arg("--dir")
            .arg(&dir),
    );
    // A game with a record far larger than the sockets between client and server hold.
    let replay = dir.join("games/0/replay.jsonl");
    let mut text = std::fs::read_to_string(&replay).unwrap();
    let line = format!("{{\"kind\":\"note\",\"text\":\"{}\"}}\n", "x".repeat(200));
    text.push_str(&line.repeat(200_000));
    std::fs::write(&replay, &text).unwrap();
    let (_server, port) = crate::dashboard::serve(&dir);
    let url = format!("http://127.0.0.1:{port}/api/games/0/live");

    let mut stalled = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        stalled,
        "GET /api/games/0/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    )
    .unwrap();
    // Another watcher reads it all meanwhile, at its own pace.
    let read = events(&url, None, |_| false);
    let whole = joined(&read);
    assert!(whole == text, "{} of {} bytes", whole.len(), text.len());
    assert_eq!(read.last().unwrap().name, "end");
    // The stalled client is dropped 10 s after the socket filled: what it reads then ends
    // short of the game. Read nothing before the server's end of it is closed (read, and it
    // would no longer be stalled).
    let started = Instant::now();
    while server_side_is_open(port, stalled.local_addr().unwrap().port()) {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the stalled client was never dropped"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    stalled
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut got = Vec::new();
    let _ = stalled.read_to_end(&mut got);
    assert!(
        got.len() < text.len(),
        "{} of {} bytes",
        got.len(),
        text.len()
    );
    assert!(!String::from_utf8_lossy(&got).contains("event: end"));
}

#[test]
fn a_run_s_server_caps_a_client_s_streams_as_its_flags_say() {
    let tmp = tempfile::tempdir().unwrap();
    let (run, base, _) = served(tmp.path(), 2, 4, "", &["--max-per-client", "2"]);
    let games = live_games(&base);
    let stream = format!(
        "{base}{}",
        games[0]["stream"].as_str().unwrap().trim_start_matches('/')
    );
    // Two streams held open from 127.0.0.1, as the flag allows; a third is refused.
    let held: Vec<_> = (0..2).map(|_| get(&stream)).collect();
    for response in &held {
        assert_eq!(response.status(), 200);
    }
    // Refused at the door, before its request is read: the answer is read off the socket.
    let host = base.trim_start_matches("http://").trim_end_matches('/');
    let mut third = std::net::TcpStream::connect(host).unwrap();
    third
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let path = games[0]["stream"].as_str().unwrap();
    std::io::Write::write_all(
        &mut third,
        format!("GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n").as_bytes(),
    )
    .unwrap();
    let mut answer = String::new();
    let _ = std::io::Read::read_to_string(&mut third, &mut answer);
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer:?}");
    drop(held);
    drop(run);
}
