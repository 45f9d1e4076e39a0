//! Nothing outlives a killed koth: koth killed with `kill -9` at many moments of its bots' starts
//! and builds, contained and not, leaves no process of theirs (none under the bots' users), no
//! control group, no mount and no working folder, once the next koth has started and played.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::cpus::own_cpu_locks;
use crate::support::paths_bots::script_bot;
use crate::support::survivors::{survivors, wait_until_nothing_left};
use crate::support::tournament::{assert_every_game_once, koth, succeed, tournament_file};

/// How many times koth is killed, each at its own moment.
const KILLS: u32 = 16;
/// The kills' moments are spread over this much of each start: koth's own start, the bots'
/// builds (a third of a second each), their sandboxes' starts and their games.
const SPREAD: Duration = Duration::from_millis(600);
const GAMES: i64 = 8;

/// Two climbers under `dir` whose build steps take a third of a second, every process of both
/// (and their `bwrap`s) with `marker` on its command line; each waits `pause` ms before each of
/// its answers to DESTROY.
fn bots(dir: &Path, marker: &str, pause: u32) -> Vec<PathBuf> {
    ["up", "down"]
        .into_iter()
        .map(|direction| {
            let bot = script_bot(
                dir,
                direction,
                &format!("Climber {direction}"),
                "climber.py",
                &format!("{direction} 0 pause={pause} {marker}"),
            );
            let manifest = bot.join("bot.toml");
            let text = std::fs::read_to_string(&manifest).unwrap();
            let build = format!(
                "build = \"exec python3 -c 'import time; time.sleep(0.3)' {marker}-{direction}\"\n"
            );
            std::fs::write(&manifest, text + &build).unwrap();
            bot
        })
        .collect()
}

/// Kills koth `kills` times, each at its own moment of a run of the tournament in `out` (the
/// first, `run`, once the schedule is written; then `resume`s), and returns the killed koths'
/// process ids.
fn kill_again_and_again(tmp: &Path, file: &Path, out: &Path) -> Vec<u32> {
    let mut killed = Vec::new();
    let mut first = own_cpu_locks(&mut koth(), tmp)
        .args(["tournament", "run"])
        .arg(file)
        .arg("--dir")
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for("the schedule", || scheduled(out) == GAMES);
    first.kill().unwrap();
    first.wait().unwrap();
    killed.push(first.id());
    for kill in 0..KILLS {
        let mut resume = own_cpu_locks(&mut koth(), tmp)
            .args(["tournament", "resume"])
            .arg(out)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(SPREAD * kill / KILLS);
        resume.kill().unwrap();
        resume.wait().unwrap();
        killed.push(resume.id());
    }
    killed
}

/// The games scheduled in the tournament of `out` (0 while its database is being made).
fn scheduled(out: &Path) -> i64 {
    let games = || -> rusqlite::Result<i64> {
        let conn = rusqlite::Connection::open(out.join("results.sqlite"))?;
        conn.query_row("SELECT COUNT(*) FROM games", [], |r| r.get(0))
    };
    if out.join("results.sqlite").exists() {
        games().unwrap_or(0)
    } else {
        0
    }
}

/// Waits (up to a minute: the machine may be busy) until `done` holds.
fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The control groups koth made for the bots of the koths `killed`, in every hierarchy.
fn groups_of(killed: &[u32]) -> Vec<PathBuf> {
    fn walk(dir: &Path, depth: u32, killed: &[u32], found: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if !entry.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            let of_killed = name
                .strip_prefix("bot-")
                .and_then(|rest| rest.split('-').next()?.parse::<u32>().ok())
                .is_some_and(|pid| killed.contains(&pid));
            if of_killed {
                found.push(path);
            } else if depth > 0 {
                walk(&path, depth - 1, killed, found);
            }
        }
    }
    let mut found = Vec::new();
    walk(Path::new("/sys/fs/cgroup"), 5, killed, &mut found);
    found
}

/// The tournament folder's working copies left on disk (`games/<index>/bots`).
fn working_folders(out: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(out.join("games"))
        .unwrap()
        .flatten()
        .map(|game| game.path().join(koth::bot::roster::WORKING_COPIES))
        .filter(|copies| copies.exists())
        .collect()
}

fn nothing_outlives_koth_killed_at_any_moment(contained: bool) {
    let tmp = tempfile::tempdir().unwrap();
    let marker = format!("koth-killed-{contained}-{}", std::process::id());
    let bots = bots(tmp.path(), &marker, 0);
    let bots: Vec<&Path> = bots.iter().map(PathBuf::as_path).collect();
    let file = tournament_file(
        tmp.path(),
        &bots,
        &format!("games = {GAMES}\njobs = 1\nrounds = 1\nseed = 7\nsandbox = {contained}\n"),
    );
    let out = tmp.path().join("t");
    let killed = kill_again_and_again(tmp.path(), &file, &out);

    // The next start ends what the killed koths left, then plays the games cut short again.
    succeed(
        own_cpu_locks(&mut koth(), tmp.path())
            .args(["tournament", "resume"])
            .arg(&out),
    );
    assert_every_game_once(&out, GAMES);
    wait_until_nothing_left(&marker);
    assert_eq!(groups_of(&killed), Vec::<PathBuf>::new());
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    let folder = tmp.path().to_string_lossy();
    assert!(!mounts.contains(&*folder), "{mounts}");
    assert_eq!(working_folders(&out), Vec::<PathBuf>::new());
    for pid in killed {
        assert!(
            !std::env::temp_dir()
                .join(format!("koth-probe-{pid}"))
                .exists()
        );
    }
}

#[test]
fn nothing_outlives_a_koth_killed_while_contained_bots_build_start_or_play() {
    nothing_outlives_koth_killed_at_any_moment(true);
}

