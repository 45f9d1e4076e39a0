//! `koth watch URL [GAME]`: a game followed in the terminal while it is played, from any koth
//! server (`koth serve`, `tournament run --serve`, `hill run --serve`): its records as they
//! come (`/api/games/N/live`), each on a line, and its result at the end. Without a game, the
//! one `/tv` would show (the first `/api/live` lists). A dropped stream is read again after
//! the last record it had, so nothing is missed or shown twice. Every text of a bot's is
//! escaped for the terminal.

use std::io::{BufRead, BufReader, Write};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::Value;

use koth_base::text::shown;
use koth_game::Numbering;

/// `koth watch URL [GAME]`
#[derive(Debug, clap::Args)]
pub struct WatchArgs {
    /// The server's address, as it printed it (http://127.0.0.1:8080/).
    pub url: String,
    /// The game's number; absent: the game in progress whose seats are rated highest.
    pub game: Option<u32>,
}

/// How long a stream may stay away before `koth watch` gives up on the server.
const GIVE_UP: Duration = Duration::from_secs(60);

pub fn run(args: WatchArgs) -> anyhow::Result<()> {
    let base = format!("{}/", args.url.trim_end_matches('/'));
    let client = koth_hill::submit::http_client(None)?;
    let game = match args.game {
        Some(game) => game,
        None => {
            let live: Value = client
                .get(format!("{base}api/live"))
                .send()
                .and_then(|r| r.error_for_status())
                .and_then(|r| r.json())
                .with_context(|| format!("cannot read the games in progress at {base}api/live"))?;
            match live.get(0).and_then(|g| g["index"].as_u64()) {
                Some(index) => u32::try_from(index).context("a game number out of range")?,
                None => bail!("no game is being played at {base} now (give a GAME to watch one)"),
            }
        }
    };
    let out = std::io::stdout();
    let mut shown_to = Shown::default();
    let mut away_since: Option<Instant> = None;
    loop {
        let url = format!("{base}api/games/{game}/live?from={}", shown_to.last);
        let response = client.get(&url).send().and_then(|r| r.error_for_status());
        match response {
            Ok(response) => {
                away_since = None;
                let game = response
                    .headers()
                    .get(crate::live::GAME_HEADER)
                    .and_then(|name| name.to_str().ok());
                shown_to.numbering = Numbering::of(game.unwrap_or_default());
                if shown_to.follow(BufReader::new(response), &mut out.lock())? {
                    return Ok(());
                }
            }
            Err(err) if err.status().is_some() => bail!("{url}: {err}"),
            Err(_) => {}
        }
        let since = *away_since.get_or_insert_with(Instant::now);
        if since.elapsed() > GIVE_UP {
            bail!("lost {base} for over {} s", GIVE_UP.as_secs());
        }
        std::thread::sleep(Duration::from_secs(1));
    }
}

/// What has been shown of a game: the last record's id, its seats' names, and how its records
/// number rounds and turns (the stream's [`crate::live::GAME_HEADER`] says).
#[derive(Default)]
struct Shown {
    last: u64,
    seats: Vec<String>,
    numbering: Numbering,
}

impl Shown {
    /// Shows the events of `stream` on `out`; whether the game's end came.
    fn follow(&mut self, stream: impl BufRead, out: &mut impl Write) -> anyhow::Result<bool> {
        let (mut id, mut name, mut data) = (None::<u64>, String::new(), String::new());
        for line in stream.lines() {
            let Ok(line) = line else {
                return Ok(false);
            };
            if let Some(value) = line.strip_prefix("id: ") {
                id = value.parse().ok();
            } else if let Some(value) = line.strip_prefix("event: ") {
                name = value.to_string();
            } else if let Some(value) = line.strip_prefix("data: ") {
                data = value.to_string();
            } else if line.is_empty() && !data.is_empty() {
                let record: Value = serde_json::from_str(&data).unwrap_or(Value::Null);
                if name == "end" {
                    writeln!(out, "{}", self.end(&record))?;
                    return Ok(true);
                }
                match id.take() {
                    Some(id) if id <= self.last => {}
                    Some(id) => {
                        self.last = id;
                        writeln!(out, "{id:>5}  {}", self.describe(&record))?;
                    }
                    None => {}
                }
                out.flush()?;
                data.clear();
                name.clear();
            }
        }
        Ok(false)
    }

