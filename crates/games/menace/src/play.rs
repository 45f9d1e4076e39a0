//! Noughts & crosses between any two players: external bots over the line protocol, MENACE,
//! a random player and the perfect player; and the game as the tournament runner sees it.
//!
//! The lines exchanged with a bot are in [`super::protocol`].

use std::path::PathBuf;

use anyhow::Context;
use rand::RngExt;

use super::matchbox::{MICHIE_SCHEDULE, Menace};
use super::perfect;
use super::protocol;
use super::rules::{Board, Mark, Outcome};
use koth_bot::seat::At;
use koth_bot::{BotSpec, FaultKind, FaultLog, Restart, Seat, SeatOptions};
use koth_game::cli::AnyGameArg;
use koth_game::seed::Rng;
use koth_game::{BotResult, BoxFuture, Game, MatchResult, MatchSetup, Ranking};

/// One side of a game.
pub(crate) enum Player {
    /// MENACE, learning from every game it plays (as X only: its boxes are X's positions).
    Menace(Menace),
    Random,
    Perfect,
    Bot(Box<Seat>),
}

/// A fault a bot committed in one game, which lost it that game.
#[derive(Debug, Clone)]
pub(crate) struct GameFault {
    pub mark: Mark,
    /// The move number (1–9) at which it happened, if during play.
    pub turn: Option<u32>,
    pub reason: String,
}

/// How one game went.
#[derive(Debug, Clone)]
pub(crate) struct GameRecord {
    pub outcome: Outcome,
    pub moves: Vec<usize>,
    pub fault: Option<GameFault>,
}

/// Plays one game, `x` against `o`. Never fails: a bot's fault ends the game as a loss for it.
pub(crate) async fn play_game(
    x: &mut Player,
    o: &mut Player,
    rng: &mut Rng,
    round: u32,
) -> GameRecord {
    let mut board = Board::empty();
    let mut moves = Vec::new();
    let mut fault = None;
    // Both bots hear START even if the first cannot be started, so each sees a whole game.
    for (player, mark) in [(&mut *x, Mark::X), (&mut *o, Mark::O)] {
        if let Player::Bot(seat) = player {
            seat.begin(round).await;
            if let Err(e) = seat.send(&protocol::start(mark)) {
                fault.get_or_insert(GameFault {
                    mark,
                    turn: None,
                    reason: e.root().to_string(),
                });
            }
        }
    }
    let outcome = loop {
        if let Some(f) = &fault {
            break Outcome::Won(f.mark.other());
        }
        if let Some(outcome) = board.outcome() {
            break outcome;
        }
        let mark = board.to_move();
        let player = if mark == Mark::X { &mut *x } else { &mut *o };
        let turn = moves.len() as u32 + 1;
        match choose(player, mark, &board, rng, turn).await {
            Ok(square) => {
                board = board.with(square, mark);
                moves.push(square);
            }
            Err(reason) => {
                fault = Some(GameFault {
                    mark,
                    turn: Some(turn),
                    reason,
                })
            }
        }
    };
    for (player, mark) in [(x, Mark::X), (o, Mark::O)] {
        match player {
            Player::Menace(menace) => menace.finish_game(outcome),
            Player::Bot(seat) => {
                // Queued, like the next START: a bot that stopped reading after its last move is
                // caught when its next MOVE is written, or by a late exit; the game itself is
                // decided. A stopped bot hears nothing.
                let _ = seat.send(&protocol::end(outcome, mark));
            }
            Player::Random | Player::Perfect => {}
        }
    }
    GameRecord {
        outcome,
        moves,
        fault,
    }
}

/// The player's square on `board`, or the fault that loses it the game (recorded by the bot's
/// seat).
async fn choose(
    player: &mut Player,
    mark: Mark,
    board: &Board,
    rng: &mut Rng,
    turn: u32,
) -> Result<usize, String> {
    match player {
        Player::Menace(menace) => Ok(menace.choose_move(board, rng)),
        Player::Random => {
            let free = board.free_squares();
            Ok(free[rng.random_range(0..free.len())])
        }
        Player::Perfect => Ok(perfect::choose_move(board, rng)),
        Player::Bot(seat) => {
            let answer = seat
                .ask(&protocol::move_prompt(board), At::turn(turn))
                .await
                .map_err(|e| e.root().to_string())?;
            let refused = match protocol::parse_move(&answer.line, board, mark) {
                Ok(square) => return Ok(square),
                Err(refused) => refused,
            };
            seat.fault(FaultKind::BadOutput, Some(turn), refused.clone());
            Err(refused)
        }
    }
}

