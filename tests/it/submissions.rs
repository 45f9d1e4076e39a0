//! Strangers' bots through the hill's door: a real `koth hill run --serve` on 127.0.0.1, real
//! HTTP clients (reqwest, raw sockets, `koth hill submit`, Chromium), real contained builds
//! and validation games, hostile archives, kills and restarts.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use flate2::Compression;
use flate2::write::GzEncoder;
use reqwest::StatusCode;
use reqwest::blocking::Client;
use serde_json::Value;

use crate::dashboard::{Killed, browser, screenshot, text_of, until};
use crate::support::cpus::own_cpu_locks;
use crate::support::survivors::wait_until_nothing_left;
use crate::support::tournament::{koth, query, repo, succeed};

/// A noughts & crosses bot `name` in `root/<folder>` (the graded player: the perfect move with
/// probability `p`), with `extra` lines in its bot.toml.
pub(crate) fn bot(root: &Path, folder: &str, name: &str, p: f64, extra: &str) -> PathBuf {
    let dir = root.join(folder);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        repo().join("scripts/graded-ttt/graded.py"),
        dir.join("graded.py"),
    )
    .unwrap();
    std::fs::write(
        dir.join("bot.toml"),
        format!(
            "name = {name:?}\nrun = \"python3 -u graded.py {p}\"\ngames = [\"tictactoe\"]\n{extra}"
        ),
    )
    .unwrap();
    dir
}

/// A contained noughts & crosses hill in `root/hill` with `[submissions]` keys `limits`.
fn hill(root: &Path, limits: &str) -> PathBuf {
    hill_with(root, "build_timeout_s = 30\n", limits)
}

/// [`hill`], with more of the hill file's own keys (`top`).
fn hill_with(root: &Path, top: &str, limits: &str) -> PathBuf {
    let file = root.join("hill-s.toml");
    std::fs::write(
        &file,
        format!(
            "game = \"tictactoe\"\nrounds = 2\nanswer_ms = 2000\nseed = 5\njobs = 1\n{top}\
             placement_games = 2\n[submissions]\n{limits}"
        ),
    )
    .unwrap();
    let dir = root.join("hill");
    succeed(
        koth()
            .args(["hill", "create"])
            .arg(&file)
            .arg("--dir")
            .arg(&dir),
    );
    dir
}

pub(crate) fn author(dir: &Path, name: &str) -> String {
    let output = succeed(
        koth()
            .args(["hill", "author", "add", name, "--hill"])
            .arg(dir),
    );
    let token = String::from_utf8_lossy(&output.stdout)
        .lines()
        .last()
        .unwrap()
        .to_string();
    assert!(token.starts_with("koth_"), "{token}");
    token
}

/// `koth hill run DIR --serve 127.0.0.1:0` and the address it serves on.
struct Served {
    run: Killed,
    url: String,
}

