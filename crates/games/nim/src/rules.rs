//! Nim's rules, pure: one heap, 1 to [`MOST_TAKEN`] stones a turn, the last stone wins.

/// The heap a game starts with unless the tournament's `[options]` give `heap`.
pub(crate) const DEFAULT_HEAP: u32 = 21;
/// The most stones a turn takes.
pub(crate) const MOST_TAKEN: u32 = 3;

/// The heap left after taking `taken` stones from `heap`, or why that cannot be taken.
pub(crate) fn take(heap: u32, taken: u32) -> Result<u32, String> {
    let most = MOST_TAKEN.min(heap);
    if (1..=most).contains(&taken) {
        Ok(heap - taken)
    } else {
        Err(format!("took {taken} of {heap}: take 1 to {most}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_takes_one_to_three_and_no_more_than_the_heap() {
        assert_eq!(take(21, 3), Ok(18));
        assert_eq!(take(1, 1), Ok(0));
        assert_eq!(take(2, 3), Err("took 3 of 2: take 1 to 2".into()));
        assert!(take(21, 0).is_err());
        assert!(take(21, 4).is_err());
    }
}
