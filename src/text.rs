//! Reading text files koth did not necessarily write intact: every error names the file, and a
//! byte that is not UTF-8 (a binary or damaged file) is reported with its line.

use std::path::Path;

use anyhow::Context;

/// The text of the file at `path`.
pub(crate) fn read(path: &Path) -> anyhow::Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    from_bytes(bytes, path)
}

/// `bytes` (read from `path`) as text.
pub(crate) fn from_bytes(bytes: Vec<u8>, path: &Path) -> anyhow::Result<String> {
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = valid.iter().filter(|&&b| b == b'\n').count() + 1;
        anyhow::anyhow!(
            "{}:{line}: not text (a byte that is not UTF-8); is the file damaged?",
            path.display()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_binary_byte_is_reported_with_its_line() {
        let error = from_bytes(b"one\ntwo\nth\xffree\n".to_vec(), Path::new("f.txt")).unwrap_err();
        assert!(
            error.to_string().starts_with("f.txt:3: not text"),
            "{error}"
        );
        assert_eq!(
            from_bytes(b"ok\n".to_vec(), Path::new("f")).unwrap(),
            "ok\n"
        );
    }
}
