//! A game's files: taken from its folder when its result is recorded in a shared database,
//! and written back into a folder of the reader's when asked for.

use std::path::{Path, PathBuf};

use anyhow::Context;

use super::Store;

impl Store {
    /// The files game `game` left in its folder, as stored in a shared database: each path
    /// (relative to the game's folder) with its bytes; only the file `only` if given.
    pub fn files(&self, game: u32, only: Option<&str>) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
        let rows = match only {
            None => self.db.query(
                "SELECT path, size, zstd FROM files WHERE game = ?1 ORDER BY path",
                params![game],
            )?,
            Some(path) => self.db.query(
                "SELECT path, size, zstd FROM files WHERE game = ?1 AND path = ?2",
                params![game, path],
            )?,
        };
        rows.iter()
            .map(|r| {
                let path = r.text("path")?;
                let size = r.int("size")? as usize;
                let bytes = zstd::bulk::decompress(r.bytes("zstd")?, size)
                    .with_context(|| format!("game {game}'s file {path} is damaged"))?;
                Ok((path, bytes))
            })
            .collect()
    }

    /// Writes the files of game `game` stored in a shared database into the folder `dir`,
    /// only the file `only` if given; returns how many it wrote.
    pub fn extract(&self, game: u32, dir: &Path, only: Option<&str>) -> anyhow::Result<usize> {
        let files = self.files(game, only)?;
        for (path, bytes) in &files {
            // Paths were written by koth from a game folder; one that would leave `dir` is a
            // damaged (or forged) database.
            let relative = Path::new(path);
            anyhow::ensure!(
                relative
                    .components()
                    .all(|c| matches!(c, std::path::Component::Normal(_))),
                "game {game}'s stored file {path:?} is not a path inside its folder"
            );
            let target = dir.join(relative);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("cannot create {}", parent.display()))?;
            }
            std::fs::write(&target, bytes)
                .with_context(|| format!("cannot write {}", target.display()))?;
        }
        Ok(files.len())
    }

    /// The folder of game `game` under `dir` holding its files (all, or the file `only`): in a
    /// tournament folder, the game's own; for a shared database, a copy under `dir` made the
    /// first time it is asked for and kept, since a game's files are stored once, with its
    /// accepted result, and never change. A game not finished yet has an empty folder.
    pub fn game_folder(
        &self,
        dir: &Path,
        game: u32,
        only: Option<&str>,
    ) -> anyhow::Result<PathBuf> {
        let folder = game_dir(dir, game);
        if !self.is_shared() {
            return Ok(folder);
        }
        // A whole copy is marked beside the folder, so the folder holds the game's files only.
        let copied = match only {
            Some(name) => folder.join(name),
            None => dir.join("games").join(format!("{game}.copied")),
        };
        if !copied.exists() && self.extract(game, &folder, only)? > 0 && only.is_none() {
            std::fs::write(&copied, "")
                .with_context(|| format!("cannot write {}", copied.display()))?;
        }
        Ok(folder)
    }
}

/// The folder of game `index` in the tournament folder `dir`.
pub fn game_dir(dir: &Path, index: u32) -> PathBuf {
    dir.join("games").join(index.to_string())
}

/// The files of a game's folder `dir`, but the bots' working copies (`bots/`): each path
/// relative to `dir`, its size, and its bytes compressed with zstd.
pub(super) fn game_files(dir: &Path) -> anyhow::Result<Vec<(String, usize, Vec<u8>)>> {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let entries = std::fs::read_dir(&folder)
            .with_context(|| format!("cannot read {}", folder.display()))?;
        for entry in entries {
            let entry = entry?;
            let path = entry.path();
            let kind = entry.file_type()?;
            if kind.is_dir() && !(folder == dir && entry.file_name() == "bots") {
                folders.push(path);
            } else if kind.is_file() {
                let bytes = std::fs::read(&path)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                let relative = path.strip_prefix(dir)?.to_string_lossy().into_owned();
                files.push((relative, bytes.len(), zstd::bulk::compress(&bytes, 3)?));
            }
        }
    }
    files.sort();
    Ok(files)
}
