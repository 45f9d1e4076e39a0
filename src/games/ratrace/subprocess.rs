//! A player that is an external process speaking the subprocess protocol, through its seat.
//!
//! The engine is synchronous and runs on plain threads (one per job). Each job's player owns a
//! single-threaded tokio runtime and blocks on it for every prompt: the pipes and the timer then
//! all run on the job's own thread, so a turn costs two context switches (to the bot and back)
//! rather than hand-offs between runtime workers too, which on a busy machine dominated the time
//! per board. One process serves every board its job plays; after a fault it is gone, and the
//! next board starts a fresh one (the seat's [`Restart::AfterFault`]).

use std::time::Duration;

use tokio::runtime::Runtime;

use super::player::{Ask, Move, Player, PlayerFault};
use super::protocol;
use super::track::View;
use crate::bot::seat::At;
use crate::bot::{BotError, FaultKind, Limits, Restart, Seat, SeatOptions};

/// The size asked for the player's pipes: a `TURN` message is 52 bytes per specimen, and
/// populations that explode reach thousands of specimens (3,000 make 156 kB).
const PIPE_BYTES: usize = 1 << 20;

/// How the rat race seats its bot: one process for board after board, a fresh one after a
/// fault, and pipes large enough for a turn's message.
pub(crate) fn seat_options(limits: Limits) -> SeatOptions {
    SeatOptions {
        pipe_bytes: Some(PIPE_BYTES),
        ..SeatOptions::new(limits, Restart::AfterFault)
    }
}

pub(crate) struct SubprocessPlayer {
    seat: Seat,
    runtime: Runtime,
    /// The `TURN` message, rebuilt in place every turn.
    message: Vec<u8>,
    /// The text of every cell's view on the current board.
    view_texts: Vec<protocol::ViewText>,
}

impl SubprocessPlayer {
    pub(crate) fn new(seat: Seat) -> anyhow::Result<Self> {
        Ok(SubprocessPlayer {
            seat,
            runtime: crate::game::runtime()?,
            message: Vec::new(),
            view_texts: Vec::new(),
        })
    }

    /// Closes the bot's input and waits for it to exit; returns its seat, with its faults and
    /// the timings of all its answers.
    pub(crate) fn finish(mut self) -> Seat {
        self.runtime.block_on(self.seat.finish(""));
        self.seat
    }

    /// A fault the seat recorded, as the board's record states it.
    fn bot_fault(error: &BotError) -> PlayerFault {
        PlayerFault {
            kind: error.kind(),
            reason: error.root().to_string(),
        }
    }
}

impl Player for SubprocessPlayer {
    fn begin_board(&mut self, board: usize, seed: u64, views: &[View]) -> Result<(), PlayerFault> {
        self.view_texts = protocol::view_texts(views);
        self.runtime.block_on(self.seat.begin(board as u32));
        self.seat
            .send(&protocol::begin_line(board, seed))
            .map_err(|e| Self::bot_fault(&e))
    }

    fn moves(&mut self, turn: u32, asks: &[Ask], out: &mut Vec<Move>) -> Result<(), PlayerFault> {
        protocol::write_turn(turn, asks, &self.view_texts, &mut self.message);
        let asked = self
            .seat
            .ask(protocol::as_text(&self.message), At::turn(turn));
        let answer = self
            .runtime
            .block_on(asked)
            .map_err(|e| Self::bot_fault(&e))?;
        protocol::parse_moves(&answer.line, asks.len(), out).map_err(|reason| {
            self.seat
                .fault(FaultKind::BadOutput, Some(turn), reason.clone());
            // The process is killed, so the next board starts a new one.
            self.runtime.block_on(self.seat.stop());
            PlayerFault {
                kind: FaultKind::BadOutput,
                reason,
            }
        })
    }

    fn process_cpu(&self) -> Option<Duration> {
        self.seat.cpu_time()
    }

    fn end_board(&mut self, board: usize, points: u64) {
        // Queued: it goes out with the next board's first prompt, or when the run ends. A bot
        // stopped by a fault hears nothing more.
        let _ = self.seat.send(&protocol::end_line(board, points));
    }
}
