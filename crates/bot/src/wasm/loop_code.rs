//! The loop's WebAssembly, for [`super::CallLoop`]: written into the bot's own module when koth
//! loads it ([`with_loop`]), or, where it cannot be, a small module of its own that calls the
//! bot's export through an import ([`loop_module`]). Both are the same loop function: each
//! record holds an export's arguments ([`Looped`]), and the `i32` answers follow the records,
//! one after the other.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use wasm_encoder::{
    BlockType, CodeSection, Encode, EntityType, ExportKind, ExportSection, Function,
    FunctionSection, ImportSection, MemArg, MemorySection, MemoryType, TypeSection,
    ValType as Type,
};
use wasmtime::{Module, ValType};

use super::engine::engine;

/// The export of the loop that [`with_loop`] writes into a module: `run(count)`.
pub(super) const LOOP_EXPORT: &str = "koth:call-loop";
/// The export of the memory of the records that [`with_loop`] adds to a module.
pub(super) const RECORDS_EXPORT: &str = "koth:call-records";

/// An export called through a loop: its name, its arguments (each `i32` or `i64`) and the
/// bytes of a record of them; it answers an `i32`.
#[derive(Debug, Clone)]
pub struct Looped {
    pub(super) name: String,
    pub(super) params: Vec<ValType>,
    /// From one record's start to the next's (see [`Looped::record`]).
    record: usize,
}

impl Looped {
    /// The export `name` of the arguments `params`, each record its arguments one after the
    /// other, each of its own size, rounded up to 8 bytes so that every record's `i64`s stay
    /// aligned.
    pub fn new(name: &str, params: &[ValType]) -> Looped {
        let record = params.iter().map(size).sum::<usize>().next_multiple_of(8);
        Looped {
            name: name.into(),
            params: params.to_vec(),
            record,
        }
    }

    /// The same with records `bytes` apart, so that a caller's own structures, laid out with
    /// the arguments first, can be the records and need no copy. `bytes` is a multiple of 8
    /// and holds the arguments (koth's own constant).
    pub fn spaced(self, bytes: usize) -> Looped {
        assert!(
            bytes >= self.record && bytes.is_multiple_of(8),
            "records of {bytes} bytes cannot hold {:?} aligned",
            self.params
        );
        Looped {
            record: bytes,
            ..self
        }
    }

    /// Whether `other` is the same export of the same type, with records as far apart.
    pub(super) fn is(&self, other: &Looped) -> bool {
        self.name == other.name
            && self.record == other.record
            && self.params.len() == other.params.len()
            && self
                .params
                .iter()
                .zip(&other.params)
                .all(|(a, b)| ValType::eq(a, b))
    }

    /// The bytes from one record's start to the next's. The results are not in it: they follow
    /// the records, 4 bytes each, so the caller reads them as one array.
    pub(super) fn record(&self) -> usize {
        self.record
    }
}

/// The bytes of an argument of type `param`.
fn size(param: &ValType) -> usize {
    match param {
        ValType::I64 => 8,
        _ => 4,
    }
}

/// The loop module over `looped` when it cannot be written into the bot's module: it imports
/// the function as `callee.function` and exports `memory` and `run(count)`. Compiled once per
/// signature.
pub(super) fn loop_module(looped: &Looped) -> Module {
    static LOOPS: OnceLock<Mutex<HashMap<Vec<u8>, Module>>> = OnceLock::new();
    let mut types = TypeSection::new();
    types.ty().function(types_of(&looped.params), [Type::I32]);
    types.ty().function([Type::I32], []);
    let mut imports = ImportSection::new();
    imports.import("callee", "function", EntityType::Function(0));
    let mut functions = FunctionSection::new();
    functions.function(1);
    let mut memories = MemorySection::new();
    memories.memory(RECORDS_MEMORY);
    let mut exports = ExportSection::new();
    exports.export("memory", ExportKind::Memory, 0);
    exports.export("run", ExportKind::Func, 1);
    let mut bodies = CodeSection::new();
    bodies.function(&loop_function(looped, 0, 0));
    let mut module = wasm_encoder::Module::new();
    module
        .section(&types)
        .section(&imports)
        .section(&functions)
        .section(&memories)
        .section(&exports)
        .section(&bodies);
    let bytes = module.finish();
    let mut loops = LOOPS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    loops
        .entry(bytes)
        .or_insert_with_key(|bytes| {
            Module::new(engine(), bytes).expect("koth's loop module is valid WebAssembly")
        })
        .clone()
}

