//! A player that is an external process speaking the subprocess protocol.
//!
//! The engine is synchronous and runs on plain threads (one per job). Each job's player owns a
//! single-threaded tokio runtime and blocks on it for every prompt: the pipes and the timer then
//! all run on the job's own thread, so a turn costs two context switches (to the bot and back)
//! rather than hand-offs between runtime workers too, which on a busy machine dominated the time
//! per board. One process serves every board its job plays; after a fault it is gone, and the
//! next board starts a fresh one.

use std::path::PathBuf;
use std::time::Duration;

use tokio::runtime::Runtime;

use super::player::{Ask, Move, Player, PlayerFault};
use super::protocol;
use super::track::View;
use crate::bot::process::{AnswerStats, STDERR_CAP, cpu_time};
use crate::bot::{BotError, BotProcess, BotSpec, FaultKind, StderrLog};

/// The size asked for the player's pipes: a `TURN` message is 52 bytes per specimen, and
/// populations that explode reach thousands of specimens (3,000 make 156 kB).
const PIPE_BYTES: usize = 1 << 20;

pub struct SubprocessPlayer {
    spec: BotSpec,
    runtime: Runtime,
    limit: Duration,
    /// Where this job's stderr logs go: `<stem>-<n>.log`, one per process started.
    stderr_stem: PathBuf,
    started: usize,
    process: Option<BotProcess>,
    /// Answer timings of the processes already gone.
    stats: AnswerStats,
    /// The `TURN` message, rebuilt in place every turn.
    message: Vec<u8>,
    /// The text of every cell's view on the current board.
    view_texts: Vec<protocol::ViewText>,
}

impl SubprocessPlayer {
    pub fn new(spec: BotSpec, limit: Duration, stderr_stem: PathBuf) -> anyhow::Result<Self> {
        let runtime = crate::game::match_runtime()?;
        Ok(SubprocessPlayer {
            spec,
            runtime,
            limit,
            stderr_stem,
            started: 0,
            process: None,
            stats: AnswerStats::default(),
            message: Vec::new(),
            view_texts: Vec::new(),
        })
    }

    /// Closes the bot's input and waits for it to exit; returns the timings of all its answers.
    pub fn finish(mut self) -> AnswerStats {
        if let Some(process) = self.process.take() {
            self.stats.merge(process.stats());
            self.runtime.block_on(process.finish(self.limit));
        }
        self.stats
    }

    fn kill(&mut self, process: BotProcess) {
        self.stats.merge(process.stats());
        self.runtime.block_on(process.kill());
    }

    /// Records a fault: the process is killed, so the next board starts a new one.
    fn fault(&mut self, kind: FaultKind, reason: String) -> PlayerFault {
        if let Some(process) = self.process.take() {
            self.kill(process);
        }
        PlayerFault { kind, reason }
    }

    fn bot_fault(&mut self, error: BotError) -> PlayerFault {
        self.fault(error.kind(), error.to_string())
    }
}

impl Player for SubprocessPlayer {
    fn begin_board(&mut self, board: usize, seed: u64, views: &[View]) -> Result<(), PlayerFault> {
        self.view_texts = protocol::view_texts(views);
        if self.process.is_none() {
            self.started += 1;
            let path = self.stderr_stem.with_file_name(format!(
                "{}-{}.log",
                self.stderr_stem
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                self.started
            ));
            let log = StderrLog::create(&path, STDERR_CAP).unwrap_or_else(|_| StderrLog::discard());
            let _guard = self.runtime.enter();
            match BotProcess::spawn_with_pipes(&self.spec, &log, PIPE_BYTES) {
                Ok(process) => self.process = Some(process),
                Err(e) => return Err(self.bot_fault(e)),
            }
        }
        let process = self.process.as_mut().expect("started above");
        let sent = process.send(&protocol::begin_line(board, seed));
        sent.map_err(|e| self.bot_fault(e))
    }

    fn moves(&mut self, turn: u32, asks: &[Ask], out: &mut Vec<Move>) -> Result<(), PlayerFault> {
        protocol::write_turn(turn, asks, &self.view_texts, &mut self.message);
        let Some(process) = self.process.as_mut() else {
            return Err(self.fault(FaultKind::Crashed, "is not running".into()));
        };
        let answer = match self
            .runtime
            .block_on(process.ask(protocol::as_text(&self.message), self.limit))
        {
            Ok(answer) => answer,
            Err(e) => return Err(self.bot_fault(e)),
        };
        protocol::parse_moves(&answer.line, asks.len(), out)
            .map_err(|reason| self.fault(FaultKind::BadOutput, reason))
    }

    fn process_cpu(&self) -> Option<Duration> {
        cpu_time(self.process.as_ref()?.pid())
    }

    fn end_board(&mut self, board: usize, points: u64) {
        if let Some(process) = self.process.as_mut() {
            // Queued: it goes out with the next board's first prompt, or when the run ends.
            let _ = process.send(&protocol::end_line(board, points));
        }
    }
}
