//! What the dashboard accepts of its clients, with a real `koth serve` on 127.0.0.1 and real
//! clients: only its own `Host` (DNS rebinding), a capped number of connections, requests whose
//! headers arrive in time, a capped number of event streams per client behind a trusted proxy,
//! and many live pages served by one poll of the database. And a bot's
//! name and stderr cannot break the replay page that embeds them.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::dashboard::{Killed, browser, serve_with, text_of, until};
use crate::support::tournament::{repo, run_tournament};

/// A finished noughts & crosses tournament of one game, the sample Win or Block against
/// `tests/hostile/html` (a name and stderr full of `<script>`), in `tmp/t`.
fn tournament(tmp: &Path) -> PathBuf {
    let file = tmp.join("t.toml");
    std::fs::write(
        &file,
        format!(
            "game = \"tictactoe\"\nbots = [{:?}, {:?}]\ngames = 1\nrounds = 2\njobs = 1\n\
             sandbox = false\nseed = 5\nanswer_ms = 5000\n",
            repo().join("bots/ttt-python"),
            repo().join("tests/hostile/html"),
        ),
    )
    .unwrap();
    let dir = tmp.join("t");
    run_tournament(&file, &dir, &[]);
    dir
}

/// Sends `request` to the server on `port` and returns what it answers before closing (or
/// within 20 s).
pub(crate) fn exchange(port: u16, request: &str) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}

/// The status line of `GET /api/progress` with `Host: host`.
fn status_for_host(port: u16, host: &str) -> String {
    let answer = exchange(
        port,
        &format!("GET /api/progress HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"),
    );
    answer.lines().next().unwrap_or_default().to_string()
}

/// The threads of process `pid`.
fn threads(pid: u32) -> usize {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

#[test]
fn the_dashboard_answers_only_its_host_caps_connections_and_drops_slow_clients() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tournament(tmp.path());
    let (_server, port) = serve_with(&[
        dir.as_os_str(),
        "--max-connections".as_ref(),
        "4".as_ref(),
        "--allow-host".as_ref(),
        "dash.example".as_ref(),
    ]);

    // Another site's name, rebound to 127.0.0.1, reads nothing; its own names and the allowed
    // one do.
    for host in [
        format!("evil.example:{port}"),
        "127.0.0.1.evil.example".into(),
    ] {
        let status = status_for_host(port, &host);
        assert!(status.contains(" 421 "), "{host}: {status}");
    }
    for host in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        "dash.example".into(),
        "DASH.example:443".into(),
    ] {
        let status = status_for_host(port, &host);
        assert!(status.contains(" 200 "), "{host}: {status}");
    }

    // Four connections that send nothing hold the four places: a fifth is refused at once.
    let idle: Vec<TcpStream> = (0..4)
        .map(|_| TcpStream::connect(("127.0.0.1", port)).unwrap())
        .collect();
    let refused = status_for_host(port, "127.0.0.1");
    assert!(refused.contains(" 503 "), "{refused}");
    drop(idle);
    let started = Instant::now();
    while !status_for_host(port, "127.0.0.1").contains(" 200 ") {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "closed connections free their places"
        );
        std::thread::sleep(Duration::from_millis(100));
    }

    // Half a request is dropped within the header timeout (5 s), not held open.
    let started = Instant::now();
    let answer = exchange(port, "GET /api/progress HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    let held = started.elapsed();
    assert!(
        held < Duration::from_secs(12),
        "a half-sent request was held {held:?}"
    );
    assert!(!answer.contains(" 200 "), "{answer}");
}

/// An `/api/events` stream opened on the server on `port` as its trusted proxy (this test, on
/// 127.0.0.1) would forward it for the client `forwarded` names (no `X-Forwarded-For` at all
/// when `None`): the status it was answered, and the connection, kept open.
fn events_through_proxy(port: u16, forwarded: Option<&str>) -> (u16, TcpStream) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let header = forwarded.map_or(String::new(), |client| {
        format!("X-Forwarded-For: {client}\r\n")
    });
    write!(
        stream,
        "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{header}\r\n"
    )
    .unwrap();
    let mut seen = Vec::new();
    let mut buffer = [0; 1024];
    while !seen.windows(4).any(|end| end == b"\r\n\r\n") {
        let read = stream.read(&mut buffer).expect("an answer in time");
        assert!(
            read > 0,
            "closed before its headers: {}",
            String::from_utf8_lossy(&seen)
        );
        seen.extend_from_slice(&buffer[..read]);
    }
    let answer = String::from_utf8_lossy(&seen);
    let status = answer.split(' ').nth(1).and_then(|code| code.parse().ok());
    (
        status.unwrap_or_else(|| panic!("no status: {answer}")),
        stream,
    )
}

