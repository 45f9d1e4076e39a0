//! A shared hill's version files, through its database: a version's folder as built is packed
//! (`.tar.gz`, entry by entry) when it is added and stored once per digest (`hill_files`); a
//! `hill run` or `koth worker` on any machine that needs it unpacks it into its own folder
//! (`versions/<digest>/`, a cache kept between games) with [`koth_base::archive::unpack`] — which
//! lets in files and folders only, within caps — and checks it against the content digest
//! taken when it was packed. No folder is shared between machines.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use anyhow::Context;

use koth_base::archive::{self, Caps, Kind};
use koth_bot::BotSpec;
pub use koth_tournament::store::sql::Connection;

use super::store::{self, Packed};

/// What a version's folder may unpack to: the owner's builds, not a stranger's upload, so far
/// more than an upload's caps, but still bounded.
const CAPS: Caps = Caps {
    unpacked_bytes: 1 << 30,
    entries: 100_000,
    path_bytes: 1024,
    depth: 64,
};

/// Packs the folder `dir` of version `bot` (as built) for the database, with its content
/// digest. A folder holding anything but files and folders (a link) cannot be shared: it is
/// refused, naming the entry.
pub(crate) fn pack(bot: &BotSpec) -> anyhow::Result<Packed> {
    let dir = &bot.dir;
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut tar = tar::Builder::new(gz);
    let mut folders = vec![PathBuf::new()];
    while let Some(relative) = folders.pop() {
        let mut entries = std::fs::read_dir(dir.join(&relative))
            .with_context(|| format!("cannot read {}", dir.join(&relative).display()))?
            .collect::<Result<Vec<_>, _>>()?;
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let name = relative.join(entry.file_name());
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            let mut header = tar::Header::new_gnu();
            header.set_mtime(0);
            if meta.is_dir() {
                header.set_entry_type(tar::EntryType::Directory);
                header.set_mode(0o755);
                header.set_size(0);
                tar.append_data(&mut header, &name, std::io::empty())?;
                folders.push(name);
            } else if meta.is_file() {
                let executable = meta.permissions().mode() & 0o111 != 0;
                header.set_entry_type(tar::EntryType::Regular);
                header.set_mode(if executable { 0o755 } else { 0o644 });
                header.set_size(meta.len());
                let file = std::fs::File::open(&path)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                tar.append_data(&mut header, &name, file)?;
            } else {
                anyhow::bail!(
                    "its folder as built holds {} (a link or another special file): a shared \
                     hill's versions travel to workers as files and folders only",
                    path.display()
                );
            }
        }
    }
    let tgz = tar.into_inner()?.finish()?;
    Ok(Packed {
        built: koth_bot::digest::digest(bot)?,
        tgz,
    })
}

/// Unpacks version `bot`'s folder, stored in the database under `digest`, into `into` (which
/// must not exist): through a partial folder, checked against the digest it was packed with,
/// then renamed, so `into` is always whole.
pub(crate) fn fetch(
    db: &dyn Connection,
    bot: &BotSpec,
    digest: &str,
    into: &Path,
) -> anyhow::Result<()> {
    let packed = store::packed(db, digest)?.with_context(|| {
        format!(
            "the hill's database holds no files of {bot} (digest {})",
            &digest[..digest.len().min(12)]
        )
    })?;
    let parent = into.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)
        .with_context(|| format!("cannot create {}", parent.display()))?;
    clear_partials(into)?;
    let partial = into.with_extension(format!("partial-{}", std::process::id()));
    let archive_file = partial.with_extension(format!("partial-{}.tar.gz", std::process::id()));
    std::fs::File::create(&archive_file)
        .and_then(|mut file| file.write_all(&packed.tgz))
        .with_context(|| format!("cannot write {}", archive_file.display()))?;
    let unpacked = archive::unpack(&archive_file, Kind::TarGz, &partial, &CAPS);
    let _ = std::fs::remove_file(&archive_file);
    let checked = unpacked
        .map_err(|refused| anyhow::anyhow!("its stored files are refused: {refused}"))
        .and_then(|_| {
            let here = koth_bot::digest::digest(&BotSpec {
                dir: partial.clone(),
                ..bot.clone()
            })?;
            anyhow::ensure!(
                here == packed.built,
                "its files unpacked have digest {}, not the {} stored with them",
                &here[..12],
                &packed.built[..packed.built.len().min(12)]
            );
            Ok(())
        });
    if let Err(err) = checked {
        let _ = std::fs::remove_dir_all(&partial);
        return Err(err.context(format!("cannot get the files of {bot}")));
    }
    std::fs::rename(&partial, into)
        .with_context(|| format!("cannot rename {} to {}", partial.display(), into.display()))?;
    tracing::info!(
        bot = bot.name,
        digest,
        "version files fetched from the database"
    );
    Ok(())
}

