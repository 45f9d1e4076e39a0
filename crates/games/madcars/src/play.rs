//! A game of Mad Cars between two bots, however it is started: `koth madcars` and the
//! tournament runner both call [`play`]. A game is up to `matches` matches, each on its own
//! (map, car) pair drawn with the seed; each player has ceil(matches / 2) lives and loses one
//! whenever its car's button touches anything; the game ends when a player has none left.

use anyhow::bail;
use rand::RngExt;
use rand::seq::SliceRandom;
use serde::Serialize;

use super::cars::{self, CarProto};
use super::maps::{self, MapProto};
use super::physics;
use super::protocol::{self, Command, Reading, Ticks};
use super::replay::{Answered, Recorder};
use super::rules::{MAX_TICKS, Match};
use koth_bot::seat::At;
use koth_bot::{BotSpec, Ending, FaultKind, Restart, Seat, SeatOptions};
use koth_game::seed::{self, Rng};
use koth_game::{
    BotResult, BoxFuture, Breakdown, Game, MatchResult, MatchSetup, RESULTS_FILE, Ranking,
    RoundProgress,
};

/// Matches per game, as on the organisers' server.
pub(crate) const DEFAULT_MATCHES: u32 = 9;
/// The most time a bot may spend answering over a whole game, as the organisers allowed.
pub(crate) const TOTAL_ANSWER_TIME: std::time::Duration = std::time::Duration::from_secs(120);

/// Which (map, car) pairs a game draws from, and how many matches it has.
#[derive(Debug, Clone, Default)]
pub(crate) struct Options {
    /// Matches in the game; `None`: [`DEFAULT_MATCHES`], or the setup's rounds.
    pub(crate) matches: Option<u32>,
    /// Only these maps (by name); empty: every map.
    pub(crate) maps: Vec<String>,
    /// Only these cars (by name); empty: every car.
    pub(crate) cars: Vec<String>,
}

impl Options {
    /// The options of a tournament file's `[options]`: `maps` and `cars`, lists of names to
    /// draw from (as `--map` and `--car` give them).
    pub(crate) fn from_table(options: &toml::Table) -> anyhow::Result<Options> {
        let names = |key: &str| -> anyhow::Result<Vec<String>> {
            match options.get(key) {
                None => Ok(Vec::new()),
                Some(toml::Value::Array(names)) => names
                    .iter()
                    .map(|name| match name {
                        toml::Value::String(name) => Ok(name.clone()),
                        other => bail!("`{key}`: {other} is not a name"),
                    })
                    .collect(),
                Some(other) => bail!("`{key}` = {other}: give a list of names"),
            }
        };
        if let Some(key) = options
            .keys()
            .find(|key| !["maps", "cars"].contains(&key.as_str()))
        {
            bail!("madcars has no option `{key}` (its options: maps, cars)");
        }
        Ok(Options {
            matches: None,
            maps: names("maps")?,
            cars: names("cars")?,
        })
    }
}

/// The (map, car) pairs of a game: `count` distinct ones drawn with `seed` from every pair the
/// options allow, ordered by map then car name as the organisers order them before drawing.
pub(crate) fn draw_pairs(
    options: &Options,
    count: u32,
    seed: u64,
) -> anyhow::Result<Vec<(&'static MapProto, &'static CarProto)>> {
    let all_maps = maps::all();
    let all_cars = cars::all();
    for name in &options.maps {
        if !all_maps.iter().any(|m| m.name == name) {
            let known: Vec<&str> = all_maps.iter().map(|m| m.name).collect();
            bail!("no map {name:?} (there are: {})", known.join(", "));
        }
    }
    for name in &options.cars {
        if !all_cars.iter().any(|c| c.name == name) {
            let known: Vec<&str> = all_cars.iter().map(|c| c.name).collect();
            bail!("no car {name:?} (there are: {})", known.join(", "));
        }
    }
    let mut map_list: Vec<&'static MapProto> = all_maps
        .iter()
        .filter(|m| options.maps.is_empty() || options.maps.iter().any(|n| n == m.name))
        .collect();
    map_list.sort_by_key(|m| m.name);
    let mut car_list: Vec<&'static CarProto> = all_cars
        .iter()
        .filter(|c| options.cars.is_empty() || options.cars.iter().any(|n| n == c.name))
        .collect();
    car_list.sort_by_key(|c| c.name);
    let mut pairs: Vec<_> = map_list
        .iter()
        .flat_map(|&m| car_list.iter().map(move |&c| (m, c)))
        .collect();
    if count == 0 || count as usize > pairs.len() {
        bail!(
            "{count} matches asked for, and the maps and cars allowed make {} distinct pairs",
            pairs.len()
        );
    }
    let mut rng = seed::rng(seed, 0);
    pairs.shuffle(&mut rng);
    pairs.truncate(count as usize);
    Ok(pairs)
}