fn serve(dir: &Path) -> Served {
    let mut command = koth();
    own_cpu_locks(&mut command, dir.parent().unwrap());
    let mut run = command
        .args(["hill", "run"])
        .arg(dir)
        .args(["--serve", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(run.stdout.take().unwrap()).lines();
    let url = lines
        .by_ref()
        .map_while(Result::ok)
        .find_map(|line| {
            line.strip_prefix("Dashboard: ").map(|rest| {
                rest.split(' ')
                    .next()
                    .unwrap()
                    .trim_end_matches('/')
                    .to_string()
            })
        })
        .expect("hill run prints its address");
    std::thread::spawn(move || lines.for_each(drop));
    Served {
        run: Killed(run),
        url,
    }
}

fn client() -> Client {
    // reqwest is built without a TLS provider of its own: koth installs rustls's ring.
    let _ = rustls::crypto::ring::default_provider().install_default();
    Client::builder()
        .timeout(Duration::from_secs(120))
        .build()
        .unwrap()
}

/// The folder `dir` as a `.tar.gz`.
pub(crate) fn packed(dir: &Path) -> Vec<u8> {
    let mut tar = tar::Builder::new(GzEncoder::new(Vec::new(), Compression::fast()));
    tar.append_dir_all(".", dir).unwrap();
    tar.into_inner().unwrap().finish().unwrap()
}

pub(crate) fn post(url: &str, token: Option<&str>, body: Vec<u8>) -> (StatusCode, Value) {
    let mut request = client()
        .post(format!("{url}/api/submissions"))
        .header("Content-Type", "application/gzip")
        .body(body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().unwrap();
    let status = response.status();
    (status, response.json().unwrap_or(Value::Null))
}

fn status_of(url: &str, id: &str, token: Option<&str>) -> Value {
    let mut request = client().get(format!("{url}/api/submissions/{id}"));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().unwrap().json().unwrap()
}

/// Waits (at most two minutes) until submission `id` is active or refused.
fn settled(url: &str, id: &str, token: &str) -> Value {
    let started = Instant::now();
    loop {
        let status = status_of(url, id, Some(token));
        if matches!(status["status"].as_str(), Some("active" | "refused")) {
            return status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "submission {id} never settled: {status}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

pub(crate) fn submit(bot: &Path, url: &str, token: &str) -> std::process::Output {
    koth()
        .args(["hill", "submit"])
        .arg(bot)
        .args(["--to", url, "--wait"])
        .env("KOTH_TOKEN", token)
        .output()
        .unwrap()
}

#[test]
fn an_author_submits_a_bot_that_builds_validates_and_plays_and_only_it_reads_its_logs() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = hill(tmp.path(), "kept_versions = 1\n");
    let ada = author(&dir, "ada");
    let bob = author(&dir, "bob");
    // The owner's bot says something on stderr that only its author may read.
    let house = bot(tmp.path(), "house", "House", 0.5, "");
    std::fs::write(
        house.join("secret.py"),
        "import sys\nprint('SECRET-MARK', file=sys.stderr, flush=True)\n\
         exec(open('graded.py').read())\n",
    )
    .unwrap();
    std::fs::write(
        house.join("bot.toml"),
        "name = \"House\"\nrun = \"python3 -u secret.py 0.5\"\ngames = [\"tictactoe\"]\n",
    )
    .unwrap();
    succeed(
        koth()
            .args(["hill", "add"])
            .arg(&house)
            .arg("--hill")
            .arg(&dir),
    );
    let served = serve(&dir);
    let url = &served.url;

    // `koth hill submit --wait`: packed, uploaded, built (its build step's output is its
    // author's), validated, active.
    let mine = bot(
        tmp.path(),
        "mine",
        "Ada's",
        0.9,
        "build = \"echo compiled for ada\"\n",
    );
    let output = submit(&mine, url, &ada);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("Ada's v1: submission "), "{stdout}");
    assert!(
        stdout.contains("compiled for ada"),
        "the build log: {stdout}"
    );
    assert!(
        stdout.contains("Ada's v1 is active on the hill"),
        "{stdout}"
    );
    // It plays: the hill gives its placement games to it.
    let started = Instant::now();
    while query(
        &dir,
        "SELECT COALESCE(MAX(games), 0) FROM hill_versions WHERE name = 'Ada''s'",
    ) < 1
    {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "Ada's never played"
        );
        std::thread::sleep(Duration::from_millis(100));
    }

    // Replays are public, a bot's stderr is not.
    let game = query(&dir, "SELECT MIN(game) FROM results");
    let stderr_dir = dir.join(format!("games/{game}/stderr"));
    let kept: String = std::fs::read_dir(&stderr_dir)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert!(kept.contains("SECRET-MARK"), "{kept}");
    let page = client().get(format!("{url}/games/{game}")).send().unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let page = page.text().unwrap();
    assert!(page.contains("House"));
    assert!(
        !page.contains("SECRET-MARK"),
        "a replay page shows a bot's stderr"
    );

    // A new version, sent twice: the same upload again is the same submission. Its logs are
    // its author's alone.
    let mine = bot(
        tmp.path(),
        "mine",
        "Ada's",
        0.95,
        "build = \"echo compiled for ada\"\n",
    );
    let (code, first) = post(url, Some(&ada), packed(&mine));
    assert_eq!(code, StatusCode::ACCEPTED, "{first}");
    assert_eq!(first["version"], 2, "{first}");
    let (_, again) = post(url, Some(&ada), packed(&mine));
    assert_eq!(first["id"], again["id"]);
    let id = first["id"].as_str().unwrap();
    let to_ada = settled(url, id, &ada);
    assert_eq!(to_ada["status"], "active", "{to_ada}");
    assert!(
        to_ada["private"]["build_log"]
            .as_str()
            .unwrap()
            .contains("compiled for ada"),
        "{to_ada}"
    );
    assert_eq!(
        query(
            &dir,
            "SELECT COUNT(*) FROM hill_versions WHERE name = 'Ada''s' AND state = 'replaced'"
        ),
        1
    );
    // Her first submission's status follows its version: replaced, and by which.
    let listed: Value = client()
        .get(format!("{url}/api/submissions"))
        .bearer_auth(&ada)
        .send()
        .unwrap()
        .json()
        .unwrap();
    let first_one = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["version"] == 1)
        .expect("her v1's submission is listed");
    assert_eq!(first_one["status"], "replaced", "{listed}");
    assert_eq!(first_one["reason"], "replaced by v2", "{listed}");
    // Beyond `kept_versions`, an old version's files go; its games stay.
    let versions: Vec<String> = std::fs::read_dir(dir.join("versions"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(versions.len(), 2, "House and Ada's v2 only: {versions:?}");
    // Rolling back is her own, and only to a version whose files the hill keeps.
    let roll_back = |token: Option<&str>, body: &str| {
        let mut request = client()
            .post(format!("{url}/api/hill/bots/Ada's/rollback"))
            .header("content-type", "application/json")
            .body(body.to_string());
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let response = request.send().unwrap();
        let code = response.status();
        (code, response.json::<Value>().unwrap())
    };
    for (token, body, code, why) in [
        (
            None,
            r#"{"version": 1}"#,
            StatusCode::UNAUTHORIZED,
            "no token",
        ),
        (
            Some(bob.as_str()),
            r#"{"version": 1}"#,
            StatusCode::FORBIDDEN,
            "its author's alone",
        ),
        (
            Some(ada.as_str()),
            r#"{"version": 1}"#,
            StatusCode::CONFLICT,
            "no longer kept",
        ),
        (
            Some(ada.as_str()),
            r#"{"version": 2}"#,
            StatusCode::CONFLICT,
            "active version already",
        ),
        (
            Some(ada.as_str()),
            r#"{"version": 9}"#,
            StatusCode::CONFLICT,
            "its versions are v1, v2",
        ),
        (
            Some(ada.as_str()),
            "nine",
            StatusCode::UNPROCESSABLE_ENTITY,
            "as JSON",
        ),
    ] {
        let (answered, said) = roll_back(token, body);
        assert_eq!(answered, code, "{body}: {said}");
        assert!(
            said["error"].as_str().unwrap().contains(why),
            "{body}: {said}"
        );
    }
    assert!(
        query(
            &dir,
            "SELECT COUNT(*) FROM results r JOIN bots b ON b.id = r.bot WHERE b.name = 'Ada''s v1'"
        ) > 0
    );
    assert!(status_of(url, id, None).get("private").is_none());
    assert!(status_of(url, id, Some(&bob)).get("private").is_none());

    // Another author's name, the owner's name, a missing, a wrong and a revoked token.
    let (code, body) = post(url, Some(&bob), packed(&mine));
    assert_eq!(code, StatusCode::FORBIDDEN, "{body}");
    assert!(body["error"].as_str().unwrap().contains("another author's"));
    let (code, body) = post(url, Some(&bob), packed(&house));
    assert_eq!(code, StatusCode::FORBIDDEN, "{body}");
    assert!(body["error"].as_str().unwrap().contains("owner's"));
    let (code, _) = post(url, None, packed(&mine));
    assert_eq!(code, StatusCode::UNAUTHORIZED);
    let (code, _) = post(url, Some("koth_0123"), packed(&mine));
    assert_eq!(code, StatusCode::UNAUTHORIZED);
    succeed(
        koth()
            .args(["hill", "author", "revoke", "ada", "--hill"])
            .arg(&dir),
    );
    let (code, body) = post(url, Some(&ada), packed(&mine));
    assert_eq!(code, StatusCode::UNAUTHORIZED, "{body}");
    let output = submit(&mine, url, &ada);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("401"));

    // A build that reaches the network or writes outside its folder fails, and the hill is
    // unharmed.
    let outside = tmp.path().join("written-by-a-build");
    let port = url.rsplit(':').next().unwrap();
    let sneaky = bot(
        tmp.path(),
        "sneaky",
        "Sneaky",
        0.5,
        &format!(
            "build = \"python3 -c 'import socket; socket.create_connection((\\\"127.0.0.1\\\", {port}))' || \
             echo reached > {}\"\n",
            outside.display()
        ),
    );
    let output = submit(&sneaky, url, &bob);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(stderr.contains("Sneaky was refused"), "{stderr}");
    assert!(stderr.contains("build"), "{stderr}");
    assert!(!outside.exists(), "a build wrote outside its folder");
    assert_eq!(
        query(
            &dir,
            "SELECT COUNT(*) FROM hill_versions WHERE name = 'Sneaky'"
        ),
        0
    );
    drop(served);
}

/// A `.tar.gz` of raw entries `(name, kind, link, bytes)`, as a hostile tool writes them.
fn hostile(entries: &[(&[u8], tar::EntryType, &str, &[u8])]) -> Vec<u8> {
    let mut tar = tar::Builder::new(GzEncoder::new(Vec::new(), Compression::fast()));
    for (name, kind, link, bytes) in entries {
        tar.append(&raw_header(name, *kind, link, bytes.len() as u64), *bytes)
            .unwrap();
    }
    tar.into_inner().unwrap().finish().unwrap()
}

fn raw_header(name: &[u8], kind: tar::EntryType, link: &str, size: u64) -> tar::Header {
    let mut header = tar::Header::new_gnu();
    header.as_gnu_mut().unwrap().name[..name.len()].copy_from_slice(name);
    if !link.is_empty() {
        header.as_gnu_mut().unwrap().linkname[..link.len()].copy_from_slice(link.as_bytes());
    }
    header.set_entry_type(kind);
    header.set_size(size);
    header.set_mode(0o644);
    header.set_cksum();
    header
}

/// Every file under `dir`, relative.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).into_iter().flatten().flatten() {
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                stack.push(path);
            } else {
                found.push(path.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    found.sort();
    found
}

#[test]
fn hostile_archives_are_refused_naming_the_entry_and_nothing_is_written_outside() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = hill(tmp.path(), "per_hour = 100\n");
    let ada = author(&dir, "ada");
    let target = tmp.path().join("target");
    std::fs::create_dir(&target).unwrap();
    let target_path = target.display().to_string();
    let served = serve(&dir);
    let url = &served.url;
    let before = files_under(tmp.path());
    let manifest: &[u8] = b"name = \"x\"\nrun = \"python3 x.py\"\ngames = [\"tictactoe\"]\n";
    let long = "a/".repeat(5000);
    let regular = tar::EntryType::Regular;
    let cases: Vec<(&str, Vec<u8>, StatusCode, &str)> = vec![
        (
            "a link to a file outside",
            hostile(&[
                (b"bot.toml", regular, "", manifest),
                (b"passwd", tar::EntryType::Symlink, "/etc/passwd", b""),
            ]),
            StatusCode::UNPROCESSABLE_ENTITY,
            "\"passwd\": it is a symbolic link",
        ),
        (
            "a link to a folder, then a file through it",
            hostile(&[
                (b"out", tar::EntryType::Symlink, &target_path, b""),
                (b"out/evil", regular, "", b"x"),
            ]),
            StatusCode::UNPROCESSABLE_ENTITY,
            "\"out\": it is a symbolic link",
        ),
        (
            "a hard link",
            hostile(&[
                (b"bot.toml", regular, "", manifest),
                (b"hard", tar::EntryType::Link, "/etc/passwd", b""),
            ]),
            StatusCode::UNPROCESSABLE_ENTITY,
            "hard link",
        ),
        (
            "a path that climbs out",
            hostile(&[(b"../../escaped", regular, "", b"x")]),
            StatusCode::UNPROCESSABLE_ENTITY,
            "`..`",
        ),
        (
            "an absolute path",
            hostile(&[(b"/tmp/koth-absolute-escape", regular, "", b"x")]),
            StatusCode::UNPROCESSABLE_ENTITY,
            "absolute",
        ),
        (
            "a device",
            hostile(&[(b"null", tar::EntryType::Char, "", b"")]),
            StatusCode::UNPROCESSABLE_ENTITY,
            "device",
        ),
        (
            "a name that is not UTF-8",
            hostile(&[(b"bad\xff\xfe", regular, "", b"x")]),
            StatusCode::UNPROCESSABLE_ENTITY,
            "UTF-8",
        ),
        (
            "a path 10,000 characters long",
            {
                let mut tar = tar::Builder::new(GzEncoder::new(Vec::new(), Compression::fast()));
                let mut header = tar::Header::new_gnu();
                header.set_size(1);
                header.set_mode(0o644);
                tar.append_data(&mut header, format!("{long}x"), &b"x"[..])
                    .unwrap();
                tar.into_inner().unwrap().finish().unwrap()
            },
            StatusCode::UNPROCESSABLE_ENTITY,
            "longer than 255 bytes",
        ),
        (
            "1 GiB of zeros compressed to a few MB",
            {
                let mut gz = GzEncoder::new(Vec::new(), Compression::best());
                let mut header = raw_header(b"zeros", regular, "", 1 << 30);
                header.set_cksum();
                gz.write_all(header.as_bytes()).unwrap();
                let zeros = vec![0u8; 1 << 20];
                for _ in 0..1024 {
                    gz.write_all(&zeros).unwrap();
                }
                gz.finish().unwrap()
            },
            StatusCode::PAYLOAD_TOO_LARGE,
            "unpacks to",
        ),
        (
            "200,000 empty files",
            {
                let mut tar = tar::Builder::new(GzEncoder::new(Vec::new(), Compression::fast()));
                for i in 0..200_000 {
                    let name = format!("f{i}");
                    tar.append(&raw_header(name.as_bytes(), regular, "", 0), &b""[..])
                        .unwrap();
                }
                tar.into_inner().unwrap().finish().unwrap()
            },
            StatusCode::PAYLOAD_TOO_LARGE,
            "more than 10000 entries",
        ),
        (
            "not an archive",
            b"#!/bin/sh\nrm -rf /\n".to_vec(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "neither a .tar.gz nor a .zip",
        ),
        (
            "no bot.toml",
            hostile(&[(b"x.py", regular, "", b"print(1)")]),
            StatusCode::UNPROCESSABLE_ENTITY,
            "bot.toml",
        ),
        (
            "a bot.toml with a bad key",
            hostile(&[(b"bot.toml", regular, "", b"name = \"x\"\nrun = 5\n")]),
            StatusCode::UNPROCESSABLE_ENTITY,
            "bot.toml",
        ),
    ];
    for (what, body, code, why) in cases {
        let (got, answer) = post(url, Some(&ada), body);
        assert_eq!(got, code, "{what}: {answer}");
        let error = answer["error"].as_str().unwrap_or_default();
        assert!(error.contains(why), "{what}: {error}");
        assert!(
            !error.contains(&dir.display().to_string()),
            "{what} shows a path: {error}"
        );
        // Nothing left of it: the hill's submissions folder holds nothing, nothing landed
        // anywhere else.
        let left = files_under(&dir.join("submissions"));
        assert!(left.is_empty(), "{what} left {left:?}");
        assert!(
            std::fs::read_dir(&target).unwrap().next().is_none(),
            "{what}"
        );
        assert!(!Path::new("/tmp/koth-absolute-escape").exists());
    }
    let after: Vec<PathBuf> = files_under(tmp.path())
        .into_iter()
        .filter(|p| !p.starts_with("hill"))
        .collect();
    assert_eq!(
        after,
        before
            .into_iter()
            .filter(|p| !p.starts_with("hill"))
            .collect::<Vec<_>>()
    );
    // Each refusal is recorded, with its reason, for its author.
    let mine: Vec<Value> = client()
        .get(format!("{url}/api/submissions"))
        .bearer_auth(&ada)
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(mine.len(), 13);
    assert!(
        mine.iter()
            .all(|s| s["status"] == "refused" && s["reason"].is_string())
    );
    drop(served);
}

#[test]
fn rates_caps_and_a_slow_client_are_held_at_the_door() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = hill(tmp.path(), "per_hour = 3\nupload_mb = 1\nactive_bots = 1\n");
    let ada = author(&dir, "ada");
    let served = serve(&dir);
    let url = &served.url;
    let one = bot(tmp.path(), "one", "One", 0.5, "");
    let two = bot(tmp.path(), "two", "Two", 0.5, "");
    let (code, body) = post(url, Some(&ada), packed(&one));
    assert_eq!(code, StatusCode::ACCEPTED, "{body}");
    // A second bot is over the author's cap of active bots.
    let (code, body) = post(url, Some(&ada), packed(&two));
    assert_eq!(code, StatusCode::FORBIDDEN, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("active_bots"),
        "{body}"
    );
    // Over the upload's cap: cut off, not stored.
    let big: Vec<u8> = (0..(2u32 << 20))
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let (code, body) = post(url, Some(&ada), big);
    assert_eq!(code, StatusCode::PAYLOAD_TOO_LARGE, "{body}");
    // Three submissions in the hour: the fourth waits, and is told how long.
    let response = client()
        .post(format!("{url}/api/submissions"))
        .bearer_auth(&ada)
        .body(packed(&one))
        .send()
        .unwrap();
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry: u64 = response.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=3600).contains(&retry), "{retry}");

    // A client sending its body a byte a second is dropped within seconds.
    let addr = url.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        stream,
        "POST /api/submissions HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {ada}\r\n\
         Content-Length: 100000\r\n\r\n"
    )
    .unwrap();
    let started = Instant::now();
    let dropped = std::thread::spawn({
        let mut stream = stream.try_clone().unwrap();
        move || {
            let mut answer = String::new();
            let _ = stream.read_to_string(&mut answer);
            answer
        }
    });
    while !dropped.is_finished() && started.elapsed() < Duration::from_secs(30) {
        if stream.write_all(b"x").is_err() {
            break;
        }
        std::thread::sleep(Duration::from_secs(1));
    }
    let answer = dropped.join().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "a slow client held on"
    );
    // It was over its rate already, or too slow: either way refused and dropped.
    assert!(
        answer.starts_with("HTTP/1.1 408") || answer.starts_with("HTTP/1.1 429"),
        "{answer}"
    );
    drop(served);
}