/// Wins, draws and losses of one side.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl Tally {
    pub(crate) fn add(&mut self, outcome: Outcome, mark: Mark) {
        match outcome {
            Outcome::Draw => self.draws += 1,
            Outcome::Won(m) if m == mark => self.wins += 1,
            Outcome::Won(_) => self.losses += 1,
        }
    }

    /// Wins + 0.5 · draws, the tournament score.
    pub(crate) fn score(&self) -> f64 {
        f64::from(self.wins) + 0.5 * f64::from(self.draws)
    }
}

/// Noughts & crosses for the tournament runner: two bot folders play `rounds` games (default
/// 10), swapping X and O after every game.
pub struct TicTacToe;

/// The game's name in tournament files and `results.json` (its command is `koth menace`,
/// named after the matchbox learner it also offers).
pub(crate) const NAME: &str = "tictactoe";

/// Games per match when the setup does not say.
pub(crate) const DEFAULT_GAMES: u32 = 10;

impl Game for TicTacToe {
    fn name(&self) -> &'static str {
        NAME
    }

    fn players(&self) -> (usize, usize) {
        (2, 2)
    }

    /// Each match is won, drawn or lost: who came out ahead counts.
    fn ranking(&self) -> Ranking {
        Ranking::Placement
    }

    fn most_cpus(&self) -> usize {
        1
    }

    /// On a thread of its own kept to one CPU of the match's share: koth and the two bots take
    /// turns, so on one CPU none of them has to wake another.
    fn play<'a>(&'a self, setup: &'a MatchSetup) -> BoxFuture<'a, anyhow::Result<MatchResult>> {
        let setup = setup.clone();
        let cpu = setup.cpus.first().copied().into_iter().collect();
        Box::pin(koth_game::play_placed(cpu, move || async move {
            let sides = setup.bots.iter().cloned().map(Side::Bot).collect();
            Ok(play_match(&setup, sides, true, &mut |_, _| {})
                .await?
                .result)
        }))
    }
}

/// Who plays a side of a match: a bot, or one of koth's own players.
pub(crate) enum Side {
    Bot(BotSpec),
    Menace(Menace),
    Random,
    Perfect,
}

impl Side {
    /// Reads `menace`, `random`, `perfect` or a bot folder (one that plays tictactoe, unless
    /// `--any-game`).
    pub(crate) fn from_arg(arg: &str, any_game: &AnyGameArg) -> anyhow::Result<Side> {
        Ok(match arg {
            "menace" => Side::Menace(Menace::new(MICHIE_SCHEDULE)),
            "random" => Side::Random,
            "perfect" => Side::Perfect,
            path => Side::Bot(any_game.load_bot(NAME, &PathBuf::from(path)).with_context(
                || format!("player `{path}`: expected menace, random, perfect or a bot folder"),
            )?),
        })
    }

    pub(crate) fn name(&self) -> String {
        match self {
            Side::Bot(spec) => spec.name.clone(),
            Side::Menace(_) => "MENACE".into(),
            Side::Random => "random".into(),
            Side::Perfect => "perfect".into(),
        }
    }
}

/// One game of a match as `results.json` keeps it.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct GameSummary {
    pub game: u32,
    /// The names of the X and O players.
    pub x: String,
    pub o: String,
    /// `X`, `O` or `draw`.
    pub winner: String,
    /// The squares played, in order (0–8).
    pub moves: Vec<usize>,
    /// The fault that lost the game, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fault: Option<String>,
}

/// A played match.
pub(crate) struct PlayedMatch {
    pub result: MatchResult,
    /// Each side's wins, draws and losses.
    pub tallies: [Tally; 2],
    /// MENACE as the match left it, if it played (it learns from every game).
    pub menace: Option<Menace>,
}

