//! Several koth processes on one machine: each claims the CPUs it pins to, takes the free ones,
//! runs unpinned and says so when none is free, and frees them however it ends. Real processes:
//! the runs started here keep their CPU locks in a runtime folder of the test's own, and run
//! under `taskset` on two of the test's CPUs, so they compete only with each other, on any
//! machine of two CPUs or more. Every wait is for an event (a bot's file), never a duration.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::cpus::{own_cpu_locks, reported_cpus, stderr_logs};
use crate::support::tournament::{query, repo};

/// The first two CPUs the test may use, as `taskset` takes them (`0,1`), or `None` on a machine
/// with one.
fn two_cpus() -> Option<(Vec<usize>, String)> {
    let allowed = koth::base::cpu::allowed();
    let two = allowed.get(..2)?.to_vec();
    let list = format!("{},{}", two[0], two[1]);
    Some((two, list))
}

/// Where the runs of one test keep their CPU locks, and where their gate bots report.
struct Machine {
    runtime: tempfile::TempDir,
    gate: tempfile::TempDir,
}

impl Machine {
    fn new() -> Machine {
        Machine {
            runtime: tempfile::tempdir().unwrap(),
            gate: tempfile::tempdir().unwrap(),
        }
    }

    /// `koth ARGS` kept to `cpus` (a `taskset` list), with this machine's CPU locks.
    fn koth(&self, cpus: &str, args: &[&str]) -> Command {
        let mut command = Command::new("taskset");
        own_cpu_locks(&mut command, self.runtime.path())
            .args(["-c", cpus, env!("CARGO_BIN_EXE_koth")])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    /// The command of a rat-race bot that reports its CPUs and waits at the gate.
    fn gate_bot(&self) -> String {
        format!(
            "python3 {} gate {}",
            script().display(),
            self.gate.path().display()
        )
    }

    /// Waits until `count` gate bots have started, and returns their process ids.
    fn started(&self, count: usize) -> Vec<i32> {
        let since = Instant::now();
        loop {
            let pids: Vec<i32> = std::fs::read_dir(self.gate.path())
                .unwrap()
                .filter_map(|e| {
                    let name = e.unwrap().file_name().into_string().unwrap();
                    name.strip_prefix("started-")?.parse().ok()
                })
                .collect();
            if pids.len() >= count {
                return pids;
            }
            assert!(
                since.elapsed() < Duration::from_secs(120),
                "only {} of {count} bots started",
                pids.len()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Lets every gate bot answer.
    fn open_gate(&self) {
        std::fs::write(self.gate.path().join("go"), "").unwrap();
    }
}

fn script() -> PathBuf {
    repo().join("tests/ratrace_bots/off_the_edge.py")
}

/// Waits for a koth run and returns its stdout and stderr, checking that it succeeded.
fn finish(child: Child) -> (String, String) {
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "koth failed: {stdout}\n{stderr}");
    (stdout, stderr)
}

/// `koth ratrace` of one board for `bot` into `log`.
fn ratrace_args<'a>(bot: &'a str, log: &'a Path, jobs: &'a str) -> Vec<&'a str> {
    vec![
        "ratrace",
        "--bot-cmd",
        bot,
        "--boards",
        jobs,
        "--jobs",
        jobs,
        "--timeout-ms",
        "60000",
        "--log-dir",
        log.to_str().unwrap(),
    ]
}

#[test]
fn rat_race_runs_started_together_take_different_cpus_and_a_third_runs_unpinned() {
    let Some((two, list)) = two_cpus() else {
        return;
    };
    let machine = Machine::new();
    let logs = tempfile::tempdir().unwrap();
    let bot = machine.gate_bot();
    let mut runs = Vec::new();
    for run in 0..3 {
        let log = logs.path().join(run.to_string());
        let child = machine
            .koth(&list, &ratrace_args(&bot, &log, "1"))
            .spawn()
            .unwrap();
        // Its bot has started, so the run has claimed its CPU, if any, before the next starts.
        machine.started(run + 1);
        runs.push((child, log));
    }
    machine.open_gate();
    let seen: Vec<(String, Vec<usize>)> = runs
        .into_iter()
        .map(|(child, log)| {
            let (stdout, _) = finish(child);
            (stdout, reported_cpus(&stderr_logs(&log)[0]))
        })
        .collect();
    let [(first, a), (second, b), (third, c)] = &seen[..] else {
        unreachable!()
    };
    assert_eq!(a.len(), 1, "{seen:?}");
    assert_eq!(b.len(), 1, "{seen:?}");
    assert_ne!(a, b, "two runs at once never share a CPU: {seen:?}");
    assert!(first.contains(&format!("on CPU {}", a[0])), "{first}");
    assert!(second.contains(&format!("on CPU {}", b[0])), "{second}");
    // No CPU is left for the third: it runs anywhere it may, and says why.
    assert_eq!(c, &two, "{seen:?}");
    assert!(
        third.contains("1 job(s) unpinned (other koth processes hold CPUs it may use"),
        "{third}"
    );
}

/// A rat-race tournament of one game for the gate bot, in `dir`; returns its file.
fn gate_tournament(machine: &Machine, dir: &Path) -> PathBuf {
    let bot = dir.join("bot");
    std::fs::create_dir_all(&bot).unwrap();
    std::fs::write(
        bot.join("bot.toml"),
        format!(
            "name = \"Gate\"\nrun = {:?}\ngames = [\"ratrace\"]\n",
            machine.gate_bot()
        ),
    )
    .unwrap();
    let file = dir.join("t.toml");
    std::fs::write(
        &file,
        format!(
            "game = \"ratrace\"\nbots = [{bot:?}]\ngames = 1\nrounds = 1\njobs = 1\n\
             answer_ms = 60000\nsandbox = false\n"
        ),
    )
    .unwrap();
    file
}

#[test]
fn tournaments_started_together_take_different_cpus_and_log_them() {
    let Some((_, list)) = two_cpus() else {
        return;
    };
    let machine = Machine::new();
    let tmp = tempfile::tempdir().unwrap();
    let mut runs = Vec::new();
    for run in 0..2 {
        let dir = tmp.path().join(run.to_string());
        let file = gate_tournament(&machine, &dir);
        let out = dir.join("t");
        let (file, out_arg) = (file.to_str().unwrap(), out.to_str().unwrap());
        let args = ["tournament", "run", file, "--dir", out_arg, "--seed", "1"];
        runs.push((machine.koth(&list, &args).spawn().unwrap(), out));
        machine.started(run + 1);
    }
    machine.open_gate();
    let mut seen = Vec::new();
    for (child, out) in runs {
        let (_, stderr) = finish(child);
        assert!(
            stderr.contains(&format!(
                "games run each on 1 free CPU(s) of {}",
                list.replace(',', ", ")
            )),
            "{stderr}"
        );
        let cpus = reported_cpus(&stderr_logs(&out.join("games/0"))[0]);
        assert_eq!(cpus.len(), 1, "{cpus:?}");
        let log = std::fs::read_to_string(out.join("tournament.log")).unwrap();
        assert!(
            log.contains(&format!("game started on CPU {}", cpus[0])),
            "{log}"
        );
        seen.push(cpus);
    }
    assert_ne!(
        seen[0], seen[1],
        "two tournaments at once never share a CPU"
    );
}

#[test]
fn a_killed_runs_cpus_are_free_again_though_its_bot_lives_on() {
    let Some((two, list)) = two_cpus() else {
        return;
    };
    let machine = Machine::new();
    let logs = tempfile::tempdir().unwrap();
    let bot = machine.gate_bot();
    let killed_log = logs.path().join("killed");
    let mut killed = machine
        .koth(&list, &ratrace_args(&bot, &killed_log, "1"))
        .spawn()
        .unwrap();
    let bot_pid = machine.started(1)[0];
    // kill -9: koth ends with no chance to release anything or to stop its bot.
    killed.kill().unwrap();
    killed.wait().unwrap();
    let bot_alive = Path::new(&format!("/proc/{bot_pid}")).exists();

    // A run that wants both CPUs gets both: the dead koth's lock went with it, and the bot it
    // started (which inherited its open files) does not hold it.
    let cpus_bot = format!("python3 {} cpus", script().display());
    let log = logs.path().join("after");
    let (stdout, _) = finish(
        machine
            .koth(&list, &ratrace_args(&cpus_bot, &log, "2"))
            .spawn()
            .unwrap(),
    );
    let _ = nix::sys::signal::killpg(
        nix::unistd::Pid::from_raw(bot_pid),
        nix::sys::signal::Signal::SIGKILL,
    );
    assert!(bot_alive, "the killed koth's bot outlived it");
    assert!(
        stdout.contains(&format!("on CPUs {}, {}", two[0], two[1])),
        "{stdout}"
    );
    let seats: Vec<Vec<usize>> = stderr_logs(&log).iter().map(|l| reported_cpus(l)).collect();
    assert_eq!(seats.len(), 2);
    assert!(seats.iter().all(|s| s.len() == 1), "{seats:?}");
    assert_ne!(seats[0], seats[1], "{seats:?}");
}

#[test]
fn a_run_under_taskset_keeps_to_its_cpu() {
    let Some((two, _)) = two_cpus() else {
        return;
    };
    let machine = Machine::new();
    let log = tempfile::tempdir().unwrap();
    let bot = format!("python3 {} cpus", script().display());
    let only = two[1].to_string();
    let (stdout, _) = finish(
        machine
            .koth(&only, &ratrace_args(&bot, log.path(), "1"))
            .spawn()
            .unwrap(),
    );
    assert!(stdout.contains(&format!("on CPU {only}")), "{stdout}");
    assert_eq!(reported_cpus(&stderr_logs(log.path())[0]), vec![two[1]]);
}

/// A one-game rat-race tournament of the player in `mode` (`busy`, `slow-exit`), with the
/// tournament file's `limits`, played by a koth kept to one CPU while a program spins on it.
/// Every attempt's late answer or exit came while the bot was kept from its CPU: never a result
/// against the bot, always koth's fault (3 attempts, each a harness fault).
fn beside_a_spinner_every_attempt_is_koths_fault(mode: &str, limits: &str) {
    let Some((two, _)) = two_cpus() else {
        return;
    };
    let machine = Machine::new();
    let tmp = tempfile::tempdir().unwrap();
    let bot = tmp.path().join("bot");
    std::fs::create_dir_all(&bot).unwrap();
    std::fs::write(
        bot.join("bot.toml"),
        format!(
            "name = \"Busy\"\nrun = \"python3 {} {mode}\"\ngames = [\"ratrace\"]\n",
            script().display()
        ),
    )
    .unwrap();
    let file = tmp.path().join("t.toml");
    std::fs::write(
        &file,
        format!(
            "game = \"ratrace\"\nbots = [{bot:?}]\ngames = 1\njobs = 1\nsandbox = false\n{limits}"
        ),
    )
    .unwrap();
    let cpu = two[0].to_string();
    let mut spinner = Command::new("taskset")
        .args(["-c", &cpu, "sh", "-c", "while :; do :; done"])
        .spawn()
        .unwrap();
    let out = tmp.path().join("t");
    let run = machine
        .koth(
            &cpu,
            &[
                "tournament",
                "run",
                file.to_str().unwrap(),
                "--dir",
                out.to_str().unwrap(),
                "--seed",
                "1",
            ],
        )
        .output();
    let _ = spinner.kill();
    let _ = spinner.wait();
    let output = run.unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(query(&out, "SELECT COUNT(*) FROM results"), 0);
    assert_eq!(
        query(
            &out,
            "SELECT COUNT(*) FROM harness_faults WHERE message LIKE '%koth''s fault%'"
        ),
        3
    );
}

#[test]
fn a_time_out_while_another_program_holds_the_bots_cpu_is_a_harness_fault() {
    // About 0.3 s of CPU a turn: in time alone on its CPU, not beside a program that spins
    // there. Two boards: the first answer of a process has a start-up grace, the second's not.
    beside_a_spinner_every_attempt_is_koths_fault("busy", "rounds = 2\nanswer_ms = 400\n");
}

#[test]
fn a_late_exit_while_another_program_holds_the_bots_cpu_is_a_harness_fault() {
    // About 0.3 s of CPU after its input ends: it exits in time alone on its CPU (400 ms), not
    // beside a program that spins there.
    beside_a_spinner_every_attempt_is_koths_fault(
        "slow-exit",
        "rounds = 1\nanswer_ms = 5000\nexit_ms = 400\n",
    );
}