/// How one match of a game went.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct MatchRecord {
    pub(crate) map: &'static str,
    pub(crate) car: &'static str,
    /// Ticks the match lasted, its rest ticks included.
    pub(crate) ticks: u32,
    /// The bots that lost a life in it.
    pub(crate) losers: Vec<String>,
}

/// A whole game, as `results.json` keeps it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct GameRecord {
    pub(crate) matches: Vec<MatchRecord>,
    /// Lives left, by bot name.
    pub(crate) lives: serde_json::Map<String, serde_json::Value>,
    /// The bot with more lives left; `None` for a draw.
    pub(crate) winner: Option<String>,
    /// Ticks the game lasted.
    pub(crate) ticks: u32,
    /// Whether the game reached [`MAX_TICKS`] before a player ran out of lives (the organisers'
    /// server gave no result then; koth decides on the lives left).
    pub(crate) tick_cap_reached: bool,
}

/// One player: its seat, whether it still plays, its time spent answering, its lives.
struct Player {
    seat: Seat,
    connected: bool,
    answer_time: std::time::Duration,
    lives: u32,
}

/// A game under way: its players, its replay, and what runs on from match to match.
struct Playing {
    players: Vec<Player>,
    recorder: Recorder,
    /// The tick messages, written anew each tick.
    ticks: Ticks,
    /// Stream 1 of the seed: it drives the cars of answers the organisers' server answered
    /// with a random command.
    rng: Rng,
    /// Ticks played so far, counted across the matches.
    tick: u32,
}

/// Plays one game between the setup's two bots with `options`, and writes `results.json`.
pub(crate) async fn play(
    setup: &MatchSetup,
    options: &Options,
) -> anyhow::Result<(MatchResult, GameRecord)> {
    let [first, second] = setup.bots.as_slice() else {
        bail!("madcars is played by two bots, not {}", setup.bots.len());
    };
    physics::check_available()?;
    let count = options.matches.or(setup.rounds).unwrap_or(DEFAULT_MATCHES);
    let pairs = draw_pairs(options, count, setup.seed)?;
    let rng: Rng = seed::rng(setup.seed, 1);
    let players = open_players(setup, [first, second], count.div_ceil(2))?;
    let names: Vec<String> = players.iter().map(|p| p.seat.name().to_string()).collect();
    let mut playing = Playing {
        recorder: Recorder::create(&setup.log_dir, &names, setup.seed)?,
        players,
        ticks: Ticks::default(),
        rng,
        tick: 0,
    };
    let mut matches = Vec::new();
    let mut tick_cap_reached = false;
    for (index, &(map, car)) in pairs.iter().enumerate() {
        let started = playing.tick;
        let dead = playing.play_match(index, map, car).await?;
        tick_cap_reached = dead.is_none();
        matches.push(MatchRecord {
            map: map.name,
            car: car.name,
            ticks: playing.tick - started,
            losers: dead.map_or_else(Vec::new, |dead| playing.lose_lives(dead)),
        });
        if tick_cap_reached {
            break;
        }
        if let Some(progress) = &setup.progress {
            progress(&RoundProgress {
                rounds_done: matches.len() as u32,
                rounds_total: pairs.len() as u32,
                totals: playing.players.iter().map(|p| p.lives as f64).collect(),
            });
        }
        if playing.players.iter().any(|p| p.lives == 0) {
            break;
        }
    }
    let Playing {
        mut players,
        recorder,
        tick,
        ..
    } = playing;
    for player in &mut players {
        player.seat.finish("after the game: ").await;
    }
    recorder.finish()?;
    let game = GameRecord {
        matches,
        lives: names
            .iter()
            .zip(&players)
            .map(|(name, p)| (name.clone(), p.lives.into()))
            .collect(),
        winner: winner(&players, &names),
        ticks: tick,
        tick_cap_reached,
    };
    let result = write_results(setup, &players, &game)?;
    Ok((result, game))
}

