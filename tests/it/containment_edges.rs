//! Containment's second round: the ways out found at its edges rather than from inside a bot —
//! the build step, the script header and links, inherited descriptors, system calls and users,
//! the memory-backed folders, the CPU clock, and a bot's children working while it is not asked
//! anything. Each is tried by a real hostile process. (The starvation rule's sum over a bot's
//! whole group is tested on the kernel's figures in `bot::starvation`, since whether a loaded
//! test machine starves a bot is the very thing the rule measures.)

use std::net::TcpListener;
use std::os::fd::AsRawFd;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use crate::support::hostile::{LIMIT, assert_held, contained, spec, try_escape, wait_for};
use crate::support::survivors::survivors;

use koth::bot::cgroup::BotGroups;
use koth::bot::{BotError, BotProcess, BotSpec, Clock, Ending, Sandbox, StderrLog, build};

fn root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// The hostile bot (`tests/hostile/escape.py`) in folder `dir/name`, run by `run`.
fn hostile(dir: &Path, name: &str, run: &[&str]) -> BotSpec {
    spec(&crate::support::hostile::folder(dir, name), name, run)
}

#[test]
fn a_build_step_is_contained_like_its_bot_in_a_copy_of_its_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let marker = format!("koth-build-{}", std::process::id());
    let victim = tmp.path().join("victim");
    std::fs::create_dir_all(&victim).unwrap();
    std::fs::write(victim.join("secret.txt"), "the victim's code").unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let mut bot = hostile(tmp.path(), "builder", &["python3", "-u", "escape.py"]);
    std::fs::write(
        bot.dir.join("attack.sh"),
        format!(
            "cat /etc/shadow > shadow.txt 2>&1\n\
             echo owned > {victim}/secret.txt 2> victim.txt\n\
             python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=1)\" \
               > network.txt 2>&1 && echo connected >> network.txt\n\
             setsid sh -c 'sleep 300 # {marker}' > /dev/null 2>&1 &\n\
             echo built > built.txt\n",
            victim = victim.display()
        ),
    )
    .unwrap();
    bot.build = Some("sh attack.sh".into());
    let limits = Sandbox {
        memory_mb: 512,
        ..Sandbox::default()
    };
    let built = build::prepare(
        std::slice::from_ref(&bot),
        Duration::from_secs(60),
        Some(&limits),
    )
    .unwrap()
    .remove(0);

    // Built in a copy: the bot's own folder is as it was, the copy holds what the build made.
    assert_ne!(built.dir, bot.dir);
    assert!(!bot.dir.join("built.txt").exists());
    assert_eq!(
        std::fs::read_to_string(built.dir.join("built.txt")).unwrap(),
        "built\n"
    );
    let shadow = std::fs::read_to_string(built.dir.join("shadow.txt")).unwrap();
    assert!(!shadow.contains("root:"), "the build read /etc/shadow");
    assert_eq!(
        std::fs::read_to_string(victim.join("secret.txt")).unwrap(),
        "the victim's code"
    );
    let network = std::fs::read_to_string(built.dir.join("network.txt")).unwrap();
    assert!(!network.contains("connected"), "{network}");
    assert!(listener.accept().is_err(), "the build reached 127.0.0.1");
    // What the build started ended with it.
    wait_for(
        || survivors(&marker).is_empty(),
        "the build's daemon to end",
    );
    // The log is kept beside the build copy.
    assert!(built.dir.parent().unwrap().join(build::BUILD_LOG).is_file());

    // A build that needs the network fails, with its log in the error.
    let mut online = hostile(tmp.path(), "online", &["python3", "-u", "escape.py"]);
    online.build = Some(format!(
        "echo fetching >&2; python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=1)\""
    ));
    let error = build::prepare(
        std::slice::from_ref(&online),
        Duration::from_secs(60),
        Some(&limits),
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("failed") && error.contains("fetching"),
        "{error}"
    );
}

