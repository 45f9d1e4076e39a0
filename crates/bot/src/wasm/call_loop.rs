//! Calling one export of a directly called module many times in one entry into it: the caller
//! writes each call's arguments as a record, and a loop in WebAssembly calls the export once
//! per record and writes its result there.
//!
//! A call from koth into a module costs several times the work of a small function (entering
//! the store, setting up its trap handling), so a game that calls an export per item of a turn
//! enters the module once a turn. Where it can, koth writes the loop into the bot's own module
//! when it loads it (`loop_code.rs`, `with_loop`: one function, one memory of records and their two exports
//! added, nothing else changed), so the engine inlines the export into the loop: no call, no
//! stack-limit check, no context switch per item. Where it cannot (a contained bot's module is
//! compiled only by its build's contained compiler, which compiles the module as it is), the
//! same loop is a small module of its own, instantiated beside the bot's and calling its export
//! through an import. Either way the loop's own few instructions per call burn fuel, the same
//! on every machine, and every trap is the instance's fault.

use wasmtime::{FuncType, Memory, TypedFunc, ValType};

use super::direct::{DirectInstance, fault};
use super::engine::engine;
use super::loop_code::{LOOP_EXPORT, Looped, RECORDS_EXPORT, loop_module};
use crate::BotError;

/// A loop over one export of a [`DirectInstance`] (see the module's documentation).
///
/// A record (see [`Looped`]) holds argument k at the sum of the sizes before it,
/// little-endian; the `i32` results of a run follow its records, one after the other.
pub struct CallLoop {
    run: TypedFunc<i32, ()>,
    memory: Memory,
    record: usize,
}

impl CallLoop {
    /// A loop over `instance`'s export `looped`, a function of its arguments (each `i32` or
    /// `i64`) to an `i32`; an error naming it if it is missing or of another type.
    pub fn new(instance: &mut DirectInstance, looped: &Looped) -> Result<CallLoop, BotError> {
        let record = looped.record();
        if instance
            .looped
            .as_ref()
            .is_some_and(|written| written.is(looped))
        {
            // The loop written into the module itself (`with_loop`).
            let run = instance.func(LOOP_EXPORT)?;
            let memory = instance
                .instance
                .get_memory(&mut instance.store, RECORDS_EXPORT)
                .expect("the rewritten module exports its records");
            return Ok(CallLoop {
                run,
                memory,
                record,
            });
        }
        let refused = |reason: String| BotError::Spawn {
            command: instance.name.clone(),
            reason,
        };
        let name = &looped.name;
        let Some(export) = instance.instance.get_func(&mut instance.store, name) else {
            return Err(refused(format!("it exports no function `{name}`")));
        };
        let wanted = FuncType::new(engine(), looped.params.iter().cloned(), [ValType::I32]);
        if !FuncType::eq(&export.ty(&instance.store), &wanted) {
            return Err(refused(format!(
                "its export `{name}` is not of the type koth calls: {wanted}"
            )));
        }
        let module = loop_module(looped);
        let looping = wasmtime::Instance::new(&mut instance.store, &module, &[export.into()])
            .map_err(|e| fault(e, instance.fuel, instance.wall, &instance.stderr))?;
        let run = looping
            .get_typed_func(&mut instance.store, "run")
            .expect("the loop exports run(i32)");
        let memory = looping
            .get_memory(&mut instance.store, "memory")
            .expect("the loop exports its memory");
        Ok(CallLoop {
            run,
            memory,
            record,
        })
    }

    /// The bytes of a record.
    pub fn record_bytes(&self) -> usize {
        self.record
    }