/// The seats of `bots`, opened as the organisers' server played them, each with `lives`.
fn open_players(
    setup: &MatchSetup,
    [first, second]: [&BotSpec; 2],
    lives: u32,
) -> anyhow::Result<Vec<Player>> {
    // The organisers' server sent nothing after a game and never asked a bot to exit: it
    // dropped the connection and destroyed the bot's container, so their bots may loop on end
    // of input.
    let seat_options = SeatOptions {
        ending: Ending::Dropped,
        ..SeatOptions::new(setup.limits, Restart::Never, setup.seed)
    };
    let seats = Seat::open_all(
        &[first.clone(), second.clone()],
        &setup.log_dir,
        &seat_options,
    )?;
    Ok(seats
        .into_iter()
        .map(|seat| Player {
            seat,
            connected: true,
            answer_time: std::time::Duration::ZERO,
            lives,
        })
        .collect())
}

impl Playing {
    /// Plays match `index`, on `map` with `car`, tick by tick: returns which cars' buttons were
    /// touched (in seat order), or `None` if the game reached [`MAX_TICKS`] first.
    async fn play_match(
        &mut self,
        index: usize,
        map: &MapProto,
        car: &CarProto,
    ) -> anyhow::Result<Option<[bool; 2]>> {
        let lives_now = [self.players[0].lives, self.players[1].lives];
        begin_match(&mut self.players, index, lives_now, map, car).await;
        self.recorder.new_match(map, car, lives_now)?;
        let mut game_match = Match::new(map, car);
        loop {
            let asking = game_match.start_tick();
            let cars = [game_match.car_state(0), game_match.car_state(1)];
            let deadline = game_match.deadline_position();
            let answers = if asking {
                let messages = self.ticks.write(&cars, deadline);
                let (players, rng) = (&mut self.players, &mut self.rng);
                ask_both(players, &mut game_match, messages, self.tick, rng).await
            } else {
                Default::default()
            };
            self.recorder.tick(self.tick, cars, deadline, &answers)?;
            let ended = game_match.finish_tick();
            self.tick += 1;
            if let Some(dead) = ended {
                return Ok(Some(dead));
            }
            if self.tick >= MAX_TICKS {
                return Ok(None);
            }
        }
    }

    /// Takes a life from each player whose car `dead` says died; returns their names.
    fn lose_lives(&mut self, dead: [bool; 2]) -> Vec<String> {
        let mut losers = Vec::new();
        for (player, died) in self.players.iter_mut().zip(dead) {
            if died {
                player.lives -= 1;
                losers.push(player.seat.name().to_string());
            }
        }
        losers
    }
}

/// Begins match `index` (of `map` and `car`) on every seat still connected, telling each its
/// lives and its opponent's (`lives_now`, in seat order); a seat that cannot be told is
/// disconnected.
async fn begin_match(
    players: &mut [Player],
    index: usize,
    lives_now: [u32; 2],
    map: &MapProto,
    car: &CarProto,
) {
    for (me, player) in players.iter_mut().enumerate() {
        // A match is a round of the bot's seat: its faults name the match.
        if player.connected && !player.seat.begin(index as u32 + 1).await {
            player.connected = false;
        }
        if player.connected {
            let message = protocol::new_match(
                lives_now[me],
                lives_now[1 - me],
                map.proto_json(),
                car.proto_json(),
            );
            if player.seat.send(&message).is_err() {
                player.connected = false;
            }
        }
    }
}

/// The bot with more lives left (`names` in seat order); `None` for a draw.
fn winner(players: &[Player], names: &[String]) -> Option<String> {
    match players[0].lives.cmp(&players[1].lives) {
        std::cmp::Ordering::Greater => Some(names[0].clone()),
        std::cmp::Ordering::Less => Some(names[1].clone()),
        std::cmp::Ordering::Equal => None,
    }
}