    fn seat(&self, record: &Value) -> String {
        let seat = record["seat"].as_u64().unwrap_or(0) as usize;
        match self.seats.get(seat) {
            Some(name) => shown(name).into_owned(),
            None => format!("seat {}", seat + 1),
        }
    }

    /// One record in words: the kinds every game's record has, and any other as its JSON.
    fn describe(&mut self, record: &Value) -> String {
        let number = |key: &str| u32::try_from(record[key].as_u64()?).ok();
        let round = number("round").map(|r| self.numbering.round(r));
        let at = || {
            let mut at = format!("round {}", round.unwrap_or_default());
            if let Some(turn) = number("turn") {
                at.push_str(&format!(", turn {}", self.numbering.turn(turn)));
            }
            at
        };
        let text = |key: &str| shown(record[key].as_str().unwrap_or_default()).into_owned();
        match record["kind"].as_str() {
            Some("seats") => {
                self.seats = record["seats"]
                    .as_array()
                    .map(|seats| {
                        seats
                            .iter()
                            .map(|s| s.as_str().unwrap_or_default().to_string())
                            .collect()
                    })
                    .unwrap_or_default();
                let names: Vec<String> = self.seats.iter().map(|s| shown(s).into_owned()).collect();
                format!("seats: {}", names.join(" · "))
            }
            Some("round") => format!("round {} begins", round.unwrap_or_default()),
            Some("answer") => format!("{} · {}: {}", at(), self.seat(record), text("line")),
            Some("fault") => format!(
                "{} · {} ✗ {}: {}",
                at(),
                self.seat(record),
                text("fault"),
                text("reason")
            ),
            _ => {
                // A game's own record: its round and turn in words, from 1, and the rest as JSON.
                let mut rest = record.clone();
                if let Some(fields) = rest.as_object_mut() {
                    fields.remove("round");
                    fields.remove("turn");
                }
                let json = match round {
                    Some(_) => format!("{} · {rest}", at()),
                    None => rest.to_string(),
                };
                let cut: String = json.chars().take(200).collect();
                shown(&cut).into_owned()
            }
        }
    }

    /// The end, in words: the game's state and each bot's score and status.
    fn end(&self, end: &Value) -> String {
        let mut said = format!("ended: {}", shown(end["state"].as_str().unwrap_or("?")));
        if let Some(bots) = end["result"]["bots"].as_array() {
            for bot in bots {
                said.push_str(&format!(
                    "\n  {}: {} ({})",
                    shown(bot["name"].as_str().unwrap_or_default()),
                    bot["score"],
                    shown(bot["status"].as_str().unwrap_or_default())
                ));
            }
        }
        said
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_read_rounds_and_turns_from_1_by_the_game_s_numbering() {
        let mut shown = Shown {
            numbering: Numbering {
                first_round: 0,
                first_turn: 0,
            },
            ..Shown::default()
        };
        let stream = "id: 1\nevent: seats\ndata: {\"kind\":\"seats\",\"seats\":[\"A\",\"B\"]}\n\n\
                      id: 2\nevent: answer\ndata: {\"kind\":\"answer\",\"round\":0,\"seat\":1,\"turn\":4,\"line\":\"NONE\"}\n\n\
                      id: 3\nevent: record\ndata: {\"round\":2,\"turn\":0,\"destroy\":[null]}\n\n";
        let mut out = Vec::new();
        assert!(!shown.follow(stream.as_bytes(), &mut out).unwrap());
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("round 1, turn 5 · B: NONE"), "{out}");
        assert!(
            out.contains("round 3, turn 1 · {\"destroy\":[null]}"),
            "{out}"
        );
        // A game whose records count from 1 keeps its numbers.
        let mut shown = Shown::default();
        let mut out = Vec::new();
        shown.follow(stream.as_bytes(), &mut out).unwrap();
        assert!(
            String::from_utf8(out)
                .unwrap()
                .contains("round 2, turn 0 · ")
        );
    }
}
