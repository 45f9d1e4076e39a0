//! A hill file as koth reads it, each mistake refused naming the file and key. Here rather than
//! beside the reader, which knows no game: a file names its game, so these need koth's games
//! installed.

use std::path::Path;

use koth::hill::config::*;

#[test]
fn a_hill_file_keeps_the_game_keys_and_refuses_a_bot_list_naming_the_key() {
    // koth's games, as `koth`'s main installs them: a file names its game by name.
    koth::games::install();
    let path = Path::new("hill.toml");
    let config = HillConfig::parse(
        "game = \"tictactoe\"\nrounds = 4\nanswer_ms = 300\nplacement_games = 6\n",
        path,
    )
    .unwrap();
    assert_eq!(config.game.rounds, Some(4));
    assert_eq!(config.tuning.placement_games, 6);
    assert_eq!(config.players(), 2);
    assert_eq!(config.seats(1), 2, "noughts & crosses takes two");
    let err = HillConfig::parse("game = \"tictactoe\"\nbots_dir = \"x\"\n", path)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("hill.toml: line 2: `bots_dir` is not a hill key"),
        "{err}"
    );
    // A key no file takes is named at its own line, with the keys a hill file takes (never a
    // tournament's bot list).
    let err = HillConfig::parse(
        "game = \"tictactoe\"\n# a comment\nrounds = 4\nanswr_ms = 300\n",
        path,
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.starts_with("hill.toml: line 4: `answr_ms` is not a key of a hill file; it takes "),
        "{err}"
    );
    assert!(
        err.contains("answer_ms") && err.contains("placement_games") && !err.contains("bots_dir"),
        "{err}"
    );
    let err = HillConfig::parse("game = \"tictactoe\"\nfar_share = 2.0\n", path)
        .unwrap_err()
        .to_string();
    assert!(err.contains("`far_share` = 2"), "{err}");
    let err = HillConfig::parse("game = \"tictactoe\"\nplacement = 2\n", path)
        .unwrap_err()
        .to_string();
    assert!(err.contains("placement"), "{err}");
    let err = HillConfig::parse("game = \"flag\"\n", path)
        .unwrap_err()
        .to_string();
    assert!(err.contains("played alone"), "{err}");
    let config = HillConfig::parse(
        "game = \"tictactoe\"\n[submissions]\nupload_mb = 2\nper_hour = 5\n",
        path,
    )
    .unwrap();
    assert_eq!(config.submissions.upload_mb, 2);
    assert_eq!(config.submissions.active_bots, 3);
    assert_eq!(config.submissions.caps().unpacked_bytes, 100 << 20);
    let err = HillConfig::parse("game = \"tictactoe\"\n[submissions]\nper_day = 5\n", path)
        .unwrap_err()
        .to_string();
    assert!(err.contains("per_day"), "{err}");
    let err = HillConfig::parse(
        "game = \"tictactoe\"\n[submissions]\nbuild_queue = 0\n",
        path,
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("`submissions.build_queue` must be at least 1"),
        "{err}"
    );
}