/// The game's result (each bot's lives left as its score), written with the game's record as
/// `results.json`.
fn write_results(
    setup: &MatchSetup,
    players: &[Player],
    game: &GameRecord,
) -> anyhow::Result<MatchResult> {
    let result = MatchResult {
        game: "madcars".into(),
        seed: setup.seed,
        bots: players
            .iter()
            .map(|p| {
                BotResult::new(
                    p.seat.name(),
                    p.lives as f64,
                    p.seat.faults(),
                    p.seat.timing(),
                )
            })
            .collect(),
    };
    let json = serde_json::json!({
        "game": "madcars",
        "seed": setup.seed,
        "matches": &game.matches,
        "lives": &game.lives,
        "winner": &game.winner,
        "ticks": game.ticks,
        "tick_cap_reached": game.tick_cap_reached,
        "result": &result,
    });
    setup.write_results(&json)?;
    Ok(result)
}

/// What a player did with one tick.
enum Turn {
    /// Not asked: it no longer plays.
    NotAsked,
    /// Lost on the way (a time-out, a crash, its time for the game used up): its seat has the
    /// fault; this is its reason.
    Lost(String),
    Answered(String),
}

/// Sends both connected players their message of this tick (`messages`, player 1's first) and
/// applies their answers to their cars, each as the organisers' server would; every fault is
/// recorded by the player's seat.
async fn ask_both(
    players: &mut [Player],
    game_match: &mut Match,
    messages: [&str; 2],
    tick: u32,
    rng: &mut Rng,
) -> [Answered; 2] {
    let at = At::turn(tick);
    // Both are asked before either answer is awaited, so the bots think at once.
    let mut asked = [None, None];
    for (me, message) in messages.into_iter().enumerate() {
        if players[me].connected {
            asked[me] = Some(players[me].seat.prompt(message, at));
        }
    }
    let [one, two] = players else {
        unreachable!("two players")
    };
    let [first, second] = asked;
    let (first, second) = futures::join!(turn_of(one, first, tick), turn_of(two, second, tick));
    let mut answered: [Answered; 2] = Default::default();
    for (me, turn) in [first, second].into_iter().enumerate() {
        let player = &mut players[me];
        let record = &mut answered[me];
        let command = match turn {
            Turn::NotAsked => continue,
            Turn::Lost(reason) => {
                record.fault = Some(reason);
                player.connected = false;
                player.seat.stop().await;
                Command::Stop
            }
            Turn::Answered(line) => match protocol::read_answer(&line) {
                Reading::Command(command, debug) => {
                    record.debug = debug;
                    command
                }
                Reading::Random { reason } => {
                    record.fault = Some(reason.clone());
                    player.seat.fault(FaultKind::BadOutput, Some(tick), reason);
                    let commands = [Command::Stop, Command::Left, Command::Right];
                    commands[rng.random_range(0..commands.len())]
                }
                Reading::Disconnect { reason } => {
                    record.fault = Some(reason.clone());
                    player.seat.fault(FaultKind::BadOutput, Some(tick), reason);
                    player.connected = false;
                    player.seat.stop().await;
                    Command::Stop
                }
            },
        };
        record.command = Some(command.name());
        game_match.drive(me, command);
    }
    answered
}

/// Awaits `player`'s answer to the tick it was `asked`, counting its time against the game's
/// total.
async fn turn_of(
    player: &mut Player,
    asked: Option<Result<koth_bot::process::Asked, koth_bot::BotError>>,
    tick: u32,
) -> Turn {
    let Some(asked) = asked else {
        return Turn::NotAsked;
    };
    let asked = match asked {
        Ok(asked) => asked,
        Err(error) => return Turn::Lost(error.to_string()),
    };
    let answer = match player.seat.answer(asked, At::turn(tick)).await {
        Ok(answer) => answer,
        Err(error) => return Turn::Lost(error.to_string()),
    };
    player.answer_time += answer.wall;
    if player.answer_time > TOTAL_ANSWER_TIME {
        let reason = format!(
            "answered for over {} s in all, the most a game allows",
            TOTAL_ANSWER_TIME.as_secs()
        );
        player
            .seat
            .fault(FaultKind::TimedOut, Some(tick), reason.clone());
        return Turn::Lost(reason);
    }
    Turn::Answered(answer.line)
}

