//! A player that is a WASI module koth calls directly, per specimen, with no text at all
//! (`[protocols] ratrace = "direct"` in a WASI bot's `bot.toml`; docs/games/ratrace.md).
//!
//! The module exports, in C terms:
//!
//! ```text
//! memory                                      its linear memory
//! int32_t ratrace_views(void)                 where koth writes a board's views: 795 × 25
//!                                             bytes, cell 53·y + x, each view row by row for
//!                                             dy = −2..2, dx = −2..2; a colour 0..15, or −1
//!                                             beyond the track's edges
//! int32_t ratrace_move(int64_t genome_low,    a specimen's move: genome bits 0..63 and 64..99,
//!                      int64_t genome_high,   and its cell; answers 3·(dy+1) + (dx+1), 0..8
//!                      int32_t cell)
//! void ratrace_board(int32_t board,           optional: called once the views are written, with
//!                    int64_t seed)            the board's number and seed
//! ```
//!
//! At each board's start koth calls `ratrace_views`, writes the views there and calls
//! `ratrace_board`; each turn it calls `ratrace_move` once per living specimen, in the order of
//! the text protocol's lines. A turn (and a board's start) is one answer's budget: its fuel is
//! [`koth_bot::Limits::answer_fuel`], its wall-clock backstop the answer's limit. A trap, a
//! budget burnt or a move code out of range ends the board with a fault, recorded as a
//! process's is; the next board starts a fresh instance.

use wasmtime::ValType;

use super::player::{Move, Player, PlayerFault, Specimen};
use super::protocol::MOVE_CODES;
use super::track::{CELLS, View};
use koth_bot::wasm::{CallLoop, Compile, DirectInstance, DirectModule, DirectSetup, Looped};
use koth_bot::{BotError, BotSpec, FaultKind, Limits, Seat, StderrLog};

/// The export koth writes a board's views at.
pub(crate) const VIEWS_EXPORT: &str = "ratrace_views";
/// The export koth calls per specimen.
pub(crate) const MOVE_EXPORT: &str = "ratrace_move";
/// The optional export koth calls at a board's start.
pub(crate) const BOARD_EXPORT: &str = "ratrace_board";

/// The arguments of `ratrace_move`.
const MOVE_PARAMS: [ValType; 3] = [ValType::I64, ValType::I64, ValType::I32];

/// The bytes of a call's record in the loop over `ratrace_move` (see [`CallLoop`]): the
/// genome's two words and the cell (the moves answered follow the records).
const RECORD: usize = 24;

/// The move of each code `ratrace_move` may answer, 0 to 8, and (0, 0) for 9 to 15: a code
/// is looked up here as `code & 15` once every code is known to be below 9, with no check of
/// its own.
const MOVES_BY_CODE: [Move; 16] = {
    let mut moves = [(0, 0); 16];
    let mut code = 0;
    while code < MOVE_CODES.len() {
        moves[code] = MOVE_CODES[code];
        code += 1;
    }
    moves
};

/// A started instance and the exports koth calls.
struct Started {
    instance: DirectInstance,
    views: wasmtime::TypedFunc<(), i32>,
    board: Option<wasmtime::TypedFunc<(i32, i64), ()>>,
    /// `ratrace_move`, called through a loop (see [`CallLoop`]).
    moves: CallLoop,
}

impl Started {
    /// An instance of `module` with the exports of the direct call, under `limits`.
    fn start(
        module: &DirectModule,
        setup: DirectSetup,
        limits: &Limits,
    ) -> Result<Started, BotError> {
        let mut instance = DirectInstance::start(module, setup, limits)?;
        Ok(Started {
            views: instance.func(VIEWS_EXPORT)?,
            board: instance.optional_func(BOARD_EXPORT)?,
            moves: CallLoop::new(&mut instance, MOVE_EXPORT, &MOVE_PARAMS)?,
            instance,
        })
    }
}

/// Whether `spec`'s module can be called directly: it loads and exports what the direct call
/// needs. Asked before any board is played, so that a module without its exports is one error.
pub(crate) fn check(spec: &BotSpec) -> anyhow::Result<()> {
    let module = load(spec)?;
    let setup = DirectSetup::of(spec, StderrLog::discard(), 0);
    Started::start(&module, setup, &Limits::default())
        .map(drop)
        .map_err(|e| anyhow::anyhow!("{spec}: `[protocols] ratrace = \"direct\"`: {e}"))
}

fn load(spec: &BotSpec) -> anyhow::Result<DirectModule> {
    let path = spec.wasm_module().ok_or_else(|| {
        anyhow::anyhow!("{spec}: the direct call is for a WASI bot (`wasm = …` in its bot.toml)")
    })?;
    let looped = Looped {
        name: MOVE_EXPORT.into(),
        params: MOVE_PARAMS.to_vec(),
    };
    DirectModule::load(&path, Compile::for_bot(spec), looped)
        .map_err(|e| anyhow::anyhow!("{spec}: {e:#}"))
}

pub(crate) struct DirectPlayer {
    /// The bot's files and faults (no process is ever started in it).
    seat: Seat,
    spec: BotSpec,
    /// The module, or why it could not be loaded (then every board is a fault).
    module: Result<DirectModule, String>,
    limits: Limits,
    started: Option<Started>,
    /// The board's views as bytes, written into the module's memory.
    view_bytes: Vec<u8>,
}

