//! A contest end to end through the real door: a contained noughts & crosses hill on
//! 127.0.0.1 whose `[contest]` closes a minute after it is made, graded bots of known order
//! (the perfect move with probability p), an upload before and after the close, the manifest,
//! a final that stops by its rule with a harness fault played again, the export verified (and
//! refused with one byte changed), and the pages in Chromium.

use std::io::Read;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use reqwest::StatusCode;
use serde_json::Value;

use crate::dashboard::{browser, console_errors, screenshot, serving, text_of, until};
use crate::hill::create_hill;
use crate::submissions::{author, bot, packed, post, submit};
use crate::support::cpus::own_cpu_locks;
use crate::support::signals::default_signals;
use crate::support::tournament::{koth, query, succeed};

/// Seconds from the field's being in to the close first set: the most a stranger's upload may
/// take to be built, validated and placed. Once it is placed the owner brings the close forward,
/// so the test waits for the upload, not for this bound.
const CLOSE_S: u64 = 60;

/// The close `closes` (Unix seconds) as the hill file writes it, in UTC.
fn utc_text(closes: u64) -> String {
    let output = std::process::Command::new("date")
        .args(["-u", "-d", &format!("@{closes}"), "+%Y-%m-%dT%H:%M:%SZ"])
        .output()
        .unwrap();
    String::from_utf8(output.stdout).unwrap().trim().to_string()
}

