//! A player that is an external process speaking one of the subprocess protocols (text or
//! lean, as its `bot.toml` asks), through its seat.
//!
//! The engine is synchronous and runs on plain threads (one per job). Each job's player owns a
//! single-threaded tokio runtime and blocks on it for every prompt: the pipes and the timer then
//! all run on the job's own thread, so a turn costs two context switches (to the bot and back)
//! rather than hand-offs between runtime workers too, which on a busy machine dominated the time
//! per board. One process serves every board its job plays; after a fault it is gone, and the
//! next board starts a fresh one (the seat's [`Restart::AfterFault`]).

use std::time::Duration;

use tokio::runtime::Runtime;

use super::player::{Answers, Move, Mover, Player, PlayerFault, Specimen};
use super::protocol::{self, Protocol};
use super::track::View;
use koth_bot::seat::At;
use koth_bot::{BotError, FaultKind, Limits, Restart, Seat, SeatOptions};

/// The size asked for the player's pipes: a text `TURN` message is 52 bytes per specimen, and
/// populations that explode reach thousands of specimens (3,000 make 156 kB).
const PIPE_BYTES: usize = 1 << 20;

/// How the rat race seats its bot: one process for board after board, a fresh one after a
/// fault, and pipes large enough for a turn's message.
pub(crate) fn seat_options(limits: Limits, seed: u64) -> SeatOptions {
    SeatOptions {
        pipe_bytes: Some(PIPE_BYTES),
        // Its boards are its record (`--also-record`): jobs play them at once, and a board's
        // answers are thousands of lines.
        public_record: false,
        ..SeatOptions::new(limits, Restart::AfterFault, seed)
    }
}

pub(crate) struct SubprocessPlayer {
    seat: Seat,
    runtime: Runtime,
    /// The `TURN` message, rebuilt in place every turn.
    message: Vec<u8>,
    /// What the protocol keeps of the current board between turns.
    board: BoardState,
    /// Bytes of the messages written to the bot so far, for the board records.
    bytes_sent: u64,
}

/// A protocol's memory of the board being played.
enum BoardState {
    /// The text of every cell's view.
    Text(Vec<protocol::ViewText>),
    /// Who the bot has been told of.
    Lean(protocol::LeanState),
}

impl SubprocessPlayer {
    pub(crate) fn new(seat: Seat, protocol: Protocol) -> anyhow::Result<Self> {
        Ok(SubprocessPlayer {
            seat,
            runtime: koth_game::runtime()?,
            message: Vec::new(),
            board: match protocol {
                Protocol::Text => BoardState::Text(Vec::new()),
                Protocol::Lean => BoardState::Lean(protocol::LeanState::default()),
                Protocol::Direct => anyhow::bail!("the direct call is no subprocess protocol"),
            },
            bytes_sent: 0,
        })
    }

    /// Queues a line that needs no answer, counting its bytes and newline if it is to go out.
    fn send(&mut self, line: &str) -> Result<(), BotError> {
        self.seat.send(line)?;
        self.bytes_sent += line.len() as u64 + 1;
        Ok(())
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
        self.runtime.block_on(self.seat.begin(board as u32));
        self.send(&protocol::begin_line(board, seed))
            .map_err(|e| Self::bot_fault(&e))?;
        match &mut self.board {
            BoardState::Text(view_texts) => {
                *view_texts = protocol::view_texts(views);
                Ok(())
            }
            BoardState::Lean(state) => {
                *state = protocol::LeanState::default();
                self.send(&protocol::board_line(views))
                    .map_err(|e| Self::bot_fault(&e))
            }
        }
    }

    fn answers(&mut self) -> Answers<'_> {
        Answers::Moves(self)
    }

    fn process_cpu(&self) -> Option<Duration> {
        self.seat.cpu_time()
    }

    fn bytes_sent(&self) -> Option<u64> {
        Some(self.bytes_sent)
    }

    fn end_board(&mut self, board: usize, points: u64) {
        // Queued: it goes out with the next board's first prompt, or when the run ends. A bot
        // stopped by a fault hears nothing more.
        let _ = self.send(&protocol::end_line(board, points));
    }
}

impl Mover for SubprocessPlayer {
    fn moves(
        &mut self,
        turn: u32,
        specimens: &[Specimen],
        out: &mut Vec<Move>,
    ) -> Result<(), PlayerFault> {
        match &mut self.board {
            BoardState::Text(view_texts) => {
                protocol::write_turn(turn, specimens, view_texts, &mut self.message)
            }
            BoardState::Lean(state) => {
                protocol::write_lean_turn(turn, specimens, state, &mut self.message)
            }
        }
        self.bytes_sent += self.message.len() as u64 + 1;
        let answer = self
            .seat
            .ask_polled(
                protocol::as_text(&self.message),
                At::turn(turn),
                &self.runtime,
            )
            .map_err(|e| Self::bot_fault(&e))?;
        let parsed = match self.board {
            BoardState::Text(_) => protocol::parse_moves(&answer.line, specimens.len(), out),
            BoardState::Lean(_) => protocol::parse_lean_moves(&answer.line, specimens.len(), out),
        };
        parsed.map_err(|reason| {
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

    fn follows_fates(&self) -> bool {
        matches!(self.board, BoardState::Lean(_))
    }

    fn fates(&mut self, fates: &[u16]) {
        if let BoardState::Lean(state) = &mut self.board {
            state.note_fates(fates);
        }
    }
}