#[tokio::test]
async fn a_script_header_or_a_link_exposes_nothing_and_the_original_folder_stays_hidden() {
    let tmp = tempfile::tempdir().unwrap();
    let secret = tmp.path().join("secret");
    std::fs::create_dir_all(&secret).unwrap();
    std::fs::write(secret.join("key.txt"), "a private key").unwrap();
    std::fs::write(secret.join("tool"), "#!/bin/sh\necho ESCAPED ran a tool\n").unwrap();
    std::fs::set_permissions(secret.join("tool"), std::fs::Permissions::from_mode(0o755)).unwrap();
    // The header names the secret folder, and still runs python3.
    let bot = hostile(tmp.path(), "header", &["./escape.py"]);
    let script = bot.dir.join("escape.py");
    let text = std::fs::read_to_string(&script).unwrap();
    std::fs::write(
        &script,
        format!(
            "#!/usr/bin/env -S -u {} python3 -u\n{text}",
            secret.join("key.txt").display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let limits = Sandbox::default();
    let game = tmp.path().join("game");
    let spec = contained(&bot, &limits, &game);
    let mut process = BotProcess::spawn(&spec, &StderrLog::discard()).unwrap();
    assert_held(&mut process, &format!("list {}", secret.display())).await;
    assert_held(
        &mut process,
        &format!("read {}", secret.join("key.txt").display()),
    )
    .await;
    // Its original folder (here, where it was built) is not in its world, only its copy.
    assert_held(&mut process, &format!("list {}", bot.dir.display())).await;
    assert!(
        try_escape(&mut process, "list .")
            .await
            .contains("escape.py")
    );
    process.kill().await;

    // A program that is a link out of the bot's folder runs nothing from there.
    let linked = tmp.path().join("linked");
    std::fs::create_dir_all(&linked).unwrap();
    std::os::unix::fs::symlink(secret.join("tool"), linked.join("run")).unwrap();
    let linked = BotSpec {
        name: "linked".into(),
        dir: linked,
        command: vec!["./run".into()],
        ..bot.clone()
    };
    let spec = contained(&linked, &limits, &tmp.path().join("game2"));
    match BotProcess::spawn(&spec, &StderrLog::discard()) {
        Err(_) => {}
        Ok(mut process) => {
            let outcome = process.ask("GO", LIMIT).await;
            assert!(
                !outcome.as_ref().is_ok_and(|a| a.line.contains("ESCAPED")),
                "{outcome:?}"
            );
        }
    }
    // A link in the bot's folder to a host file is never copied through by koth.
    let copier = tmp.path().join("copier");
    std::fs::create_dir_all(&copier).unwrap();
    std::os::unix::fs::symlink(secret.join("key.txt"), copier.join("notes.txt")).unwrap();
    let copier = BotSpec {
        name: "copier".into(),
        dir: copier,
        ..bot.clone()
    };
    let spec = contained(&copier, &limits, &tmp.path().join("game3"));
    let copied = spec.dir.join("notes.txt");
    assert!(
        std::fs::symlink_metadata(&copied).unwrap().is_symlink(),
        "koth copied the file a link named"
    );
}

#[tokio::test]
async fn descriptors_koth_inherited_do_not_reach_a_bot() {
    let tmp = tempfile::tempdir().unwrap();
    let host_file = tmp.path().join("host-only.txt");
    std::fs::write(&host_file, "host only").unwrap();
    let file = std::fs::File::open(&host_file).unwrap();
    // As a shell's redirection leaves it: open in koth, and not close-on-exec.
    nix::fcntl::fcntl(
        &file,
        nix::fcntl::FcntlArg::F_SETFD(nix::fcntl::FdFlag::empty()),
    )
    .unwrap();
    let fd = file.as_raw_fd();
    let bot = hostile(tmp.path(), "reader", &["python3", "-u", "escape.py"]);
    for spec in [
        bot.clone(),
        contained(&bot, &Sandbox::default(), &tmp.path().join("game")),
    ] {
        let mut process = BotProcess::spawn(&spec, &StderrLog::discard()).unwrap();
        assert_held(&mut process, &format!("fd {fd}")).await;
        process.kill().await;
    }
    drop(file);
}

#[tokio::test]
async fn calls_into_the_kernels_shared_state_are_denied_and_each_bot_is_a_user_of_its_own() {
    let tmp = tempfile::tempdir().unwrap();
    let bot = hostile(tmp.path(), "caller", &["python3", "-u", "escape.py"]);
    let limits = Sandbox::default();
    let first = contained(&bot, &limits, &tmp.path().join("one"));
    let second = contained(&bot, &limits, &tmp.path().join("two"));
    let mut one = BotProcess::spawn(&first, &StderrLog::discard()).unwrap();
    let mut two = BotProcess::spawn(&second, &StderrLog::discard()).unwrap();
    for call in [
        "keyctl",
        "add_key",
        "io_uring_setup",
        "bpf",
        "perf_event_open",
        "userfaultfd",
        "unshare",
        "ptrace",
        "keyctl_x32",
    ] {
        assert_held(&mut one, &format!("syscall {call}")).await;
    }
    // Both are running: each runs as a user no other bot has, from koth's range.
    assert_held(&mut two, "whoami").await;
    if root() {
        let uid = |pid: i32| {
            let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
            let line = status.lines().find(|l| l.starts_with("Uid:")).unwrap();
            line.split_whitespace()
                .nth(1)
                .unwrap()
                .parse::<u32>()
                .unwrap()
        };
        let (a, b) = (uid(one.pid()), uid(two.pid()));
        assert_ne!(a, b);
        for id in [a, b] {
            assert!(id >= 1_900_000_000, "uid {id}");
        }
    }
    one.kill().await;
    two.kill().await;
}

#[tokio::test]
async fn memory_backed_folders_are_capped_and_nothing_is_left_in_the_working_copy() {
    let tmp = tempfile::tempdir().unwrap();
    let bot = hostile(tmp.path(), "hoarder", &["python3", "-u", "escape.py"]);
    let limits = Sandbox {
        memory_mb: 256,
        file_mb: 8,
        ..Sandbox::default()
    };
    let spec = contained(&bot, &limits, &tmp.path().join("game"));
    let mut process = BotProcess::spawn(&spec, &StderrLog::discard()).unwrap();
    assert_held(&mut process, "shm 200").await;
    assert_held(&mut process, "write /dev/koth-hostile").await;
    assert_held(&mut process, "bigfiles 40").await;
    let files = try_escape(&mut process, "files 20000").await;
    process.finish(LIMIT, Ending::Exit).await;
    // Whatever it made in its folder is gone with it: the copy on disk is as koth made it.
    let mut left: Vec<String> = std::fs::read_dir(&spec.dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["escape.py"], "after {files}");
}

#[tokio::test]
async fn the_cpu_clock_charges_what_a_bot_thinks_in_its_children() {
    let tmp = tempfile::tempdir().unwrap();
    let bot = hostile(tmp.path(), "forker", &["python3", "-u", "escape.py"]);
    let uncontained = bot.clone();
    let contained = contained(&bot, &Sandbox::default(), &tmp.path().join("game"));
    for spec in [uncontained, contained] {
        let mut process = BotProcess::spawn(&spec, &StderrLog::discard()).unwrap();
        process.set_clock(Clock::Cpu { backstop: LIMIT });
        // The first answer proves it runs (and spends the start-up grace).
        assert_held(&mut process, "nothing").await;
        let fault = process
            .ask("TRY childwork 300", Duration::from_millis(100))
            .await
            .unwrap_err();
        assert!(matches!(fault, BotError::CpuTimeout { .. }), "{fault}");
        process.kill().await;
    }
}

#[tokio::test]
async fn a_bot_that_works_while_not_asked_is_frozen_between_its_prompts() {
    if !BotGroups::create(256, 64).is_some_and(|g| g.can_freeze()) {
        eprintln!("skipped: no cgroup v2 freezer here");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let bot = hostile(tmp.path(), "restless", &["python3", "-u", "escape.py"]);
    let spec = contained(&bot, &Sandbox::default(), &tmp.path().join("game"));
    let mut process = BotProcess::spawn(&spec, &StderrLog::discard()).unwrap();
    assert_held(&mut process, "background").await;
    let gap = Duration::from_millis(300);
    let used_in_gap = |before: Duration, after: Duration| after.saturating_sub(before);
    // Its first gap: its child spins, and the next prompt finds it out.
    let before = process.cpu_time().unwrap();
    tokio::time::sleep(gap).await;
    let first = used_in_gap(before, process.cpu_time().unwrap());
    assert_held(&mut process, "whoami").await;
    // From then on it is frozen from each answer to the next prompt.
    let before = process.cpu_time().unwrap();
    tokio::time::sleep(gap).await;
    let second = used_in_gap(before, process.cpu_time().unwrap());
    // However loaded the test machine, the child had some of the CPU in the first gap, and
    // (nearly) none of it in the second.
    assert!(first > gap / 10, "the child did not spin: {first:?}");
    assert!(
        second < first / 4,
        "it worked while frozen: {second:?} against {first:?} before"
    );
    // And it still answers.
    assert_held(&mut process, "whoami").await;
    process.finish(LIMIT, Ending::Exit).await;
}
