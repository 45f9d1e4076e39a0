//! The hill's web pages in a real browser (headless Chromium through WebDriver, as the
//! dashboard's tests drive it), against `koth hill run --serve` while the hill plays, and
//! `koth serve` of the hill folder after. Screenshots go to `target/test-screenshots/`.

use std::path::{Path, PathBuf};

use fantoccini::{Client, Locator};

use crate::dashboard::{
    browser, console_errors, get, screenshot, serve, serving, text_of, until, until_drawn,
};
use crate::dashboard_guard::exchange;
use crate::hill::{add_ok, graded, hill, hill_command};
use crate::support::tournament::{query, succeed};

/// A bot name that is HTML, and a script's end: it must show as these characters.
const MARKUP: &str = "<img src=x onerror=\"window.pwned=1\"> & </script>";

#[test]
fn the_hill_s_pages_show_its_king_and_board_live_each_bot_and_names_as_text() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = hill(
        tmp.path(),
        "sandbox = false\nplacement_games = 2\nsuspend_window = 4\nsuspend_share = 0.2\n",
    );
    let strong = graded(tmp.path(), "strong", "Strong", 1.0);
    let weak = graded(tmp.path(), "weak", "Weak", 0.0);
    let markup = graded(tmp.path(), "markup", MARKUP, 0.5);
    let flaky = flaky(tmp.path(), &strong);
    add_ok(&dir, &[&strong, &weak, &markup, &flaky]);
    // Weak's second version, so its page has two.
    std::fs::write(
        weak.join("bot.toml"),
        "name = \"Weak\"\nrun = \"python3 -u graded.py 0.2\"\ngames = [\"tictactoe\"]\n",
    )
    .unwrap();
    add_ok(&dir, &[&weak]);
    // Played until Strong is king and Flaky suspended (a few runs of 6 games at most).
    let strong_crowned = "SELECT COUNT(*) FROM hill_kings k JOIN hill_versions v \
                          ON v.id = k.version WHERE v.name = 'Strong'";
    let flaky_suspended = "SELECT COUNT(*) FROM hill_versions WHERE suspended IS NOT NULL";
    for _ in 0..10 {
        if query(&dir, strong_crowned) > 0 && query(&dir, flaky_suspended) > 0 {
            break;
        }
        succeed(
            hill_command(&dir)
                .args(["hill", "run"])
                .arg(&dir)
                .args(["--games", "6"]),
        );
    }
    assert_eq!(query(&dir, strong_crowned), 1, "Strong was crowned");
    assert_eq!(query(&dir, flaky_suspended), 1, "Flaky was suspended");
    // Strong's second version, as strong: crowned in its turn, v1 is then a former king.
    std::fs::write(strong.join("notes.txt"), "the second version\n").unwrap();
    add_ok(&dir, &[&strong]);

    let (run, url) = serving(
        hill_command(&dir)
            .args(["hill", "run"])
            .arg(&dir)
            .args(["--serve", "127.0.0.1:0"]),
    );

    let runtime = koth::game::runtime().unwrap();
    runtime.block_on(async {
        let (_driver, client) = browser().await;
        // The check itself: an error a page throws is read from its console.
        client.goto(&url).await.unwrap();
        console_errors(&client).await;
        client
            .execute(
                "setTimeout(() => { throw new Error('thrown by the test'); });",
                vec![],
            )
            .await
            .unwrap();
        until("the console has the error thrown", || async {
            console_errors(&client)
                .await
                .iter()
                .any(|e| e.contains("thrown by the test"))
        })
        .await;

        opens_cleanly(&client, &url, "/api/hill").await;
        until("the page shows the king", || async {
            let king = text_of(&client, "#king").await;
            king != "none yet" && (king.ends_with(" v1") || king.ends_with(" v2"))
        })
        .await;
        until("the leaderboard lists every active version", || async {
            let board = text_of(&client, "#leaderboard").await;
            ["Strong", "Weak", MARKUP].iter().all(|n| board.contains(n)) && board.contains("v2")
        })
        .await;
        // The server of `hill run --serve` takes bots from their authors, and the page says where.
        until("the page links the submission page", || async {
            text_of(&client, "#actions").await == "submit a bot"
        })
        .await;
        let since = text_of(&client, "#king-since").await;
        assert!(since.starts_with("since game "), "{since}");
        // The script says how sure the lead is as the server does: by the table's intervals.
        assert!(
            since.contains("sure (their intervals are apart)")
                || since.contains("not yet sure (their intervals overlap)"),
            "{since}"
        );
        assert!(text_of(&client, "#kings").await.contains("now"));
        // The name that is markup is shown as its characters, and ran nothing.
        let markup_cells = client
            .execute(
                "return [document.querySelectorAll('img').length, window.pwned === undefined, \
                 [...document.querySelectorAll('#leaderboard a')].map((a) => a.textContent)];",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(markup_cells[0], 0, "{markup_cells}");
        assert_eq!(markup_cells[1], true, "{markup_cells}");
        assert!(
            markup_cells[2]
                .as_array()
                .unwrap()
                .iter()
                .any(|name| name == MARKUP),
            "{markup_cells}"
        );
        // The last games say why each was chosen, and their scores as the game gave them: a
        // whole number without decimals.
        until("the last games are listed", || async {
            text_of(&client, "#last").await.contains(" v1")
        })
        .await;
        let last = text_of(&client, "#last").await;
        assert!(
            last.contains("placement game") || last.contains("against"),
            "{last}"
        );
        let scores = client
            .execute(
                "return [...document.querySelectorAll('#last tr')].slice(1) \
                 .map((row) => row.cells[1].textContent).join(' · ');",
                vec![],
            )
            .await
            .unwrap();
        let scores = scores.as_str().unwrap();
        assert!(
            scores.contains(" v1 ")
                && !scores.split_whitespace().any(|word| word.contains('.')
                    && word.parse::<f64>().is_ok_and(|x| x.fract() == 0.0)),
            "{scores}"
        );
        screenshot(&client, "hill.png").await;

        // Games end while the page stays open: the count rises with no reload.
        client
            .execute("window.stayed = true;", vec![])
            .await
            .unwrap();
        let first: u32 = text_of(&client, "#games").await.parse().unwrap();
        until("the count of games rises", || async {
            text_of(&client, "#games").await.parse::<u32>().unwrap() > first
        })
        .await;
        let stayed = client.execute("return window.stayed;", vec![]).await;
        assert_eq!(stayed.unwrap(), true, "the page was not reloaded");

        // A game's link opens its replay, with its number and the way back to the hill.
        // (Followed by its address: the table is redrawn as games end, so an element found one
        // moment may be gone the next.)
        let link = client
            .execute(
                "return document.querySelector(\"#last a[href^='/games/']\").getAttribute('href');",
                vec![],
            )
            .await
            .unwrap();
        let link = link.as_str().unwrap();
        client
            .goto(&format!("{url}{}", link.trim_start_matches('/')))
            .await
            .unwrap();
        until("the replay opens", || async {
            let url = client.current_url().await.unwrap();
            url.path().starts_with("/games/")
        })
        .await;
        let replay = client.source().await.unwrap();
        assert!(
            replay.contains("koth replay: noughts"),
            "a noughts & crosses replay"
        );
        assert_eq!(
            text_of(&client, "#way-back").await,
            format!("← the hill · game {}", link.trim_start_matches("/games/"))
        );
        let errors = console_errors(&client).await;
        assert!(errors.is_empty(), "the replay's script errors: {errors:?}");
        client
            .find(Locator::Css("#way-back a"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        until("the way back leads to the hill", || async {
            client.current_url().await.unwrap().path() == "/"
        })
        .await;

        // Weak's page: both versions, the first replaced by the second, its plot of the
        // table's figure, its opponents.
        let weak_page = format!("{url}bots/Weak");
        opens_cleanly(&client, &weak_page, "/api/hill/bots/Weak").await;
        until("Weak's page lists both versions", || async {
            let versions = text_of(&client, "#versions").await;
            versions.contains("v2 active") && versions.contains("v1 replaced by v2")
        })
        .await;
        until_drawn(&client, "ratings", 900).await;
        assert!(text_of(&client, "#opponents").await.contains("Strong"));
        // A bot with no faulted game shows no table of faults, not even its header.
        let faults = client.find(Locator::Css("#faults")).await.unwrap();
        assert!(!faults.is_displayed().await.unwrap(), "Weak never faulted");
        screenshot(&client, "hill-bot.png").await;

        // Flaky's page: suspended, with why.
        opens_cleanly(&client, &format!("{url}bots/Flaky"), "/api/hill/bots/Flaky").await;
        let versions = text_of(&client, "#versions").await;
        assert!(
            versions.contains("v1 suspended") && versions.contains("faults (crashed"),
            "{versions}"
        );
        let faults = client.find(Locator::Css("#faults")).await.unwrap();
        assert!(
            faults.is_displayed().await.unwrap(),
            "Flaky's faulted games are listed"
        );

        // Strong's page: a former king (v1, until its successor was crowned) and the king (v2).
        until("Strong v2 is crowned", || async {
            client
                .execute(
                    "return fetch('/api/hill').then((r) => r.json()).then((h) => h.king);",
                    vec![],
                )
                .await
                .unwrap()
                == "Strong v2"
        })
        .await;
        opens_cleanly(
            &client,
            &format!("{url}bots/Strong"),
            "/api/hill/bots/Strong",
        )
        .await;
        let reigns = text_of(&client, "#reigns").await;
        assert!(
            reigns.starts_with("v1 from game ")
                && reigns.contains(") until game ")
                && reigns.contains("; v2 from game ")
                && reigns.ends_with("until now"),
            "{reigns}"
        );
        let versions = text_of(&client, "#versions").await;
        assert!(versions.contains("v1 replaced by v2"), "{versions}");

        // The page of the bot whose name is markup shows the name as text.
        let markup_page = format!(
            "{url}bots/{}",
            MARKUP
                .bytes()
                .map(|b| match b.is_ascii_alphanumeric() {
                    true => char::from(b).to_string(),
                    false => format!("%{b:02X}"),
                })
                .collect::<String>()
        );
        opens_cleanly(&client, &markup_page, "/api/hill/bots/").await;
        until("its page names it", || async {
            text_of(&client, "#title").await == MARKUP
        })
        .await;
        let pwned = client
            .execute("return window.pwned === undefined;", vec![])
            .await
            .unwrap();
        assert_eq!(pwned, true);
        // No page scrolls sideways at a laptop's width or a phone's: a wide table scrolls in
        // its own box.
        for (width, height) in [(1280, 800), (390, 844)] {
            client.set_window_size(width, height).await.unwrap();
            for (page, api) in [
                ("", Some("/api/hill")),
                ("bots/Strong", Some("/api/hill/bots/Strong")),
                ("bots/Flaky", Some("/api/hill/bots/Flaky")),
                ("submit", None),
                ("games/1", None),
            ] {
                let address = format!("{url}{page}");
                match api {
                    Some(api) => opens_cleanly(&client, &address, api).await,
                    None => {
                        client.goto(&address).await.unwrap();
                        until(&format!("{address} is loaded"), || async {
                            client
                                .execute("return document.readyState === 'complete';", vec![])
                                .await
                                .unwrap()
                                == true
                        })
                        .await;
                    }
                }
                let widths = client
                    .execute(
                        "return [document.documentElement.scrollWidth, window.innerWidth];",
                        vec![],
                    )
                    .await
                    .unwrap();
                let widths: Vec<f64> = serde_json::from_value(widths).unwrap();
                assert!(
                    widths[0] <= widths[1],
                    "/{page} at {width} px: page and window widths {widths:?}"
                );
            }
        }
        client.close().await.unwrap();
    });
    drop(run);

    // `koth serve` of the hill folder serves the same pages, as guarded as the dashboard, and
    // says what it lacks.
    let (_server, port) = serve(&dir);
    let foreign = exchange(
        port,
        "GET /api/hill HTTP/1.1\r\nHost: hill.example\r\nConnection: close\r\n\r\n",
    );
    assert!(foreign.starts_with("HTTP/1.1 421 "), "{foreign}");
    let (status, body) = get(port, "/api/hill");
    assert!(status.contains(" 200 "), "{status}: {body}");
    let hill: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(hill["standings"].as_array().unwrap().len(), 3, "{hill}");
    assert!(hill["king"].is_string(), "{hill}");
    let (status, body) = get(port, "/api/hill/bots/Nobody");
    assert!(status.contains(" 404 "), "{status}: {body}");
    assert!(body.contains("no bot called \"Nobody\""), "{body}");

    // Without script (curl): the pages carry the king, the table and the last games in their
    // HTML, every name escaped.
    let reign = hill["kings"].as_array().unwrap().last().unwrap();
    let king = format!("{} v{}", reign["name"].as_str().unwrap(), reign["version"]);
    assert_eq!(hill["king"], king.as_str());
    let (status, page) = get(port, "/");
    assert!(status.contains(" 200 "), "{status}: {page}");
    let escaped = escaped_name(MARKUP);
    let king_shown = format!(
        ">{}</a> v{}",
        escaped_name(reign["name"].as_str().unwrap()),
        reign["version"]
    );
    assert!(
        page.contains("<span id=\"king\"><a href=\"/bots/"),
        "{page}"
    );
    assert!(page.contains(&king_shown), "{king_shown} in {page}");
    assert!(page.contains("since game "), "{page}");
    // Beside the king, how sure its lead over the runner-up is.
    assert!(
        page.contains("; leads ")
            && (page.contains("sure (their intervals are apart)</span>")
                || page.contains("not yet sure (their intervals overlap)</span>")),
        "{page}"
    );
    for name in [">Strong</a>", ">Weak</a>", &format!(">{escaped}</a>")] {
        assert!(page.contains(name), "{name} in {page}");
    }
    assert!(!page.contains(MARKUP), "a name is escaped: {page}");
    assert!(page.contains("<a href=\"/games/"), "the last games: {page}");
    assert!(
        page.contains("placement game") || page.contains("against"),
        "{page}"
    );
    assert!(!page.contains("{{"), "every part is filled: {page}");
    let (status, page) = get(port, "/bots/Weak");
    assert!(status.contains(" 200 "), "{status}: {page}");
    assert!(page.contains("<h1 id=\"title\">Weak</h1>"), "{page}");
    assert!(
        page.contains("replaced by v2") && page.contains(">Strong</a>"),
        "{page}"
    );
    assert!(page.contains("src=\"/bots/Weak/ratings.svg\""), "{page}");
    let (status, page) = get(port, "/bots/Nobody");
    assert!(status.contains(" 404 "), "{status}: {page}");
    assert!(page.contains("no bot called &quot;Nobody&quot;"), "{page}");
}

#[test]
fn a_game_s_replay_says_it_is_in_progress_while_it_is_played() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = hill(tmp.path(), "sandbox = false\n");
    let slow: Vec<PathBuf> = ["Slow", "Slower"]
        .iter()
        .map(|name| slow(tmp.path(), name))
        .collect();
    add_ok(&dir, &[&slow[0], &slow[1]]);
    // Slow from here: their validation games were played at full speed.
    std::fs::write(pace_marker(tmp.path()), "").unwrap();
    let (run, url) = serving(hill_command(&dir).args(["hill", "run"]).arg(&dir).args([
        "--games",
        "1",
        "--serve",
        "127.0.0.1:0",
    ]));
    let port: u16 = url
        .trim_end_matches('/')
        .rsplit(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    // Its replay while it is played: said to be in progress, as a page or as why there is none.
    let started = std::time::Instant::now();
    let (status, page) = loop {
        assert!(started.elapsed() < std::time::Duration::from_secs(60));
        if query(
            &dir,
            "SELECT COUNT(*) FROM games WHERE idx = 0 AND state = 'running'",
        ) == 1
        {
            let (status, page) = get(port, "/games/0");
            if status.contains(" 200 ") || page.contains("in progress") {
                break (status, page);
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert_eq!(
        query(&dir, "SELECT COUNT(*) FROM games WHERE state = 'done'"),
        0,
        "still played when read"
    );
    assert!(
        (status.contains(" 200 ") && page.contains("<b id=\"in-progress\">in progress</b>"))
            || page.contains("game 0 is in progress"),
        "{status}: {page}"
    );
    // Read while played: the game played again to its end needs no more pace.
    std::fs::remove_file(pace_marker(tmp.path())).unwrap();
    drop(run);
    // Once played, its replay is a finished game's.
    succeed(
        hill_command(&dir)
            .args(["hill", "run"])
            .arg(&dir)
            .args(["--games", "1"]),
    );
    let (_server, port) = serve(&dir);
    let (status, page) = get(port, "/games/0");
    assert!(status.contains(" 200 "), "{status}: {page}");
    assert!(!page.contains("in-progress"), "{page}");
    // Its stream is its replay, then its end.
    let stream = crate::live::events(
        &format!("http://127.0.0.1:{port}/api/games/0/live"),
        None,
        |_| false,
    );
    assert_eq!(stream.last().unwrap().name, "end");
    let replay = std::fs::read_to_string(dir.join("games/0/replay.jsonl")).unwrap();
    assert_eq!(crate::live::joined(&stream), replay);
}

/// The file under `root` whose presence keeps the slow bots there slow: while a game is read in
/// progress, not while one is validated or played to its end.
fn pace_marker(root: &Path) -> PathBuf {
    root.join("slow-pace")
}

/// A graded bot `name` (p = 0.5) that waits 0.2 s before each answer while the pace marker
/// under `root` is there, so a game of it lasts a few seconds.
fn slow(root: &Path, name: &str) -> PathBuf {
    let dir = graded(root, name, name, 0.5);
    std::fs::write(
        dir.join("slow.py"),
        format!(
            "import os, subprocess, sys, time\n\
             child = subprocess.Popen([sys.executable, '-u', 'graded.py', '0.5'],\n\
             \x20   stdin=subprocess.PIPE, text=True, bufsize=1)\n\
             for line in sys.stdin:\n\
             \x20   if os.path.exists({marker:?}): time.sleep(0.2)\n\
             \x20   child.stdin.write(line)\n\
             \x20   child.stdin.flush()\n",
            marker = pace_marker(root)
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("bot.toml"),
        format!("name = {name:?}\nrun = \"python3 -u slow.py\"\ngames = [\"tictactoe\"]\n"),
    )
    .unwrap();
    dir
}

/// A bot that plays its validation game perfectly, then crashes at its first move in every
/// game: suspended after a few.
fn flaky(root: &Path, graded_bot: &Path) -> PathBuf {
    let flaky = root.join("flaky");
    std::fs::create_dir_all(&flaky).unwrap();
    let counter = root.join("flaky-games");
    std::fs::write(
        flaky.join("flaky.sh"),
        format!(
            "#!/bin/sh\necho x >> {counter:?}\n\
             if [ $(wc -l < {counter:?}) -gt 2 ]; then exit 3; fi\n\
             exec python3 -u {:?} 1.0\n",
            graded_bot.join("graded.py")
        ),
    )
    .unwrap();
    std::fs::write(
        flaky.join("bot.toml"),
        "name = \"Flaky\"\nrun = \"sh flaky.sh\"\ngames = [\"tictactoe\"]\n",
    )
    .unwrap();
    flaky
}

/// Opens the page at `url` and waits until its script has read `api` (an address its script
/// fetches, or the start of one); fails on any error its script threw, in the console, or
/// showed in its error line.
async fn opens_cleanly(client: &Client, url: &str, api: &str) {
    client.goto(url).await.unwrap();
    until(&format!("{url} read {api}"), || async {
        let read = client
            .execute(
                "return document.readyState === 'complete' && performance \
                 .getEntriesByType('resource') \
                 .some((r) => new URL(r.name).pathname.startsWith(arguments[0]) && r.responseEnd > 0);",
                vec![api.into()],
            )
            .await
            .unwrap();
        read == true
    })
    .await;
    // The page drawn again by its own script from the same address: an error its drawing
    // throws is returned (the page's own drawing shows it in its error line).
    let failed = client
        .execute(
            "return (async () => { try { if (typeof path === 'string') \
             show(await json(`/api/hill${path}`)); else show(await json('/api/hill')); \
             return ''; } catch (e) { return String(e.message); } })();",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(failed, "", "{url}: its script failed");
    let errors = console_errors(client).await;
    assert!(
        errors.is_empty(),
        "{url}: script errors in the console: {errors:?}"
    );
    assert_eq!(text_of(client, "#error").await, "", "{url}: its error line");
}

/// A name as the server writes it into a page.
fn escaped_name(name: &str) -> String {
    name.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}
