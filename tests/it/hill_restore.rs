//! A hill's database is data (issue 52): a restored backup, or a database edited in place, never
//! makes the hill run a folder it did not make, nor changes the settings its `hill.toml` gives.
//! The attack: a version's `bots.dir` pointed at a folder outside the hill holding a bot that
//! reads a secret file, and a `hill_file` meta row that sets `public_logs = true`; and a
//! PostgreSQL hill whose version row names such a folder, as a dump restored might.

use std::path::{Path, PathBuf};

use rusqlite::Connection;

use crate::dashboard::{get, serve};
use crate::hill::{add_ok, graded, hill, hill_command};
use crate::support::postgres;
use crate::support::tournament::{koth, query, succeed};
use crate::workers::count;

/// The secret the outside bot reads, and the file it leaves to say it ran.
const SECRET: &str = "ROOT-ONLY-SECRET-52";
const RAN: &str = "outside-ran";

/// A folder outside the hill, `root/outside`, holding a `graded.py` (the command of every
/// graded version) that copies `root/secret.txt` to its stderr, leaves `root/outside-ran`, then
/// plays as the graded bot does.
fn outside(root: &Path) -> PathBuf {
    std::fs::write(root.join("secret.txt"), SECRET).unwrap();
    let dir = graded(root, "outside", "Outside", 0.0);
    std::fs::rename(dir.join("graded.py"), dir.join("real.py")).unwrap();
    std::fs::write(
        dir.join("graded.py"),
        format!(
            "import os, sys\n\
             sys.stderr.write(open({secret:?}).read() + '\\n')\n\
             sys.stderr.flush()\n\
             open({ran:?}, 'w').write('ran')\n\
             os.execvp('python3', ['python3', '-u', 'real.py'] + sys.argv[1:])\n",
            secret = root.join("secret.txt").to_str().unwrap(),
            ran = root.join(RAN).to_str().unwrap(),
        ),
    )
    .unwrap();
    dir
}

/// Edits the hill database `db` as the attack does: version `label`'s folder set to `folder`,
/// and a `hill_file` meta row (what a shared hill's machines read its settings from) that is
/// the hill's own file with its logs made public.
fn edit(db: &Path, hill_file: &Path, label: &str, folder: &str) {
    let conn = Connection::open(db).unwrap();
    let changed = conn
        .execute(
            "UPDATE bots SET dir = ?2 WHERE name = ?1",
            rusqlite::params![label, folder],
        )
        .unwrap();
    assert_eq!(changed, 1, "{label} is a version of the hill");
    let public = format!(
        "{}\n[submissions]\npublic_logs = true\n",
        std::fs::read_to_string(hill_file).unwrap()
    );
    conn.execute(
        "INSERT INTO meta (key, value) VALUES ('hill_file', ?1)",
        [public],
    )
    .unwrap();
}

fn digest_of(db: &Path, label: &str) -> String {
    Connection::open(db)
        .unwrap()
        .query_row("SELECT hash FROM bots WHERE name = ?1", [label], |r| {
            r.get(0)
        })
        .unwrap()
}

