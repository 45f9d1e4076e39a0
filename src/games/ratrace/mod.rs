//! The ratrace game (rules in `../shared/spec/ratrace.md`).

pub mod cli;
