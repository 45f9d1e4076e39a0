//! Finding processes a test's bots left behind: every process a test starts carries a marker
//! unique to that test on its command line.

/// Processes (other than zombies, whose command line is empty) whose command line mentions
/// `marker`.
pub fn survivors(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let is_pid = entry
            .file_name()
            .to_str()
            .is_some_and(|s| s.parse::<u32>().is_ok());
        if !is_pid {
            continue;
        }
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if cmdline.contains(marker) {
                found.push(cmdline);
            }
        }
    }
    found
}