#[test]
fn twenty_uploads_at_once_while_games_run_are_each_built_and_scheduled() {
    let tmp = tempfile::tempdir().unwrap();
    // Two builders take them: each submission is built once, by one of them.
    let dir = hill(
        tmp.path(),
        "per_hour = 50\nactive_bots = 20\nbuilders = 2\n",
    );
    let ada = author(&dir, "ada");
    let served = serve(&dir);
    let url = served.url.clone();
    let uploads: Vec<Vec<u8>> = (0..20)
        .map(|i| {
            packed(&bot(
                tmp.path(),
                &format!("b{i}"),
                &format!("Bot {i}"),
                f64::from(i) / 20.0,
                "",
            ))
        })
        .collect();
    let answers: Vec<(StatusCode, Value)> = std::thread::scope(|scope| {
        let sent: Vec<_> = uploads
            .into_iter()
            .map(|body| {
                let (url, ada) = (url.clone(), ada.clone());
                scope.spawn(move || post(&url, Some(&ada), body))
            })
            .collect();
        sent.into_iter().map(|s| s.join().unwrap()).collect()
    });
    for (code, body) in &answers {
        assert_eq!(*code, StatusCode::ACCEPTED, "{body}");
    }
    for (_, body) in &answers {
        let done = settled(&url, body["id"].as_str().unwrap(), &ada);
        assert_eq!(done["status"], "active", "{done}");
    }
    let started = Instant::now();
    while query(&dir, "SELECT COUNT(*) FROM hill_versions WHERE games > 0") < 20 {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "not every bot played"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    drop(served);
}

#[test]
fn uploads_sent_at_once_are_held_to_the_authors_rate() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = hill(tmp.path(), "per_hour = 3\n");
    let ada = author(&dir, "ada");
    let served = serve(&dir);
    let url = served.url.clone();
    // Eight versions of one bot sent together: each would pass a look at the rate that counts
    // only the submissions recorded, before any of them is.
    let uploads: Vec<Vec<u8>> = (0..8)
        .map(|i| {
            packed(&bot(
                tmp.path(),
                &format!("v{i}"),
                "Racer",
                0.1 * f64::from(i),
                "",
            ))
        })
        .collect();
    let start = std::sync::Barrier::new(uploads.len());
    let answers: Vec<(StatusCode, Value)> = std::thread::scope(|scope| {
        let sent: Vec<_> = uploads
            .into_iter()
            .map(|body| {
                let (url, ada, start) = (url.clone(), ada.clone(), &start);
                scope.spawn(move || {
                    start.wait();
                    post(&url, Some(&ada), body)
                })
            })
            .collect();
        sent.into_iter().map(|s| s.join().unwrap()).collect()
    });
    let accepted = answers
        .iter()
        .filter(|(code, _)| *code == StatusCode::ACCEPTED)
        .count();
    assert_eq!(accepted, 3, "{answers:?}");
    for (code, body) in answers
        .iter()
        .filter(|(code, _)| *code != StatusCode::ACCEPTED)
    {
        assert_eq!(*code, StatusCode::TOO_MANY_REQUESTS, "{body}");
        assert!(
            body["error"].as_str().unwrap().contains("per_hour"),
            "{body}"
        );
    }
    // The others were turned away at the gate, their bodies never stored nor unpacked (an
    // upload refused after it was read is recorded, as a refused submission).
    assert_eq!(query(&dir, "SELECT COUNT(*) FROM hill_submissions"), 3);
    drop(served);
}

