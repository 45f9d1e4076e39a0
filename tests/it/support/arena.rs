//! A throw-away copy of the sample paths bots for whole-game tests: each game empties and writes
//! the bots' data.txt, so tests running in parallel must not share the repository's folders.

use std::path::Path;

/// A temporary folder holding a copy of `bots/paths-*` and `bots.txt`.
pub fn arena() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for entry in std::fs::read_dir(root.join("bots")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("paths-") {
            copy_sources(&path, &dir.path().join("bots").join(&name));
        }
    }
    std::fs::copy(root.join("bots.txt"), dir.path().join("bots.txt")).unwrap();
    dir
}

fn copy_sources(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap();
        // Only sources: builds and data files are the game's to make.
        if path.is_file() && name != "data.txt" && name != "column" {
            std::fs::copy(&path, to.join(name)).unwrap();
        }
    }
}
