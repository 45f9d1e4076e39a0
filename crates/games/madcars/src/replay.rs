//! A Mad Cars game's replay, `replay.jsonl.gz` in its folder, for `koth replay --html` (a web
//! viewer) and `koth replay` (a summary in the terminal): a line with the bots, then for each
//! match a line with its map, car and lives, and a line per tick with both cars, the deadline,
//! and what each bot answered — its command, its debug text, or its fault.
//!
//! Positions are kept to 2 decimals (a hundredth of a pixel): a replay is for eyes, and a game
//! of 9 matches is then about 1 MB before compression.

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use flate2::write::GzEncoder;
use serde::Serialize;
use serde_json::{Value, json};

use super::cars::CarProto;
use super::maps::MapProto;
use super::protocol::CarState;

/// The replay's file name in a game's folder.
pub const FILE: &str = "replay.jsonl.gz";

/// What one bot did in one tick, as a tick's line keeps it: `{"c": command, "d": debug,
/// "f": fault}`.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct Answered {
    #[serde(rename = "c")]
    pub(crate) command: Option<&'static str>,
    #[serde(rename = "d")]
    pub(crate) debug: Option<String>,
    #[serde(rename = "f")]
    pub(crate) fault: Option<String>,
}

/// A tick's line. Its keys in alphabetical order, as the replay's other lines have them
/// (serde_json's maps are sorted).
#[derive(Serialize)]
struct TickLine<'a> {
    a: &'a [Answered; 2],
    cars: [[f64; 9]; 2],
    d: f64,
    t: u32,
}

/// Writes a replay as the game goes. Buffered before the compressor: a line is serialised in
/// many small writes, and the compressor prepares its output buffer at every write it gets.
pub(crate) struct Recorder {
    out: std::io::BufWriter<GzEncoder<std::fs::File>>,
}

/// The replay's buffer: the compressor gets the lines 64 KiB at a time.
const BUFFER: usize = 64 << 10;

/// How many ticks apart the replay is flushed to its file: a second of play at the game's 60
/// ticks a second, a few bytes of the compressor's each.
const FLUSH_TICKS: u32 = 60;

/// `x` kept to 2 decimals.
fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn car(state: &CarState) -> [f64; 9] {
    let [x, y] = state.position;
    let [rx, ry, ra] = state.rear;
    let [fx, fy, fa] = state.front;
    [x, y, state.angle, rx, ry, ra, fx, fy, fa].map(round2)
}

impl Recorder {
    pub(crate) fn create(dir: &Path, bots: &[String], seed: u64) -> anyhow::Result<Recorder> {
        let path = dir.join(FILE);
        let file = std::fs::File::create(&path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        let mut recorder = Recorder {
            out: std::io::BufWriter::with_capacity(
                BUFFER,
                GzEncoder::new(file, flate2::Compression::fast()),
            ),
        };
        // A seed needs all 64 bits; JavaScript's numbers keep 53.
        recorder.line(&json!({"game": "madcars", "bots": bots, "seed": seed.to_string()}))?;
        Ok(recorder)
    }

    fn line(&mut self, value: &impl Serialize) -> anyhow::Result<()> {
        serde_json::to_writer(&mut self.out, value).context("cannot write the replay")?;
        self.out.write_all(b"\n").context("cannot write the replay")
    }

    /// A match begins: its map's segments, the car's shape, each player's lives.
    pub(crate) fn new_match(
        &mut self,
        map: &MapProto,
        car: &CarProto,
        lives: [u32; 2],
    ) -> anyhow::Result<()> {
        let segments: Vec<Value> = map
            .segments
            .iter()
            .map(|(p, q)| {
                let ((x1, y1), (x2, y2)) = (p.xy(), q.xy());
                json!([x1, y1, x2, y2])
            })
            .collect();
        let button: Vec<Value> = car
            .button_poly()
            .iter()
            .map(|(x, y)| json!([x.value(), y.value()]))
            .collect();
        self.line(&json!({
            "map": map.name,
            "car": car.name,
            "lives": lives,
            "segments": segments,
            "body": car.body_poly,
            "button": button,
            "wheels": [car.rear.radius, car.front.radius],
            "square_wheels": car.squared_wheels,
        }))
    }

    /// A tick: the cars and the deadline as the bots saw them, and what each answered. Every
    /// [`FLUSH_TICKS`] ticks what was written is flushed through the compressor, so that a
    /// server can draw the game while it is played ([`read_so_far`]); at fixed ticks, so a seed
    /// still gives the same file.
    pub(crate) fn tick(
        &mut self,
        tick: u32,
        cars: [CarState; 2],
        deadline: f64,
        answers: &[Answered; 2],
    ) -> anyhow::Result<()> {
        self.line(&TickLine {
            a: answers,
            cars: [car(&cars[0]), car(&cars[1])],
            d: round2(deadline),
            t: tick,
        })?;
        if tick.is_multiple_of(FLUSH_TICKS) {
            self.out.flush().context("cannot write the replay")?;
        }
        Ok(())
    }

    /// The game is over: who lost each match is in `results.json`.
    pub(crate) fn finish(self) -> anyhow::Result<()> {
        self.out
            .into_inner()
            .map_err(std::io::IntoInnerError::into_error)
            .and_then(GzEncoder::finish)
            .context("cannot finish the replay")?;
        Ok(())
    }
}

/// Reads a replay back: its lines as JSON values.
pub fn read(path: &Path) -> anyhow::Result<Vec<Value>> {
    use std::io::Read;
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut text = String::new();
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .with_context(|| format!("{}: not a gzipped Mad Cars replay", path.display()))?;
    parse(path, &text)
}

/// Reads the replay of a game still being played: the lines flushed so far, to the last whole
/// one (its file ends where the compressor was last flushed, not where a gzip file ends).
pub fn read_so_far(path: &Path) -> anyhow::Result<Vec<Value>> {
    use std::io::Read;
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut bytes = Vec::new();
    // The error is the file's end, cut short: what came before it is the game so far.
    let _ = flate2::read::GzDecoder::new(file).read_to_end(&mut bytes);
    let whole = bytes
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |end| end + 1);
    let text = std::str::from_utf8(&bytes[..whole])
        .with_context(|| format!("{}: not a Mad Cars replay", path.display()))?;
    parse(path, text)
}

