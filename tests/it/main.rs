//! koth's integration tests, one module per subject, in one test binary: each binary links the
//! whole of koth and its dependencies again, and seventeen of them spent most of the suite's
//! build linking.

mod bot_process;
mod bounded_records;
mod cli;
mod containment;
mod containment_edges;
mod damaged_input;
mod dashboard;
mod dashboard_guard;
mod docs;
mod flag_game;
mod fuzz_readers;
mod game_doors;
mod gauntlet;
mod hill;
mod hill_config;
mod hill_pages;
mod hill_postgres;
mod hill_restore;
mod killed_koth;
mod learning;
mod madcars;
mod menace_match;
mod menace_play;
mod nim;
mod paths_faults;
mod paths_game;
mod ratrace_cli;
mod ratrace_direct;
mod ratrace_game;
mod recorded_boards;
mod registry_game;
mod replay;
mod share_cpus;
mod spelling;
mod submissions;
mod support;
mod terminal_escapes;
mod terminal_viewers;
mod tournament_config;
mod tournament_guard;
mod tournament_run;
mod viewers;
mod wasm;
mod workers;
