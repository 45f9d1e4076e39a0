//! The `koth` binary: koth's games installed as the registry, then the command line
//! ([`koth::command`]).

use std::process::ExitCode;

fn main() -> ExitCode {
    koth::games::install();
    koth::command::main()
}
