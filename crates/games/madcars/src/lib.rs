//! Mad Cars, the Mail.Ru Mini AI Cup #3 (2018) physics duel ("madcars"); its rules are in
//! `docs/games/madcars.md`. The physics is the organisers' own: Chipmunk 7 through FFI, built
//! as their server built it.
//!
//! - [`maps`] and [`cars`]: the organisers' six maps and three cars, as data.
//! - [`physics`]: Chipmunk 7, the C library, behind a safe [`physics::Space`].
//! - [`rules`]: a match's world — its space built in the organisers' order, commands, deaths,
//!   the deadline and the rest ticks.
//! - [`protocol`] and [`pyjson`]: the messages, written as the organisers' Python wrote them,
//!   and the reading of answers.
//! - [`play`]: a game of matches between two bots, and the [`Game`] for tournaments.
//! - [`replay`]: the game's replay, every tick, for the viewers.
//! - [`cli`]: `koth madcars`.
//!
//! [`Game`]: koth_game::Game

pub(crate) mod cars;
pub mod cli;
pub(crate) mod maps;
pub(crate) mod physics;
pub mod play;
pub mod protocol;
pub(crate) mod pyjson;
pub mod replay;
pub(crate) mod rules;
pub(crate) mod viewer;

pub use play::MadCars;

/// Plays one match of `map` with two `car`s and no bots, both cars driven by
/// `command(player, tick)` (player 0 or 1; ticks counted from 1 in the match), as fast as the
/// physics goes, and returns how many ticks it lasted: the figure to hold against the
/// organisers' runner (`benches/madcars.rs`).
pub fn scripted_match(
    map: &str,
    car: &str,
    command: impl Fn(usize, u32) -> protocol::Command,
) -> anyhow::Result<u32> {
    physics::check_available()?;
    let map = maps::all()
        .iter()
        .find(|m| m.name == map)
        .ok_or_else(|| anyhow::anyhow!("no map {map:?}"))?;
    let car = cars::all()
        .iter()
        .find(|c| c.name == car)
        .ok_or_else(|| anyhow::anyhow!("no car {car:?}"))?;
    let mut game_match = rules::Match::new(map, car);
    let mut asked = 0;
    for tick in 1..=rules::MAX_TICKS {
        if game_match.start_tick() {
            asked += 1;
            for player in 0..2 {
                game_match.drive(player, command(player, asked));
            }
        }
        if game_match.finish_tick().is_some() {
            return Ok(tick);
        }
    }
    Ok(rules::MAX_TICKS)
}