#[test]
fn a_bot_in_a_language_the_hill_does_not_offer_is_refused_at_upload() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = hill_with(
        tmp.path(),
        "build_timeout_s = 30\nlanguages = [\"python3\"]\n",
        "",
    );
    let ada = author(&dir, "ada");
    let served = serve(&dir);
    let cases = [
        ("bash", "run = \"bash bot.sh\"", "its command uses `bash`"),
        (
            "shell",
            "run = \"$(cat /etc/shadow)\"",
            "which this hill does not offer",
        ),
        (
            "full",
            "run = \"/usr/bin/python3 bot.py\"",
            "by a full path",
        ),
    ];
    for (folder, run, said) in cases {
        let manifest = format!("name = \"{folder}\"\n{run}\ngames = [\"tictactoe\"]\n");
        let bot = raw_bot(tmp.path(), folder, manifest.as_bytes(), &[("bot.sh", b"")]);
        let (code, body) = post(&served.url, Some(&ada), packed(&bot));
        assert_eq!(code, StatusCode::UNPROCESSABLE_ENTITY, "{folder}: {body}");
        let error = body["error"].as_str().unwrap();
        assert!(error.contains(said) && error.contains("python3"), "{error}");
    }
    // Nothing kept, nothing waiting to be built.
    assert_eq!(
        query(
            &dir,
            "SELECT COUNT(*) FROM hill_submissions WHERE status <> 'refused'"
        ),
        0
    );
    drop(served);
}

#[test]
fn a_name_with_its_spaces_doubled_reads_the_same_as_the_name() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = hill(tmp.path(), "");
    let (ada, bob) = (author(&dir, "ada"), author(&dir, "bob"));
    let served = serve(&dir);
    let url = &served.url;
    let (code, body) = post(
        url,
        Some(&ada),
        packed(&bot(tmp.path(), "w", "Win or Block", 0.5, "")),
    );
    assert_eq!(code, StatusCode::ACCEPTED, "{body}");
    // A web page shows a run of spaces as one: the leaderboard would show two "Win or Block".
    for (folder, name) in [("w2", "Win  or Block"), ("w3", "Win or   Block")] {
        let (code, body) = post(
            url,
            Some(&bob),
            packed(&bot(tmp.path(), folder, name, 0.5, "")),
        );
        assert_eq!(code, StatusCode::FORBIDDEN, "{name:?}: {body}");
        let error = body["error"].as_str().unwrap();
        assert!(
            error.contains("reads the same as \"Win or Block\""),
            "{error}"
        );
    }
    drop(served);
}

#[test]
fn an_upload_whose_client_leaves_once_its_body_is_sent_leaves_nothing_unrecorded() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = hill(tmp.path(), "");
    let ada = author(&dir, "ada");
    let served = serve(&dir);
    let addr = served.url.trim_start_matches("http://").to_string();
    let folder = bot(tmp.path(), "big", "Big", 0.5, "");
    // Zeros, so that unpacking takes a while after the body arrived: the client is gone by then.
    std::fs::write(folder.join("zeros"), vec![0u8; 90 << 20]).unwrap();
    for attempt in 0..5 {
        std::fs::write(folder.join("attempt"), attempt.to_string()).unwrap();
        let body = packed(&folder);
        let mut stream = std::net::TcpStream::connect(&addr).unwrap();
        write!(
            stream,
            "POST /api/submissions HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {ada}\r\n\
             Content-Length: {}\r\n\r\n",
            body.len()
        )
        .unwrap();
        stream.write_all(&body).unwrap();
        drop(stream);
    }
    // Each was cut short (nothing kept) or taken whole and recorded, as if answered; none
    // leaves a folder with no record. Given time for the unpacking in flight to end.
    let submissions = dir.join("submissions");
    let started = Instant::now();
    while let Some(left) = unrecorded(&dir, &submissions) {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{left} was left with no record"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    drop(served);
}