#[test]
fn a_backup_whose_version_names_a_folder_outside_the_hill_is_not_restored() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = hill(tmp.path(), "sandbox = false\n");
    let strong = graded(tmp.path(), "strong", "Strong", 1.0);
    let weak = graded(tmp.path(), "weak", "Weak", 0.0);
    add_ok(&dir, &[&strong, &weak]);
    let evil = outside(tmp.path());
    let backup = tmp.path().join("backup.sqlite");
    succeed(
        koth()
            .args(["hill", "backup"])
            .arg(&dir)
            .arg("--to")
            .arg(&backup),
    );
    let database = dir.join("results.sqlite");
    let before = std::fs::read(&database).unwrap();
    let weak_digest = digest_of(&backup, "Weak v1");
    let strong_digest = digest_of(&backup, "Strong v1");
    let restore = |from: &Path| {
        koth()
            .args(["hill", "restore"])
            .arg(&dir)
            .arg("--from")
            .arg(from)
            .output()
            .unwrap()
    };
    let refused = |from: &Path, said: &[&str]| {
        let output = restore(from);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "restored: {stderr}");
        for words in said {
            assert!(stderr.contains(words), "{words:?} not in: {stderr}");
        }
        assert!(
            stderr.contains("is not restored (the hill's database is unchanged)"),
            "{stderr}"
        );
        assert_eq!(
            std::fs::read(&database).unwrap(),
            before,
            "a refused restore changed the hill's database"
        );
    };

    let outside_path = evil.to_str().unwrap().to_string();
    let escaping = format!("versions/{weak_digest}/../../../outside");
    let others = format!("versions/{strong_digest}");
    for (n, folder, said) in [
        // A folder outside the hill, by its full path.
        (0, outside_path.as_str(), "is not versions/"),
        // Out of the hill through `..`.
        (1, escaping.as_str(), "is not versions/"),
        // Another version's folder.
        (2, others.as_str(), "is not versions/"),
    ] {
        let edited = tmp.path().join(format!("edited-{n}.sqlite"));
        std::fs::copy(&backup, &edited).unwrap();
        edit(&edited, &tmp.path().join("hill.toml"), "Weak v1", folder);
        refused(
            &edited,
            &[
                "version \"Weak v1\" (row 1 of the hill's `bots` table)",
                &format!("its folder {folder:?}"),
                said,
            ],
        );
    }
    // A row whose digest is not a digest names no folder of the hill's.
    let edited = tmp.path().join("edited-digest.sqlite");
    std::fs::copy(&backup, &edited).unwrap();
    Connection::open(&edited)
        .unwrap()
        .execute_batch(
            "UPDATE bots SET hash = '../../outside', dir = 'versions/../../outside'
                 WHERE name = 'Weak v1';
             UPDATE hill_versions SET digest = '../../outside' WHERE id = 1;",
        )
        .unwrap();
    refused(&edited, &["\"Weak v1\"", "is not a content digest"]);

    // The hill's own folder of a version, a link leading out of it: no backup is put in place.
    let own = dir.join("versions").join(&weak_digest);
    let aside = tmp.path().join("weak-aside");
    std::fs::rename(&own, &aside).unwrap();
    std::os::unix::fs::symlink(&evil, &own).unwrap();
    refused(&backup, &["\"Weak v1\"", "is a link"]);
    std::fs::remove_file(&own).unwrap();
    std::fs::rename(&aside, &own).unwrap();

    // The backup as it was taken is restored.
    succeed(
        koth()
            .args(["hill", "restore"])
            .arg(&dir)
            .arg("--from")
            .arg(&backup),
    );
    assert_eq!(query(&dir, "SELECT COUNT(*) FROM hill_versions"), 2);
    assert!(!tmp.path().join(RAN).exists());
}

