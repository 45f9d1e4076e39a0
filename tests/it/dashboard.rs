//! The web dashboard in a real browser: headless Chromium driven through WebDriver (Debian's
//! chromium-driver), against `koth tournament run --serve` while it plays. Screenshots are kept
//! in `target/test-screenshots/`.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;

use crate::support::tournament::{
    koth, repo, run_tournament, sample_bots, succeed, tournament_file as paths_file,
};

/// A process killed when dropped, whatever the test did.
pub(crate) struct Killed(pub(crate) Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// chromedriver and the Chromium it started, in a process group of their own, all killed when
/// dropped (killing chromedriver alone left its browser running), and the folder of the
/// browser's profile and both programs' temporary files, removed then (they were left in
/// `/tmp`).
pub(crate) struct Browser {
    driver: Child,
    profile: tempfile::TempDir,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let group = nix::unistd::Pid::from_raw(self.driver.id() as i32);
        let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
        let _ = self.driver.wait();
    }
}

/// chromedriver on a free port, and a headless Chromium session through it.
pub(crate) async fn browser() -> (Browser, Client) {
    let port = free_port();
    let profile = tempfile::tempdir().unwrap();
    let driver = Command::new("chromedriver")
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        // Its own temporary files and its browser's, removed with the profile.
        .env("TMPDIR", profile.path())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("cannot run chromedriver ({e}): run scripts/test.sh, which installs it")
        });
    let browser = Browser { driver, profile };
    let capabilities = serde_json::json!({
        "goog:chromeOptions": {
            "binary": "/usr/bin/chromium",
            "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                     "--no-first-run", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync", "--disable-breakpad",
                     "--window-size=1400,1400",
                     format!("--user-data-dir={}", browser.profile.path().display())]
        },
        // Kept so that a test can read the console: every script error a page throws.
        "goog:loggingPrefs": { "browser": "ALL" }
    });
    let started = Instant::now();
    loop {
        let connected = ClientBuilder::new(HttpConnector::new())
            .capabilities(capabilities.as_object().unwrap().clone())
            .connect(&format!("http://127.0.0.1:{port}"))
            .await;
        match connected {
            Ok(client) => return (browser, client),
            Err(e) if started.elapsed() > Duration::from_secs(30) => {
                panic!("chromedriver did not start a browser: {e}")
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
}

/// chromedriver's command for the browser's console since it was last read (its `se/log`,
/// kept by the session's `goog:loggingPrefs`).
#[derive(Debug)]
struct ConsoleLog;

impl fantoccini::wd::WebDriverCompatibleCommand for ConsoleLog {
    fn endpoint(
        &self,
        base: &url::Url,
        session: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base.join(&format!("session/{}/se/log", session.unwrap_or_default()))
    }

    fn method_and_body(&self, _: &url::Url) -> (axum::http::Method, Option<String>) {
        (
            axum::http::Method::POST,
            Some(r#"{"type": "browser"}"#.to_string()),
        )
    }
}

/// The errors the browser's console received since it was last read: a script's uncaught
/// error or rejection, `console.error`, and a failed load of the page's icon. (Any other
/// failed load of a page's resource is the network's, told by its status, not the script's.)
pub(crate) async fn console_errors(client: &Client) -> Vec<String> {
    let log = client.issue_cmd(ConsoleLog).await.unwrap();
    let icon = |entry: &serde_json::Value| {
        entry["message"]
            .as_str()
            .is_some_and(|message| message.contains("favicon"))
    };
    log.as_array()
        .unwrap_or_else(|| panic!("the console log is a list: {log}"))
        .iter()
        .filter(|entry| entry["level"] == "SEVERE" && (entry["source"] != "network" || icon(entry)))
        .map(|entry| entry["message"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// A Mad Cars tournament of `games` games, one at a time, in `dir`.
fn tournament_file(dir: &Path, games: u32) -> PathBuf {
    let bot = |name: &str| repo().join("bots").join(name);
    let text = format!(
        "game = \"madcars\"\nbots = [{:?}, {:?}]\ngames = {games}\nrounds = 3\njobs = 1\n\
         sandbox = false\nseed = 5\n",
        bot("madcars-keepaway-py"),
        bot("madcars-random-py"),
    );
    let path = dir.join("t.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// `koth serve DIR` on a free port, once it listens: the server and its port.
pub(crate) fn serve(dir: &Path) -> (Killed, u16) {
    serve_with(&[dir.as_os_str()])
}

/// `koth serve` with `args` (the tournament) on a free port, once it listens.
pub(crate) fn serve_with(args: &[&std::ffi::OsStr]) -> (Killed, u16) {
    let port = free_port();
    let server = Killed(
        koth()
            .arg("serve")
            .args(args)
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
            "koth serve never listened"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    (server, port)
}

pub(crate) async fn text_of(client: &Client, css: &str) -> String {
    client
        .find(Locator::Css(css))
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

/// Starts `command` (a run with `--serve`) and reads the address it serves at from its
/// `Dashboard: ` line; the rest of its output is read off, so that it never blocks on a full
/// pipe.
pub(crate) fn serving(command: &mut Command) -> (Killed, String) {
    let mut run = command
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = run.stdout.take().unwrap();
    let run = Killed(run);
    let mut lines = BufReader::new(stdout).lines();
    let url = lines
        .by_ref()
        .map(|l| l.unwrap())
        .find_map(|l| {
            l.strip_prefix("Dashboard: ")
                .map(|rest| rest.split(' ').next().unwrap().to_string())
        })
        .expect("the run prints the dashboard's address");
    std::thread::spawn(move || lines.for_each(drop));
    (run, url)
}

/// Waits up to a minute for `ready` to hold of the page.
pub(crate) async fn until<F: std::future::Future<Output = bool>>(
    what: &str,
    mut ready: impl FnMut() -> F,
) {
    let started = Instant::now();
    while !ready().await {
        assert!(started.elapsed() < Duration::from_secs(60), "never: {what}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Waits until the page's image `id` is loaded and `width` pixels wide (a plot the server drew).
pub(crate) async fn until_drawn(client: &Client, id: &str, width: u64) {
    until(&format!("the plot {id} is drawn"), || async {
        let drawn = client
            .execute(
                "const img = document.getElementById(arguments[0]); \
                 return img.complete ? img.naturalWidth : 0;",
                vec![id.into()],
            )
            .await
            .unwrap();
        drawn.as_u64() == Some(width)
    })
    .await;
}

pub(crate) async fn screenshot(client: &Client, name: &str) {
    let dir = repo().join("target/test-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(name), client.screenshot().await.unwrap()).unwrap();
}

/// `GET path` from the server on `port`: its status line and its body.
pub(crate) fn get(port: u16, path: &str) -> (String, String) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    (
        head.lines().next().unwrap_or("").to_string(),
        body.to_string(),
    )
}

#[test]
fn the_dashboard_counts_games_live_lists_them_and_opens_their_replays() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("t");
    let (run, url) = serving(
        koth()
            .args(["tournament", "run"])
            .arg(tournament_file(tmp.path(), 12))
            .arg("--dir")
            .arg(&dir)
            .args(["--serve", "127.0.0.1:0", "--serve-after"]),
    );

    let runtime = koth::game::runtime().unwrap();
    runtime.block_on(async {
        let (_driver, client) = browser().await;
        client.goto(&url).await.unwrap();
        until("the page shows the tournament", || async {
            text_of(&client, "#title").await.contains("madcars")
        })
        .await;
        assert_eq!(text_of(&client, "#total").await, "12");
        let first: u32 = text_of(&client, "#done").await.parse().unwrap();
        screenshot(&client, "dashboard-running.png").await;
        // Games end while the page stays open: the count rises with no reload.
        until("the count rises", || async {
            text_of(&client, "#done").await.parse::<u32>().unwrap() > first
        })
        .await;
        until("every game is done", || async {
            text_of(&client, "#done").await == "12"
        })
        .await;
        until("the leaderboard lists both bots", || async {
            let board = text_of(&client, "#leaderboard").await;
            board.contains("Keep Away (Python)") && board.contains("Random Driver (Python)")
        })
        .await;
        assert!(text_of(&client, "#leader").await.contains("a game"));
        // Processes alone: no fuel column (a WASI bot's fuel shows beside a process's "—"),
        // and the game's ranking's figure (Mad Cars: a placement game's rating).
        let board = text_of(&client, "#leaderboard").await;
        assert!(
            !board.contains("fuel med/max") && board.contains("rating ± 95%"),
            "{board}"
        );
        until_drawn(&client, "ratings", 900).await;
        assert_eq!(text_of(&client, "#eta").await, "done");
        screenshot(&client, "dashboard-done.png").await;

        // The list filters by outcome: every game finished, none timed out.
        let outcome = client.find(Locator::Css("#outcome")).await.unwrap();
        outcome.select_by_label("timed_out").await.unwrap();
        until("no game timed out", || async {
            text_of(&client, "#games-count").await == "0 games"
        })
        .await;
        outcome.select_by_label("done").await.unwrap();
        until("every game is listed", || async {
            text_of(&client, "#games-count").await == "12 games"
        })
        .await;

        // A game's link opens its replay.
        client
            .find(Locator::Css("#games a"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        until("the replay opens", || async {
            client
                .current_url()
                .await
                .unwrap()
                .as_str()
                .ends_with("/games/0")
        })
        .await;
        let replay = client.source().await.unwrap();
        assert!(
            replay.contains("PillMap") || replay.contains("Map"),
            "a Mad Cars replay"
        );
        screenshot(&client, "dashboard-replay.png").await;
        client.close().await.unwrap();
    });
    drop(run);
}

#[test]
fn serve_lasts_as_long_as_the_run_unless_serve_after_is_given() {
    let tmp = tempfile::tempdir().unwrap();
    let bots = sample_bots(2);
    let folders: Vec<&Path> = bots.iter().map(|(dir, _)| dir.as_path()).collect();
    let file = paths_file(
        tmp.path(),
        &folders,
        "games = 2\nrounds = 1\nsandbox = false\n",
    );
    // Unattended: the dashboard serves while the run plays, and koth exits when it is done.
    let mut run = Killed(
        koth()
            .args(["tournament", "run"])
            .arg(&file)
            .arg("--dir")
            .arg(tmp.path().join("t"))
            .args(["--serve", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let started = Instant::now();
    let status = loop {
        if let Some(status) = run.0.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "koth still serves after its run"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(status.success());
    let mut stdout = String::new();
    std::io::Read::read_to_string(&mut run.0.stdout.take().unwrap(), &mut stdout).unwrap();
    assert!(stdout.contains("Dashboard: http://127.0.0.1:"), "{stdout}");
    assert!(!stdout.contains("stays at"), "{stdout}");
    // --serve-after asks for the dashboard after the run, so it needs --serve.
    let alone = koth()
        .args(["tournament", "run"])
        .arg(&file)
        .arg("--serve-after")
        .output()
        .unwrap();
    assert!(!alone.status.success());
    assert!(String::from_utf8_lossy(&alone.stderr).contains("--serve"));
}

#[test]
fn a_noughts_and_crosses_tournament_reads_at_1280_by_800_with_times_in_ms_and_winners() {
    let tmp = tempfile::tempdir().unwrap();
    let bot = |name: &str| repo().join("bots").join(name);
    let file = tmp.path().join("ttt.toml");
    // 100 games: every count and points column at three digits (500 points), as wide as the
    // 150 games it once played, at two thirds of their time.
    std::fs::write(
        &file,
        format!(
            "game = \"tictactoe\"\nbots = [{:?}, {:?}]\ngames = 100\njobs = 2\nsandbox = false\n\
             seed = 3\n",
            bot("ttt-python"),
            bot("ttt-js")
        ),
    )
    .unwrap();
    let dir = tmp.path().join("t");
    run_tournament(&file, &dir, &[]);
    let (_server, port) = serve(&dir);
    let runtime = koth::game::runtime().unwrap();
    runtime.block_on(async {
        let (_driver, client) = browser().await;
        client.set_window_size(1280, 800).await.unwrap();
        client
            .goto(&format!("http://127.0.0.1:{port}/"))
            .await
            .unwrap();
        until("the leaderboard and the games are shown", || async {
            text_of(&client, "#leaderboard").await.contains("games")
                && text_of(&client, "#games-count")
                    .await
                    .starts_with("100 games")
        })
        .await;
        // Nothing is wider than the window: no sideways scrolling, at a laptop's width and a
        // phone's (a wide table scrolls in its own box).
        for (width, height) in [(1280, 800), (390, 844)] {
            client.set_window_size(width, height).await.unwrap();
            let widths = client
                .execute(
                    "return [document.documentElement.scrollWidth, window.innerWidth, \
                     document.getElementById('leaderboard').getBoundingClientRect().right];",
                    vec![],
                )
                .await
                .unwrap();
            let widths: Vec<f64> = serde_json::from_value(widths).unwrap();
            assert!(
                widths[0] <= widths[1] && widths[2] <= widths[1],
                "at {width} px, page, window and leaderboard widths: {widths:?}"
            );
        }
        client.set_window_size(1280, 800).await.unwrap();
        // Each game's time: milliseconds below a second, never "0 s"; and who won.
        let rows = client
            .execute(
                "return [...document.querySelectorAll('#games tr')].slice(1)\
                 .map((r) => [...r.cells].map((c) => c.textContent));",
                vec![],
            )
            .await
            .unwrap();
        let rows: Vec<Vec<String>> = serde_json::from_value(rows).unwrap();
        assert!(!rows.is_empty());
        let names = ["Win or Block (Python)", "Fork Hunter (JS)"];
        for row in &rows {
            let (winner, time) = (&row[3], &row[4]);
            assert!(
                time.ends_with(" ms") || (time.ends_with(" s") && time != "0 s"),
                "{row:?}"
            );
            assert!(
                winner == "draw" || names.iter().any(|n| winner == n),
                "{row:?}"
            );
        }
        assert!(rows.iter().any(|row| row[4].ends_with(" ms")), "{rows:?}");
        screenshot(&client, "dashboard-tictactoe-1280x800.png").await;
        client.close().await.unwrap();
    });
}

#[test]
fn a_paths_game_s_points_are_plotted_round_by_round() {
    let tmp = tempfile::tempdir().unwrap();
    let bots = sample_bots(2);
    let folders: Vec<&Path> = bots.iter().map(|(dir, _)| dir.as_path()).collect();
    let file = paths_file(
        tmp.path(),
        &folders,
        "games = 1\nrounds = 3\nsandbox = false\n",
    );
    let dir = tmp.path().join("t");
    run_tournament(&file, &dir, &[]);
    let (_server, port) = serve(&dir);
    let runtime = koth::game::runtime().unwrap();
    runtime.block_on(async {
        let (_driver, client) = browser().await;
        client
            .goto(&format!("http://127.0.0.1:{port}/"))
            .await
            .unwrap();
        // The finished game links its points; the plot names every bot.
        until("the game links its points", || async {
            client
                .find(Locator::Css("#games a[href='/games/0/points.svg']"))
                .await
                .is_ok()
        })
        .await;
        client
            .goto(&format!("http://127.0.0.1:{port}/games/0/points.svg"))
            .await
            .unwrap();
        let svg = client.source().await.unwrap();
        assert!(svg.contains("points so far, round by round"), "{svg}");
        for (_, name) in &bots {
            assert!(svg.contains(name.as_str()), "{name} in {svg}");
        }
        screenshot(&client, "dashboard-points.png").await;
        client.close().await.unwrap();
    });
}

#[test]
fn koth_serve_reads_a_finished_tournament_and_refuses_a_folder_without_one() {
    let tmp = tempfile::tempdir().unwrap();
    let output = koth().arg("serve").arg(tmp.path()).output().unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("results.sqlite does not exist"), "{stderr}");

    let dir = tmp.path().join("t");
    succeed(
        koth()
            .args(["tournament", "run"])
            .arg(tournament_file(tmp.path(), 2))
            .arg("--dir")
            .arg(&dir),
    );
    let before = std::fs::read(dir.join("results.sqlite")).unwrap();
    let (server, port) = serve(&dir);
    // A filter naming no bot of the tournament is the request's mistake, and says which.
    let (status, body) = get(port, "/api/games?bot=Nobody");
    assert!(status.contains(" 400 "), "{status}: {body}");
    assert!(body.contains(r#"no bot is called "Nobody""#), "{body}");
    let runtime = koth::game::runtime().unwrap();
    runtime.block_on(async {
        let (_driver, client) = browser().await;
        client
            .goto(&format!("http://127.0.0.1:{port}/"))
            .await
            .unwrap();
        until("both games shown", || async {
            text_of(&client, "#games-count").await == "2 games"
        })
        .await;
        // Points by round are a paths game's: a Mad Cars game has none, and says so.
        client
            .goto(&format!("http://127.0.0.1:{port}/games/0/points.svg"))
            .await
            .unwrap();
        let page = client.source().await.unwrap();
        assert!(page.contains("no rounds to plot"), "{page}");
        client.close().await.unwrap();
    });
    drop(server);
    assert_eq!(
        std::fs::read(dir.join("results.sqlite")).unwrap(),
        before,
        "the dashboard writes nothing"
    );
}