#[test]
fn a_rollback_whose_body_trickles_in_is_dropped_within_seconds() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = hill(tmp.path(), "");
    let served = serve(&dir);
    let addr = served.url.trim_start_matches("http://");
    // No token needed to hold a connection: the body was read before anything else.
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    write!(
        stream,
        "POST /api/hill/bots/x/rollback HTTP/1.1\r\nHost: {addr}\r\n\
         Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
    )
    .unwrap();
    let started = Instant::now();
    let mut answer = Vec::new();
    while started.elapsed() < Duration::from_secs(20) {
        if stream.write_all(b" ").is_err() {
            break;
        }
        let mut buffer = [0u8; 512];
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => answer.extend_from_slice(&buffer[..n]),
            Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(err) if err.kind() == std::io::ErrorKind::TimedOut => {}
            Err(_) => break,
        }
        if !answer.is_empty() {
            break;
        }
    }
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(10), "held for {elapsed:?}");
    let answer = String::from_utf8_lossy(&answer);
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 408"),
        "{answer}"
    );
    drop(served);
}

#[test]
fn an_authors_list_of_submissions_is_their_newest_fifty_whatever_they_sent() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = hill(tmp.path(), "");
    let ada = author(&dir, "ada");
    let served = serve(&dir);
    // Months of submissions (a hundred a day at `per_hour = 5`), each with its logs at their cap:
    // written straight into the hill's table, as a hill that has been up so long holds them.
    let log = "x".repeat(64 << 10);
    let mut db = rusqlite::Connection::open(dir.join("results.sqlite")).unwrap();
    db.busy_timeout(Duration::from_secs(10)).unwrap();
    let rows = db.transaction().unwrap();
    for seq in 1..=400 {
        rows.execute(
            "INSERT INTO hill_submissions (id, author, bot, upload_digest, upload_bytes,
             unpacked_bytes, status, reason, files_kept, seq, received_at, updated_at, build_log,
             stderr) VALUES (?1, 'ada', 'Old', ?1, 1, 1, 'refused', 'the build failed', 0, ?2,
             0, 0, ?3, ?3)",
            rusqlite::params![format!("old{seq:04}"), seq, log],
        )
        .unwrap();
    }
    rows.commit().unwrap();
    let response = client()
        .get(format!("{}/api/submissions", served.url))
        .bearer_auth(&ada)
        .send()
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let listed: Vec<Value> = response.json().unwrap();
    assert_eq!(listed.len(), 50, "the list has a cap");
    assert_eq!(listed[0]["id"], "old0400", "newest first");
    assert_eq!(listed[49]["id"], "old0351");
    drop(served);
}

#[test]
fn an_author_revoked_while_their_upload_arrives_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = hill(tmp.path(), "");
    let ada = author(&dir, "ada");
    let served = serve(&dir);
    let addr = served.url.trim_start_matches("http://");
    let body = packed(&bot(tmp.path(), "a", "Ada's", 0.5, ""));
    let (first, rest) = body.split_at(body.len() / 2);
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "POST /api/submissions HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {ada}\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .unwrap();
    stream.write_all(first).unwrap();
    succeed(
        koth()
            .args(["hill", "author", "revoke", "ada", "--hill"])
            .arg(&dir),
    );
    stream.write_all(rest).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 401"), "{answer}");
    assert!(answer.contains("revoked"), "{answer}");
    let received = query(
        &dir,
        "SELECT COUNT(*) FROM hill_submissions WHERE status <> 'refused'",
    );
    assert_eq!(received, 0);
    drop(served);
}

/// A folder among the hill's `submissions` that no submission is recorded for, or an upload
/// left in `.incoming`, if there is one.
fn unrecorded(dir: &Path, submissions: &Path) -> Option<String> {
    if let Some(entry) = std::fs::read_dir(submissions.join(".incoming"))
        .ok()?
        .next()
    {
        return Some(format!("{:?} in .incoming", entry.ok()?.file_name()));
    }
    std::fs::read_dir(submissions)
        .ok()?
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| name != ".incoming")
        .find(|name| {
            let sql = format!("SELECT COUNT(*) FROM hill_submissions WHERE id = '{name}'");
            query(dir, &sql) == 0
        })
}