#[test]
fn a_hill_whose_database_names_a_folder_outside_it_never_runs_it_and_keeps_its_logs_private() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = hill(tmp.path(), "sandbox = false\n");
    let strong = graded(tmp.path(), "strong", "Strong", 1.0);
    let weak = graded(tmp.path(), "weak", "Weak", 0.0);
    // A bot whose stderr says something in every game: what a public replay page must not show.
    let noisy = graded(tmp.path(), "noisy", "Noisy", 0.5);
    std::fs::write(
        noisy.join("noisy.py"),
        "import os, sys\n\
         sys.stderr.write('NOISY-STDERR\\n')\n\
         sys.stderr.flush()\n\
         os.execvp('python3', ['python3', '-u', 'graded.py', '0.5'])\n",
    )
    .unwrap();
    std::fs::write(
        noisy.join("bot.toml"),
        "name = \"Noisy\"\nrun = \"python3 -u noisy.py\"\ngames = [\"tictactoe\"]\n",
    )
    .unwrap();
    add_ok(&dir, &[&strong, &weak, &noisy]);
    let evil = outside(tmp.path());
    edit(
        &dir.join("results.sqlite"),
        &tmp.path().join("hill.toml"),
        "Weak v1",
        evil.to_str().unwrap(),
    );

    let output = succeed(
        hill_command(&dir)
            .args(["hill", "run"])
            .arg(&dir)
            .args(["--games", "4"]),
    );
    assert!(
        !tmp.path().join(RAN).exists(),
        "the folder outside the hill was run"
    );
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains("version \"Weak v1\" (row 1 of the hill's `bots` table)")
            && said.contains(evil.to_str().unwrap())
            && said.contains("it is suspended, and its folder never run"),
        "{said}"
    );
    let mut stderr_files = 0;
    for game in std::fs::read_dir(dir.join("games")).unwrap() {
        let Ok(logs) = std::fs::read_dir(game.unwrap().path().join("stderr")) else {
            continue;
        };
        for log in logs {
            stderr_files += 1;
            let text = std::fs::read_to_string(log.unwrap().path()).unwrap();
            assert!(!text.contains(SECRET), "the secret was read: {text}");
        }
    }
    assert!(stderr_files > 0, "the games kept their bots' stderr");
    assert_eq!(
        query(
            &dir,
            "SELECT COUNT(*) FROM hill_versions WHERE name = 'Weak' AND suspended LIKE \
             '%not the hill''s own copy of it%'"
        ),
        1,
        "Weak v1 is suspended for its folder"
    );
    assert!(
        query(
            &dir,
            "SELECT COUNT(*) FROM harness_faults WHERE message LIKE '%Weak v1%outside%'"
        ) >= 1
    );
    assert_eq!(
        query(
            &dir,
            "SELECT COUNT(*) FROM results r JOIN bots b ON b.id = r.bot WHERE b.name = 'Weak v1'"
        ),
        0
    );

    // Its logs stay as its hill.toml says, private, whatever the database's meta holds.
    let game = query(
        &dir,
        "SELECT MIN(r.game) FROM results r JOIN bots b ON b.id = r.bot WHERE b.name = 'Noisy v1'",
    );
    let kept = std::fs::read_dir(dir.join(format!("games/{game}/stderr")))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect::<String>();
    assert!(kept.contains("NOISY-STDERR"), "{kept}");
    let (_server, port) = serve(&dir);
    let (status, page) = get(port, &format!("/games/{game}"));
    assert!(status.contains("200"), "{status}");
    assert!(
        !page.contains("NOISY-STDERR"),
        "the public replay page shows a bot's stderr"
    );
    assert!(page.contains("kept for its author"), "{page}");
    // The public pages say why Weak stopped, without the folder its row names.
    let (_, board) = get(port, "/api/hill");
    assert!(board.contains("not the hill's own copy of it"), "{board}");
    assert!(!board.contains(evil.to_str().unwrap()), "{board}");
}

#[test]
fn a_postgres_hill_whose_version_names_a_folder_outside_never_runs_it() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let url = postgres::database("hill_folder_outside");
    let file = root.join("hill-outside.toml");
    std::fs::write(
        &file,
        "game = \"tictactoe\"\nrounds = 2\nanswer_ms = 2000\nseed = 5\njobs = 1\n\
         sandbox = false\n",
    )
    .unwrap();
    succeed(
        hill_command(&root.join("runner"))
            .args(["hill", "create"])
            .arg(&file)
            .args(["--db", &url]),
    );
    let name = "outside";
    let bots = [
        graded(root, "strong", "Strong", 1.0),
        graded(root, "weak", "Weak", 0.0),
        graded(root, "middle", "Middle", 0.5),
    ];
    succeed(
        hill_command(&root.join("runner"))
            .args(["hill", "add"])
            .args(&bots)
            .args(["--db", &url, name, "--dir"])
            .arg(root.join("adder")),
    );
    // As a dump restored by pg_restore might hold it: Weak v1's folder, one outside the hill
    // that exists on this machine.
    let evil = outside(root);
    let edited = count(
        &url,
        name,
        &format!(
            "WITH edited AS (UPDATE bots SET dir = '{}' WHERE name = 'Weak v1' RETURNING 1) \
             SELECT COUNT(*) FROM edited",
            evil.display()
        ),
    );
    assert_eq!(edited, 1);
    let output = succeed(
        hill_command(&root.join("runner"))
            .args(["hill", "run", "--db", &url, name, "--games", "3", "--dir"])
            .arg(root.join("runner")),
    );
    assert!(
        !root.join(RAN).exists(),
        "the folder outside the hill was run"
    );
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains("\"Weak v1\"") && said.contains("its folder never run"),
        "{said}"
    );
    assert_eq!(
        count(
            &url,
            name,
            "SELECT COUNT(*) FROM hill_versions WHERE name = 'Weak' AND suspended IS NOT NULL"
        ),
        1
    );
    assert!(
        count(
            &url,
            name,
            "SELECT COUNT(*) FROM hill_games WHERE rated = 1"
        ) >= 3
    );
}