/// Mad Cars, as the tournament runner plays it: every (map, car) pair may come up, `rounds`
/// matches per game (9 if unset).
pub struct MadCars;

impl Game for MadCars {
    fn name(&self) -> &'static str {
        "madcars"
    }

    fn players(&self) -> (usize, usize) {
        (2, 2)
    }

    /// A match is won or lost (or drawn): only who won counts.
    fn ranking(&self) -> Ranking {
        Ranking::Placement
    }

    /// Chipmunk must be there, and `rounds` (matches per game) must fit the 18 pairs.
    fn check(&self, rounds: Option<u32>) -> anyhow::Result<()> {
        physics::check_available()?;
        let matches = rounds.unwrap_or(DEFAULT_MATCHES);
        draw_pairs(&Options::default(), matches, 0)
            .map(|_| ())
            .map_err(|e| anyhow::anyhow!("`rounds` = {matches} (matches per game): {e:#}"))
    }

    /// `maps` and `cars` (`[options]` of a tournament file), which must leave `rounds` pairs.
    fn check_options(&self, rounds: Option<u32>, options: &toml::Table) -> anyhow::Result<()> {
        let matches = rounds.unwrap_or(DEFAULT_MATCHES);
        draw_pairs(&Options::from_table(options)?, matches, 0).map(|_| ())
    }

    fn breakdown_file(&self) -> Option<&'static str> {
        Some(RESULTS_FILE)
    }

    /// Each bot's matches by map and car, as the article's authors wanted to see where they
    /// lose: matches played, lives lost, matches won (the other lost a life and it did not).
    fn breakdown(&self, game_dirs: &[std::path::PathBuf]) -> Option<Breakdown> {
        let mut by_pair: std::collections::BTreeMap<(String, String, String), [u32; 3]> =
            std::collections::BTreeMap::new();
        for dir in game_dirs {
            let Ok(text) = std::fs::read_to_string(dir.join(RESULTS_FILE)) else {
                continue;
            };
            let Ok(results) = serde_json::from_str::<serde_json::Value>(&text) else {
                continue;
            };
            let names: Vec<&str> = results["result"]["bots"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|b| b["name"].as_str())
                .collect();
            for played in results["matches"].as_array().into_iter().flatten() {
                let losers: Vec<&str> = played["losers"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|l| l.as_str())
                    .collect();
                let (Some(map), Some(car)) = (played["map"].as_str(), played["car"].as_str())
                else {
                    continue;
                };
                for name in &names {
                    let lost = losers.contains(name);
                    let won = !lost && !losers.is_empty();
                    let entry = by_pair
                        .entry((name.to_string(), map.to_string(), car.to_string()))
                        .or_default();
                    entry[0] += 1;
                    entry[1] += u32::from(lost);
                    entry[2] += u32::from(won);
                }
            }
        }
        let rows = by_pair
            .into_iter()
            .map(|((bot, map, car), [played, lost, won])| {
                vec![
                    bot,
                    map,
                    car,
                    played.to_string(),
                    lost.to_string(),
                    won.to_string(),
                    format!("{:.0}%", 100.0 * f64::from(won) / f64::from(played)),
                ]
            })
            .collect();
        Some(Breakdown {
            title: "By map and car (a match is won when only the other car lost a life)".into(),
            columns: [
                "bot",
                "map",
                "car",
                "matches",
                "lives lost",
                "won",
                "win rate",
            ]
            .map(String::from)
            .to_vec(),
            rows,
        })
    }

    fn most_cpus(&self) -> usize {
        1
    }

    /// On a thread of its own kept to one CPU of the match's share: koth and the two bots take
    /// turns every tick, so on one CPU none of them has to wake another.
    fn play<'a>(&'a self, setup: &'a MatchSetup) -> BoxFuture<'a, anyhow::Result<MatchResult>> {
        let setup = setup.clone();
        let cpu = setup.cpus.first().copied().into_iter().collect();
        Box::pin(koth_game::play_placed(cpu, move || async move {
            Ok(play(&setup, &Options::from_table(&setup.options)?).await?.0)
        }))
    }
}