/// Removes what a copy into `stored` killed before its rename left beside it (`<digest>.partial-*`),
/// this process's own among them.
pub(crate) fn clear_partials(stored: &Path) -> anyhow::Result<()> {
    let prefix = format!(
        "{}.partial-",
        stored.file_name().unwrap_or_default().display()
    );
    for entry in std::fs::read_dir(stored.parent().unwrap_or(Path::new(".")))
        .into_iter()
        .flatten()
    {
        let entry = entry?;
        if entry.file_name().to_string_lossy().starts_with(&prefix) {
            if entry.file_type()?.is_dir() {
                std::fs::remove_dir_all(entry.path())?;
            } else {
                std::fs::remove_file(entry.path())?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use koth_tournament::store::sql::Sqlite;

    fn bot(dir: &Path) -> BotSpec {
        BotSpec {
            name: "B v1".into(),
            dir: dir.to_path_buf(),
            command: vec!["./run.sh".into()],
            build: None,
            origin: "test".into(),
            sandbox: None,
            benched: None,
            data: None,
            protocols: Default::default(),
        }
    }

    /// A database holding the `hill_files` table (SQLite takes its PostgreSQL types).
    fn database() -> Sqlite {
        let db = Sqlite(rusqlite::Connection::open_in_memory().unwrap());
        db.batch(store::FILES_TABLE).unwrap();
        db
    }

    fn store(db: &Sqlite, digest: &str, packed: &Packed) {
        db.execute(
            "INSERT INTO hill_files VALUES (?1, ?2, ?3, ?4)",
            &[
                digest.into(),
                packed.built.as_str().into(),
                packed.tgz.len().into(),
                packed.tgz.clone().into(),
            ],
        )
        .unwrap();
    }

    #[test]
    fn a_version_travels_whole_with_its_exec_bits_and_a_damaged_or_linked_one_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let source = tmp.path().join("source");
        std::fs::create_dir_all(source.join("lib/deep")).unwrap();
        std::fs::write(source.join("run.sh"), "#!/bin/sh\necho 4\n").unwrap();
        std::fs::set_permissions(source.join("run.sh"), PermissionsExt::from_mode(0o755)).unwrap();
        std::fs::write(source.join("lib/deep/table.txt"), vec![7u8; 100_000]).unwrap();
        std::fs::create_dir_all(source.join("empty")).unwrap();
        let packed = pack(&bot(&source)).unwrap();
        assert_eq!(
            packed.built,
            koth_bot::digest::digest(&bot(&source)).unwrap()
        );
        let db = database();
        store(&db, "d1", &packed);

        let into = tmp.path().join("cache/versions/d1");
        fetch(&db, &bot(&source), "d1", &into).unwrap();
        assert_eq!(koth_bot::digest::digest(&bot(&into)).unwrap(), packed.built);
        assert!(into.join("empty").is_dir());
        let mode = std::fs::metadata(into.join("run.sh"))
            .unwrap()
            .permissions();
        assert_ne!(mode.mode() & 0o111, 0, "its exec bit kept");
        assert!(
            std::fs::read_dir(into.parent().unwrap())
                .unwrap()
                .all(|e| !e.unwrap().file_name().to_string_lossy().contains("partial")),
            "nothing left beside it"
        );

        // Files that are not the ones packed (a digest that does not match) are refused, and
        // nothing is left in their place.
        let other = Packed {
            built: "0".repeat(64),
            ..packed.clone()
        };
        store(&db, "d2", &other);
        let refused = tmp.path().join("cache/versions/d2");
        let err = fetch(&db, &bot(&source), "d2", &refused).unwrap_err();
        assert!(
            format!("{err:#}").contains("not the 000000000000 stored"),
            "{err:#}"
        );
        assert!(!refused.exists());
        // A digest the database does not hold.
        let err = fetch(&db, &bot(&source), "d3", &tmp.path().join("d3")).unwrap_err();
        assert!(format!("{err:#}").contains("holds no files"), "{err:#}");

        // A folder with a link cannot travel: refused, naming it.
        std::os::unix::fs::symlink("/etc/passwd", source.join("lib/link")).unwrap();
        let err = pack(&bot(&source)).unwrap_err();
        assert!(format!("{err:#}").contains("lib/link"), "{err:#}");
    }
}