/// The memory of the records: a page to start with, grown as a turn needs.
const RECORDS_MEMORY: MemoryType = MemoryType {
    minimum: 1,
    maximum: None,
    memory64: false,
    shared: false,
    page_size_log2: None,
};

/// The encoder's types of `params`.
fn types_of(params: &[ValType]) -> Vec<Type> {
    params
        .iter()
        .map(|param| match param {
            ValType::I64 => Type::I64,
            _ => Type::I32,
        })
        .collect()
}

/// How many calls one pass of the loop's first part makes: its bound, its fuel and epoch checks
/// and the spills of its addresses are paid once for this many records, and the engine
/// inlines each call (`engine.rs`).
const CALLS_PER_PASS: i32 = 4;

/// The loop's function, `run(count)`, calling function `callee` with the records in memory
/// `records`, [`CALLS_PER_PASS`] records a pass and then the rest one by one, each result
/// written into the array of `count` `i32`s that follows the records (so the caller reads the
/// turn's results with no stride, as one array):
///
/// ```text
/// run(count): result = count × record
///             for at in (0 .. count rounded down to a pass × record).step_by(pass × record):
///                 for k in 0 .. pass: call(at + k × record, result + 4k)
///                 result += 4 × pass
///             for at in (… .. count × record).step_by(record): call(at, result); result += 4
/// call(at, result): store_i32(result, callee(load(at), load(at + 8), …))
/// ```
fn loop_function(looped: &Looped, callee: u32, records: u32) -> Function {
    let record = looped.record() as i32;
    // Locals: 0 the count, 1 the record's address, 2 the end of the passes, 3 the end of the
    // records, 4 the result's address.
    let mut run = Function::new([(4, Type::I32)]);
    run.instructions()
        .local_get(0)
        .i32_const(record)
        .i32_mul()
        .local_tee(3)
        .local_set(4)
        .local_get(0)
        .i32_const(!(CALLS_PER_PASS - 1))
        .i32_and()
        .i32_const(record)
        .i32_mul()
        .local_set(2);
    for (end, calls) in [(2, CALLS_PER_PASS), (3, 1)] {
        run.instructions()
            .block(BlockType::Empty)
            .loop_(BlockType::Empty)
            .local_get(1)
            .local_get(end)
            .i32_ge_u()
            .br_if(1);
        for k in 0..calls {
            write_call(&mut run, looped, k, records, callee);
        }
        run.instructions()
            .local_get(1)
            .i32_const(calls * record)
            .i32_add()
            .local_set(1)
            .local_get(4)
            .i32_const(calls * 4)
            .i32_add()
            .local_set(4)
            .br(0)
            .end()
            .end();
    }
    run.instructions().end();
    run
}

/// The `k`-th call of a pass into `run`: the arguments loaded from the `k`-th record after the
/// pass's address (local 1), the callee called, and the result stored at the pass's result
/// address (local 4) plus `4k`.
fn write_call(run: &mut Function, looped: &Looped, k: i32, records: u32, callee: u32) {
    let base = k as usize * looped.record();
    let at = |offset: usize, size: usize| MemArg {
        offset: (base + offset) as u64,
        align: if offset.is_multiple_of(size) {
            size.trailing_zeros()
        } else {
            0
        },
        memory_index: records,
    };
    let mut code = run.instructions();
    code.local_get(4);
    let mut offset = 0;
    for param in &looped.params {
        code.local_get(1);
        match param {
            ValType::I64 => code.i64_load(at(offset, 8)),
            _ => code.i32_load(at(offset, 4)),
        };
        offset += size(param);
    }
    code.call(callee).i32_store(MemArg {
        offset: 4 * k as u64,
        align: 2,
        memory_index: records,
    });
}

