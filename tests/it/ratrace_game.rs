//! The Genetic Rat Race through the `Game` interface the tournament runner uses.

use std::path::Path;

use koth::bot::BotStatus;
use koth::bot::{BotSpec, FaultKind, Limits};
use koth::game::MatchSetup;

#[test]
fn a_match_scores_the_geometric_mean_and_records_faults() {
    let logs = tempfile::tempdir().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ratrace_bots/faulty.py");
    let bot = BotSpec {
        name: "faulty".into(),
        dir: logs.path().to_path_buf(),
        command: vec![
            "python3".into(),
            script.to_str().unwrap().into(),
            "range".into(),
        ],
        build: None,
        origin: "test".into(),
        sandbox: None,
        benched: None,
        data: None,
        protocols: Default::default(),
    };
    let setup = MatchSetup {
        rounds: Some(2),
        ..MatchSetup::new(vec![bot], 3, logs.path().to_path_buf(), Limits::default())
    };
    let game = crate::support::koth_game("ratrace");
    let runtime = koth::game::runtime().unwrap();
    let result = runtime.block_on(game.play(&setup)).unwrap();
    let bot = &result.bots[0];
    // Both boards end with 1 point: the first by the fault, the second by every specimen dying.
    assert_eq!(bot.score, 1.0);
    assert_eq!(bot.status, BotStatus::BadOutput);
    assert_eq!(bot.faults.len(), 1);
    assert_eq!(bot.faults[0].kind, FaultKind::BadOutput);
    assert_eq!(bot.faults[0].round, Some(0));
    assert!(
        bot.faults[0].reason.contains("\"2,0\""),
        "{:?}",
        bot.faults[0]
    );
    // The same results file as `koth ratrace` writes, and the first board, the first to fault,
    // turn by turn (its file named from 1, as a person counts); the second ended well, and is
    // not kept.
    assert!(logs.path().join("results.json").is_file());
    assert!(logs.path().join("board-1.replay.json").is_file());
    assert!(!logs.path().join("board-2.replay.json").exists());
    // Both boards' answers (the bad one was still an answer) are timed.
    assert_eq!(bot.timing.answers, 2, "{:?}", bot.timing);
}
