//! The environment every bot process runs with: one short, fixed list, the same contained or
//! not, in a game command, a tournament or a hill. A bot that works at home then works on the
//! hill: nothing of the author's shell (`PYTHONUNBUFFERED`, a virtualenv, a locale) reaches it
//! in one place and not the other, and nothing of koth's (tokens, database addresses) ever does.

use std::ffi::OsString;

/// The folder a bot's `HOME` and `TMPDIR` name. A contained bot's `/tmp` is private, capped and
/// gone with it; an uncontained bot's is the machine's.
const SCRATCH: &str = "/tmp";

/// The locale every bot gets: UTF-8 text, with the C library's behaviour otherwise, built into
/// glibc so that it exists on every system.
const LOCALE: &str = "C.UTF-8";

/// The environment of a bot's process, in full: `PATH` (koth's own, so interpreters are found
/// as koth finds them), `HOME` and `TMPDIR` (`/tmp`), `LANG` (`C.UTF-8`). Nothing else.
pub(crate) fn bot_environment() -> Vec<(&'static str, OsString)> {
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into());
    vec![
        ("PATH", path),
        ("HOME", SCRATCH.into()),
        ("TMPDIR", SCRATCH.into()),
        ("LANG", LOCALE.into()),
    ]
}
