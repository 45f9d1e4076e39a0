//! `koth menace play` driven through its real stdin and stdout, as a person would use it.

use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};

use koth::games::menace::matchbox::{MICHIE_SCHEDULE, Menace};

/// A running `koth menace play` and everything it has printed so far.
struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    chunks: Receiver<Vec<u8>>,
    output: String,
    /// How much of `output` earlier waits have consumed.
    seen: usize,
}

impl Session {
    fn start(extra: &[&str]) -> Session {
        let mut child = Command::new(env!("CARGO_BIN_EXE_koth"))
            .args(["menace", "play", "--seed", "11"])
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("koth starts");
        let mut stdout = child.stdout.take().unwrap();
        let (tx, chunks) = channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stdout.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        Session {
            stdin: child.stdin.take(),
            child,
            chunks,
            output: String::new(),
            seen: 0,
        }
    }

    /// Reads until the output ends with `prompt` (returning what came since the last wait), or
    /// `None` if koth ended its output first.
    fn until_prompt(&mut self, prompt: &str) -> Option<String> {
        while self.output.len() == self.seen || !self.output.ends_with(prompt) {
            let chunk = self.chunks.recv().ok()?;
            self.output.push_str(&String::from_utf8(chunk).unwrap());
        }
        let new = self.output[self.seen..].to_string();
        self.seen = self.output.len();
        Some(new)
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin.as_mut().unwrap(), "{line}").unwrap();
    }

    /// Closes stdin and returns the whole output and whether koth exited successfully.
    fn end(mut self) -> (String, bool) {
        self.stdin.take();
        while let Ok(chunk) = self.chunks.recv() {
            self.output.push_str(&String::from_utf8(chunk).unwrap());
        }
        let ok = self.child.wait().unwrap().success();
        (self.output, ok)
    }
}

/// The last board printed in `text`: 9 cells read from the 3 rows under the `L M R` header.
fn last_board(text: &str) -> Vec<char> {
    let lines: Vec<&str> = text.lines().collect();
    let header = lines
        .iter()
        .rposition(|l| l.trim() == "L M R")
        .expect("a board");
    lines[header + 1..header + 4]
        .iter()
        .flat_map(|row| {
            row.split_whitespace()
                .skip(1)
                .map(|c| c.chars().next().unwrap())
        })
        .collect()
}

const NAMES: [&str; 9] = ["LL", "LM", "LR", "ML", "MM", "MR", "RL", "RM", "RR"];

fn box_lines(text: &str) -> usize {
    text.lines()
        .filter(|l| {
            let mut words = l.split_whitespace();
            matches!(words.next(), Some("1" | "2" | "3" | "4"))
                && words.next().is_some_and(|b| {
                    b.len() == 9 && b.chars().all(|c| matches!(c, 'X' | 'O' | '.'))
                })
        })
        .count()
}

#[test]
fn full_games_with_mistyped_and_illegal_moves() {
    let mut session = Session::start(&["--show-boxes"]);
    let intro = session.until_prompt("How many games? ").unwrap();
    assert!(
        intro.contains("1-9"),
        "the intro names the spellings: {intro}"
    );
    session.send("two");
    let reply = session.until_prompt("How many games? ").unwrap();
    assert!(reply.contains("not a number"), "{reply}");
    session.send("2");

    let mut games_seen = 0;
    let mut moves_made = 0;
    let mut tested_errors = false;
    while let Some(text) = session.until_prompt("Your move (O): ") {
        games_seen += text.matches("new game").count();
        if text.contains("new game") && games_seen == 2 {
            // The first game ended before this prompt: its verdict and all 304 boxes came first.
            assert_eq!(box_lines(&text), 304, "{text}");
        }
        let board = last_board(&text);
        assert_eq!(board.len(), 9);
        if !tested_errors {
            tested_errors = true;
            session.send("QZ");
            let reply = session.until_prompt("Your move (O): ").unwrap();
            assert!(reply.contains("`QZ` is not a square"), "{reply}");
            let taken = board.iter().position(|&c| c == 'X').expect("MENACE moved");
            session.send(&NAMES[taken].to_lowercase());
            let reply = session.until_prompt("Your move (O): ").unwrap();
            assert!(
                reply.contains(&format!("{} is taken", NAMES[taken])),
                "{reply}"
            );
            assert!(!reply.contains("You play"), "an illegal move is not played");
        }
        let free = board.iter().position(|&c| c == '.').expect("a free square");
        // Alternate the two spellings: letters, then digits 1-9.
        if moves_made % 2 == 0 {
            session.send(NAMES[free]);
        } else {
            session.send(&(free + 1).to_string());
        }
        moves_made += 1;
    }
    let (all, ok) = session.end();
    assert!(ok, "koth exits successfully after the last game");
    assert_eq!(games_seen, 2, "{all}");
    assert_eq!(all.matches("new game").count(), 2, "{all}");
    assert_eq!(box_lines(&all), 2 * 304, "all boxes after each game: {all}");
    let verdicts = all.matches("MENACE wins.").count()
        + all.matches("You win.").count()
        + all.matches("Draw.").count();
    assert_eq!(verdicts, 2, "{all}");
    assert_eq!(
        all.matches("this session; its 304 boxes hold").count(),
        2,
        "{all}"
    );
    // Every accepted move was played and shown with the board.
    let played = all
        .lines()
        .filter(|l| l.contains("You play ") && l.ends_with(':'))
        .count();
    assert_eq!(played, moves_made, "{all}");
    assert!(all.matches("MENACE plays").count() >= moves_made, "{all}");
}

#[test]
fn end_of_input_mid_game_exits_cleanly_and_boxes_persist() {
    let dir = tempfile::tempdir().unwrap();
    let boxes = dir.path().join("boxes.txt");
    let boxes_arg = boxes.to_str().unwrap();

    let mut session = Session::start(&["--boxes", boxes_arg]);
    session.until_prompt("How many games? ").unwrap();
    session.send("1");
    while let Some(text) = session.until_prompt("Your move (O): ") {
        let board = last_board(&text);
        let free = board.iter().position(|&c| c == '.').unwrap();
        session.send(NAMES[free]);
    }
    let (all, ok) = session.end();
    assert!(ok);
    // Without --show-boxes a game ends with its result and one line, not the 304 boxes.
    assert_eq!(box_lines(&all), 0, "{all}");
    assert!(all.contains("--show-boxes prints them all"), "{all}");
    let saved = std::fs::read_to_string(&boxes).expect("the boxes were saved");
    assert!(saved.starts_with("menace-matchboxes 1\nschedule 4 3 2 1\n"));
    assert_eq!(box_lines(&saved), 304);
    // A draw gives every bead back; a win or a loss changes the boxes MENACE drew from.
    let fresh = Menace::new(MICHIE_SCHEDULE).to_text();
    assert_eq!(saved == fresh, all.contains("Draw."), "{all}");

    // The next session starts from the saved boxes and stops at end of input mid-game.
    let mut session = Session::start(&["--boxes", boxes_arg]);
    session.until_prompt("How many games? ").unwrap();
    session.send("3");
    session.until_prompt("Your move (O): ").unwrap();
    let (rest, ok) = session.end();
    assert!(ok, "end of input is a clean exit: {rest}");
    assert_eq!(
        std::fs::read_to_string(&boxes).unwrap(),
        saved,
        "an unfinished game teaches nothing"
    );

    // A damaged file is refused with its name and line.
    std::fs::write(&boxes, saved.replace("schedule 4 3 2 1", "schedule 4 3")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_koth"))
        .args(["menace", "play", "--boxes", boxes_arg])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("boxes.txt:2"), "{err}");
}