/// Waits (at most a minute) until submission `id` is being built.
fn wait_building(url: &str, id: &str) {
    let started = Instant::now();
    while status_of(url, id, None)["status"] != "building" {
        assert!(started.elapsed() < Duration::from_secs(60), "never built");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn kill9(child: &Child) {
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
}

#[test]
fn kill_9_during_an_upload_and_during_a_build_then_a_restart_loses_and_leaves_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = hill(tmp.path(), "");
    let ada = author(&dir, "ada");
    let mut served = serve(&dir);
    // Half an upload, then the hill is killed.
    let addr = served.url.trim_start_matches("http://").to_string();
    let mut stream = std::net::TcpStream::connect(&addr).unwrap();
    let slow = packed(&bot(tmp.path(), "half", "Half", 0.5, ""));
    write!(
        stream,
        "POST /api/submissions HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {ada}\r\n\
         Content-Length: {}\r\n\r\n",
        slow.len()
    )
    .unwrap();
    stream.write_all(&slow[..slow.len() / 2]).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    // A whole upload whose build takes a while: answered 202, then killed while it builds.
    let marker = format!("koth-killed-hill-{}", std::process::id());
    let building = bot(
        tmp.path(),
        "slow",
        "Slow",
        0.5,
        &format!("build = \"sleep 3 # {marker}\"\n"),
    );
    let (code, body) = post(&served.url, Some(&ada), packed(&building));
    assert_eq!(code, StatusCode::ACCEPTED, "{body}");
    let id = body["id"].as_str().unwrap().to_string();
    wait_building(&served.url, &id);
    kill9(&served.run.0);
    let _ = served.run.0.wait();
    drop(stream);
    // The contained build died with the hill.
    wait_until_nothing_left(&marker);

    served = serve(&dir);
    let done = settled(&served.url, &id, &ada);
    assert_eq!(done["status"], "active", "{done}");
    assert_eq!(query(&dir, "SELECT COUNT(*) FROM hill_submissions"), 1);
    assert_eq!(
        query(
            &dir,
            "SELECT COUNT(*) FROM hill_versions WHERE name = 'Slow'"
        ),
        1
    );
    let left = files_under(&dir.join("submissions"));
    assert!(left.is_empty(), "{left:?}");
    drop(served);
}

#[test]
fn an_author_submits_through_the_page_and_watches_it_build() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = hill(tmp.path(), "");
    let ada = author(&dir, "ada");
    let archive = tmp.path().join("paged.tar.gz");
    std::fs::write(
        &archive,
        packed(&bot(
            tmp.path(),
            "paged",
            "Paged <b>bot</b>",
            0.7,
            "build = \"echo page build says hi\"\n",
        )),
    )
    .unwrap();
    let served = serve(&dir);
    let runtime = koth::game::runtime().unwrap();
    runtime.block_on(async {
        use fantoccini::Locator;
        let (_driver, client) = browser().await;
        client
            .goto(&format!("{}/submit", served.url))
            .await
            .unwrap();
        client
            .find(Locator::Id("token"))
            .await
            .unwrap()
            .send_keys(&ada)
            .await
            .unwrap();
        client
            .find(Locator::Id("archive"))
            .await
            .unwrap()
            .send_keys(&archive.display().to_string())
            .await
            .unwrap();
        client
            .find(Locator::Id("send"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        until("the page shows the bot active", || async {
            text_of(&client, "#submission").await.contains("active")
        })
        .await;
        let shown = text_of(&client, "#submission").await;
        assert!(
            shown.contains("Paged <b>bot</b> v1"),
            "the name shown as text: {shown}"
        );
        assert!(
            shown.contains("page build says hi"),
            "the build log: {shown}"
        );
        assert_eq!(
            client
                .find_all(Locator::Css("#submission b"))
                .await
                .unwrap()
                .len(),
            0,
            "a name's markup is never markup"
        );
        until("the page lists the author's submissions", || async {
            text_of(&client, "#mine").await.contains("active")
        })
        .await;
        screenshot(&client, "submit.png").await;
        // A second version, which its author will roll back from on the bot's page.
        let second = bot(tmp.path(), "paged2", "Paged <b>bot</b>", 0.6, "");
        let (code, body) = post(&served.url, Some(&ada), packed(&second));
        assert_eq!(code, StatusCode::ACCEPTED, "{body}");
        let settled_v2 = settled(&served.url, body["id"].as_str().unwrap(), &ada);
        assert_eq!(settled_v2["status"], "active", "{settled_v2}");
        // The bot's page shows its logs to its author, given the token, and to no one else.
        client
            .goto(&format!("{}/bots/Paged%20%3Cb%3Ebot%3C%2Fb%3E", served.url))
            .await
            .unwrap();
        until("the bot page offers its author's logs", || async {
            client
                .find(Locator::Id("author-part"))
                .await
                .unwrap()
                .is_displayed()
                .await
                .unwrap_or(false)
        })
        .await;
        client
            .find(Locator::Id("token"))
            .await
            .unwrap()
            .send_keys(&ada)
            .await
            .unwrap();
        client
            .find(Locator::Css("#author-form button"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        until("the bot page shows the build log", || async {
            text_of(&client, "#private")
                .await
                .contains("page build says hi")
        })
        .await;
        screenshot(&client, "hill-bot-private.png").await;
        // Its author rolls back to v1 there: the page says so, and the hill has v1 active.
        client
            .find(Locator::Css("#rollback button"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        until("the bot page says v1 is active again", || async {
            text_of(&client, "#rollback")
                .await
                .contains("v1 is active again; v2 is replaced")
        })
        .await;
        until("the versions table says v1 was rolled back to", || async {
            let versions = text_of(&client, "#versions").await;
            versions.contains("active (rolled back from v2)") && versions.contains("replaced by v1")
        })
        .await;
        screenshot(&client, "hill-bot-rolled-back.png").await;
        // Her second submission says the same as the page: replaced by v1.
        let listed: Value = reqwest::Client::new()
            .get(format!("{}/api/submissions", served.url))
            .bearer_auth(&ada)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let second = listed
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["version"] == 2)
            .expect("her v2's submission is listed");
        assert_eq!(second["status"], "replaced", "{listed}");
        assert_eq!(second["reason"], "replaced by v1", "{listed}");
    });
    drop(served);
}

/// A WASI module that is cheap to send and dear to compile: one function of 50,000 locals,
/// 5,000 empty loops, then every local read (Cranelift's register allocation grows with
/// locals × blocks: a gigabyte and half a minute for 240 KiB).
fn compile_bomb() -> Vec<u8> {
    use wasm_encoder::{
        BlockType, CodeSection, ExportKind, ExportSection, Function, FunctionSection, Module,
        TypeSection, ValType,
    };
    let mut types = TypeSection::new();
    types.ty().function([], []);
    let mut functions = FunctionSection::new();
    functions.function(0);
    let mut exports = ExportSection::new();
    exports.export("_start", ExportKind::Func, 0);
    let locals = 50_000;
    let mut start = Function::new([(locals, ValType::I64)]);
    let mut code = start.instructions();
    for _ in 0..5_000 {
        code.loop_(BlockType::Empty).end();
    }
    for local in 0..locals {
        code.local_get(local).drop();
    }
    code.end();
    let mut bodies = CodeSection::new();
    bodies.function(&start);
    let mut module = Module::new();
    module
        .section(&types)
        .section(&functions)
        .section(&exports)
        .section(&bodies);
    module.finish()
}

/// A bot folder `root/<folder>` holding only `bot.toml` with `manifest`, and `files`.
fn raw_bot(root: &Path, folder: &str, manifest: &[u8], files: &[(&str, &[u8])]) -> PathBuf {
    let dir = root.join(folder);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("bot.toml"), manifest).unwrap();
    for (name, bytes) in files {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    dir
}

fn games_played(dir: &Path) -> i64 {
    query(dir, "SELECT COUNT(*) FROM results")
}

/// Waits (at most two minutes) until the hill has played more than `games` games.
fn plays_on(dir: &Path, games: i64) {
    let started = Instant::now();
    while games_played(dir) <= games {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the hill stopped playing"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn hostile_uploads_cost_the_hill_no_more_than_its_caps_and_it_plays_on() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = hill_with(
        tmp.path(),
        "memory_mb = 256\nbuild_timeout_s = 60\n",
        "per_hour = 20\nactive_bots = 10\n",
    );
    let (ada, bob) = (author(&dir, "ada"), author(&dir, "bob"));
    let mut served = serve(&dir);
    let url = served.url.clone();
    for (folder, name, p) in [("w", "Win or Block", 0.5), ("c", "Café", 0.9)] {
        let (code, body) = post(
            &url,
            Some(&ada),
            packed(&bot(tmp.path(), folder, name, p, "")),
        );
        assert_eq!(code, StatusCode::ACCEPTED, "{body}");
        let done = settled(&url, body["id"].as_str().unwrap(), &ada);
        assert_eq!(done["status"], "active", "{done}");
    }
    plays_on(&dir, 0);

    // Look-alike names: a Cyrillic "о" for the Latin one, and the same name decomposed (NFD).
    let (code, body) = post(
        &url,
        Some(&bob),
        packed(&bot(tmp.path(), "w2", "Win \u{43e}r Bl\u{43e}ck", 0.5, "")),
    );
    assert_eq!(code, StatusCode::FORBIDDEN, "{body}");
    let error = body["error"].as_str().unwrap();
    assert!(
        error.contains("reads the same as \"Win or Block\""),
        "{error}"
    );
    let (code, body) = post(
        &url,
        Some(&bob),
        packed(&raw_bot(
            tmp.path(),
            "c2",
            "name = \"Cafe\u{301}\"\nrun = \"true\"\ngames = [\"tictactoe\"]\n".as_bytes(),
            &[],
        )),
    );
    assert_eq!(code, StatusCode::FORBIDDEN, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("another author's"),
        "{body}"
    );

    // A bot.toml past its cap (200,000 `[protocols]` keys) is refused unread; one under it
    // holding an unterminated string of 60 KB is refused quoting a short excerpt only.
    let mut keys =
        String::from("name = \"Keys\"\nrun = \"true\"\ngames = [\"tictactoe\"]\n[protocols]\n");
    for k in 0..200_000 {
        keys.push_str(&format!("g{k} = \"x\"\n"));
    }
    let (code, body) = post(
        &url,
        Some(&bob),
        packed(&raw_bot(tmp.path(), "k", keys.as_bytes(), &[])),
    );
    assert_eq!(code, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(body["error"].as_str().unwrap().contains("64 KiB"), "{body}");
    let string = format!("name = \"{}", "x".repeat(60_000));
    let (code, body) = post(
        &url,
        Some(&bob),
        packed(&raw_bot(tmp.path(), "s", string.as_bytes(), &[])),
    );
    assert_eq!(code, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(body["error"].as_str().unwrap().len() < 2500, "{body}");
    let stored: i64 = query(&dir, "SELECT MAX(LENGTH(reason)) FROM hill_submissions");
    assert!(stored <= 2048 + 16, "a stored reason of {stored} bytes");

    // A compile bomb: refused by its build's caps, and the hill plays on meanwhile.
    let bomb = raw_bot(
        tmp.path(),
        "bomb",
        b"name = \"Bomb\"\nwasm = \"bomb.wasm\"\ngames = [\"tictactoe\"]\n",
        &[("bomb.wasm", &compile_bomb())],
    );
    let before = games_played(&dir);
    let (code, body) = post(&url, Some(&bob), packed(&bomb));
    assert_eq!(code, StatusCode::ACCEPTED, "{body}");
    let id = body["id"].as_str().unwrap().to_string();
    let done = settled(&url, &id, &bob);
    assert_eq!(done["status"], "refused", "{done}");
    let reason = done["reason"].as_str().unwrap();
    // Its memory cap stops it; on a machine loaded enough that the compiler's first 256 MiB
    // take over a minute, its time cap does.
    assert!(
        reason.contains("compiling its WASI module went over the build's caps (256 MiB")
            || reason.contains("compiling its WASI module did not finish within the build's 60 s"),
        "{reason}"
    );
    assert!(served.run.0.try_wait().unwrap().is_none(), "the hill died");
    plays_on(&dir, before);
    // Nothing of the server's folders reaches the author, nor the log to anyone else.
    let public = status_of(&url, &id, None);
    assert!(public.get("private").is_none(), "{public}");
    let text = done.to_string();
    assert!(!text.contains(&dir.display().to_string()), "{text}");
    assert!(!text.contains("/.cache/"), "{text}");

    // One client holding many sockets: its own past the cap are refused, not everyone's.
    let addr = url.trim_start_matches("http://").to_string();
    let held: Vec<std::net::TcpStream> = (0..40)
        .filter_map(|_| std::net::TcpStream::connect(&addr).ok())
        .collect();
    let mut last = held.last().unwrap().try_clone().unwrap();
    last.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut answer = String::new();
    let _ = last.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    let other = Client::builder()
        .local_address(Some("127.0.0.2".parse().unwrap()))
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap();
    let response = other.get(format!("{url}/api/hill")).send().unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    drop(held);
    drop(served);
}

#[test]
fn one_authors_spinning_builds_delay_another_authors_bot_by_one_build_at_most() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = hill_with(tmp.path(), "build_timeout_s = 4\n", "active_bots = 5\n");
    let (ada, bob) = (author(&dir, "ada"), author(&dir, "bob"));
    let served = serve(&dir);
    let url = served.url.clone();
    let spinning: Vec<String> = (0..3)
        .map(|i| {
            let spin = bot(
                tmp.path(),
                &format!("spin{i}"),
                &format!("Spin {i}"),
                0.5,
                "build = \"while :; do :; done\"\n",
            );
            let (code, body) = post(&url, Some(&bob), packed(&spin));
            assert_eq!(code, StatusCode::ACCEPTED, "{body}");
            body["id"].as_str().unwrap().to_string()
        })
        .collect();
    let quick = bot(tmp.path(), "q", "Quick", 0.5, "");
    let (code, body) = post(&url, Some(&ada), packed(&quick));
    assert_eq!(code, StatusCode::ACCEPTED, "{body}");
    let done = settled(&url, body["id"].as_str().unwrap(), &ada);
    assert_eq!(done["status"], "active", "{done}");
    assert_eq!(
        status_of(&url, &spinning[2], None)["status"],
        "received",
        "one author's uploads went before another's"
    );
    let spun = settled(&url, &spinning[0], &bob);
    assert_eq!(
        spun["reason"], "the build did not finish within 4 s",
        "{spun}"
    );
    assert!(
        spun["private"]["detail"]
            .as_str()
            .unwrap()
            .contains("while :; do :; done"),
        "{spun}"
    );
    assert!(status_of(&url, &spinning[0], None).get("private").is_none());

    drop(served);
}

#[test]
fn an_upload_whose_build_koth_never_survives_is_refused_after_its_second_try() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = hill(tmp.path(), "");
    let (ada, bob) = (author(&dir, "ada"), author(&dir, "bob"));
    let mut served = serve(&dir);
    let deadly = bot(
        tmp.path(),
        "deadly",
        "Deadly",
        0.5,
        "build = \"sleep 100\"\n",
    );
    let (code, body) = post(&served.url, Some(&ada), packed(&deadly));
    assert_eq!(code, StatusCode::ACCEPTED, "{body}");
    let id = body["id"].as_str().unwrap().to_string();
    // As if the build took the machine down with koth, twice.
    for _ in 0..2 {
        wait_building(&served.url, &id);
        kill9(&served.run.0);
        let _ = served.run.0.wait();
        served = serve(&dir);
    }
    let done = settled(&served.url, &id, &ada);
    assert_eq!(done["status"], "refused", "{done}");
    assert_eq!(
        done["reason"], "the build did not finish (koth stopped during it, twice)",
        "{done}"
    );
    // The same folder sent again is that submission, refused: never a third build.
    let (_, again) = post(&served.url, Some(&ada), packed(&deadly));
    assert_eq!(again["id"], id.as_str(), "{again}");
    assert_eq!(again["status"], "refused", "{again}");
    assert_eq!(query(&dir, "SELECT COUNT(*) FROM hill_submissions"), 1);
    // Its name is free again: another author's bot of that name gets in.
    let (code, body) = post(
        &served.url,
        Some(&bob),
        packed(&bot(tmp.path(), "other", "Deadly", 0.5, "")),
    );
    assert_eq!(code, StatusCode::ACCEPTED, "{body}");
    drop(served);
}

/// A noughts & crosses bot `name` in `root/<folder>` that plays (the graded player) where its
/// working folder holds `plays_in`, and elsewhere writes its folder and `said` on stderr and
/// crashes at its first prompt.
fn crashing_bot(root: &Path, folder: &str, name: &str, plays_in: &str, said: &str) -> PathBuf {
    let dir = bot(root, folder, name, 0.5, "");
    std::fs::write(
        dir.join("crash.py"),
        format!(
            "import os, sys\n\
             if {plays_in:?} not in os.getcwd():\n    \
                 sys.stdin.readline()\n    \
                 print({said:?}, 'in', os.getcwd(), file=sys.stderr, flush=True)\n    \
                 raise ZeroDivisionError({said:?})\n\
             exec(open('graded.py').read())\n"
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("bot.toml"),
        format!("name = {name:?}\nrun = \"python3 -u crash.py 0.5\"\ngames = [\"tictactoe\"]\n"),
    )
    .unwrap();
    dir
}

/// `koth hill submit BOT --to URL` with `args` and the token in `KOTH_TOKEN`: its status and
/// everything it printed.
fn submit_with(bot: &Path, url: &str, token: &str, args: &[&str]) -> (bool, String) {
    let output = koth()
        .args(["hill", "submit"])
        .arg(bot)
        .args(["--to", url])
        .args(args)
        .env("KOTH_TOKEN", token)
        .output()
        .unwrap();
    (
        output.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ),
    )
}

/// No folder of the server's in `text`: neither the test's folder nor, resolved, the hill's.
fn assert_no_server_path(text: &str, tmp: &Path, what: &str) {
    for path in [tmp.to_path_buf(), tmp.canonicalize().unwrap()] {
        let path = path.display().to_string();
        assert!(!text.contains(&path), "{what} names {path}: {text}");
    }
    assert!(!text.contains("/validation/"), "{what}: {text}");
    assert!(!text.contains("/games/"), "{what}: {text}");
}

#[test]
fn an_author_reads_their_bots_ranked_game_logs_and_no_one_else_does() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = hill_with(tmp.path(), "build_timeout_s = 30\nsuspend_window = 2\n", "");
    let ada = author(&dir, "ada");
    let bob = author(&dir, "bob");
    succeed(
        koth()
            .args(["hill", "add"])
            .arg(bot(tmp.path(), "house", "House", 0.5, ""))
            .arg("--hill")
            .arg(&dir),
    );
    let served = serve(&dir);
    let url = &served.url;

    // A validation game that crashes: each distinct fault once with its count, the stderr
    // once for the seats that wrote the same, and no folder of the server's.
    let broken = crashing_bot(tmp.path(), "broken", "Broken", "never", "BROKEN-SAYS");
    let (ok, printed) = submit_with(&broken, url, &bob, &["--wait"]);
    assert!(!ok, "{printed}");
    assert!(printed.contains("Broken was refused"), "{printed}");
    let faults: Vec<&str> = printed
        .lines()
        .filter(|l| l.starts_with("fault: "))
        .collect();
    assert!(!faults.is_empty(), "{printed}");
    for (n, fault) in faults.iter().enumerate() {
        assert!(
            !faults[..n].contains(fault),
            "a fault printed twice: {printed}"
        );
        assert!(
            !fault.contains("BROKEN-SAYS"),
            "a fault quotes the stderr: {printed}"
        );
    }
    assert!(faults[0].contains("crashed"), "{printed}");
    // One number for how many: the count of a kind over every copy, and how many of those
    // the game kept only as a clause apart.
    assert!(
        faults.iter().any(|f| f.contains(" ×")),
        "a count: {printed}"
    );
    assert!(
        !printed.contains("more faults, counted but not kept"),
        "{printed}"
    );
    assert_eq!(
        printed.matches("--- validation game's stderr").count(),
        1,
        "{printed}"
    );
    let seats = printed
        .lines()
        .filter(|l| l.starts_with("== "))
        .collect::<Vec<_>>();
    assert_eq!(seats.len(), 1, "the stderr once: {printed}");
    assert!(
        seats[0].starts_with("== seats 1") && seats[0].ends_with("(the same)"),
        "{printed}"
    );
    assert!(printed.contains("BROKEN-SAYS in ."), "{printed}");
    assert_no_server_path(&printed, tmp.path(), "a refusal");

    // A bot that passes its validation game and crashes in every ranked game: `--wait-games`
    // sees it go active, then suspended, and names the command that reads its logs.
    let crashy = crashing_bot(
        tmp.path(),
        "crashy",
        "Crashy",
        "/validation/",
        "RANKED-SECRET",
    );
    let (ok, printed) = submit_with(&crashy, url, &ada, &["--wait", "--wait-games", "5"]);
    assert!(!ok, "{printed}");
    assert!(
        printed.contains("Crashy v1 is active on the hill"),
        "{printed}"
    );
    assert!(
        printed.contains("Crashy v1 was suspended after "),
        "{printed}"
    );
    // Each faulted game it followed, told as it was seen, in koth's words.
    assert!(
        printed
            .lines()
            .any(|l| l.starts_with("Crashy v1: game ") && l.contains(": crashed")),
        "{printed}"
    );
    let command = format!("koth hill logs \"Crashy\" --to {url} --token \"$KOTH_TOKEN\"");
    assert!(printed.contains(&command), "{printed}");
    assert_no_server_path(&printed, tmp.path(), "--wait-games");
    let game = query(
        &dir,
        "SELECT MAX(r.game) FROM results r JOIN bots b ON b.id = r.bot WHERE b.name = 'Crashy v1'",
    );

    // Its author reads its stderr of a ranked game, by the API and by `koth hill logs`, with
    // its folder named `.`.
    let logs_of = |path: &str, token: Option<&str>| {
        let mut request = client().get(format!("{url}/api/hill/bots/Crashy/{path}"));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let response = request.send().unwrap();
        (response.status(), response.text().unwrap())
    };
    let (code, body) = logs_of(&format!("games/{game}/logs"), Some(&ada));
    assert_eq!(code, StatusCode::OK, "{body}");
    let logs: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(logs["game"], game, "{logs}");
    let stderr = logs["seats"][0]["stderr"].as_str().unwrap();
    assert!(stderr.contains("RANKED-SECRET in ."), "{logs}");
    assert!(stderr.contains("ZeroDivisionError"), "{logs}");
    assert!(
        logs["seats"][0]["transcript"]
            .as_str()
            .unwrap()
            .contains("# bot Crashy v1"),
        "{logs}"
    );
    assert_no_server_path(&body, tmp.path(), "an author's logs");
    let (code, latest) = logs_of("logs", Some(&ada));
    assert_eq!(code, StatusCode::OK, "{latest}");
    assert!(latest.contains("RANKED-SECRET"), "{latest}");
    let output = koth()
        .args([
            "hill",
            "logs",
            "Crashy",
            "--game",
            &game.to_string(),
            "--to",
            url,
        ])
        .env("KOTH_TOKEN", &ada)
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{printed}");
    assert!(
        printed.contains(&format!("Crashy v1 in game {game}: crashed")),
        "{printed}"
    );
    assert!(printed.contains("RANKED-SECRET in ."), "{printed}");
    assert!(
        printed.contains("its last games, newest first: "),
        "{printed}"
    );
    assert_no_server_path(&printed, tmp.path(), "koth hill logs");

    // Another author, no token, a wrong one: refused, and nothing of the logs in the answer.
    for (token, expected) in [
        (Some(bob.as_str()), StatusCode::FORBIDDEN),
        (None, StatusCode::UNAUTHORIZED),
        (Some("koth_0123"), StatusCode::UNAUTHORIZED),
    ] {
        let (code, body) = logs_of(&format!("games/{game}/logs"), token);
        assert_eq!(code, expected, "{body}");
        assert!(!body.contains("RANKED-SECRET"), "{body}");
        // Answered as the door answers: JSON with its reason.
        let refused: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert!(refused["error"].is_string(), "{body}");
    }
    let output = koth()
        .args(["hill", "logs", "Crashy", "--to", url])
        .env("KOTH_TOKEN", &bob)
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("403"));
    assert!(!String::from_utf8_lossy(&output.stdout).contains("RANKED-SECRET"));

    // Everyone else reads the fault and koth's words, and that the stderr is kept for its
    // author: on the bot's record and page, the front page, the replay, the status.
    let get = |path: &str| {
        client()
            .get(format!("{url}{path}"))
            .send()
            .unwrap()
            .text()
            .unwrap()
    };
    let record = get("/api/hill/bots/Crashy");
    assert!(record.contains("kept for its author"), "{record}");
    for (what, text) in [
        ("the bot's record", record),
        ("the bot's page", get("/bots/Crashy")),
        ("the hill's record", get("/api/hill")),
        ("the front page", get("/")),
        ("the replay", get(&format!("/games/{game}"))),
    ] {
        assert!(
            !text.contains("RANKED-SECRET"),
            "{what} shows the stderr: {text}"
        );
    }
    assert!(get(&format!("/games/{game}")).contains("kept for its author"));
    let mine: Value = client()
        .get(format!("{url}/api/submissions"))
        .bearer_auth(&ada)
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(mine[0]["status"], "suspended", "{mine}");
    let public = status_of(url, mine[0]["id"].as_str().unwrap(), Some(&bob));
    assert_eq!(public["status"], "suspended", "{public}");
    assert!(!public.to_string().contains("RANKED-SECRET"), "{public}");

    // A bot that plays: `--wait-games` ends with its standing: its rank once it has played
    // its 2 placement games (the hill may have played more than the 1 waited for by the time
    // it looks), else how many of them it has played.
    let steady = bot(tmp.path(), "steady", "Steady", 0.9, "");
    let (ok, printed) = submit_with(&steady, url, &ada, &["--wait", "--wait-games", "1"]);
    assert!(ok, "{printed}");
    let ranked_after = printed
        .split("Steady v1 after ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next()?.parse::<u32>().ok());
    match ranked_after {
        Some(games) => {
            assert!(games >= 2, "ranked before its placement games: {printed}");
            assert!(printed.contains("the table's figure: "), "{printed}");
        }
        None => assert!(
            printed.contains("of its 2 placement games; it is ranked once"),
            "{printed}"
        ),
    }
    drop(served);
}
