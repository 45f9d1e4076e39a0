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

use super::player::{Answers, Keeper, Player, PlayerFault, Specimen};
use super::protocol::MOVE_CODES;
use super::rules::BRED_PER_TURN;
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

/// The loop over `ratrace_move` (see [`CallLoop`]): its records are the board's specimens,
/// kept in the loop's memory of records ([`Keeper`]), whose genome and cell come first, as
/// the move's arguments (the moves answered follow them).
fn looped() -> Looped {
    Looped::new(MOVE_EXPORT, &MOVE_PARAMS).spaced(RECORD)
}

/// The bytes of a specimen, and of a call's record.
const RECORD: usize = size_of::<Specimen>();

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
            moves: CallLoop::new(&mut instance, &looped())?,
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
    DirectModule::load(&path, Compile::for_bot(spec), looped())
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
    /// The instance faulted: it is never called again, and the next board starts a fresh one.
    /// Kept until then, since it keeps the faulted board's specimens.
    faulted: bool,
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
            faulted: false,
            view_bytes: Vec::with_capacity(CELLS * 25),
        }
    }

    /// Returns the bot's seat, with its faults.
    pub(crate) fn finish(self) -> Seat {
        self.seat
    }

    /// Records a fault in `turn` (none: the board's start); the instance is not called again.
    fn fail(&mut self, turn: Option<u32>, kind: FaultKind, reason: String) -> PlayerFault {
        fault_on(&mut self.seat, &mut self.faulted, turn, kind, reason)
    }

    fn bot_fail(&mut self, turn: Option<u32>, error: &BotError) -> PlayerFault {
        self.fail(turn, error.kind(), error.to_string())
    }

    /// Starts an instance for `board`, seeded by its `seed`, if none runs.
    fn start(&mut self, board: usize, seed: u64) -> Result<(), PlayerFault> {
        if running(&mut self.started, self.faulted).is_ok() {
            return Ok(());
        }
        self.started = None;
        self.faulted = false;
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

impl Started {
    /// Runs the loop over the first `count` specimens kept, in memory grown to hold them,
    /// their codes and the turn's children, under `limits`' budget; the first code out of
    /// range, with its place, if one is.
    fn run(&mut self, limits: &Limits, count: usize) -> Result<Option<(usize, i32)>, BotError> {
        let Started {
            instance, moves, ..
        } = self;
        instance.budget(limits);
        let bytes = (count * (RECORD + 4)).max((count + BRED_PER_TURN) * RECORD);
        moves.reserve(instance, bytes)?;
        moves.run(instance, count)?;
        let codes: &[u32] = bytemuck::cast_slice(moves.results(instance, count).1);
        // The codes are one array: their highest is found in vector registers, with no
        // branch per specimen; the board then reads each as the index of its move.
        let highest = codes.iter().map(|&code| u32::from_le(code)).max();
        if highest.is_none_or(|highest| (highest as usize) < MOVE_CODES.len()) {
            return Ok(None);
        }
        Ok(codes
            .iter()
            .map(|&code| u32::from_le(code) as i32)
            .enumerate()
            .find(|&(_, code)| code as u32 as usize >= MOVE_CODES.len()))
    }
}

/// The instance of `started`, unless none runs or it `faulted`. A function of the player's
/// fields, not of the player, so that a fault can be recorded in its other fields while the
/// instance is borrowed.
fn running(started: &mut Option<Started>, faulted: bool) -> Result<&mut Started, BotError> {
    match started {
        Some(started) if !faulted => Ok(started),
        _ => Err(BotError::NotRunning),
    }
}

/// Records a fault in `turn` (none: the board's start) on `seat`; the instance is `faulted`,
/// not called again.
fn fault_on(
    seat: &mut Seat,
    faulted: &mut bool,
    turn: Option<u32>,
    kind: FaultKind,
    reason: String,
) -> PlayerFault {
    *faulted = true;
    seat.fault(kind, turn, reason.clone());
    PlayerFault { kind, reason }
}

/// The records' bytes as specimens. The memory's base is page-aligned (wasmtime maps it), so
/// every record is aligned as a specimen.
fn as_specimens(bytes: &mut [u8]) -> &mut [Specimen] {
    let whole = bytes.len() / RECORD * RECORD;
    bytemuck::cast_slice_mut(&mut bytes[..whole])
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

    fn answers(&mut self) -> Answers<'_> {
        Answers::Codes(self)
    }

    fn end_board(&mut self, _board: usize, _points: u64) {}
}

impl Keeper for DirectPlayer {
    fn kept(&mut self, room: usize) -> Result<&mut [Specimen], PlayerFault> {
        let DirectPlayer {
            started,
            faulted,
            seat,
            ..
        } = self;
        let grown = running(started, *faulted).and_then(|started| {
            let Started {
                instance, moves, ..
            } = started;
            moves.reserve(instance, room * RECORD)?;
            Ok(as_specimens(moves.records(instance)))
        });
        grown.map_err(|error| fault_on(seat, faulted, None, error.kind(), error.to_string()))
    }

    fn codes(&mut self, turn: u32, count: usize) -> Result<(&mut [Specimen], &[u32]), PlayerFault> {
        let DirectPlayer {
            started,
            faulted,
            seat,
            limits,
            ..
        } = self;
        let ran = running(started, *faulted)
            .and_then(|started| Ok((started.run(limits, count)?, started)));
        let (kind, reason) = match ran {
            Ok((
                None,
                Started {
                    instance, moves, ..
                },
            )) => {
                let (specimens, codes) = moves.results(instance, count);
                return Ok((as_specimens(specimens), bytemuck::cast_slice(codes)));
            }
            Ok((Some((n, code)), _)) => (
                FaultKind::BadOutput,
                format!(
                    "{MOVE_EXPORT} answered {code} for specimen {} of {count}: not a move code \
                     0 to 8",
                    n + 1,
                ),
            ),
            Err(error) => (error.kind(), error.to_string()),
        };
        Err(fault_on(seat, faulted, Some(turn), kind, reason))
    }

    fn specimens(&self, count: usize) -> &[Specimen] {
        let Some(Started {
            instance, moves, ..
        }) = &self.started
        else {
            return &[];
        };
        let bytes = moves.memory(instance);
        let kept = bytes.len().min(count * RECORD);
        bytemuck::cast_slice(&bytes[..kept])
    }
}
