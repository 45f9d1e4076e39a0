//! A real PostgreSQL server for the tests: Debian's `postgresql` binaries, `initdb` into a
//! temporary folder (as the unprivileged `postgres` user when the tests run as root: initdb
//! refuses root), listening on 127.0.0.1 on a free port, trusted local connections, one
//! server per test binary and a fresh database per test.
//!
//! The server outlives no test run: a watchdog process started with it waits for the test
//! binary to end — however it ends, a failed test, a panic, a kill — then stops the server and
//! removes its folder. (A guard dropped at the end would not do: a static is never dropped,
//! and a killed process drops nothing.)

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

struct Server {
    port: u16,
}

static SERVER: OnceLock<Server> = OnceLock::new();
static DATABASES: AtomicU32 = AtomicU32::new(0);

/// The address of a new, empty database on the tests' server, named after `test`.
pub fn database(test: &str) -> String {
    let server = SERVER.get_or_init(start);
    let name = format!(
        "{}_{}",
        test.to_lowercase()
            .replace(|c: char| !c.is_ascii_alphanumeric(), "_"),
        DATABASES.fetch_add(1, Ordering::SeqCst)
    );
    let admin = format!("postgres://koth@127.0.0.1:{}/postgres", server.port);
    let mut client = postgres::Client::connect(&admin, postgres::NoTls).unwrap();
    client
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .unwrap();
    format!("postgres://koth@127.0.0.1:{}/{name}", server.port)
}

/// A client of the database at `url`, for a test's own queries.
pub fn client(url: &str) -> postgres::Client {
    postgres::Client::connect(url, postgres::NoTls).unwrap()
}

/// The folder of Debian's PostgreSQL programs (the newest installed).
fn binaries() -> PathBuf {
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .expect("PostgreSQL is installed (scripts/test.sh installs Debian's postgresql)")
        .map(|e| e.unwrap().path().join("bin"))
        .filter(|bin| bin.join("initdb").is_file())
        .collect();
    versions.sort();
    versions.pop().expect("an initdb under /usr/lib/postgresql")
}

/// `program` of PostgreSQL's, run as the `postgres` user when the tests run as root.
fn as_owner(program: &str) -> Command {
    let mut command = Command::new(binaries().join(program));
    if nix::unistd::geteuid().is_root() {
        let user = nix::unistd::User::from_name("postgres")
            .unwrap()
            .expect("Debian's postgres user");
        command.uid(user.uid.as_raw()).gid(user.gid.as_raw());
    }
    command
}

fn start() -> Server {
    let folder = tempfile::Builder::new()
        .prefix("koth-postgres-")
        .tempdir()
        .unwrap()
        .keep();
    if nix::unistd::geteuid().is_root() {
        let user = nix::unistd::User::from_name("postgres").unwrap().unwrap();
        nix::unistd::chown(&folder, Some(user.uid), Some(user.gid)).unwrap();
    }
    let data = folder.join("data");
    let status = as_owner("initdb")
        .arg("-D")
        .arg(&data)
        .args(["--auth=trust", "-U", "koth", "-E", "UTF8", "--no-sync"])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "initdb failed");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let options = format!(
        "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300",
        folder.display()
    );
    let status = as_owner("pg_ctl")
        .arg("-D")
        .arg(&data)
        .args(["-o", &options, "-w", "-l"])
        .arg(folder.join("log"))
        .arg("start")
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(
        status.success(),
        "pg_ctl start failed: see {}",
        folder.display()
    );
    // The watchdog: in a process group of its own, holding none of the test's pipes (cargo
    // would wait for it), it stops the server and removes the folder once this process is gone.
    let script = format!(
        "while [ -d /proc/{pid} ]; do sleep 0.5; done; \
         {pg_ctl} -D {data} -m immediate stop >/dev/null 2>&1; rm -rf {folder}",
        pid = std::process::id(),
        pg_ctl = binaries().join("pg_ctl").display(),
        data = data.display(),
        folder = folder.display()
    );
    let mut watchdog = Command::new("sh");
    watchdog
        .args(["-c", &script])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    if nix::unistd::geteuid().is_root() {
        let user = nix::unistd::User::from_name("postgres").unwrap().unwrap();
        watchdog.uid(user.uid.as_raw()).gid(user.gid.as_raw());
    }
    // Never waited for: it is meant to outlive this process, whose end it waits for.
    #[allow(clippy::zombie_processes)]
    watchdog.spawn().unwrap();
    Server { port }
}
