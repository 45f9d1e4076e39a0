//! Where runs write their outputs: one folder per run under `logs/` (git-ignored), named after
//! the run and the time it started, unless the user names one.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::Context;

/// `logs/<name>`, where `name` is made from the current Unix time in seconds, so that runs
/// started one after another never share a folder.
pub fn default_folder(name: impl FnOnce(u64) -> String) -> PathBuf {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    Path::new("logs").join(name(secs))
}

/// The folder `given` by the user, or the default one, created if needed.
pub fn create_folder(
    given: Option<PathBuf>,
    name: impl FnOnce(u64) -> String,
) -> anyhow::Result<PathBuf> {
    let dir = given.unwrap_or_else(|| default_folder(name));
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("cannot create the log folder {}", dir.display()))?;
    Ok(dir)
}

/// `koth/<name>` in the user's cache folder, else `koth-<name>-<uid>` in the system's temp
/// folder, created and private to koth's user.
pub fn cache_folder(name: &str) -> anyhow::Result<PathBuf> {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .map(|home| home.join(".cache"))
        });
    let folder = match cache {
        Some(cache) => cache.join("koth").join(name),
        None => std::env::temp_dir().join(format!("koth-{name}-{}", nix::unistd::geteuid())),
    };
    std::fs::create_dir_all(&folder)
        .with_context(|| format!("cannot create the cache folder {}", folder.display()))?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o700))
        .with_context(|| format!("cannot make {} private", folder.display()))?;
    Ok(folder)
}
