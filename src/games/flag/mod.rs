//! The flag game (rules in `../shared/spec/flag.md`).

pub mod cli;
