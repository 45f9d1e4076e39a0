//! A paths game's files written by koth's own writers, without playing: `graphical_log.txt`
//! and `replay.jsonl` for the readers' tests.

use std::path::Path;

use koth::games::paths::log::{
    FinalLog, GraphicalLog, ReplayHeader, ReplayLog, RoundLog, TurnRecord,
};
use koth::games::paths::rules::side;

/// A round as the graphical log shows it: its grid rows and each bot's points.
pub type LoggedRound = (Vec<String>, Vec<u64>);

/// A paths game's graphical log and replay, written by koth's own writers into `dir`.
pub fn write_game(dir: &Path, names: &[String], rounds: &[LoggedRound]) -> Vec<TurnRecord> {
    let side = side(names.len());
    let mut log =
        GraphicalLog::create(&dir.join("graphical_log.txt"), names, rounds.len() as u32).unwrap();
    let header = ReplayHeader {
        game: "paths".into(),
        bots: names.to_vec(),
        side,
        rounds: rounds.len() as u32,
        seed: 7,
        answer_ms: Some(1000),
        exit_ms: None,
    };
    let mut replay = ReplayLog::create(&dir.join("replay.jsonl"), &header).unwrap();
    let mut turns = Vec::new();
    for (index, (rows, points)) in rounds.iter().enumerate() {
        let record = TurnRecord {
            round: index as u32,
            turn: 0,
            destroy: (0..names.len()).map(|b| Some((b % side, 0))).collect(),
            activate: (0..names.len()).map(|_| None).collect(),
        };
        replay.turn(&record).unwrap();
        turns.push(record);
        log.round(&RoundLog {
            index: index as u32,
            rows: rows.clone(),
            points: points.clone(),
        })
        .unwrap();
    }
    replay.finish().unwrap();
    let standings = names.iter().map(|n| (n.clone(), 1)).collect();
    log.finish(&FinalLog {
        standings,
        too_slow: vec![],
    })
    .unwrap();
    turns
}

/// A finished two-bot game of two rounds in `dir` (one turn each), as koth writes it.
pub fn two_bot_game(dir: &Path) {
    let names = vec!["Random Builder".to_string(), "Checkpoint".to_string()];
    let rows: Vec<String> = ["ab.. ", ".b...", ".ba..", "  a b", ".b..."]
        .map(String::from)
        .to_vec();
    write_game(
        dir,
        &names,
        &[(rows.clone(), vec![3, 29]), (rows, vec![1, 0])],
    );
}