/// Waits until the version of `name` has played its placement games (`placement`), failing
/// once the close `closes` is less than five seconds away.
fn until_placed(dir: &Path, name: &str, placement: u32, closes: u64) {
    let sql = format!(
        "SELECT COUNT(*) FROM hill_versions WHERE name = '{name}' AND state = 'active' \
         AND games >= {placement}"
    );
    while query(dir, &sql) == 0 {
        assert!(
            unix_now() + 5 < closes,
            "{name} was not built, validated and placed before the close"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Stops `run` as Ctrl-C does, and waits for it.
fn interrupt(run: crate::dashboard::Killed) {
    let pid = nix::unistd::Pid::from_raw(run.0.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).unwrap();
    let mut run = run;
    let started = Instant::now();
    while run.0.try_wait().unwrap().is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "hill run never stopped"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn sha256(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn contest_status(dir: &Path) -> String {
    let output = succeed(koth().args(["contest", "status"]).arg(dir));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The archive at `from` again at `to`, with the first byte of its entry `name` changed.
fn with_a_byte_changed(from: &Path, to: &Path, name: &str) {
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(
        std::fs::File::open(from).unwrap(),
    ));
    let file = std::fs::File::create(to).unwrap();
    let mut out = tar::Builder::new(flate2::write::GzEncoder::new(
        file,
        flate2::Compression::fast(),
    ));
    for entry in archive.entries().unwrap() {
        let mut entry = entry.unwrap();
        let path = entry.path().unwrap().to_string_lossy().into_owned();
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).unwrap();
        if path == name {
            bytes[0] ^= 1;
        }
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        out.append_data(&mut header, &path, bytes.as_slice())
            .unwrap();
    }
    out.into_inner().unwrap().finish().unwrap();
}

#[test]
fn a_contest_closes_freezes_its_field_and_publishes_a_final_anyone_can_verify() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let hill_file = |closes: &str| {
        format!(
            "game = \"tictactoe\"\nrounds = 2\nanswer_ms = 2000\nseed = 5\njobs = 2\n\
             build_timeout_s = 30\nplacement_games = 2\n\
             [contest]\ncloses = {closes:?}\nfinalists = 3\nbudget = 90\n"
        )
    };
    let dir = create_hill(root, &hill_file("2099-01-01T00:00:00Z"));
    let grades = [
        ("Perfect", 1.0),
        ("Good", 0.6),
        ("Fair", 0.3),
        ("Random", 0.0),
    ];
    let folders: Vec<_> = grades
        .iter()
        .map(|(name, p)| bot(root, &name.to_lowercase(), name, *p, ""))
        .collect();
    let mut add = koth();
    own_cpu_locks(&mut add, root);
    succeed(
        add.args(["hill", "add"])
            .args(&folders)
            .arg("--hill")
            .arg(&dir),
    );
    let ada = author(&dir, "ada");
    // The owner sets the close once the field is in: a few seconds ahead, in the hill
    // folder's own copy of its file (what every command of the hill reads).
    let closes = unix_now() + CLOSE_S;
    std::fs::write(dir.join("hill.toml"), hill_file(&utc_text(closes))).unwrap();
    assert!(
        contest_status(&dir).contains(": open"),
        "{}",
        contest_status(&dir)
    );

    // Before the close: a stranger's upload is built, validated and plays.
    let mut first = koth();
    own_cpu_locks(&mut first, root);
    // Stopped by SIGINT below: started with SIGINT's default action, whatever this test was
    // started with (a suite run in the background ignores it, and so would this run).
    default_signals(&mut first);
    let (run, url) = serving(
        first
            .args(["hill", "run"])
            .arg(&dir)
            .args(["--serve", "127.0.0.1:0"]),
    );
    let early = bot(root, "early", "Early", 0.45, "");
    let output = submit(&early, &url, &ada);
    assert!(output.status.success(), "{output:?}");
    until_placed(&dir, "Early", 2, closes);
    // The run is stopped before the close; the owner brings the close forward to a second
    // away, and the run is started again after it.
    interrupt(run);
    assert!(contest_status(&dir).contains(": open"));
    let closes = unix_now() + 1;
    let closes_text = utc_text(closes);
    std::fs::write(dir.join("hill.toml"), hill_file(&closes_text)).unwrap();
    std::thread::sleep(Duration::from_secs(closes + 1 - unix_now().min(closes + 1)));

    // After the close: no bot joins, by the owner's hand or a stranger's upload, and no bot's
    // version changes while the finalists are not yet named.
    assert!(contest_status(&dir).contains(": frozen"));
    let late = bot(root, "late", "Late", 0.9, "");
    let mut add = koth();
    own_cpu_locks(&mut add, root);
    let refused = add
        .args(["hill", "add"])
        .arg(&late)
        .arg("--hill")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stdout).into_owned()
        + &String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains(&format!("closed at {closes_text}")), "{said}");
    let retire = koth()
        .args(["hill", "retire", "Perfect", "--hill"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(!retire.status.success());
    assert!(String::from_utf8_lossy(&retire.stderr).contains("finalist"));

    // The first final game's folder is taken by a file: every attempt of it fails by the
    // harness, and the final plays it again under a new number, same seats and seed.
    let blocked = query(&dir, "SELECT MAX(idx) + 1 FROM games");
    std::fs::create_dir_all(dir.join("games")).unwrap();
    std::fs::write(dir.join("games").join(blocked.to_string()), "in the way").unwrap();

    let mut second = koth();
    own_cpu_locks(&mut second, root);
    let (_run, url) = serving(
        second
            .args(["hill", "run"])
            .arg(&dir)
            .args(["--serve", "127.0.0.1:0"]),
    );
    let url = url.trim_end_matches('/');
    let (code, body) = post(url, Some(&ada), packed(&late));
    assert_eq!(code, StatusCode::FORBIDDEN, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains(&closes_text),
        "{body}"
    );
    let client = reqwest::blocking::Client::new();
    let started = Instant::now();
    let contest: Value = loop {
        let contest: Value = client
            .get(format!("{url}/api/contest"))
            .send()
            .unwrap()
            .json()
            .unwrap();
        if contest["phase"] == "published" {
            break contest;
        }
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "the final was never published: {contest}"
        );
        std::thread::sleep(Duration::from_millis(250));
    };

    // The manifest: the same bytes served, in the folder, and its digest in the log before
    // the final's first game.
    let manifest = client
        .get(format!("{url}/api/contest/manifest"))
        .send()
        .unwrap()
        .bytes()
        .unwrap();
    let sha = sha256(&manifest);
    assert_eq!(contest["manifest_sha256"], sha.as_str());
    assert_eq!(
        std::fs::read(dir.join("contest/manifest.json")).unwrap(),
        manifest
    );
    let log = std::fs::read_to_string(dir.join("tournament.log")).unwrap();
    let (announced, first_final) = (
        log.find(&sha).unwrap(),
        log.find("the final begins").unwrap(),
    );
    assert!(
        announced < first_final,
        "the digest is logged before the final begins"
    );
    let manifest: Value = serde_json::from_slice(&manifest).unwrap();
    let finalists = manifest["finalists"].as_array().unwrap();
    assert_eq!(finalists.len(), 3);
    for f in finalists {
        assert_eq!(f["source_digest"].as_str().unwrap().len(), 64);
        assert_eq!(f["built_digest"].as_str().unwrap().len(), 64);
    }
    let grade = |label: &str| {
        let name = label.split(' ').next().unwrap();
        grades
            .iter()
            .chain([("Early", 0.45)].iter())
            .find(|(n, _)| *n == name)
            .unwrap()
            .1
    };

    // The final: whole balanced rounds, stopped by its rule, ties declared, the order the
    // grades give wherever it says one.
    let result = &contest["result"];
    let round_size = manifest["final"]["round_size"].as_u64().unwrap();
    assert_eq!(round_size, 6, "three finalists, every pair in both seats");
    let (rounds, games) = (
        result["rounds"].as_u64().unwrap(),
        result["games"].as_u64().unwrap(),
    );
    assert_eq!(games, rounds * round_size);
    let lines = result["table"]["lines"].as_array().unwrap();
    let stopped = result["stopped"].as_str().unwrap();
    if stopped.starts_with("every adjacent pair") {
        assert!(
            lines.iter().all(|l| l["apart_from_next"] != false),
            "{result}"
        );
    } else {
        assert!((rounds + 1) * round_size > 90, "{stopped}");
    }
    let names = result["finalists"].as_array().unwrap();
    for pair in lines.windows(2) {
        assert_eq!(
            pair[0]["games"], pair[1]["games"],
            "every finalist as many games"
        );
        let (a, b) = (&pair[0], &pair[1]);
        if a["place"] != b["place"] {
            let (above, below) = (
                names[a["finalist"].as_u64().unwrap() as usize]
                    .as_str()
                    .unwrap(),
                names[b["finalist"].as_u64().unwrap() as usize]
                    .as_str()
                    .unwrap(),
            );
            assert!(
                grade(above) > grade(below),
                "{above} over {below}: {result}"
            );
        }
    }
    assert!(result["replayed"].as_u64().unwrap() >= 3, "{result}");
    assert_eq!(
        query(
            &dir,
            &format!(
                "SELECT COUNT(*) FROM hill_final f JOIN games a ON a.idx = f.replay_of \
                 JOIN games b ON b.idx = f.game WHERE f.replay_of = {blocked} \
                 AND a.seed = b.seed AND a.state = 'harness_failed' AND b.state = 'done'"
            )
        ),
        1,
        "the blocked game played again with its seed"
    );
    // The final never moved the hill's own table.
    assert_eq!(
        query(
            &dir,
            "SELECT COUNT(*) FROM hill_games h JOIN hill_final f ON f.game = h.game \
             JOIN hill_ratings r ON r.game = h.game"
        ),
        0
    );

    // Exported, verified; a byte changed is found.
    let export = root.join("results.tar.gz");
    succeed(
        koth()
            .args(["contest", "export"])
            .arg(&dir)
            .arg("--to")
            .arg(&export),
    );
    let verified = succeed(koth().args(["contest", "verify"]).arg(&export));
    let said = String::from_utf8_lossy(&verified.stdout);
    assert!(
        said.contains(&sha) && said.contains("bit for bit"),
        "{said}"
    );
    let some_game = result["final_games"][0]["index"].as_u64().unwrap();
    let changed = root.join("changed.tar.gz");
    let name = format!("games/{some_game}/results.json");
    with_a_byte_changed(&export, &changed, &name);
    let refused = koth()
        .args(["contest", "verify"])
        .arg(&changed)
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains(&name));
    let tampered = root.join("tampered.tar.gz");
    with_a_byte_changed(&export, &tampered, "manifest.json");
    assert!(
        !koth()
            .args(["contest", "verify"])
            .arg(&tampered)
            .output()
            .unwrap()
            .status
            .success()
    );

    // The pages, in Chromium, at a laptop's width and a phone's.
    let runtime = koth::game::runtime().unwrap();
    runtime.block_on(async {
        let (_driver, client) = browser().await;
        for (width, suffix) in [(1280, "laptop"), (390, "phone")] {
            client.set_window_size(width, 900).await.unwrap();
            client.goto(&format!("{url}/contest")).await.unwrap();
            let title = text_of(&client, "#title").await;
            assert!(title.contains("published"), "{title}");
            let table = text_of(&client, "#final").await;
            for name in names {
                assert!(table.contains(name.as_str().unwrap()), "{table}");
            }
            assert!(text_of(&client, "#contest").await.contains(&sha));
            screenshot(&client, &format!("contest-{suffix}.png")).await;
            client.goto(&format!("{url}/")).await.unwrap();
            until("the front page shows the contest", || async {
                text_of(&client, "#contest").await.contains("published")
            })
            .await;
            assert_eq!(console_errors(&client).await, Vec::<String>::new());
        }
    });
}
