//! Mad Cars over the line protocol: the organisers' messages, byte for byte as their Python
//! runner writes them (`json.dumps`: `", "` and `": "` separators, floats as Python prints
//! them), and the reading of a bot's answer with the effect each answer has on the car there.
//!
//! koth → bot, one JSON line each (the rules and examples: `docs/games/madcars.md`):
//! - `{"type": "new_match", "params": {"my_lives": L, "enemy_lives": L, "proto_map": {…},
//!   "proto_car": {…}}}` at the start of every match; not answered;
//! - `{"type": "tick", "params": {"my_car": CAR, "enemy_car": CAR, "deadline_position": Y}}`
//!   every tick that is not a rest tick, where CAR is `[[x, y], angle, direction, [rear x, y,
//!   angle], [front x, y, angle]]`; answered by one line.
//!
//! bot → koth: `{"command": "left" | "right" | "stop", "debug": "…"}`.

use serde_json::Value;

use super::pyjson::push_float;
use koth_bot::quote;

/// A car as the messages describe it: its body's origin (not its centre of gravity), angles as
/// the physics has them (not normalised), and which way it faces.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct CarState {
    pub(crate) position: [f64; 2],
    pub(crate) angle: f64,
    /// 1 for the car that faces right (player 1), −1 for the mirrored one.
    pub(crate) direction: i8,
    /// Rear wheel: x, y, angle.
    pub(crate) rear: [f64; 3],
    /// Front wheel: x, y, angle.
    pub(crate) front: [f64; 3],
}

impl CarState {
    /// Appends the car as `json.dumps` writes it: `[[x, y], angle, direction, [rear x, y,
    /// angle], [front x, y, angle]]`.
    fn write_json(&self, out: &mut String) {
        let floats = |out: &mut String, values: &[f64]| {
            for (i, &value) in values.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                push_float(out, value);
            }
        };
        out.push_str("[[");
        floats(out, &self.position);
        out.push_str("], ");
        push_float(out, self.angle);
        out.push_str(", ");
        out.push_str(itoa::Buffer::new().format(self.direction));
        out.push_str(", [");
        floats(out, &self.rear);
        out.push_str("], [");
        floats(out, &self.front);
        out.push_str("]]");
    }
}

/// How the message that opens a match begins: what `koth replay` counts a game's matches by.
pub(crate) const NEW_MATCH: &str = "{\"type\": \"new_match\"";

/// The message that starts a match, as one player sees it; `proto_map` and `proto_car` are the
/// JSON texts of the map's and the car's prototypes.
pub(crate) fn new_match(
    my_lives: u32,
    enemy_lives: u32,
    proto_map: &str,
    proto_car: &str,
) -> String {
    format!(
        "{NEW_MATCH}, \"params\": {{\"my_lives\": {my_lives}, \"enemy_lives\": {enemy_lives}, \
         \"proto_map\": {proto_map}, \"proto_car\": {proto_car}}}}}"
    )
}

/// The tick messages of both players, written into buffers kept from tick to tick. Each
/// player's message holds both cars, so each car is written once and copied into both.
#[derive(Default)]
pub(crate) struct Ticks {
    cars: [String; 2],
    messages: [String; 2],
}

impl Ticks {
    /// This tick's message for each player: player `p` drives `cars[p]`.
    pub(crate) fn write(&mut self, cars: &[CarState; 2], deadline_position: f64) -> [&str; 2] {
        for (text, car) in self.cars.iter_mut().zip(cars) {
            text.clear();
            car.write_json(text);
        }
        for (me, message) in self.messages.iter_mut().enumerate() {
            message.clear();
            message.push_str("{\"type\": \"tick\", \"params\": {\"my_car\": ");
            message.push_str(&self.cars[me]);
            message.push_str(", \"enemy_car\": ");
            message.push_str(&self.cars[1 - me]);
            message.push_str(", \"deadline_position\": ");
            push_float(message, deadline_position);
            message.push_str("}}");
        }
        let [one, two] = &self.messages;
        [one, two]
    }
}

/// What a bot may tell its car.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Left,
    Right,
    Stop,
}

impl Command {
    /// The command as bots spell it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Command::Left => "left",
            Command::Right => "right",
            Command::Stop => "stop",
        }
    }
}

/// What an answer does, as on the organisers' server, and why when it is a fault.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Reading {
    /// A command, with the bot's debug text if it sent one.
    Command(Command, Option<String>),
    /// The organisers' server drives the car with a random command when an answer is not JSON
    /// or names no known command; koth does the same and records the fault.
    Random { reason: String },
    /// Answers their server cannot use at all disconnect the player: its car brakes and it gets
    /// no more messages. koth records the fault and stops the bot.
    Disconnect { reason: String },
}

/// The most of a `debug` text kept per tick, as the organisers kept.
pub(crate) const DEBUG_KEPT: usize = 200;

