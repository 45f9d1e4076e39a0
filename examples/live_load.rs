//! Many watchers of games played live (issue 55 point 8): runs a tournament of slow noughts &
//! crosses bots with `koth tournament run --serve 127.0.0.1:PORT`, opens WATCHERS streams of
//! each game in progress (`/api/games/N/live`) from 127.0.0.2, 127.0.0.3, … (at most
//! PER_ADDRESS streams each, so that the per-client cap still applies), and measures:
//!
//! - the time from a record's write to its receipt by a watcher: the harness stamps each line
//!   of every game's `replay.jsonl` when it sees it (it looks every POLL_MS), each watcher
//!   stamps each event it reads; only records written after the watcher's stream began count;
//! - koth's memory per watcher: its VmRSS with every watcher reading, less its VmRSS just
//!   before the first one connected, over the watchers;
//! - the games' pace: their mean `wall_ms` in the tournament's results (to set beside a run
//!   with WATCHERS = 0), and koth's CPU over the run.
//!
//! usage: `live_load KOTH WORK_DIR [key=value…]`, keys (defaults): games (100), jobs (100),
//! watchers (100, per game), pause_s (0.2, each bot's sleep per answer), rounds (6),
//! per_address (100), ramp (1000 connections a second), poll_ms (2), timeout_s (600), bot (a
//! program run as `BOT PAUSE_S` that plays as the Python bot does, costing no CPU while it
//! sleeps: `scripts/bench-live.sh` compiles one in C; without it, the Python bot). Every loop is
//! bounded in count and time; the server listens on 127.0.0.1 only. `scripts/bench-live.sh`
//! builds and runs it.

use std::collections::HashMap;
use std::io::Read;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpSocket;

/// When each record (game, id) was seen written.
type Stamps = Arc<Mutex<HashMap<(u32, u64), Instant>>>;

struct Settings {
    games: u32,
    jobs: u32,
    watchers: u32,
    pause_s: f64,
    rounds: u32,
    per_address: u32,
    ramp: u32,
    poll: Duration,
    timeout: Duration,
    bot: Option<PathBuf>,
}

fn settings(args: &[String]) -> Settings {
    let mut s = Settings {
        games: 100,
        jobs: 100,
        watchers: 100,
        pause_s: 0.2,
        rounds: 6,
        per_address: 100,
        ramp: 1000,
        poll: Duration::from_millis(2),
        timeout: Duration::from_secs(600),
        bot: None,
    };
    for arg in args {
        let (key, value) = arg
            .split_once('=')
            .unwrap_or_else(|| panic!("{arg:?}: give key=value"));
        match key {
            "games" => s.games = value.parse().unwrap_or_else(|_| bad(arg)),
            "jobs" => s.jobs = value.parse().unwrap_or_else(|_| bad(arg)),
            "watchers" => s.watchers = value.parse().unwrap_or_else(|_| bad(arg)),
            "pause_s" => s.pause_s = value.parse().unwrap_or_else(|_| bad(arg)),
            "rounds" => s.rounds = value.parse().unwrap_or_else(|_| bad(arg)),
            "per_address" => s.per_address = value.parse().unwrap_or_else(|_| bad(arg)),
            "ramp" => s.ramp = value.parse().unwrap_or_else(|_| bad(arg)),
            "poll_ms" => s.poll = Duration::from_millis(value.parse().unwrap_or_else(|_| bad(arg))),
            "timeout_s" => {
                s.timeout = Duration::from_secs(value.parse().unwrap_or_else(|_| bad(arg)))
            }
            "bot" => s.bot = Some(PathBuf::from(value)),
            _ => panic!(
                "{key:?}: not a setting (games, jobs, watchers, pause_s, rounds, per_address, ramp, poll_ms, timeout_s, bot)"
            ),
        }
    }
    s
}

fn bad(arg: &str) -> ! {
    panic!("{arg:?}: the value is not a number")
}