/// `bytes` (a module) with the loop over its export `looped` written in: a type, the loop's
/// function, a memory of records (the module's last), and their exports [`LOOP_EXPORT`] and
/// [`RECORDS_EXPORT`], each appended at the end of its section, so that no index the module's
/// own code uses moves. `None` where the loop cannot be written in: the module does not define
/// the export with the type koth calls, has no memory or code of its own, or already uses the
/// names (the caller then reports what is missing, or calls through a loop module of its own).
///
/// The module is a stranger's: it is only read here, and what is invalid in it is an error
/// (the caller validates it whole before compiling the rewrite, which could make valid what
/// was not, say a call to the function added).
pub(super) fn with_loop(bytes: &[u8], looped: &Looped) -> anyhow::Result<Option<Vec<u8>>> {
    let Some(layout) = Layout::of(bytes, looped)? else {
        return Ok(None);
    };
    // The loop's type, `(i32) -> ()`: a function type, its one `i32` parameter, no result.
    let added_type: [u8; 4] = [0x60, 1, 0x7f, 0];
    let run = layout.functions;
    let records = layout.memories;
    let mut added_function = Vec::new();
    layout.types.encode(&mut added_function);
    let mut added_memory = Vec::new();
    RECORDS_MEMORY.encode(&mut added_memory);
    let mut added_exports = Vec::new();
    LOOP_EXPORT.encode(&mut added_exports);
    ExportKind::Func.encode(&mut added_exports);
    run.encode(&mut added_exports);
    RECORDS_EXPORT.encode(&mut added_exports);
    ExportKind::Memory.encode(&mut added_exports);
    records.encode(&mut added_exports);
    let mut added_code = Vec::new();
    loop_function(looped, layout.callee, records).encode(&mut added_code);

    let mut out = bytes[..8].to_vec();
    let mut reader = wasmparser::BinaryReader::new(bytes, 0);
    reader.read_bytes(8)?;
    while !reader.eof() {
        let id = reader.read_u8()?;
        let size = reader.read_var_u32()? as usize;
        let content = reader.read_bytes(size)?;
        let added: Option<(u32, &[u8])> = match id {
            TYPE_SECTION => Some((1, &added_type)),
            FUNCTION_SECTION => Some((1, &added_function)),
            MEMORY_SECTION => Some((1, &added_memory)),
            EXPORT_SECTION => Some((2, &added_exports)),
            CODE_SECTION => Some((1, &added_code)),
            _ => None,
        };
        let Some((more, added)) = added else {
            out.push(id);
            content.encode(&mut out);
            continue;
        };
        let mut entries = wasmparser::BinaryReader::new(content, 0);
        let count = entries.read_var_u32()?;
        let mut data = Vec::with_capacity(content.len() + added.len() + 5);
        (count + more).encode(&mut data);
        data.extend_from_slice(&content[entries.current_position()..]);
        data.extend_from_slice(added);
        out.push(id);
        data.encode(&mut out);
    }
    Ok(Some(out))
}

const TYPE_SECTION: u8 = 1;
const FUNCTION_SECTION: u8 = 3;
const MEMORY_SECTION: u8 = 5;
const EXPORT_SECTION: u8 = 7;
const CODE_SECTION: u8 = 10;

/// What [`with_loop`] needs of a module: its numbers of types, functions and memories (the
/// indices of what it appends), and the index of the function it calls.
struct Layout {
    types: u32,
    functions: u32,
    memories: u32,
    callee: u32,
}