/// Reads one answer line the way the organisers' runner does (`json.loads`, then `Player.
/// apply_turn`), so that a game plays as it did there.
pub(crate) fn read_answer(line: &str) -> Reading {
    let Ok(value) = serde_json::from_str::<Value>(line) else {
        return Reading::Random {
            reason: format!(
                "answered {}, which is not JSON{}",
                quote(line),
                // Not even the start of a JSON value: most likely a debug line.
                koth_bot::debug_hint(line.trim_start().starts_with(['{', '[']))
            ),
        };
    };
    // Python's truth: an empty object or list, 0, "", false or null is "no turn".
    if !truthy(&value) {
        return Reading::Disconnect {
            reason: format!("answered {}, which is no turn", quote(line)),
        };
    }
    let Value::Object(answer) = &value else {
        return Reading::Disconnect {
            reason: format!("answered {}, which is not a JSON object", quote(line)),
        };
    };
    // Their runner cuts `debug` and `error` to 200 characters when they are truthy: anything
    // but a string or a list cannot be cut, and ends the player.
    let mut debug = None;
    for key in ["debug", "error"] {
        match answer.get(key) {
            Some(v) if truthy(v) => match v {
                Value::String(text) if key == "debug" => {
                    debug = Some(text.chars().take(DEBUG_KEPT).collect());
                }
                Value::String(_) | Value::Array(_) => {}
                _ => {
                    return Reading::Disconnect {
                        reason: format!("answered {}: its {key:?} is not text", quote(line)),
                    };
                }
            },
            _ => {}
        }
    }
    match answer.get("command").and_then(Value::as_str) {
        Some("left") => Reading::Command(Command::Left, debug),
        Some("right") => Reading::Command(Command::Right, debug),
        Some("stop") => Reading::Command(Command::Stop, debug),
        _ => Reading::Random {
            reason: format!(
                "answered {}, which names no command (left, right or stop)",
                quote(line)
            ),
        },
    }
}

fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tick_is_written_as_python_writes_it() {
        let my = CarState {
            position: [300.0, 300.0],
            angle: 0.0,
            direction: 1,
            rear: [271.0, 285.0, 0.0],
            front: [329.5, 285.0, 1e-05],
        };
        let enemy = CarState {
            direction: -1,
            position: [900.0, 299.99],
            ..my
        };
        let mut ticks = Ticks::default();
        // Twice: the buffers kept from the first tick hold nothing of it in the second.
        for deadline in [600.5, 10.0] {
            let [first, second] = ticks.write(&[my, enemy], deadline);
            assert_eq!(
                first,
                format!(
                    "{{\"type\": \"tick\", \"params\": {{\"my_car\": [[300.0, 300.0], 0.0, 1, \
                     [271.0, 285.0, 0.0], [329.5, 285.0, 1e-05]], \"enemy_car\": [[900.0, \
                     299.99], 0.0, -1, [271.0, 285.0, 0.0], [329.5, 285.0, 1e-05]], \
                     \"deadline_position\": {deadline:?}}}}}"
                )
            );
            assert_eq!(
                second,
                format!(
                    "{{\"type\": \"tick\", \"params\": {{\"my_car\": [[900.0, 299.99], 0.0, -1, \
                     [271.0, 285.0, 0.0], [329.5, 285.0, 1e-05]], \"enemy_car\": [[300.0, \
                     300.0], 0.0, 1, [271.0, 285.0, 0.0], [329.5, 285.0, 1e-05]], \
                     \"deadline_position\": {deadline:?}}}}}"
                )
            );
        }
    }

    #[test]
    fn answers_act_as_on_the_organisers_server() {
        assert_eq!(
            read_answer(r#"{"command": "left", "debug": "go"}"#),
            Reading::Command(Command::Left, Some("go".into()))
        );
        assert_eq!(
            read_answer(r#"{"command": "stop", "debug": 0}"#),
            Reading::Command(Command::Stop, None)
        );
        let long = "x".repeat(300);
        let Reading::Command(_, Some(kept)) =
            read_answer(&format!(r#"{{"command": "right", "debug": "{long}"}}"#))
        else {
            panic!()
        };
        assert_eq!(kept.len(), DEBUG_KEPT);
        for random in ["hello", r#"{"command": "up"}"#, r#"{"debug": "x"}"#] {
            assert!(
                matches!(read_answer(random), Reading::Random { .. }),
                "{random}"
            );
        }
        for ends in [
            "{}",
            "[]",
            "0",
            "null",
            "[1]",
            "\"left\"",
            r#"{"command": "left", "debug": 5}"#,
        ] {
            assert!(
                matches!(read_answer(ends), Reading::Disconnect { .. }),
                "{ends}"
            );
        }
        assert!(matches!(
            read_answer(r#"{"command": "left", "debug": ["a"]}"#),
            Reading::Command(Command::Left, None)
        ));
    }
}