#[test]
fn nothing_outlives_a_koth_killed_while_uncontained_bots_build_start_or_play() {
    nothing_outlives_koth_killed_at_any_moment(false);
}

/// An uncontained bot and the uncontained build step koth is waiting for both die with a koth
/// killed with `kill -9`, at once, with no koth after it.
#[test]
fn uncontained_bots_and_builds_die_with_koth() {
    let tmp = tempfile::tempdir().unwrap();
    let marker = format!("koth-killed-uncontained-{}", std::process::id());
    for building in [true, false] {
        // Bots that wait a minute before an answer: koth is still playing when it is killed.
        let bots = bots(tmp.path(), &marker, 60_000);
        if !building {
            for bot in &bots {
                let manifest = bot.join("bot.toml");
                let text = std::fs::read_to_string(&manifest).unwrap();
                let kept: Vec<&str> = text.lines().filter(|l| !l.starts_with("build")).collect();
                std::fs::write(&manifest, kept.join("\n") + "\n").unwrap();
            }
        }
        let mut koth = Command::new(env!("CARGO_BIN_EXE_koth"));
        koth.args([
            "paths",
            "--rounds",
            "1",
            "--seed",
            "1",
            "--timeout-ms",
            "60000",
        ]);
        for bot in &bots {
            koth.arg("--bot").arg(bot);
        }
        let log = tmp.path().join(format!("log-{building}"));
        let mut koth = koth
            .arg("--log-dir")
            .arg(&log)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        wait_for("a bot or a build to run", || !survivors(&marker).is_empty());
        koth.kill().unwrap();
        koth.wait().unwrap();
        wait_for("the bots and builds to die with koth", || {
            survivors(&marker).is_empty()
        });
    }
}

/// Where koth makes its bots' control groups in a hierarchy that caps them (koth's own group of
/// the `pids` or `memory` controller, which its children share with this test), if anywhere.
fn koths_groups() -> Option<PathBuf> {
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap();
    own.lines().find_map(|line| {
        let mut fields = line.splitn(3, ':');
        let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
        let path = path.trim_start_matches('/');
        let mounts: Vec<PathBuf> = match controllers {
            "" => vec!["/sys/fs/cgroup".into(), "/sys/fs/cgroup/unified".into()],
            c => c
                .split(',')
                .filter(|c| ["pids", "memory"].contains(c))
                .map(|c| Path::new("/sys/fs/cgroup").join(c))
                .collect(),
        };
        mounts.into_iter().find_map(|mount| {
            let root = mount.join(path).join("koth");
            let caps = ["pids.max", "memory.max", "memory.limit_in_bytes"];
            let probe = root.join(format!("bot-{}-probe", u32::MAX));
            std::fs::create_dir(&probe).ok()?;
            let usable = caps.iter().any(|cap| probe.join(cap).is_file());
            std::fs::remove_dir(&probe).unwrap();
            usable.then_some(root)
        })
    })
}

/// What the kernel does not end with a killed koth (a sandbox caught starting when its koth was
/// killed: still running as a bot's user whose lease died with its koth, or in the control group
/// of a koth that is gone), the next koth that contains bots ends before it plays.
#[test]
fn the_next_contained_start_ends_what_a_killed_koth_left() {
    use koth::bot::uid::{COUNT, FIRST, LEASE_FOLDER};
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    if !nix::unistd::geteuid().is_root() {
        return; // Only root gives bots users of their own, and makes control groups.
    }
    let tmp = tempfile::tempdir().unwrap();
    let marker = format!("koth-left-{}", std::process::id());
    let sleeper = || {
        let mut command = Command::new("python3");
        command.args(["-c", "import time; time.sleep(600)", &marker]);
        command
    };
    // A user of the bots' range that no koth leases now.
    let free = |offset: &u32| {
        let lease = Path::new(LEASE_FOLDER).join(format!("uid-{offset}.lock"));
        std::fs::File::open(lease).map_or(true, |file| {
            nix::fcntl::Flock::lock(file, nix::fcntl::FlockArg::LockExclusiveNonblock).is_ok()
        })
    };
    let start = std::process::id().wrapping_mul(7919) % COUNT;
    let offset = (start..COUNT).find(free).unwrap();
    let mut unleased = sleeper()
        .uid(FIRST + offset)
        .gid(FIRST + offset)
        .spawn()
        .unwrap();
    // And a process in the group of a koth that is gone (no process has an id above the
    // kernel's largest).
    let stale = koths_groups().map(|root| root.join(format!("bot-{}-0", u32::MAX)));
    let mut grouped = None;
    if let Some(stale) = &stale {
        std::fs::create_dir_all(stale).unwrap();
        let process = sleeper().spawn().unwrap();
        std::fs::write(stale.join("cgroup.procs"), process.id().to_string()).unwrap();
        grouped = Some(process);
    }

    let bots: Vec<PathBuf> = ["up", "down"]
        .into_iter()
        .map(|d| script_bot(tmp.path(), d, &format!("Climber {d}"), "climber.py", d))
        .collect();
    let mut next = koth();
    next.args(["paths", "--sandbox", "--rounds", "1", "--seed", "1"]);
    for bot in &bots {
        next.arg("--bot").arg(bot);
    }
    succeed(next.arg("--log-dir").arg(tmp.path().join("log")));

    assert_eq!(unleased.wait().unwrap().signal(), Some(nix::libc::SIGKILL));
    if let (Some(stale), Some(mut grouped)) = (stale, grouped) {
        assert_eq!(grouped.wait().unwrap().signal(), Some(nix::libc::SIGKILL));
        assert!(!stale.exists(), "{} is left", stale.display());
    }
    wait_until_nothing_left(&marker);
}
