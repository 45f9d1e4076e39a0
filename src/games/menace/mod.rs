//! The menace game (rules in `../shared/spec/menace.md`).

pub mod cli;
