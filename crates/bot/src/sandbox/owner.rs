//! Folders handed to the user a contained program runs as when koth is root: the program
//! must own what it may write, and a link is never followed.

use std::path::Path;

use super::Launch;

impl Launch {
    /// Gives the contained program run by root its folder `dir`: the user it runs as must own
    /// the folder and the files in it (koth creates some, such as an emptied `data.txt`), and,
    /// for a build (`whole`), everything below them, which the build may rewrite. Links are
    /// left alone, never followed. Nothing to do when koth is not root: the program is then
    /// koth's own user.
    pub(crate) fn hand_over(&self, dir: &Path, whole: bool) -> std::io::Result<()> {
        let Some(uid) = &self.uid else {
            return Ok(());
        };
        give(dir, uid.uid(), whole)
    }

    /// Gives a learning bot's data folder `dir` (its volume, where it has one) to the user the
    /// bot runs as, all of it: it is the bot's own to rewrite. Nothing to do when koth is not
    /// root.
    pub(crate) fn hand_over_data(&self, dir: &Path) -> std::io::Result<()> {
        let Some(uid) = &self.uid else {
            return Ok(());
        };
        super::super::data::own(dir, uid.uid())
    }
}

fn give(dir: &Path, id: u32, whole: bool) -> std::io::Result<()> {
    let owner = Some(nix::unistd::Uid::from_raw(id));
    let group = Some(nix::unistd::Gid::from_raw(id));
    let chown = |path: &Path| {
        nix::unistd::fchownat(
            nix::fcntl::AT_FDCWD,
            path,
            owner,
            group,
            nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW,
        )
        .map_err(std::io::Error::from)
    };
    chown(dir)?;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        if kind.is_dir() && whole {
            give(&entry.path(), id, whole)?;
        } else if !kind.is_symlink() {
            chown(&entry.path())?;
        }
    }
    Ok(())
}