/// Plays `setup.rounds` games (default [`DEFAULT_GAMES`]) between the two `sides`, the first X
/// in the first game, X and O swapped after every game if `alternate`; calls `on_game` after
/// each, and writes `results.json` (the match result and every game) and, through the bots'
/// seats, `stderr/` and `transcripts/` into the setup's log folder. A side's score is its wins
/// plus half its draws.
pub(crate) async fn play_match(
    setup: &MatchSetup,
    sides: Vec<Side>,
    alternate: bool,
    on_game: &mut dyn FnMut(&GameSummary, &GameRecord),
) -> anyhow::Result<PlayedMatch> {
    if sides.len() != 2 {
        anyhow::bail!("{NAME} takes exactly 2 players, got {}", sides.len());
    }
    let names: Vec<String> = sides.iter().map(Side::name).collect();
    let mut players = open_players(setup, sides)?;
    let [first, second] = &mut players[..] else {
        unreachable!("two sides make two players");
    };
    let games = setup.rounds.unwrap_or(DEFAULT_GAMES);
    let mut rng = koth_game::seed::rng(setup.seed, 0);
    let mut tallies = [Tally::default(); 2];
    let mut summaries = Vec::new();
    for game in 0..games {
        // The first side plays X, in every other game when alternating.
        let swapped = alternate && game % 2 == 1;
        let round = game + 1;
        let record = if swapped {
            play_game(second, first, &mut rng, round).await
        } else {
            play_game(first, second, &mut rng, round).await
        };
        let marks = if swapped {
            [Mark::O, Mark::X]
        } else {
            [Mark::X, Mark::O]
        };
        for side in 0..2 {
            tallies[side].add(record.outcome, marks[side]);
        }
        let summary = GameSummary::of(round, &names, swapped, &record);
        on_game(&summary, &record);
        summaries.push(summary);
        if let Some(progress) = &setup.progress {
            progress(&koth_game::RoundProgress {
                rounds_done: round,
                rounds_total: games,
                totals: tallies.iter().map(Tally::score).collect(),
            });
        }
    }
    let (bots, menace) = finish_players(players, &names, tallies).await;
    let result = MatchResult {
        game: NAME.into(),
        seed: setup.seed,
        bots,
    };
    let json = serde_json::json!({ "result": &result, "games": &summaries });
    setup.write_results(&json)?;
    Ok(PlayedMatch {
        result,
        tallies,
        menace,
    })
}

/// The bots among `sides`, in their order.
pub(crate) fn bots_of(sides: &[Side]) -> Vec<BotSpec> {
    sides
        .iter()
        .filter_map(|side| match side {
            Side::Bot(spec) => Some(spec.clone()),
            _ => None,
        })
        .collect()
}

/// The players of `sides`, in their order: a seat opened for each bot.
fn open_players(setup: &MatchSetup, sides: Vec<Side>) -> anyhow::Result<Vec<Player>> {
    let bots = bots_of(&sides);
    let options = SeatOptions::new(setup.limits, Restart::AfterFault, setup.seed);
    let mut seats = Seat::open_all(&bots, &setup.log_dir, &options)?.into_iter();
    Ok(sides
        .into_iter()
        .map(|side| match side {
            Side::Bot(_) => Player::Bot(Box::new(seats.next().expect("a seat per bot"))),
            Side::Menace(menace) => Player::Menace(menace),
            Side::Random => Player::Random,
            Side::Perfect => Player::Perfect,
        })
        .collect())
}

impl GameSummary {
    /// Game `round` of a match between the sides `names`, the second side X if `swapped`.
    fn of(round: u32, names: &[String], swapped: bool, record: &GameRecord) -> GameSummary {
        let (x, o) = if swapped { (1, 0) } else { (0, 1) };
        GameSummary {
            game: round,
            x: names[x].clone(),
            o: names[o].clone(),
            winner: match record.outcome {
                Outcome::Won(mark) => mark.as_char().to_string(),
                Outcome::Draw => "draw".into(),
            },
            moves: record.moves.clone(),
            fault: record.fault.as_ref().map(|f| f.reason.clone()),
        }
    }
}

/// Ends the match for every player (a bot's process is finished): returns each side's result
/// (named `names`, scored by `tallies`) and MENACE as it learnt, if it played.
async fn finish_players(
    players: Vec<Player>,
    names: &[String],
    tallies: [Tally; 2],
) -> (Vec<BotResult>, Option<Menace>) {
    let mut menace = None;
    let mut bots = Vec::new();
    for (player, (name, tally)) in players.into_iter().zip(names.iter().zip(tallies)) {
        let result = match player {
            Player::Bot(mut seat) => {
                seat.finish("").await;
                BotResult::new(seat.name(), tally.score(), seat.faults(), seat.timing())
            }
            other => {
                if let Player::Menace(m) = other {
                    menace = Some(m);
                }
                BotResult::new(
                    name,
                    tally.score(),
                    &FaultLog::default(),
                    Default::default(),
                )
            }
        };
        bots.push(result);
    }
    (bots, menace)
}
