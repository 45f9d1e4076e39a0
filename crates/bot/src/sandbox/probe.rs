//! Whether bots can be contained here at all, found once per koth process by starting `true`
//! contained, after ending what killed koths left.

use std::path::Path;
use std::process::Stdio;
use std::sync::OnceLock;

use anyhow::bail;

use super::super::spec::{BotSpec, Sandbox};
use super::{Launch, Writable};

/// Checks once per koth process that bots can be contained here: `bwrap` is installed and may
/// create the namespaces. The error names the cause and the way out. Every runner calls it
/// before its first contained process, so it first ends what killed koths left
/// ([`end_what_killed_koths_left`]).
pub fn check_available() -> anyhow::Result<()> {
    static PROBE: OnceLock<Result<(), String>> = OnceLock::new();
    let probe = PROBE.get_or_init(|| {
        end_what_killed_koths_left();
        let dir = std::env::temp_dir().join(format!("{PROBE_FOLDER}{}", std::process::id()));
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let result = probe_in(&dir);
        let _ = std::fs::remove_dir(&dir);
        result
    });
    match probe {
        Ok(()) => Ok(()),
        Err(cause) => bail!(
            "bots cannot be contained on this machine: {cause}. Containment needs Debian's \
             bubblewrap (`apt-get install bubblewrap`) and user namespaces; to run bots \
             uncontained anyway, leave out --sandbox (or set `sandbox = false` in a tournament file)"
        ),
    }
}

/// The start of the name of the folder, in the system's temp folder, in which koth probes
/// containment; its process id follows.
const PROBE_FOLDER: &str = "koth-probe-";

/// Ends what koths killed with `kill -9` (or by the machine) left of their contained bots and
/// builds, where the kernel did not end it with them: a sandbox caught starting when its koth
/// was killed, before `bwrap` made it die with its parent. Found by the control groups of koths
/// that are gone ([`super::super::cgroup`]), by the users of the bots' range no koth leases
/// ([`super::super::uid`]), and the folders of their containment probes.
fn end_what_killed_koths_left() {
    super::super::cgroup::end_stale();
    super::super::uid::end_unleased();
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let pid = name.to_str().and_then(|n| n.strip_prefix(PROBE_FOLDER));
        let pid = pid.filter(|pid| pid.parse::<u32>().is_ok());
        if pid.is_some_and(|pid| !Path::new("/proc").join(pid).exists()) {
            let _ = std::fs::remove_dir(entry.path());
        }
    }
}

/// Starts `true` contained, in the empty folder `dir`.
fn probe_in(dir: &Path) -> Result<(), String> {
    let sandbox = Sandbox::default();
    let spec = BotSpec {
        name: "containment probe".into(),
        dir: dir.to_path_buf(),
        command: vec!["true".into()],
        build: None,
        origin: "koth".into(),
        sandbox: Some(sandbox.clone()),
        benched: None,
        data: None,
        protocols: Default::default(),
    };
    let launch = Launch::with_groups(&spec, &sandbox, None, Writable::WorkingFolder)
        .map_err(|e| format!("{e:#}"))?;
    launch
        .hand_over(dir, false)
        .map_err(|e| format!("cannot hand {} over: {e}", dir.display()))?;
    let output = launch
        .std_command()
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot run bwrap ({e}): is bubblewrap installed?"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "bwrap failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}