    /// Grows the records' memory to hold at least `bytes` (within the instance's memory cap).
    /// A run over `calls` records needs `calls × (record + 4)` bytes: the records and their
    /// results.
    pub fn reserve(&self, instance: &mut DirectInstance, bytes: usize) -> Result<(), BotError> {
        let size = self.memory.data_size(&instance.store);
        if bytes > size {
            let pages = (bytes - size).div_ceil(1 << 16) as u64;
            self.memory
                .grow(&mut instance.store, pages)
                .map_err(|e| fault(e, instance.fuel, instance.wall, &instance.stderr))?;
        }
        Ok(())
    }

    /// The records' memory, for the caller to write records in.
    pub fn records<'a>(&self, instance: &'a mut DirectInstance) -> &'a mut [u8] {
        self.memory.data_mut(&mut instance.store)
    }

    /// The records' memory as it is.
    pub fn memory<'a>(&self, instance: &'a DirectInstance) -> &'a [u8] {
        self.memory.data(&instance.store)
    }

    /// Calls the export once per record of the first `calls` (written through
    /// [`CallLoop::records`], room made for their results by [`CallLoop::reserve`]), in order, under the
    /// instance's budget; their results are then read with [`CallLoop::results`].
    pub fn run(&self, instance: &mut DirectInstance, calls: usize) -> Result<(), BotError> {
        let count = i32::try_from(calls).expect("records fit in a 32-bit memory");
        instance.call(&self.run, count)
    }

    /// The first `calls` records, and the results of the last run over them: each an `i32`,
    /// little-endian, in the records' order.
    pub fn results<'a>(
        &self,
        instance: &'a mut DirectInstance,
        calls: usize,
    ) -> (&'a mut [u8], &'a [u8]) {
        let (records, rest) = self
            .memory
            .data_mut(&mut instance.store)
            .split_at_mut(calls * self.record);
        (records, &rest[..calls * 4])
    }
}

#[cfg(test)]
mod tests {
    use wasmtime::ValType;

    use super::CallLoop;
    use crate::wasm::loop_code::{Looped, tests::module_taking_names};
    use crate::wasm::{Compile, DirectInstance, DirectModule, DirectSetup};
    use crate::{Limits, StderrLog};

    /// `f` through a [`CallLoop`] over six records, for the module of
    /// [`module_taking_names`]: whether koth wrote the loop into it, and the six results.
    fn six_calls(names_taken: bool) -> (bool, Vec<i32>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bot.wasm");
        std::fs::write(&path, module_taking_names(names_taken)).unwrap();
        let looped = Looped::new("f", &[ValType::I64, ValType::I32]);
        let module = DirectModule::load(&path, Compile::Here, looped.clone()).unwrap();
        let setup = DirectSetup {
            stderr: StderrLog::discard(),
            memory_bytes: 1 << 20,
            seed: 0,
        };
        let mut instance = DirectInstance::start(&module, setup, &Limits::default()).unwrap();
        let written_in = instance.looped.is_some();
        let calls = CallLoop::new(&mut instance, &looped).unwrap();
        calls.reserve(&mut instance, 6 * (16 + 4)).unwrap();
        for (n, record) in calls.records(&mut instance)[..6 * 16]
            .chunks_exact_mut(16)
            .enumerate()
        {
            record[0..8].copy_from_slice(&(10 * n as i64).to_le_bytes());
            record[8..12].copy_from_slice(&(n as i32).to_le_bytes());
        }
        calls.run(&mut instance, 6).unwrap();
        let results = calls
            .results(&mut instance, 6)
            .1
            .chunks_exact(4)
            .map(|result| i32::from_le_bytes(result.try_into().unwrap()))
            .collect();
        (written_in, results)
    }

    #[test]
    fn a_module_that_already_exports_koths_names_is_called_through_a_loop_of_its_own() {
        let answers = vec![-7, 11, 22, 33, 44, 55];
        assert_eq!(six_calls(false), (true, answers.clone()));
        // Its own `koth:call-loop` traps if called, and its `koth:call-records` is its own
        // memory: koth calls neither, and calls `f` through the loop module instead.
        assert_eq!(six_calls(true), (false, answers));
    }
}
