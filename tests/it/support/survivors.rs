//! Finding processes a test's bots left behind: every process a test starts carries a marker
//! unique to that test on its command line.

/// Processes (other than zombies, whose command line is empty) whose command line mentions
/// `marker`.
pub fn survivors(marker: &str) -> Vec<String> {
    marked_processes(marker)
        .into_iter()
        .map(|(_, cmdline)| cmdline)
        .collect()
}

/// The pid and command line of each process (other than zombies) whose command line mentions
/// `marker`.
pub fn marked_processes(marker: &str) -> Vec<(u32, String)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse().ok()) else {
            continue;
        };
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if cmdline.contains(marker) {
                found.push((pid, cmdline));
            }
        }
    }
    found
}