/// A noughts & crosses bot taking the first free cell after `pause_s` seconds: `program` run
/// as `PROGRAM PAUSE_S`, or a Python one.
fn slow_bot(root: &Path, name: &str, pause_s: f64, program: Option<&Path>) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let run = match program {
        Some(program) => format!("{} {pause_s}", program.display()),
        None => "python3 -u slow.py".to_string(),
    };
    std::fs::write(
        dir.join("bot.toml"),
        format!("name = \"{name}\"\nrun = {run:?}\ngames = [\"tictactoe\"]\n"),
    )
    .unwrap();
    std::fs::write(
        dir.join("slow.py"),
        format!(
            "import sys, time\n\
             for line in sys.stdin:\n\
             \x20   parts = line.split()\n\
             \x20   if len(parts) == 2 and parts[0] == 'MOVE':\n\
             \x20       time.sleep({pause_s})\n\
             \x20       print(parts[1].index('.'), flush=True)\n"
        ),
    )
    .unwrap();
    dir
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A field of /proc/PID/status, in kB.
fn status_kb(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// koth's CPU time (user + system), its own threads only.
fn cpu_s(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // utime and stime are fields 14 and 15, the 12th and 13th after the name.
    (ticks(11) + ticks(12)) / 100.0
}

/// Stamps every new line of every game's `replay.jsonl` under `games` until `stop`.
fn stamp(games: PathBuf, stamps: Stamps, poll: Duration, stop: Arc<AtomicBool>) {
    let mut files: HashMap<u32, (std::fs::File, u64, Vec<u8>)> = HashMap::new();
    let mut listed = Instant::now() - Duration::from_secs(1);
    let mut buf = vec![0u8; 1 << 16];
    while !stop.load(Ordering::Relaxed) {
        if listed.elapsed() >= Duration::from_millis(50) {
            listed = Instant::now();
            for entry in std::fs::read_dir(&games).into_iter().flatten().flatten() {
                let Some(index) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
                    continue;
                };
                if !files.contains_key(&index)
                    && let Ok(file) = std::fs::File::open(entry.path().join("replay.jsonl"))
                {
                    files.insert(index, (file, 0, Vec::new()));
                }
            }
        }
        for (index, (file, lines, partial)) in &mut files {
            loop {
                let n = file.read(&mut buf).unwrap_or(0);
                if n == 0 {
                    break;
                }
                let now = Instant::now();
                let mut stamps = stamps.lock().unwrap();
                for &byte in &buf[..n] {
                    if byte == b'\n' {
                        *lines += 1;
                        partial.clear();
                        stamps.entry((*index, *lines)).or_insert(now);
                    } else {
                        partial.push(byte);
                    }
                }
            }
        }
        std::thread::sleep(poll);
    }
}