impl DirectPlayer {
    pub(crate) fn new(seat: Seat, spec: BotSpec, limits: Limits) -> DirectPlayer {
        DirectPlayer {
            module: load(&spec).map_err(|e| format!("{e:#}")),
            seat,
            spec,
            limits,
            started: None,
            view_bytes: Vec::with_capacity(CELLS * 25),
        }
    }

    /// Returns the bot's seat, with its faults.
    pub(crate) fn finish(self) -> Seat {
        self.seat
    }

    /// Records a fault in `turn` (none: the board's start) and drops the instance.
    fn fail(&mut self, turn: Option<u32>, kind: FaultKind, reason: String) -> PlayerFault {
        self.started = None;
        self.seat.fault(kind, turn, reason.clone());
        PlayerFault { kind, reason }
    }

    fn bot_fail(&mut self, turn: Option<u32>, error: &BotError) -> PlayerFault {
        self.fail(turn, error.kind(), error.to_string())
    }

    /// Starts an instance for `board`, seeded by its `seed`, if none runs.
    fn start(&mut self, board: usize, seed: u64) -> Result<(), PlayerFault> {
        if self.started.is_some() {
            return Ok(());
        }
        let module = match &self.module {
            Ok(module) => module,
            Err(reason) => {
                let reason = format!("failed to start: {reason}");
                return Err(self.fail(None, FaultKind::FailedToStart, reason));
            }
        };
        let setup = DirectSetup::of(
            &self.spec,
            self.seat.stderr().clone(),
            koth_bot::wasm::seed(seed, &self.spec.name, board as u32),
        );
        match Started::start(module, setup, &self.limits) {
            Ok(started) => {
                self.started = Some(started);
                Ok(())
            }
            Err(error) => Err(self.bot_fail(None, &error)),
        }
    }
}

impl Player for DirectPlayer {
    fn begin_board(&mut self, board: usize, seed: u64, views: &[View]) -> Result<(), PlayerFault> {
        self.seat.enter_round(board as u32);
        self.start(board, seed)?;
        self.view_bytes.clear();
        self.view_bytes
            .extend(views.iter().flatten().map(|&colour| colour as u8));
        let Started {
            instance,
            views,
            board: begin,
            ..
        } = self.started.as_mut().expect("started just now");
        instance.budget(&self.limits);
        let address = match instance.call(views, ()) {
            Ok(address) => address as u32,
            Err(error) => return Err(self.bot_fail(None, &error)),
        };
        if let Err(reason) = instance.write(address, &self.view_bytes) {
            let reason = format!("{VIEWS_EXPORT} answered an address out of its memory: {reason}");
            return Err(self.fail(None, FaultKind::BadOutput, reason));
        }
        if let Some(begin) = begin
            && let Err(error) = instance.call(begin, (board as i32, seed as i64))
        {
            return Err(self.bot_fail(None, &error));
        }
        Ok(())
    }

    fn moves(
        &mut self,
        turn: u32,
        specimens: &[Specimen],
        out: &mut Vec<Move>,
    ) -> Result<(), PlayerFault> {
        let Some(started) = self.started.as_mut() else {
            return Err(self.bot_fail(Some(turn), &BotError::NotRunning));
        };
        let Started {
            instance, moves, ..
        } = started;
        instance.budget(&self.limits);
        let records = match moves.records(instance, specimens.len()) {
            Ok(records) => records,
            Err(error) => return Err(self.bot_fail(Some(turn), &error)),
        };
        debug_assert_eq!(moves.record_bytes(), RECORD);
        // Records of a size known here, so that their bytes are written without bounds checks.
        let (records, _) = records.as_chunks_mut::<RECORD>();
        for (record, specimen) in records.iter_mut().zip(specimens) {
            record[0..8].copy_from_slice(&(specimen.genome as u64).to_le_bytes());
            record[8..16].copy_from_slice(&((specimen.genome >> 64) as u64).to_le_bytes());
            record[16..20].copy_from_slice(&u32::from(specimen.cell).to_le_bytes());
        }
        let codes = match moves.run(instance, specimens.len()) {
            Ok(codes) => codes,
            Err(error) => return Err(self.bot_fail(Some(turn), &error)),
        };
        // The codes are one array: their highest is found in vector registers, and then each
        // is looked up with no check of its own (a check and a clamp per specimen, read from
        // the records' strides, cost as much as writing the records).
        let (codes, _) = codes.as_chunks::<4>();
        let highest = codes
            .iter()
            .map(|&code| u32::from_le_bytes(code))
            .max()
            .unwrap_or(0);
        if (highest as usize) < MOVE_CODES.len() {
            out.extend(
                codes
                    .iter()
                    .map(|&code| MOVES_BY_CODE[(u32::from_le_bytes(code) & 15) as usize]),
            );
        } else {
            let (n, code) = codes
                .iter()
                .map(|&code| i32::from_le_bytes(code))
                .enumerate()
                .find(|&(_, code)| code as u32 as usize >= MOVE_CODES.len())
                .expect("a code out of range was read");
            let reason = format!(
                "{MOVE_EXPORT} answered {code} for specimen {} of {}: not a move code 0 to 8",
                n + 1,
                specimens.len()
            );
            return Err(self.fail(Some(turn), FaultKind::BadOutput, reason));
        }
        Ok(())
    }

    fn end_board(&mut self, _board: usize, _points: u64) {}
}
