//! The hill's web pages in a real browser (headless Chromium through WebDriver, as the
//! dashboard's tests drive it), against `koth hill run --serve` while the hill plays, and
//! `koth serve` of the hill folder after. Screenshots go to `target/test-screenshots/`.

use crate::dashboard::{browser, get, screenshot, serve, serving, text_of, until, until_drawn};
use crate::dashboard_guard::exchange;
use crate::hill::{add_ok, graded, hill, hill_command};
use crate::support::tournament::succeed;

/// A bot name that is HTML, and a script's end: it must show as these characters.
const MARKUP: &str = "<img src=x onerror=\"window.pwned=1\"> & </script>";

#[test]
fn the_hill_s_pages_show_its_king_and_board_live_each_bot_and_names_as_text() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = hill(tmp.path(), "sandbox = false\nplacement_games = 2\n");
    let strong = graded(tmp.path(), "strong", "Strong", 1.0);
    let weak = graded(tmp.path(), "weak", "Weak", 0.0);
    let markup = graded(tmp.path(), "markup", MARKUP, 0.5);
    add_ok(&dir, &[&strong, &weak, &markup]);
    // Weak's second version, so its page has two.
    std::fs::write(
        weak.join("bot.toml"),
        "name = \"Weak\"\nrun = \"python3 -u graded.py 0.2\"\ngames = [\"tictactoe\"]\n",
    )
    .unwrap();
    add_ok(&dir, &[&weak]);
    succeed(
        hill_command(&dir)
            .args(["hill", "run"])
            .arg(&dir)
            .args(["--games", "6"]),
    );

    let (run, url) = serving(
        hill_command(&dir)
            .args(["hill", "run"])
            .arg(&dir)
            .args(["--serve", "127.0.0.1:0"]),
    );

    let runtime = koth::game::runtime().unwrap();
    runtime.block_on(async {
        let (_driver, client) = browser().await;
        client.goto(&url).await.unwrap();
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
        assert!(
            text_of(&client, "#king-since")
                .await
                .starts_with("since game ")
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
        // The last games say why each was chosen.
        until("the last games are listed", || async {
            text_of(&client, "#last").await.contains(" v1")
        })
        .await;
        let last = text_of(&client, "#last").await;
        assert!(
            last.contains("placement game") || last.contains("against"),
            "{last}"
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

        // A game's link opens its replay. (Followed by its address: the table is redrawn as
        // games end, so an element found one moment may be gone the next.)
        let link = client
            .execute(
                "return document.querySelector(\"#last a[href^='/games/']\").getAttribute('href');",
                vec![],
            )
            .await
            .unwrap();
        client
            .goto(&format!(
                "{url}{}",
                link.as_str().unwrap().trim_start_matches('/')
            ))
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

        // Weak's page: both versions, its rating plot, its opponents.
        client.goto(&format!("{url}bots/Weak")).await.unwrap();
        until("Weak's page lists both versions", || async {
            let versions = text_of(&client, "#versions").await;
            versions.contains("v2") && versions.contains("v1") && versions.contains("replaced")
        })
        .await;
        until_drawn(&client, "ratings", 900).await;
        assert!(text_of(&client, "#opponents").await.contains("Strong"));
        screenshot(&client, "hill-bot.png").await;

        // A king's page, drawn again by its script: its reigns read as text (they once broke
        // the script, an object taken for an array).
        client.goto(&url).await.unwrap();
        let king = client
            .execute(
                "return document.querySelector(\"#kings a[href^='/bots/']\").getAttribute('href');",
                vec![],
            )
            .await
            .unwrap();
        client
            .goto(&format!(
                "{url}{}",
                king.as_str().unwrap().trim_start_matches('/')
            ))
            .await
            .unwrap();
        let failed = client
            .execute(
                "return (async () => { try { show(await json(`/api/hill${path}`)); return ''; } \
                 catch (e) { return String(e.message); } })();",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(failed, "", "the king's page script failed");
        until("the king's reigns are shown", || async {
            let reigns = text_of(&client, "#reigns").await;
            reigns.starts_with('v') && reigns.contains("from game") && !reigns.contains("undefined")
        })
        .await;

        // The page of the bot whose name is markup shows the name as text.
        client
            .goto(&format!(
                "{url}bots/{}",
                MARKUP
                    .bytes()
                    .map(|b| match b.is_ascii_alphanumeric() {
                        true => char::from(b).to_string(),
                        false => format!("%{b:02X}"),
                    })
                    .collect::<String>()
            ))
            .await
            .unwrap();
        until("its page names it", || async {
            text_of(&client, "#title").await == MARKUP
        })
        .await;
        let pwned = client
            .execute("return window.pwned === undefined;", vec![])
            .await
            .unwrap();
        assert_eq!(pwned, true);
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
        page.contains("replaced") && page.contains(">Strong</a>"),
        "{page}"
    );
    assert!(page.contains("src=\"/bots/Weak/ratings.svg\""), "{page}");
    let (status, page) = get(port, "/bots/Nobody");
    assert!(status.contains(" 404 "), "{status}: {page}");
    assert!(page.contains("no bot called &quot;Nobody&quot;"), "{page}");
}

/// A name as the server writes it into a page.
fn escaped_name(name: &str) -> String {
    name.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}