impl Layout {
    /// The layout of `bytes`, if the loop over `looped` can be written into it.
    fn of(bytes: &[u8], looped: &Looped) -> anyhow::Result<Option<Layout>> {
        use wasmparser::{CompositeInnerType, ExternalKind, Payload, TypeRef};
        let wanted = parser_types(&looped.params);
        // Whether each type is the function type koth calls.
        let mut calls_type = Vec::new();
        // Each function's type.
        let mut function_types = Vec::new();
        let (mut memories, mut defined_memories, mut defined_functions) = (0u32, false, false);
        let (mut callee, mut names_taken) = (None, false);
        for payload in wasmparser::Parser::new(0).parse_all(bytes) {
            match payload? {
                Payload::TypeSection(section) => {
                    for group in section {
                        for ty in group?.into_types() {
                            calls_type.push(matches!(
                                &ty.composite_type.inner,
                                CompositeInnerType::Func(f)
                                    if f.params() == wanted.as_slice()
                                        && f.results() == [wasmparser::ValType::I32]
                            ));
                        }
                    }
                }
                Payload::ImportSection(section) => {
                    for import in section.into_imports() {
                        match import?.ty {
                            TypeRef::Func(ty) | TypeRef::FuncExact(ty) => function_types.push(ty),
                            TypeRef::Memory(_) => memories += 1,
                            _ => {}
                        }
                    }
                }
                Payload::FunctionSection(section) => {
                    defined_functions = true;
                    for ty in section {
                        function_types.push(ty?);
                    }
                }
                Payload::MemorySection(section) => {
                    defined_memories = true;
                    memories += section.count();
                }
                Payload::ExportSection(section) => {
                    for export in section {
                        let export = export?;
                        names_taken |= [LOOP_EXPORT, RECORDS_EXPORT].contains(&export.name);
                        if export.name == looped.name && export.kind == ExternalKind::Func {
                            callee = Some(export.index);
                        }
                    }
                }
                _ => {}
            }
        }
        let Some(callee) = callee else {
            return Ok(None);
        };
        let typed = function_types
            .get(callee as usize)
            .and_then(|&ty| calls_type.get(ty as usize))
            .is_some_and(|&calls| calls);
        if !typed || !defined_functions || !defined_memories || names_taken {
            return Ok(None);
        }
        Ok(Some(Layout {
            types: u32::try_from(calls_type.len())?,
            functions: u32::try_from(function_types.len())?,
            memories,
            callee,
        }))
    }
}

