//! What several test modules share: bot folders, koth runs, and readers of what they leave.

pub mod arena;
pub mod cpus;
pub mod hostile;
pub mod paths_bots;
pub mod paths_files;
pub mod postgres;
pub mod ratrace;
pub mod signals;
pub mod survivors;
pub mod tournament;
pub mod viewer_files;
