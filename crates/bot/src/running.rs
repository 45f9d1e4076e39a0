//! A bot that runs: a process ([`BotProcess`]) or a WASI module in koth's own process
//! ([`WasmBot`]), behind the one set of calls the seat and `koth replay --drive` make, so
//! that neither, nor any game, tells them apart.

use std::path::Path;
use std::time::Duration;

use super::process::{Asked, Polled};
use super::wasm::{self, WasmBot};
use super::{Answer, AnswerStats, BotError, BotProcess, BotSpec, Ending, Limits, StderrLog};
use super::{Clock, Transcript};

/// A running bot of either kind. One per seat, moved rarely: the variants' sizes (a process
/// carries more) do not matter.
#[allow(clippy::large_enum_variant)]
pub enum Running {
    Process(BotProcess),
    Wasm(WasmBot),
}

/// What starting a bot needs beyond its spec and stderr.
pub struct Start<'a> {
    /// The bot's pipes enlarged to this many bytes (a process's; see
    /// [`BotProcess::spawn_with_pipes`]).
    pub pipe_bytes: Option<usize>,
    /// The match's limits: a WASI bot's fuel budgets.
    pub limits: &'a Limits,
    /// A WASI bot's scratch folder, its `/tmp`.
    pub scratch: Option<&'a Path>,
    /// The match's seed and the round it starts in, which seed a WASI bot's randomness.
    pub seed: u64,
    pub round: u32,
}

impl Running {
    /// Starts `spec`: its module in koth if it is a WASI bot, else its process.
    pub fn start(
        spec: &BotSpec,
        stderr: &StderrLog,
        start: Start<'_>,
    ) -> Result<Running, BotError> {
        if let Some(reason) = &spec.benched {
            return Err(BotError::Benched {
                reason: reason.clone(),
            });
        }
        match (spec.wasm_module(), start.scratch) {
            (Some(module), Some(scratch)) => WasmBot::start(
                spec,
                &module,
                scratch,
                stderr,
                start.limits,
                wasm::seed(start.seed, &spec.name, start.round),
            )
            .map(Running::Wasm),
            (Some(_), None) => Err(BotError::spawn(
                spec,
                "a WASI bot needs a scratch folder".into(),
            )),
            (None, _) => match start.pipe_bytes {
                Some(bytes) => BotProcess::spawn_with_pipes(spec, stderr, bytes),
                None => BotProcess::spawn(spec, stderr),
            }
            .map(Running::Process),
        }
    }

    pub fn set_clock(&mut self, clock: Clock) {
        match self {
            Running::Process(p) => p.set_clock(clock),
            Running::Wasm(w) => w.set_clock(clock),
        }
    }

    pub(crate) fn set_transcript(&mut self, transcript: Transcript) {
        match self {
            Running::Process(p) => p.set_transcript(transcript),
            Running::Wasm(w) => w.set_transcript(transcript),
        }
    }

    pub(crate) fn stats(&self) -> &AnswerStats {
        match self {
            Running::Process(p) => p.stats(),
            Running::Wasm(w) => w.stats(),
        }
    }

    pub(crate) fn is_stopped(&self) -> bool {
        match self {
            Running::Process(p) => p.is_stopped(),
            Running::Wasm(w) => w.is_stopped(),
        }
    }

    /// CPU time a process has used so far; a WASI bot's work is counted in fuel instead.
    pub(crate) fn cpu_time(&self) -> Option<Duration> {
        match self {
            Running::Process(p) => p.cpu_time(),
            Running::Wasm(_) => None,
        }
    }

    pub fn send(&mut self, line: &str) -> Result<(), BotError> {
        match self {
            Running::Process(p) => p.send(line),
            Running::Wasm(w) => w.send(line),
        }
    }

    pub(crate) fn prompt(&mut self, prompt: &str, limit: Duration) -> Result<Asked, BotError> {
        match self {
            Running::Process(p) => p.prompt(prompt, limit),
            Running::Wasm(w) => w.prompt(prompt, limit),
        }
    }

    pub(crate) async fn answer(&mut self, asked: Asked) -> Result<Answer, BotError> {
        match self {
            Running::Process(p) => p.answer(asked).await,
            Running::Wasm(w) => w.answer(asked).await,
        }
    }

    /// A process's answer if it comes quickly, waited for in `poll(2)` with no runtime (see
    /// [`BotProcess::answer_polled`]); else `asked` back, for [`Running::answer`] (a WASI
    /// bot's always: it answers in `answer`'s call).
    pub(crate) fn answer_polled(&mut self, asked: Asked) -> Polled {
        match self {
            Running::Process(p) => p.answer_polled(asked),
            Running::Wasm(_) => Polled::Slow(asked),
        }
    }

    pub async fn ask(&mut self, prompt: &str, limit: Duration) -> Result<Answer, BotError> {
        let asked = self.prompt(prompt, limit)?;
        self.answer(asked).await
    }

    pub async fn finish(self, limit: Duration, ending: Ending) -> Option<BotError> {
        match self {
            Running::Process(p) => p.finish(limit, ending).await,
            Running::Wasm(w) => w.finish(limit, ending).await,
        }
    }

    pub async fn kill(self) {
        match self {
            Running::Process(p) => p.kill().await,
            Running::Wasm(w) => w.kill().await,
        }
    }
}