/// The parser's types of `params`.
fn parser_types(params: &[ValType]) -> Vec<wasmparser::ValType> {
    params
        .iter()
        .map(|param| match param {
            ValType::I64 => wasmparser::ValType::I64,
            _ => wasmparser::ValType::I32,
        })
        .collect()
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A module of a memory and `f(a: i64, b: i32) -> i32` (`a + b`, or -7 if `b` is 0),
    /// exported as `f`.
    fn module() -> Vec<u8> {
        module_taking_names(false)
    }

    /// [`module`], and if `taken`, with koth's two names already exported: [`LOOP_EXPORT`] a
    /// function `(i32) -> ()` that traps, [`RECORDS_EXPORT`] its memory.
    pub(in crate::wasm) fn module_taking_names(taken: bool) -> Vec<u8> {
        let mut types = TypeSection::new();
        types.ty().function([Type::I64, Type::I32], [Type::I32]);
        types.ty().function([Type::I32], []);
        let mut functions = FunctionSection::new();
        functions.function(0);
        functions.function(1);
        let mut memories = MemorySection::new();
        memories.memory(RECORDS_MEMORY);
        let mut exports = ExportSection::new();
        exports.export("memory", ExportKind::Memory, 0);
        exports.export("f", ExportKind::Func, 0);
        if taken {
            exports.export(LOOP_EXPORT, ExportKind::Func, 1);
            exports.export(RECORDS_EXPORT, ExportKind::Memory, 0);
        }
        // f(a, b) = a + b, or -7 if b is 0, through a local read before it is set (so zero at
        // each call) and a return out of a block.
        let mut f = Function::new([(1, Type::I32)]);
        f.instructions()
            .local_get(2)
            .local_get(1)
            .i32_add()
            .local_set(2)
            .block(BlockType::Empty)
            .local_get(2)
            .i32_eqz()
            .br_if(0)
            .local_get(0)
            .i32_wrap_i64()
            .local_get(2)
            .i32_add()
            .return_()
            .end()
            .i32_const(-7)
            .end();
        let mut trap = Function::new([]);
        trap.instructions().unreachable().end();
        let mut bodies = CodeSection::new();
        bodies.function(&f);
        bodies.function(&trap);
        let mut module = wasm_encoder::Module::new();
        module
            .section(&types)
            .section(&functions)
            .section(&memories)
            .section(&exports)
            .section(&bodies);
        module.finish()
    }

    fn looped(params: &[ValType]) -> Looped {
        Looped::new("f", params)
    }

    #[test]
    fn the_loop_written_into_a_module_calls_its_export_once_per_record() {
        let looped = looped(&[ValType::I64, ValType::I32]);
        assert_eq!(looped.record(), 16);
        let bytes = with_loop(&module(), &looped).unwrap().unwrap();
        let module = Module::new(engine(), &bytes).unwrap();
        let mut store = wasmtime::Store::new(engine(), ());
        store.set_fuel(1_000_000).unwrap();
        // Added to the engine's current epoch, which its ticker may have moved past 0 (another
        // test's): `u64::MAX` would wrap round to a deadline already past.
        store.set_epoch_deadline(u64::MAX / 2);
        let instance = wasmtime::Instance::new(&mut store, &module, &[]).unwrap();
        let records = instance.get_memory(&mut store, RECORDS_EXPORT).unwrap();
        let arguments = [
            (40i64, 2i32),
            (-1, 1),
            (7, 0),
            (1 << 40, 5),
            (-9, 9),
            (3, 4),
            (1, 1),
        ];
        let mut data = Vec::new();
        for (a, b) in arguments {
            data.extend_from_slice(&a.to_le_bytes());
            data.extend_from_slice(&b.to_le_bytes());
            data.extend_from_slice(&[0xff; 4]);
        }
        data.extend_from_slice(&[0xff; 64]);
        let run = instance
            .get_typed_func::<i32, ()>(&mut store, LOOP_EXPORT)
            .unwrap();
        // The results of `count` calls: `count + 1` `i32`s after the `count` records, the last
        // one past the results, where nothing is written.
        let results = |store: &wasmtime::Store<()>, count: usize| -> Vec<i32> {
            records.data(store)[16 * count..][..4 * (count + 1)]
                .chunks_exact(4)
                .map(|bytes| i32::from_le_bytes(bytes.try_into().unwrap()))
                .collect()
        };
        // Fewer calls than a pass: one by one.
        records.write(&mut store, 0, &data).unwrap();
        run.call(&mut store, 3).unwrap();
        assert_eq!(results(&store, 3), [42, 0, -7, -1]);
        // A pass of four, then two one by one.
        records.write(&mut store, 0, &data).unwrap();
        run.call(&mut store, 6).unwrap();
        assert_eq!(results(&store, 6), [42, 0, -7, 5, 0, 7, -1]);
        // The module's own export is as it was.
        let f = instance
            .get_typed_func::<(i64, i32), i32>(&mut store, "f")
            .unwrap();
        assert_eq!(f.call(&mut store, (1, 2)).unwrap(), 3);
    }

    #[test]
    fn no_loop_is_written_for_a_missing_export_or_another_type() {
        let module = module();
        assert!(
            with_loop(&module, &looped(&[ValType::I32]))
                .unwrap()
                .is_none()
        );
        let mut missing = looped(&[ValType::I64, ValType::I32]);
        missing.name = "g".into();
        assert!(with_loop(&module, &missing).unwrap().is_none());
        assert!(with_loop(b"\0asm\x01\0\0\0\x01\x05", &missing).is_err());
    }

    #[test]
    fn no_loop_is_written_into_a_module_that_already_exports_its_names() {
        let looped = looped(&[ValType::I64, ValType::I32]);
        assert!(
            with_loop(&module_taking_names(true), &looped)
                .unwrap()
                .is_none()
        );
    }
}
