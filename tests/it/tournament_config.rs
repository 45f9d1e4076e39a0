//! A tournament file as koth reads it: its defaults, and each mistake refused naming the file
//! and key. Here rather than beside the reader, which knows no game: a file names its game, so
//! these need koth's games installed.

use std::path::Path;
use std::time::Duration;

use koth::bot::Clock;
use koth::game::RecordBoards;
use koth::tournament::config::*;

fn parse(text: &str) -> anyhow::Result<Config> {
    // koth's games, as `koth`'s main installs them: a file names its game by name.
    koth::games::install();
    Config::parse(text, Path::new("t.toml"))
}

#[test]
fn a_minimal_file_takes_the_defaults() {
    let config = parse("game = \"paths\"\nbots_dir = \"bots\"\ngames = 3\n").unwrap();
    assert_eq!(config.settings.limits().answer, Duration::from_secs(1));
    assert_eq!(config.settings.limits().clock, Clock::Wall);
    assert_eq!(
        config
            .settings
            .name(Path::new("config/tournament-paths.toml"))
            .unwrap(),
        "paths"
    );
}

#[test]
fn a_name_with_a_format_character_or_too_long_is_refused() {
    let base = "game = \"paths\"\nbots_dir = \"bots\"\ngames = 3\n";
    // TOML's escapes: a zero-width space, a bidi override, ESC.
    for name in [
        r"Spring\u200B",
        r"Spring\u202E",
        r"Spring\u001B[2J",
        &"n".repeat(65),
    ] {
        let error = parse(&format!("{base}name = \"{name}\"\n")).unwrap_err();
        assert!(format!("{error:#}").contains("`name` = "), "{error:#}");
        assert!(
            !format!("{error:#}")
                .chars()
                .any(koth_base::text::is_unprintable),
            "{error:#}"
        );
    }
    let config = parse(base).unwrap();
    let error = config
        .settings
        .name(Path::new(&format!("{}.toml", "x".repeat(65))))
        .unwrap_err();
    assert!(error.to_string().contains("give a `name`"), "{error}");
}

#[test]
fn the_cpu_clock_gets_a_backstop() {
    let config =
        parse("game = \"paths\"\nbots_dir = \"b\"\ngames = 1\nanswer_ms = 200\nclock = \"cpu\"\n")
            .unwrap();
    assert_eq!(
        config.settings.limits().clock,
        Clock::Cpu {
            backstop: Duration::from_secs(1)
        }
    );
}

#[test]
fn errors_name_the_file_and_the_key_or_line() {
    let unknown = parse("game = \"paths\"\nbots_dir = \"b\"\ngames = 1\nround = 3\n")
        .unwrap_err()
        .to_string();
    assert!(
        unknown.contains("t.toml") && unknown.contains("round"),
        "{unknown}"
    );
    assert!(unknown.contains("line 4"), "{unknown}");
    let game = parse("game = \"chess\"\nbots_dir = \"b\"\ngames = 1\n")
        .unwrap_err()
        .to_string();
    assert!(game.contains("t.toml") && game.contains("chess"), "{game}");
    let two = parse("game = \"paths\"\nbots_dir = \"b\"\nbots_file = \"x\"\ngames = 1\n")
        .unwrap_err()
        .to_string();
    assert!(two.contains("exactly one"), "{two}");
}

#[test]
fn record_boards_is_a_known_choice_for_a_game_that_records_boards() {
    let file = |game: &str, record: &str| {
        format!("game = \"{game}\"\nbots_dir = \"b\"\ngames = 1\nrecord_boards = \"{record}\"\n")
    };
    assert_eq!(
        parse("game = \"ratrace\"\nbots_dir = \"b\"\ngames = 1\n")
            .unwrap()
            .settings
            .record_boards,
        None
    );
    for (name, record) in [
        ("first-and-faulted", RecordBoards::FirstAndFaulted),
        ("none", RecordBoards::None),
        ("all", RecordBoards::All),
    ] {
        let config = parse(&file("ratrace", name)).unwrap();
        assert_eq!(config.settings.record_boards, Some(record));
    }
    let unknown = parse(&file("ratrace", "every")).unwrap_err().to_string();
    assert!(
        unknown.contains("t.toml")
            && unknown.contains("line 4")
            && unknown.contains("record_boards")
            && unknown.contains("every")
            && unknown.contains("first-and-faulted"),
        "{unknown}"
    );
    let paths = parse(&file("paths", "all")).unwrap_err().to_string();
    assert!(
        paths.contains("t.toml") && paths.contains("record_boards") && paths.contains("paths"),
        "{paths}"
    );
}