/// One watcher: reads game `index`'s stream from `from`, returns when its stream began and
/// each record's id with when it arrived.
async fn watch(
    port: u16,
    from: Ipv4Addr,
    index: u32,
    connected: Arc<AtomicUsize>,
    deadline: Instant,
) -> Result<(Instant, Vec<(u64, Instant)>), String> {
    let socket = TcpSocket::new_v4().map_err(|e| e.to_string())?;
    socket
        .bind(SocketAddr::new(IpAddr::V4(from), 0))
        .map_err(|e| format!("bind {from}: {e}"))?;
    let began = Instant::now();
    let mut stream = socket
        .connect(SocketAddr::from(([127, 0, 0, 1], port)))
        .await
        .map_err(|e| format!("connect: {e}"))?;
    // HTTP/1.0: the body is the stream itself, without chunks.
    let request = format!("GET /api/games/{index}/live HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n");
    stream
        .write_all(request.as_bytes())
        .await
        .map_err(|e| e.to_string())?;
    let mut lines = BufReader::new(stream).lines();
    let mut received = Vec::new();
    let mut id = None;
    let mut status = true;
    let mut counted = false;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = match tokio::time::timeout(left, lines.next_line()).await {
            Err(_) => return Err("timed out".into()),
            Ok(Err(e)) => return Err(e.to_string()),
            Ok(Ok(None)) => break,
            Ok(Ok(Some(line))) => line,
        };
        if status {
            status = false;
            if !line.contains(" 200 ") {
                return Err(line);
            }
            continue;
        }
        if let Some(value) = line.strip_prefix("id: ") {
            id = value.parse().ok();
        } else if line.starts_with("data: ")
            && let Some(id) = id.take()
        {
            received.push((id, Instant::now()));
            if !counted {
                counted = true;
                connected.fetch_add(1, Ordering::Relaxed);
            }
        } else if line == "event: end" {
            break;
        }
    }
    Ok((began, received))
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn live_games(port: u16) -> Vec<u32> {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    std::io::Write::write_all(
        &mut stream,
        format!("GET /api/live HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n").as_bytes(),
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, body)| body);
    let games: serde_json::Value = serde_json::from_str(body).unwrap_or_default();
    games
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|g| g["index"].as_u64().map(|i| i as u32))
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (koth, work) = match args.as_slice() {
        [koth, work, ..] => (PathBuf::from(koth), PathBuf::from(work)),
        _ => panic!("usage: live_load KOTH WORK_DIR [key=value…]"),
    };
    let s = settings(&args[2..]);
    std::fs::create_dir_all(&work).unwrap();
    let a = slow_bot(&work, "Slow", s.pause_s, s.bot.as_deref());
    let b = slow_bot(&work, "Slower", s.pause_s, s.bot.as_deref());
    let toml = work.join("t.toml");
    std::fs::write(
        &toml,
        format!(
            "game = \"tictactoe\"\nbots = [{a:?}, {b:?}]\ngames = {}\nrounds = {}\n\
             jobs = {}\nsandbox = false\nanswer_ms = 20000\nseed = 3\n",
            s.games, s.rounds, s.jobs
        ),
    )
    .unwrap();
    let dir = work.join("run");
    let _ = std::fs::remove_dir_all(&dir);
    let port = free_port();
    let total = s.games.min(s.jobs) * s.watchers;
    let started = Instant::now();
    let deadline = started + s.timeout;
    let mut server: Child = Command::new(&koth)
        .args(["tournament", "run"])
        .arg(&toml)
        .arg("--dir")
        .arg(&dir)
        .args(["--serve", &format!("127.0.0.1:{port}")])
        .args(["--max-connections", &(total + 64).to_string()])
        .args(["--max-per-client", &(s.per_address + 16).to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = server.id();
    let stamps: Stamps = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let stamper = {
        let (games, stamps, stop) = (dir.join("games"), Arc::clone(&stamps), Arc::clone(&stop));
        std::thread::spawn(move || stamp(games, stamps, s.poll, stop))
    };

    // The games in progress, once as many as can be are (or a while has passed).
    let wanted = s.games.min(s.jobs) as usize;
    let mut games = Vec::new();
    let listing = Instant::now();
    while listing.elapsed() < Duration::from_secs(60) {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            games = live_games(port);
            if games.len() >= wanted {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let live_after = started.elapsed();
    let rss_before = status_kb(pid, "VmRSS:");
    let cpu_before = cpu_s(pid);
    println!(
        "{} games in progress after {:.1} s; koth VmRSS {} kB before watchers",
        games.len(),
        live_after.as_secs_f64(),
        rss_before
    );

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let connected = Arc::new(AtomicUsize::new(0));
    let watchers: Vec<_> = (0..s.watchers as usize * games.len())
        .map(|k| {
            let index = games[k % games.len()];
            let n = (k / s.per_address as usize) as u32 + 2;
            let from = Ipv4Addr::new(127, 0, (n >> 8) as u8, n as u8);
            let connected = Arc::clone(&connected);
            // At most RAMP connections begun a second: a burst beyond the listener's backlog
            // waits for the client's SYN to be sent again, 1 s, 3 s, 7 s later.
            let start = Duration::from_secs_f64(k as f64 / s.ramp as f64);
            runtime.spawn(async move {
                tokio::time::sleep(start).await;
                watch(port, from, index, connected, deadline).await
            })
        })
        .collect();
    let expected = watchers.len();
    // Memory once every watcher has its first record (or the ramp and 30 s have passed).
    let connecting = Instant::now();
    let ramp = Duration::from_secs_f64(expected as f64 / s.ramp as f64);
    while connected.load(Ordering::Relaxed) < expected
        && connecting.elapsed() < ramp + Duration::from_secs(30)
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    let all_in = connecting.elapsed();
    let rss_with = status_kb(pid, "VmRSS:");
    let reading = connected.load(Ordering::Relaxed);
    println!(
        "{reading} of {expected} watchers reading after {:.2} s; koth VmRSS {rss_with} kB",
        all_in.as_secs_f64()
    );

    let mut failures: HashMap<String, usize> = HashMap::new();
    let mut latencies = Vec::new();
    let mut unstamped = 0usize;
    let mut records = 0usize;
    let results = runtime.block_on(async {
        let mut results = Vec::new();
        for (k, watcher) in watchers.into_iter().enumerate() {
            results.push((games[k % games.len()], watcher.await.unwrap()));
        }
        results
    });
    let ended = started.elapsed();
    let cpu_after = cpu_s(pid).max(cpu_before);
    let status = loop {
        if let Some(status) = server.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = server.kill();
            break server.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    stop.store(true, Ordering::Relaxed);
    stamper.join().unwrap();
    let stamps = stamps.lock().unwrap();
    for (index, result) in results {
        match result {
            Err(e) => {
                let kind: String = e.chars().take(40).collect();
                *failures.entry(kind).or_default() += 1;
            }
            Ok((began, received)) => {
                for (id, at) in received {
                    records += 1;
                    match stamps.get(&(index, id)) {
                        Some(written) if *written > began => {
                            latencies.push(at.saturating_duration_since(*written).as_secs_f64());
                        }
                        Some(_) => {}
                        None => unstamped += 1,
                    }
                }
            }
        }
    }
    latencies.sort_by(f64::total_cmp);
    let walls: Vec<f64> = rusqlite::Connection::open(dir.join("results.sqlite"))
        .and_then(|db| {
            let mut query = db.prepare("SELECT wall_ms FROM games WHERE state = 'done'")?;
            query
                .query_map([], |row| row.get::<_, f64>(0))?
                .collect::<Result<Vec<_>, _>>()
        })
        .unwrap_or_default();
    let mean_wall = walls.iter().sum::<f64>() / walls.len().max(1) as f64;
    println!(
        "koth exited: {status}; watchers done after {:.1} s",
        ended.as_secs_f64()
    );
    println!(
        "records received {records} ({} timed, {unstamped} never seen written); failures {failures:?}",
        latencies.len()
    );
    println!(
        "write-to-receipt: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        percentile(&latencies, 0.5) * 1e3,
        percentile(&latencies, 0.99) * 1e3,
        latencies.last().copied().unwrap_or(f64::NAN) * 1e3
    );
    if reading > 0 {
        println!(
            "memory per watcher: ({rss_with} - {rss_before}) kB / {reading} = {:.2} KiB",
            (rss_with as f64 - rss_before as f64) / reading as f64
        );
    }
    println!(
        "games done {}; mean wall per game {:.0} ms; koth CPU while watched {:.1} s",
        walls.len(),
        mean_wall,
        cpu_after - cpu_before
    );
}