fn parse(path: &Path, text: &str) -> anyhow::Result<Vec<Value>> {
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            serde_json::from_str(line)
                .with_context(|| format!("{}:{}: not a replay line", path.display(), i + 1))
        })
        .collect()
}

/// Faults listed per match in the summary; the rest are counted.
const FAULTS_LISTED: usize = 10;

/// The game a replay holds, for a terminal: each match's map, car, lives and length, and its
/// first faults with the tick of each.
pub fn summary(lines: &[Value]) -> String {
    use std::fmt::Write;
    let mut text = String::new();
    let bots: Vec<String> = lines
        .first()
        .and_then(|header| serde_json::from_value(header["bots"].clone()).ok())
        .unwrap_or_default();
    let _ = writeln!(text, "Mad Cars: {}", bots.join(" against "));
    let mut in_match = 0;
    let mut ticks = 0;
    let mut faults = 0;
    let end_match = |text: &mut String, ticks: u32, faults: usize| {
        if faults > FAULTS_LISTED {
            let _ = writeln!(text, "  … and {} more faults", faults - FAULTS_LISTED);
        }
        let _ = writeln!(text, "  {ticks} ticks");
    };
    for line in lines.iter().skip(1) {
        if let Some(map) = line["map"].as_str() {
            if in_match > 0 {
                end_match(&mut text, ticks, faults);
            }
            in_match += 1;
            ticks = 0;
            faults = 0;
            let lives: Vec<String> = line["lives"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|l| l.to_string())
                .collect();
            let _ = writeln!(
                text,
                "match {in_match}: {map}, {}, lives {}",
                line["car"].as_str().unwrap_or("?"),
                lives.join(" to ")
            );
            continue;
        }
        ticks += 1;
        for (bot, answer) in bots.iter().zip(line["a"].as_array().into_iter().flatten()) {
            if let Some(fault) = answer["f"].as_str() {
                faults += 1;
                if faults <= FAULTS_LISTED {
                    // Ticks are stored from 0 and read from 1.
                    let tick = line["t"].as_u64().map_or(0, |t| t + 1);
                    let _ = writeln!(text, "  tick {tick}: {bot}: {fault}");
                }
            }
        }
    }
    if in_match > 0 {
        end_match(&mut text, ticks, faults);
    }
    text
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;

    #[test]
    fn a_tick_line_keeps_its_keys_sorted_and_positions_to_two_decimals() {
        let dir = tempfile::tempdir().unwrap();
        let mut recorder = Recorder::create(dir.path(), &["A".into(), "B".into()], 7).unwrap();
        let car = CarState {
            position: [300.004, 299.996],
            angle: -0.5,
            direction: 1,
            rear: [271.0, 285.0, 1e-5],
            front: [329.5, 285.0, f64::NAN],
        };
        let answers = [
            Answered {
                command: Some("left"),
                debug: Some("away \"x\"".into()),
                fault: None,
            },
            Answered {
                command: Some("stop"),
                debug: None,
                fault: Some("no answer".into()),
            },
        ];
        recorder.tick(3, [car, car], 10.5, &answers).unwrap();
        recorder.finish().unwrap();
        let lines = read(&dir.path().join(FILE)).unwrap();
        assert_eq!(lines.len(), 2);
        let mut text = String::new();
        flate2::read::GzDecoder::new(std::fs::File::open(dir.path().join(FILE)).unwrap())
            .read_to_string(&mut text)
            .unwrap();
        let cars = "[300.0,300.0,-0.5,271.0,285.0,0.0,329.5,285.0,null]";
        assert_eq!(
            text.lines().nth(1).unwrap(),
            format!(
                "{{\"a\":[{{\"c\":\"left\",\"d\":\"away \\\"x\\\"\",\"f\":null}},{{\"c\":\"stop\",\
                 \"d\":null,\"f\":\"no answer\"}}],\"cars\":[{cars},{cars}],\"d\":10.5,\"t\":3}}"
            )
        );
    }
}