#[test]
fn a_client_behind_a_trusted_proxy_holds_its_cap_of_event_streams_whatever_its_address_form() {
    const CAP: usize = 3;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tournament(tmp.path());
    let (_server, port) = serve_with(&[
        dir.as_os_str(),
        "--trusted-proxy".as_ref(),
        "127.0.0.1".as_ref(),
        "--max-per-client".as_ref(),
        CAP.to_string().as_ref(),
    ]);
    // Each client in the forms a proxy may write it: the first CAP streams are served and
    // stay open, the rest are refused, since an open stream holds its client's place.
    let clients: [(&str, [Option<&str>; 5]); 3] = [
        (
            "an IPv4 client, with ports and in its IPv4-mapped IPv6 form",
            [
                Some("203.0.113.7"),
                Some("203.0.113.7:5678"),
                Some("::ffff:203.0.113.7"),
                Some("[::ffff:203.0.113.7]:443"),
                Some("198.51.100.1, 203.0.113.7:80"),
            ],
        ),
        (
            "addresses of one IPv6 /64",
            [
                Some("2001:db8:1:2::1"),
                Some("[2001:db8:1:2::2]:443"),
                Some("2001:db8:1:2:abcd::9"),
                Some("[2001:db8:1:2:ffff::1]"),
                Some("2001:db8:1:2::1"),
            ],
        ),
        (
            "requests with no address to read",
            [
                None,
                Some("unknown"),
                Some(""),
                None,
                Some("203.0.113.7, _hidden"),
            ],
        ),
    ];
    let mut open = Vec::new();
    for (what, forms) in clients {
        let mut held = Vec::new();
        for (n, form) in forms.into_iter().enumerate() {
            let (status, stream) = events_through_proxy(port, form);
            let expected = if n < CAP { 200 } else { 429 };
            assert_eq!(
                status, expected,
                "{what}: stream {n}, forwarded for {form:?}"
            );
            if status == 200 {
                held.push(stream);
            }
        }
        open.push(held);
    }
    // Other clients, the neighbouring /64 among them, still get in.
    for other in ["198.51.100.1", "2001:db8:1:3::1", "[::ffff:198.51.100.2]:1"] {
        let (status, _stream) = events_through_proxy(port, Some(other));
        assert_eq!(status, 200, "{other}");
    }
    // A stream closed gives its place back: the client gets one more, and only one.
    drop(open[0].pop());
    let started = Instant::now();
    let _again = loop {
        let (status, stream) = events_through_proxy(port, Some("::ffff:203.0.113.7"));
        if status == 200 {
            break stream;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "a closed stream still holds its place ({status})"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    let (status, _refused) = events_through_proxy(port, Some("203.0.113.7"));
    assert_eq!(status, 429, "the place given back was taken again");
    drop(open);
}

#[test]
fn many_live_pages_share_one_poll_of_the_database() {
    const CLIENTS: usize = 200;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tournament(tmp.path());
    // Every page here comes from one address: past the cap of one client's connections.
    let (server, port) =
        serve_with(&[dir.as_os_str(), "--max-per-client".as_ref(), "250".as_ref()]);
    let Killed(child) = &server;
    let started = Instant::now();
    let clients: Vec<TcpStream> = (0..CLIENTS)
        .map(|_| {
            let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
            write!(
                stream,
                "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"
            )
            .unwrap();
            stream
        })
        .collect();
    // Every page is told where the tournament stands.
    for mut client in &clients {
        client
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        let mut seen = Vec::new();
        let mut buffer = [0; 4096];
        while !String::from_utf8_lossy(&seen).contains("event: progress") {
            let read = client.read(&mut buffer).expect("a progress event in time");
            assert!(
                read > 0,
                "the stream ended: {}",
                String::from_utf8_lossy(&seen)
            );
            seen.extend_from_slice(&buffer[..read]);
            assert!(started.elapsed() < Duration::from_secs(60));
        }
    }
    // Several polls later, the server still runs on a handful of threads: one poll for all,
    // where one poller per page kept about one thread for every two pages busy.
    std::thread::sleep(Duration::from_secs(2));
    let threads = threads(child.id());
    assert!(threads < 24, "{threads} threads serve {CLIENTS} live pages");
    drop(clients);
}

#[test]
fn a_bot_s_name_and_stderr_full_of_script_tags_do_not_break_its_replay_page() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tournament(tmp.path());
    // The page the dashboard serves, and the one `--html` writes, embed the data with no raw
    // `<`: the script element holds to its end.
    let page = tmp.path().join("page.html");
    crate::support::tournament::succeed(
        crate::support::tournament::koth()
            .arg("replay")
            .arg(dir.join("games/0"))
            .arg("--html")
            .arg(&page),
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.contains("<!--<script>"), "the name is embedded raw");
    let (_server, port) = serve_with(&[dir.as_os_str()]);
    let runtime = koth::game::runtime().unwrap();
    runtime.block_on(async {
        let (_driver, client) = browser().await;
        for address in [
            format!("http://127.0.0.1:{port}/games/0"),
            format!("file://{}", page.display()),
        ] {
            client.goto(&address).await.unwrap();
            // The page ran: it drew the match, named with the bot's name as it is.
            until("the viewer shows the match", || async {
                text_of(&client, "#title")
                    .await
                    .contains("<!--<script> </script>")
            })
            .await;
            assert_ne!(client.title().await.unwrap(), "pwned", "{address}");
        }
    });
}
