//! A bot's end: its stdin closed and its exit awaited within its limit, or its process group
//! killed; why its stdout closed, in its author's words.

use std::process::ExitStatus;
use std::time::Duration;

use super::BotProcess;
use crate::BotError;
use crate::clock::Ending;
use crate::live::kill_group;
use crate::starvation::{self, SAMPLE_AFTER, Waits};

impl BotProcess {
    /// Ends the conversation: sends queued lines, closes the bot's stdin and waits up to `limit`
    /// for it to exit. Whatever happens, every process of the bot is gone afterwards.
    /// Returns the fault if the bot did not exit in time and `ending` asked it to.
    pub async fn finish(mut self, limit: Duration, ending: Ending) -> Option<BotError> {
        let mut fault = None;
        self.thaw();
        if self.stopped.is_none() {
            let _ = tokio::time::timeout(limit, self.write_queued()).await;
            self.stdin.take();
            let (pid, meter) = (self.cpu_pid(), self.cpu_meter());
            // As for an answer (see `starvation`): a late exit while koth or the bot waited for
            // a CPU others held is koth's fault, not the bot's.
            let early = SAMPLE_AFTER.min(limit);
            let (exited, waits) = {
                let exit = async {
                    tokio::select! {
                        _ = self.child.wait() => {}
                        () = self.stdout.discard_to_end() => drop(self.child.wait().await),
                    }
                };
                tokio::pin!(exit);
                match tokio::time::timeout(early, &mut exit).await {
                    Ok(()) => (true, None),
                    Err(_) => {
                        let waits = pid.and_then(|pid| Waits::now(pid, meter()?));
                        let rest = limit.saturating_sub(early);
                        (tokio::time::timeout(rest, exit).await.is_ok(), waits)
                    }
                }
            };
            if !exited && ending == Ending::Exit {
                let waited = waits.and_then(|waits| waits.starved_since(pid?, meter()?));
                let late = match waited.filter(|&waited| starvation::starved(waited, limit)) {
                    Some(waited) => BotError::StarvedExit { limit, waited },
                    None => BotError::NoExit { limit },
                };
                self.record_fault(&late);
                fault = Some(late);
            }
        }
        self.cleanup().await;
        fault
    }

    /// Kills the bot now, for a caller that gives up on it (a fault it found in an answer).
    pub async fn kill(mut self) {
        self.cleanup().await;
    }

    async fn cleanup(&mut self) {
        kill_group(self.pgid);
        self.stdin.take();
        let _ = self.child.wait().await;
        // The stderr pipe closes once every process of the group is gone.
        if let Some(task) = self.stderr_task.take() {
            let _ = tokio::time::timeout(Duration::from_secs(1), task).await;
        }
        self.started.take();
    }

    /// Why the bot stopped reading its input (`broken`, a write that found the pipe closed):
    /// its exit with its status, when it has exited — a crash before it read its prompt is a
    /// crash, not a pipe — else `broken`.
    pub(super) async fn why_it_stopped_reading(&mut self, broken: BotError) -> BotError {
        match self.closed_error().await {
            exited @ BotError::Exited { .. } => exited,
            _ => broken,
        }
    }

    /// Why stdout closed: an exit with its status if the process is gone (given a moment to be
    /// reaped), else a bot that closed stdout but lives on.
    pub(super) async fn closed_error(&mut self) -> BotError {
        let status: Option<ExitStatus> =
            match tokio::time::timeout(Duration::from_millis(200), self.child.wait()).await {
                Ok(Ok(status)) => Some(status),
                _ => None,
            };
        // Let the stderr reader catch up so the message can quote the bot's last words.
        tokio::time::sleep(Duration::from_millis(20)).await;
        let stderr_tail = self.stderr.tail();
        match status {
            Some(status) => BotError::Exited {
                status: match self.caps_hit(&status) {
                    Some(limit) => format!("{}: {limit}", exit_words(&status, true)),
                    None => exit_words(&status, false),
                },
                stderr_tail,
            },
            None => BotError::ClosedStdout { stderr_tail },
        }
    }
}

/// How a bot's process ended, as its author needs it: its status, and for a signal — sent to
/// it, or to a program it ran whose shell or sandbox passed it on as `128 + n` — which one, by
/// name, and whether koth sent it: never while an answer is expected (koth kills a bot only
/// after its fault), though a cap of koth's containment may have (`capped`, then named beside).
fn exit_words(status: &ExitStatus, capped: bool) -> String {
    use std::os::unix::process::ExitStatusExt;
    let signal = status.signal().or_else(|| {
        status
            .code()
            .filter(|c| (129..=128 + 64).contains(c))
            .map(|c| c - 128)
    });
    let Some(signal) = signal else {
        return status.to_string();
    };
    let named = match nix::sys::signal::Signal::try_from(signal) {
        Ok(name) => format!("killed by signal {signal} ({})", name.as_str()),
        Err(_) => format!("killed by signal {signal}"),
    };
    let sender = if capped { "" } else { ", not sent by koth" };
    match status.code() {
        Some(code) => format!("exit status: {code}, that is 128 + {signal}: {named}{sender}"),
        None => format!("{named}{sender}"),
    }
}

impl Drop for BotProcess {
    fn drop(&mut self) {
        // A bot dropped without finish() (a game that bailed out, a panic) must not outlive it.
        kill_group(self.pgid);
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::process::ExitStatusExt;

    use super::*;

    #[test]
    fn an_exit_by_a_signal_names_it_even_when_a_shell_or_the_sandbox_passed_it_on() {
        // A wait status: an exit code in the second byte, a signal in the first.
        let exited = |code: i32| ExitStatus::from_raw(code << 8);
        assert_eq!(exit_words(&exited(1), false), "exit status: 1");
        assert_eq!(
            exit_words(&exited(137), false),
            "exit status: 137, that is 128 + 9: killed by signal 9 (SIGKILL), not sent by koth"
        );
        assert_eq!(
            exit_words(&ExitStatus::from_raw(11), false),
            "killed by signal 11 (SIGSEGV), not sent by koth"
        );
        assert_eq!(
            exit_words(&exited(137), true),
            "exit status: 137, that is 128 + 9: killed by signal 9 (SIGKILL)"
        );
    }
}
