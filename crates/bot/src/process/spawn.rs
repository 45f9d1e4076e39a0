//! Starting a bot's process: its containment prepared, its command spawned in a process group of
//! its own with piped stdio, and its stderr drained into its log.

use std::process::Stdio;

use anyhow::Context;
use nix::fcntl::{FcntlArg, fcntl};
use tokio::io::AsyncReadExt;
use tokio::process::{ChildStderr, Command};

use super::BotProcess;
use crate::live::register;
use crate::sandbox::Launch;
use crate::{AnswerStats, lines::LineReader};
use crate::{BotError, BotSpec, Clock, StderrLog};

impl BotProcess {
    pub(super) fn start(
        spec: &BotSpec,
        stderr: &StderrLog,
        pipe_bytes: Option<usize>,
    ) -> Result<BotProcess, BotError> {
        if let Some(reason) = &spec.benched {
            return Err(BotError::Benched {
                reason: reason.clone(),
            });
        }
        let launch = launch(spec)?;
        let mut child = command(spec, launch.as_ref())
            .spawn()
            .map_err(|e| BotError::spawn(spec, e.to_string()))?;
        // With process_group(0) the group id is the child's pid.
        let pgid = child.id().expect("a just-spawned child has a pid") as i32;
        let started = launch.map(|launch| launch.started(pgid));
        register(pgid);
        run_as_batch(pgid);
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout is piped");
        if let Some(bytes) = pipe_bytes {
            let size = || FcntlArg::F_SETPIPE_SZ(bytes.try_into().unwrap_or(i32::MAX));
            if let Some(stdin) = &stdin {
                let _ = fcntl(stdin, size());
            }
            let _ = fcntl(&stdout, size());
        }
        // Fault messages quote this process's last words, not an earlier process's.
        stderr.begin_process();
        let stderr_pipe = child.stderr.take().expect("stderr is piped");
        let stderr_task = tokio::spawn(drain_stderr(stderr_pipe, stderr.clone()));
        Ok(BotProcess {
            child,
            pgid,
            started,
            sandbox: spec.sandbox.clone(),
            dir: spec.dir.clone(),
            stdin,
            outbox: Vec::new(),
            stdout: LineReader::new(stdout),
            stderr: stderr.clone(),
            stderr_task: Some(stderr_task),
            stopped: None,
            clock: Clock::Wall,
            stats: AnswerStats::default(),
            first_answer: true,
            cpu_mark: None,
            answered_at: None,
            restless: false,
            frozen: false,
            transcript: None,
            flush: crate::unanswered::flush_hint(spec),
        })
    }
}

/// A contained bot's launch, its folder (and a learning bot's data) handed over to the user it
/// runs as; `None` for a bot that is not contained.
fn launch(spec: &BotSpec) -> Result<Option<Launch>, BotError> {
    let Some(sandbox) = &spec.sandbox else {
        return Ok(None);
    };
    let launch = Launch::new(spec, sandbox).and_then(|launch| {
        launch
            .hand_over(&spec.dir, false)
            .with_context(|| format!("cannot hand {} to the bot", spec.dir.display()))?;
        // A learning bot's data is its own to rewrite, all of it.
        let data = spec.dir.join(crate::data::DATA_FOLDER);
        if spec.data.is_some() {
            launch
                .hand_over_data(&data)
                .with_context(|| format!("cannot hand {} to the bot", data.display()))?;
        }
        Ok(launch)
    });
    launch
        .map(Some)
        .map_err(|e| BotError::spawn(spec, format!("{e:#}")))
}

/// The bot's command: through its containment's launch, or its own program with koth's clean
/// environment; in its folder, in a process group of its own, with piped stdio.
fn command(spec: &BotSpec, launch: Option<&Launch>) -> Command {
    let mut command = match launch {
        Some(launch) => launch.command(),
        None => {
            let mut command = Command::new(spec.program());
            command
                .args(&spec.command[1..])
                .env_clear()
                .envs(crate::env::bot_environment());
            crate::child::prepare(command.as_std_mut());
            command
        }
    };
    command
        .current_dir(&spec.dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    command
}

/// Copies the bot's stderr into its capped log until the pipe closes.
async fn drain_stderr(mut pipe: ChildStderr, log: StderrLog) {
    let mut buf = vec![0u8; 8192];
    // Keep draining after the cap so a chatty bot never blocks on a full pipe.
    while let Ok(n) = pipe.read(&mut buf).await {
        if n == 0 {
            break;
        }
        log.write(&buf[..n]);
    }
}

/// Puts the bot under the SCHED_BATCH policy (threads it starts later inherit it). A batch task
/// gets the same share of the CPU as any other but does not preempt the running task when it
/// wakes up. Without this, every prompt koth writes wakes the bot and the bot at once throws koth
/// off the CPU, so koth pays two context switches per answer on top of the pipe: with nine
/// instant bots, 8.9 context switches per turn instead of 2.3 and about 15 % more of koth's
/// CPU. A bot loses nothing by it: koth writes a phase's prompts and then sleeps, which frees
/// the CPU a moment later anyway. Best effort: a kernel that refuses leaves the bot as it was.
fn run_as_batch(pid: i32) {
    let param = nix::libc::sched_param { sched_priority: 0 };
    // SAFETY: sched_setscheduler only reads `param`, which lives across the call.
    unsafe { nix::libc::sched_setscheduler(pid, nix::libc::SCHED_BATCH, &param) };
}
