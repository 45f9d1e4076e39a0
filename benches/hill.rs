//! The hill's figures (`scripts/bench-hill.sh` runs this; the figures go in `docs/hill.md`):
//!
//! 1. **Whole ranking**: games until the fitted ranking of 16 players of known strength reaches
//!    Kendall τ ≥ 0.9 against the true order, for the hill's matchmaking, a round robin (the
//!    tournament's schedule) and random line-ups; median and mean over seeds 1–40 (or those
//!    given: `-- --seeds=1001-1120`); in a placement game of
//!    two and in a points game of three (each ranked by its own fit, `koth::ranking`).
//! 2. **Placement**: a newcomer joining a settled hill of 16 (a placement game of two, and a
//!    points game of three), its games chosen by the hill's matchmaking or against each of the
//!    16 in turn: its place after 40 of its games against its true place, and the games after
//!    which its place stays within one of the truth (median over 40 seeds).
//! 3. **Cost**: choosing a game among 1,000 active versions; the refit of 1,000 versions and
//!    1,000,000 games, of a placement game of two and of a points game of three
//!    (`-- cost --versions=10000 --games=10000000` for another size; the true strengths span
//!    the same range whatever the size; `-- choose` only the choosing, afresh and as a hill
//!    chooses, keeping its [`Standing`] between games; `-- placement-refit` or
//!    `-- points-refit` one refit alone, the points one with its lead's interval;
//!    `--near-share=S` the placement refit's share of games between near versions, 0.9 unless
//!    given: 0.38 spreads 10,000,000 games among 10,000 versions over some 6,000,000 pairs).
//!
//! 4. **A contest's final** (`-- final`): the top 16 of a field of 100 play the contest's final
//!    (its balanced rounds, its table and its stopping rule, koth's own code) until every
//!    adjacent pair is apart at 95% or the budget ends; the games it needs against a round robin
//!    of a length fixed beforehand that is as sure (every adjacent pair apart in 95% of seeds).
//!
//! Games are drawn from a known model (Davidson's for placement, Poisson points for points) with
//! strengths evenly spread, so they cost nothing and the true order is known; the matchmaking
//! and the fits are koth's own code.
//! `scripts/bench-hill.sh` measures what needs processes and a database (the leaderboard of a
//! hill of a million games, games per second against a tournament).

use std::time::{Duration, Instant};

use koth::hill::matchmaking::{Candidate, History, Standing, Tuning, choose, from_fit};
use koth::ranking::order::{Games, fit, fit_from};
use koth::ranking::{self, Ranking, Start};
use rand::{Rng, RngExt};
use skillratings::MultiTeamOutcome;
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};

const PLAYERS: usize = 16;
/// Log-strength between neighbours in the placement figure: the better of two neighbours wins
/// 43% of games and loses 26%.
const STEP: f64 = 0.5;
const TUNING: Tuning = Tuning {
    placement_games: 10,
    far_share: 0.1,
};

/// The simulated game: its players a game, how it ranks, and how a game of `seats` ends.
#[derive(Clone, Copy)]
enum Model {
    /// Two players, Davidson's model with ν = 1 (win, draw or loss): a placement game.
    Placement,
    /// Three players, each scoring a Poisson number of points with mean
    /// `exp(s_i − mean of the others' s) / 2`: a points game where weak players often score
    /// nothing and a game where nobody scores is common (as in the Grid-Routing Battle).
    Points,
}

impl Model {
    fn players(self) -> usize {
        match self {
            Model::Placement => 2,
            Model::Points => 3,
        }
    }

    fn ranking(self) -> Ranking {
        match self {
            Model::Placement => Ranking::Placement,
            Model::Points => Ranking::Points,
        }
    }

    fn play(self, strength: &[f64], seats: &[usize], rng: &mut impl Rng) -> Vec<f64> {
        match self {
            Model::Placement => {
                let (i, j) = (seats[0], seats[1]);
                let (pi, pj, pd) = (
                    strength[i].exp(),
                    strength[j].exp(),
                    ((strength[i] + strength[j]) / 2.0).exp(),
                );
                let u: f64 = rng.random::<f64>() * (pi + pj + pd);
                if u < pi {
                    vec![1.0, 0.0]
                } else if u < pi + pd {
                    vec![0.5, 0.5]
                } else {
                    vec![0.0, 1.0]
                }
            }
            Model::Points => seats
                .iter()
                .map(|&i| {
                    let others = seats.iter().filter(|&&j| j != i).map(|&j| strength[j]);
                    let mean = others.sum::<f64>() / (seats.len() - 1) as f64;
                    poisson((strength[i] - mean).exp() / 2.0, rng)
                })
                .collect(),
        }
    }
}

/// A Poisson draw of mean `lambda` (Knuth's; means here are small).
fn poisson(lambda: f64, rng: &mut impl Rng) -> f64 {
    let limit = (-lambda).exp();
    let (mut k, mut p) = (0.0, 1.0);
    loop {
        p *= rng.random::<f64>();
        if p <= limit {
            return k;
        }
        k += 1.0;
    }
}

fn kendall_tau(strength: &[f64], fitted: &[f64]) -> f64 {
    let n = strength.len();
    let (mut agree, mut pairs) = (0.0, 0.0);
    for i in 0..n {
        for j in i + 1..n {
            let truth = (strength[i] - strength[j]).signum();
            let seen = (fitted[i] - fitted[j]).signum();
            agree += truth * seen;
            pairs += 1.0;
        }
    }
    agree / pairs
}

/// The hill's matchmaking over a pool, with the ratings and the history it reads: the online
/// ratings in a placement game, the points fit in a points game (refitted after every game,
/// from the last fit, as the hill's refit thread does whenever games came in; after the
/// first thousand, every sixteenth).
struct Hill {
    candidates: Vec<Candidate>,
    history: History,
    next: u32,
    seed: u64,
    /// Each player's online rating (Weng-Lin), what a placement game's matchmaking reads.
    online: Vec<WengLinRating>,
    /// A points game's games so far and the last fit's coordinates.
    points: Option<(ranking::Games, Vec<Start>)>,
}

impl Hill {
    fn new(model: Model, players: usize, seed: u64) -> Hill {
        Hill {
            candidates: (0..players).map(candidate).collect(),
            history: History::default(),
            next: 0,
            seed,
            online: vec![WengLinRating::new(); players],
            points: match model.ranking() {
                Ranking::Points => Some((ranking::Games::new(Ranking::Points), Vec::new())),
                Ranking::Placement => None,
            },
        }
    }

    fn choose(&mut self, players: usize) -> Vec<usize> {
        let mut rng = koth::seed::rng(self.seed, (1 << 32) + u64::from(self.next));
        choose(
            &self.candidates,
            players,
            self.next,
            TUNING,
            &self.history,
            &mut rng,
        )
        .unwrap()
        .seats
    }

    fn record(&mut self, seats: &[usize], scores: &[f64]) {
        let teams: Vec<[WengLinRating; 1]> = seats.iter().map(|&k| [self.online[k]]).collect();
        let ranks: Vec<MultiTeamOutcome> = scores
            .iter()
            .map(|mine| MultiTeamOutcome::new(1 + scores.iter().filter(|&o| o > mine).count()))
            .collect();
        let contest: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
            .iter()
            .zip(&ranks)
            .map(|(t, r)| (&t[..], *r))
            .collect();
        let updated = weng_lin_multi_team(&contest, &WengLinConfig::new());
        for (&k, r) in seats.iter().zip(updated) {
            self.online[k] = r[0];
            let c = &mut self.candidates[k];
            if self.points.is_none() {
                c.mu = r[0].rating;
                c.sigma = r[0].uncertainty;
            }
            c.games += 1;
            c.last_chosen = Some(self.next);
        }
        let seated: Vec<(usize, f64)> = seats.iter().copied().zip(scores.iter().copied()).collect();
        self.history.record(&seated);
        self.next += 1;
        if let Some((games, last)) = &mut self.points {
            games.add(&seated);
            // After the first thousand games, every sixteenth: a fit costs all the games so
            // far, and the seeds the pool of 0.5 apart never ranks run to 20,000.
            if self.next > 1000 && !self.next.is_multiple_of(16) {
                return;
            }
            last.resize(self.candidates.len(), Start::default());
            let fit = ranking::fit(games, last);
            last.clone_from(&fit.next);
            // As `hill run`: the online ratings until the fit has a spread to read it on.
            let unplayed = fit.unplayed_interval();
            for (k, c) in self.candidates.iter_mut().enumerate() {
                (c.mu, c.sigma) = if unplayed > 0.0 {
                    from_fit(fit.strengths[k].value, fit.strengths[k].interval, unplayed)
                } else {
                    (self.online[k].rating, self.online[k].uncertainty)
                };
            }
        }
    }
}

fn candidate(k: usize) -> Candidate {
    let fresh = WengLinRating::new();
    Candidate {
        id: k,
        label: format!("p{k}"),
        mu: fresh.rating,
        sigma: fresh.uncertainty,
        games: 0,
        last_chosen: None,
        queued: 0,
    }
}

#[derive(Clone, Copy)]
enum Method {
    Hill,
    RoundRobin,
    Random,
}

/// The fitted figures of `players` by the model's ranking.
fn fitted(model: Model, players: usize, played: &[(Vec<usize>, Vec<f64>)]) -> Vec<f64> {
    let mut games = ranking::Games::new(model.ranking());
    for (seats, scores) in played {
        let seated: Vec<(usize, f64)> = seats.iter().copied().zip(scores.iter().copied()).collect();
        games.add(&seated);
    }
    ranking::fit(&games, &vec![Start::default(); players])
        .strengths
        .iter()
        .map(|s| s.value)
        .collect()
}

/// Games until τ ≥ 0.9 (fitted every 8 games), at most `cap`. Read after every game, a first
/// passage finds more of the brief crossings chance makes (seeds 1–40, neighbours 0.25 apart:
/// the round robin's median 407 games against 464): every figure so far reads every 8.
fn games_to_rank(model: Model, method: Method, step: f64, seed: u64, cap: u32) -> u32 {
    let strength: Vec<f64> = (0..PLAYERS).map(|k| k as f64 * step).collect();
    let k = model.players();
    let mut rng = koth::seed::rng(seed, 7);
    let mut played = Vec::new();
    let mut hill = Hill::new(model, PLAYERS, seed);
    let schedule = koth::tournament::schedule::schedule(PLAYERS, k, cap, seed);
    for g in 0..cap {
        let seats: Vec<usize> = match method {
            Method::Hill => hill.choose(k),
            Method::RoundRobin => schedule[g as usize].seats.clone(),
            Method::Random => {
                let mut all: Vec<usize> = (0..PLAYERS).collect();
                rand::seq::SliceRandom::shuffle(&mut all[..], &mut rng);
                all.truncate(k);
                all
            }
        };
        let scores = model.play(&strength, &seats, &mut rng);
        if let Method::Hill = method {
            hill.record(&seats, &scores);
        }
        played.push((seats, scores));
        if (g + 1) % 8 == 0 && kendall_tau(&strength, &fitted(model, PLAYERS, &played)) >= 0.9 {
            return g + 1;
        }
    }
    cap
}

/// Finalists of the contest figure, the top of a field of [`FIELD`].
const FINALISTS: usize = 16;
const FIELD: usize = 100;

/// How a final of the field's top [`FINALISTS`] went: after each of its rounds (up to
/// `rounds`), whether every adjacent pair of its table was apart, how many were not, and
/// whether its order was the true one.
struct FinalRun {
    sure: Vec<bool>,
    unseparated: Vec<usize>,
    true_order: Vec<bool>,
}

/// Plays `rounds` rounds of the contest's final among the top [`FINALISTS`] of a field of
/// [`FIELD`] with neighbours `step` apart, each round the contest's balanced one, its table
/// read after each as `hill run` reads it.
fn final_run(model: Model, step: f64, seed: u64, rounds: u32) -> FinalRun {
    use koth::hill::contest::{schedule, standing};
    // Finalist f is the field's (f+1)th best: the places at the close are the true ones, as a
    // hill that has settled gives them.
    let strength: Vec<f64> = (0..FINALISTS)
        .map(|f| (FIELD - 1 - f) as f64 * step)
        .collect();
    let round = schedule::round(FINALISTS, model.players());
    let mut rng = koth::seed::rng(seed, 11);
    let mut games: Vec<(u32, u32, Vec<standing::Outcome>)> = Vec::new();
    let mut run = FinalRun {
        sure: Vec::new(),
        unseparated: Vec::new(),
        true_order: Vec::new(),
    };
    for number in 1..=rounds {
        for seating in &round {
            let scores = model.play(&strength, &seating.seats, &mut rng);
            games.push((
                number,
                seating.table,
                seating
                    .seats
                    .iter()
                    .zip(scores)
                    .map(|(&finalist, score)| standing::Outcome { finalist, score })
                    .collect(),
            ));
        }
        let scored: Vec<standing::Scored> = games
            .iter()
            .map(|(round, table, outcomes)| standing::Scored {
                round: *round,
                table: *table,
                outcomes,
            })
            .collect();
        let table = standing::table(model.ranking(), FINALISTS, &scored);
        run.sure.push(table.sure());
        run.unseparated.push(table.unseparated().len());
        run.true_order.push(
            table
                .lines
                .iter()
                .enumerate()
                .all(|(place, line)| line.finalist == place),
        );
    }
    run
}

/// The finals of the contest figure: the game, in words, its neighbours' distance, and the
/// most rounds its budget allows.
const FINALS: [(Model, &str, f64, u32); 4] = [
    (Model::Placement, "placement game of 2", 0.25, 200),
    (Model::Placement, "placement game of 2", 0.5, 200),
    (Model::Points, "points game of 3", 0.25, 24),
    (Model::Points, "points game of 3", 0.5, 24),
];

/// Prints the contest figure over `seeds`: the games the final plays before it stops, and the
/// length a round robin fixed beforehand needs to be as sure.
fn finals(seeds: std::ops::RangeInclusive<u64>) {
    let span = format!("seeds {}-{}", seeds.start(), seeds.end());
    for (model, what, step, budget) in FINALS {
        let size = koth::hill::contest::schedule::round_size(FINALISTS, model.players())
            .expect("a round of 16 fits");
        let runs: Vec<FinalRun> = seeds
            .clone()
            .map(|s| final_run(model, step, s, budget))
            .collect();
        // The final stops at its first sure round, else at the budget.
        let stops: Vec<usize> = runs
            .iter()
            .map(|r| {
                r.sure
                    .iter()
                    .position(|&s| s)
                    .map_or(r.sure.len(), |k| k + 1)
            })
            .collect();
        let stopped_sure = runs.iter().filter(|r| r.sure.contains(&true)).count();
        let games: Vec<f64> = stops.iter().map(|&k| (k as u32 * size) as f64).collect();
        let right = runs
            .iter()
            .zip(&stops)
            .filter(|(r, k)| r.true_order[**k - 1])
            .count();
        let left_apart: Vec<usize> = runs
            .iter()
            .zip(&stops)
            .map(|(r, &k)| r.unseparated[k - 1])
            .collect();
        // A round robin of fixed length as sure: the fewest rounds after which 95% of the
        // seeds' tables have every adjacent pair apart.
        let fixed = (1..=budget as usize)
            .find(|&k| runs.iter().filter(|r| r.sure[k - 1]).count() * 100 >= runs.len() * 95);
        println!(
            "A final of the top {FINALISTS} of {FIELD}, {what}, neighbours {step} apart (rounds \
             of {size} games, at most {budget} rounds; {span}): stops after median {:.0}, mean \
             {:.0} games; every adjacent pair apart in {stopped_sure} of {} seeds, the true \
             order in {right}; pairs left unseparated per seed {left_apart:?}; a round robin \
             fixed beforehand as sure (every pair apart in 95% of seeds) plays {}",
            median(games.clone()),
            games.iter().sum::<f64>() / games.len() as f64,
            runs.len(),
            fixed.map_or(format!("more than {} games", budget * size), |k| format!(
                "{} games",
                k as u32 * size
            )),
        );
    }
}

/// Games a newcomer plays in [`newcomer`]; its place is read every [`NEWCOMER_CHECK`] of them.
const NEWCOMER_GAMES: u32 = 120;
const NEWCOMER_CHECK: u32 = 4;

/// A newcomer of a random true strength joins a hill of 16 settled over 600 games and plays
/// [`NEWCOMER_GAMES`] games, chosen by the hill's matchmaking (`Method::Hill`) or against each
/// of the 16 in turn (`Method::RoundRobin`, a gauntlet; in a game of three, two at a time).
/// Returns |its fitted place − its true place| after 40 of its games, and the games after
/// which that error stays within one place to the end (all of them if it does not).
fn newcomer(seed: u64, method: Method, model: Model, step: f64) -> (usize, u32) {
    let k = model.players();
    let mut rng = koth::seed::rng(seed, 9);
    let mut strength: Vec<f64> = (0..PLAYERS).map(|k| k as f64 * step).collect();
    let mut hill = Hill::new(model, PLAYERS, seed);
    let mut played = Vec::new();
    for _ in 0..600 {
        let seats = hill.choose(k);
        let scores = model.play(&strength, &seats, &mut rng);
        hill.record(&seats, &scores);
        played.push((seats, scores));
    }
    // Between two of them, never equal to one.
    let newcomer = PLAYERS;
    strength.push((rng.random_range(0..PLAYERS - 1) as f64 + 0.5) * step);
    hill.candidates.push(candidate(newcomer));
    hill.online.push(WengLinRating::new());
    let place = |values: &[f64]| values.iter().filter(|&&v| v > values[newcomer]).count();
    let mut errors = Vec::new();
    while hill.candidates[newcomer].games < NEWCOMER_GAMES {
        let games = hill.candidates[newcomer].games;
        let seats = match method {
            Method::RoundRobin => {
                let first = (k - 1) * games as usize;
                let mut seats = vec![newcomer];
                seats.extend((first..first + k - 1).map(|o| o % PLAYERS));
                seats
            }
            _ => hill.choose(k),
        };
        let scores = model.play(&strength, &seats, &mut rng);
        hill.record(&seats, &scores);
        played.push((seats, scores));
        let games = hill.candidates[newcomer].games;
        if games > 0
            && games.is_multiple_of(NEWCOMER_CHECK)
            && games != errors.len() as u32 * NEWCOMER_CHECK
        {
            let fitted = fitted(model, PLAYERS + 1, &played);
            errors.push(place(&fitted).abs_diff(place(&strength)));
        }
    }
    let after_40 = errors[(40 / NEWCOMER_CHECK - 1) as usize];
    let settled = errors.iter().rposition(|&e| e > 1).map_or(0, |k| k + 1);
    (
        after_40,
        (settled as u32 * NEWCOMER_CHECK).max(NEWCOMER_CHECK),
    )
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The pools of the whole-ranking figures: the game, in words, and the neighbours' distance.
const WHOLE: [(Model, &str, f64); 4] = [
    (Model::Placement, "placement game of 2", 0.25),
    (Model::Placement, "placement game of 2", 0.5),
    (Model::Points, "points game of 3", 0.25),
    (Model::Points, "points game of 3", 0.5),
];
/// How a newcomer's games are chosen.
const NEWCOMERS: [(&str, Method); 2] = [
    ("hill matchmaking", Method::Hill),
    ("each opponent in turn", Method::RoundRobin),
];
/// The hills a newcomer joins: the game, in words, and the neighbours' distance.
const SETTLED: [(Model, &str, f64); 2] = [
    (Model::Placement, "placement game of 2", STEP),
    (Model::Points, "points game of 3", 0.25),
];

/// Wall and CPU time (this thread's) since a moment: on a machine shared with other work, the
/// CPU time is the figure that does not move with the load.
struct Stopwatch {
    wall: Instant,
    cpu: Duration,
}

impl Stopwatch {
    fn start() -> Stopwatch {
        Stopwatch {
            wall: Instant::now(),
            cpu: thread_cpu(),
        }
    }

    /// Seconds of CPU and of wall time since the start.
    fn seconds(&self) -> (f64, f64) {
        (
            (thread_cpu() - self.cpu).as_secs_f64(),
            self.wall.elapsed().as_secs_f64(),
        )
    }

    /// "C s of CPU (W s wall)".
    fn said(&self) -> String {
        let (cpu, wall) = self.seconds();
        format!("{cpu:.2} s of CPU ({wall:.2} s wall)")
    }
}

/// The process's peak resident memory so far (`VmHWM`), for the stages of a refit.
fn peak_resident() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let peak = status.lines().find_map(|l| l.strip_prefix("VmHWM:"));
    format!("peak resident so far {}", peak.map_or("unknown", str::trim))
}

fn thread_cpu() -> Duration {
    nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID)
        .map(Duration::from)
        .expect("Linux keeps a thread's CPU clock")
}

fn main() {
    // `cargo bench` passes `--bench`; anything else (cargo test's listing) runs nothing.
    // `cargo bench --bench hill -- PART…` runs only the parts named: `whole`, `newcomer`,
    // `cost`, `choose` (the cost's first part alone), `final` (the contest's, only when named).
    let args: Vec<String> = std::env::args().collect();
    if !args.iter().any(|a| a == "--bench") {
        return;
    }
    let parts: Vec<&String> = args[1..].iter().filter(|a| !a.starts_with("--")).collect();
    // Forty seeds by default: a single seed's games-to-τ varies by a factor of four, so ten
    // leave the comparison to chance. `--seeds=FIRST-LAST` runs others: a rule tried on the
    // default seeds is checked on seeds it was not chosen on.
    let seeds = match args.iter().find_map(|a| a.strip_prefix("--seeds=")) {
        Some(range) => {
            let bounds: Option<(u64, u64)> = range
                .split_once('-')
                .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)));
            let Some((first, last)) = bounds.filter(|(a, b)| a <= b) else {
                eprintln!("hill bench: --seeds={range} is not FIRST-LAST (as 1001-1120)");
                std::process::exit(2);
            };
            first..=last
        }
        None => 1..=40u64,
    };
    let count = seeds.clone().count();
    let span = format!("seeds {}-{}", seeds.start(), seeds.end());
    let runs = |part: &str| parts.is_empty() || parts.iter().any(|p| *p == part);
    let cap = 20_000;
    // A placement game with neighbours close (0.25: 37% wins, 29% losses) and far apart (0.5:
    // 43% and 26%); a points game of three with neighbours 0.25 and 0.5 apart.
    let whole = if runs("whole") { &WHOLE[..] } else { &[] };
    for &(model, what, step) in whole {
        println!(
            "Whole ranking of {PLAYERS}, {what}, neighbours {step} apart in log-strength (games \
             until Kendall tau >= 0.9, over {span}):"
        );
        for (name, method) in [
            ("hill matchmaking", Method::Hill),
            ("round robin", Method::RoundRobin),
            ("random line-ups", Method::Random),
        ] {
            let games: Vec<f64> = seeds
                .clone()
                .map(|s| f64::from(games_to_rank(model, method, step, s, cap)))
                .collect();
            println!(
                "  {name:17} median {:4.0}, mean {:4.0} games  (per seed: {games:?})",
                median(games.clone()),
                games.iter().sum::<f64>() / games.len() as f64
            );
        }
    }
    if parts.iter().any(|p| *p == "final") {
        finals(seeds.clone());
    }
    let settled = if runs("newcomer") { &SETTLED[..] } else { &[] };
    let newcomers = settled
        .iter()
        .flat_map(|hill| NEWCOMERS.iter().map(move |newcomer| (hill, newcomer)));
    for (&(model, what, step), &(name, method)) in newcomers {
        let runs: Vec<(usize, u32)> = seeds
            .clone()
            .map(|s| newcomer(s, method, model, step))
            .collect();
        let errors: Vec<usize> = runs.iter().map(|r| r.0).collect();
        let games: Vec<f64> = runs.iter().map(|r| f64::from(r.1)).collect();
        println!(
            "A newcomer in a settled hill of {PLAYERS}, {what}, {step} apart, {name}: after 40 of its games median \
             error {} places, within one place in {} of {count} seeds (errors {errors:?}); within one \
             place for good after median {:.0}, mean {:.0} of its games (per seed: {games:?})",
            median(errors.iter().map(|&e| e as f64).collect()),
            errors.iter().filter(|&&e| e <= 1).count(),
            median(games.clone()),
            games.iter().sum::<f64>() / games.len() as f64
        );
    }

    let named = |part: &str| parts.iter().any(|p| *p == part);
    let refits = |part: &str| runs("cost") || named(part);
    if !runs("cost")
        && !runs("choose")
        && !refits("placement-refit")
        && !refits("points-refit")
        && !named("line-ups")
    {
        return;
    }
    // The hill's size: 1,000 versions and 1,000,000 games unless `--versions=N`, `--games=N`
    // ask for another (issue 58 measures 10,000 and 10,000,000).
    let size = |flag: &str, default: usize| match args.iter().find_map(|a| a.strip_prefix(flag)) {
        Some(n) => n.replace(['_', ','], "").parse().unwrap_or_else(|_| {
            eprintln!("hill bench: {flag}{n} is not a number");
            std::process::exit(2);
        }),
        None => default,
    };
    let versions = size("--versions=", 1000);
    let game_count = size("--games=", 1_000_000);
    if runs("cost") || runs("choose") {
        choosing(versions, game_count);
    }
    if refits("placement-refit") {
        let near_share = match args.iter().find_map(|a| a.strip_prefix("--near-share=")) {
            Some(share) => share
                .parse()
                .ok()
                .filter(|s: &f64| (0.0..=1.0).contains(s))
                .unwrap_or_else(|| {
                    eprintln!("hill bench: --near-share={share} is not a share from 0 to 1");
                    std::process::exit(2);
                }),
            None => 0.9,
        };
        placement_refit(versions, game_count, near_share);
    }
    if refits("points-refit") {
        points_refit(versions, game_count);
    }
    if named("line-ups") {
        line_ups(versions, game_count);
    }
}

/// How many distinct line-ups (the rows the points fit walks) `game_count` games of three
/// among `versions` make when the hill's matchmaking seats them, its `Standing` kept and each
/// game recorded: a settled hill, each version's μ its true place (10 to 40, as the choosing
/// part's) and its σ falling from the fresh 8.3 with its games as a fit's interval does
/// (`8.3 / √(1 + games / 10)`). Only named (`-- line-ups`): a choice costs some 0.1 ms at
/// 1,000 versions.
fn line_ups(versions: usize, game_count: usize) {
    let mut candidates: Vec<Candidate> = (0..versions)
        .map(|k| Candidate {
            mu: 10.0 + 30.0 * k as f64 / versions as f64,
            sigma: 8.3,
            ..candidate(k)
        })
        .collect();
    let mut history = History::default();
    let mut standing = Standing::default();
    let mut seen: std::collections::HashSet<Vec<usize>> = std::collections::HashSet::new();
    let mut rng = koth::seed::rng(5, 3);
    let started = Stopwatch::start();
    for next in 0..game_count as u32 {
        let mut seats = standing
            .choose(&candidates, 3, next, TUNING, &history, &mut rng)
            .expect("a game")
            .seats;
        let scores: Vec<f64> = (0..3)
            .map(|_| f64::from(rng.random_range(0..4u8)))
            .collect();
        let seated: Vec<(usize, f64)> = seats.iter().copied().zip(scores).collect();
        history.record(&seated);
        for &k in &seats {
            let c = &mut candidates[k];
            c.games += 1;
            c.last_chosen = Some(next);
            c.sigma = 8.3 / (1.0 + f64::from(c.games) / 10.0).sqrt();
        }
        seats.sort_unstable();
        seen.insert(seats);
    }
    println!(
        "{game_count} games of three chosen by the hill's matchmaking among {versions} versions: \
         {} distinct line-ups ({})",
        seen.len(),
        started.said()
    );
}

/// Choosing a game among `versions` active versions, afresh and as a hill chooses.
fn choosing(versions: usize, game_count: usize) {
    let mut rng = koth::seed::rng(1, 3);
    let candidates: Vec<Candidate> = (0..versions)
        .map(|k| Candidate {
            mu: rng.random_range(10.0..40.0),
            sigma: rng.random_range(0.8..8.3),
            games: rng.random_range(10..5000),
            last_chosen: Some(rng.random_range(0..game_count as u32)),
            queued: rng.random_range(0..2),
            ..candidate(k)
        })
        .collect();
    // Each version has met its 20 nearest in id 10 times, a third of them alike.
    let mut history = History::default();
    for a in 0..versions {
        for b in a + 1..(a + 21).min(versions) {
            history.add(
                a,
                b,
                koth::hill::matchmaking::Met {
                    games: 10,
                    alike: 3,
                },
            );
        }
    }
    // Each choice afresh, every gain computed again (as `matchmaking::choose`).
    let (mut cpu, mut wall) = (Vec::new(), Vec::new());
    for next in 0..1001u32 {
        let mut rng = koth::seed::rng(1, u64::from(next));
        let started = Stopwatch::start();
        let choice = choose(
            &candidates,
            2,
            game_count as u32 + next,
            TUNING,
            &history,
            &mut rng,
        );
        let (c, w) = started.seconds();
        cpu.push(c * 1000.0);
        wall.push(w * 1000.0);
        assert!(choice.is_some());
    }
    println!(
        "Choosing a game among {versions} active versions, afresh: median {:.3} ms of CPU \
         ({:.3} ms wall)",
        median(cpu),
        median(wall)
    );
    // As a hill chooses: the standing kept, and between choices the game played, its pairs
    // added to the history and its versions' ratings moved (as Weng-Lin's online update).
    let mut candidates = candidates;
    let mut standing = Standing::default();
    let (mut cpu, mut wall) = (Vec::new(), Vec::new());
    for next in 0..1001u32 {
        let mut rng = koth::seed::rng(1, u64::from(next));
        let started = Stopwatch::start();
        let choice = standing.choose(
            &candidates,
            2,
            game_count as u32 + next,
            TUNING,
            &history,
            &mut rng,
        );
        let (c, w) = started.seconds();
        cpu.push(c * 1000.0);
        wall.push(w * 1000.0);
        let seats = choice.expect("a game").seats;
        let won = rng.random_range(0..2);
        history.record(&[(seats[0], f64::from(won)), (seats[1], f64::from(1 - won))]);
        for c in candidates.iter_mut().filter(|c| seats.contains(&c.id)) {
            c.games += 1;
            c.last_chosen = Some(game_count as u32 + next);
            c.mu += rng.random_range(-0.5..0.5);
            c.sigma *= 0.99;
        }
    }
    println!(
        "Choosing a game among {versions} active versions as a hill does (the standing kept, \
         each game recorded): median {:.3} ms of CPU ({:.3} ms wall)",
        median(cpu),
        median(wall)
    );
}

/// The placement refit of `game_count` games of two among `versions`, `near_share` of them
/// between near ratings (within 19 in id) and the rest between any two: from scratch, and from
/// the last fit after 100 more games.
fn placement_refit(versions: usize, game_count: usize, near_share: f64) {
    let hill_size = format!("{versions} versions and {game_count} games");
    let strength: Vec<f64> = (0..versions)
        .map(|k| k as f64 * 5.0 / versions as f64)
        .collect();
    let mut rng = koth::seed::rng(2, 3);
    let started = Stopwatch::start();
    let mut games = Games::default();
    for _ in 0..game_count {
        let i = rng.random_range(0..versions);
        let j = if rng.random_bool(near_share) {
            (i + rng.random_range(1..20)) % versions
        } else {
            (i + rng.random_range(1..versions)) % versions
        };
        let outcome = Model::Placement.play(&strength, &[i, j], &mut rng);
        games.add(&[(i, outcome[0]), (j, outcome[1])]);
    }
    // As `hill run`'s refit puts them in order once gathered.
    games.order_pairs();
    let gathered = format!(
        "{} distinct pairs, {}, {}",
        games.pair_count(),
        started.said(),
        peak_resident()
    );
    let started = Stopwatch::start();
    let fitted = fit(versions, &games);
    let fitted_s = started.said();
    let ratings: Vec<f64> = fitted.iter().map(|s| s.value).collect();
    println!(
        "Refit of {hill_size}: {gathered} to gather the games; {fitted_s} to fit (tau {:.3} \
         against the truth), {}",
        kendall_tau(&strength, &ratings),
        peak_resident()
    );
    // As `hill run` refits: 100 games more, from the last fit's strengths.
    for _ in 0..100 {
        let i = rng.random_range(0..versions);
        let j = (i + rng.random_range(1..20)) % versions;
        let outcome = Model::Placement.play(&strength, &[i, j], &mut rng);
        games.add(&[(i, outcome[0]), (j, outcome[1])]);
    }
    let last: Vec<f64> = fitted.iter().map(|s| s.theta).collect();
    let started = Stopwatch::start();
    games.order_pairs();
    let refitted = fit_from(&games, &last);
    println!(
        "The same after 100 more games, from the last fit: {}, {}; the figures' digest {:016x} \
         and {:016x}",
        started.said(),
        peak_resident(),
        digest(&fitted),
        digest(&refitted)
    );
}

/// Every bit of a fit's figures in one number (FNV-1a over each figure's and interval's bits),
/// so that two builds can be shown to fit the same figures to the bit.
fn digest(fitted: &[ranking::Strength]) -> u64 {
    let bits = fitted
        .iter()
        .flat_map(|s| [s.theta, s.value, s.interval])
        .flat_map(|x| x.to_bits().to_le_bytes());
    bits.fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// How far in id (as in rating) the points refit's near seats are drawn: as many line-ups
/// recur as when the hill's matchmaking seats the games (the `line-ups` part: 608,990 distinct
/// of 1,000,000 games among 1,000 versions, 61%; all but none recur among 10,000 versions).
/// Until 2026-11-30 the window was 19 at any size: 36% distinct at 1,000 versions, which
/// flattered the fit, whose work grows with the distinct line-ups. The matchmaking's window
/// spans a fixed share of the ratings' range, so it widens with the versions.
fn near_window(versions: usize) -> usize {
    (versions * 36 / 1000).max(3)
}

/// The points refit of `game_count` games of three among `versions`, their Poisson points
/// multiplying: from scratch, and from the last fit after 100 more games.
fn points_refit(versions: usize, game_count: usize) {
    let hill_size = format!("{versions} versions and {game_count} games");
    let strength: Vec<f64> = (0..versions)
        .map(|k| k as f64 * 5.0 / versions as f64)
        .collect();
    let mut rng = koth::seed::rng(4, 3);
    let mut games = ranking::Games::new(Ranking::Points);
    /// A table of three as the hill's matchmaking seats them: near one another (in id, as
    /// in rating), and a tenth of the others drawn from anywhere (`far_share`). Before
    /// 2026-11-29 every seat was near: a chain of 10,000 with no far games, where a version's
    /// table effect is all but confounded with its neighbours' strengths. Near is within
    /// [`near_window`] in id.
    fn near(versions: usize, rng: &mut impl Rng) -> Vec<usize> {
        let i = rng.random_range(0..versions);
        let mut seats = vec![i];
        while seats.len() < 3 {
            let j = if rng.random_bool(0.9) {
                (i + rng.random_range(1..near_window(versions))) % versions
            } else {
                rng.random_range(0..versions)
            };
            if !seats.contains(&j) {
                seats.push(j);
            }
        }
        seats
    }
    let started = Stopwatch::start();
    for _ in 0..game_count {
        let seats = near(versions, &mut rng);
        let scores = Model::Points.play(&strength, &seats, &mut rng);
        let seated: Vec<(usize, f64)> = seats.iter().copied().zip(scores).collect();
        games.add(&seated);
    }
    println!(
        "{game_count} games of three drawn among {versions} versions and gathered: {} \
         distinct line-ups, {}",
        games.line_ups().unwrap_or(0),
        started.said()
    );
    let started = Stopwatch::start();
    // As `hill run`'s refit orders them once gathered.
    games.order_line_ups();
    println!(
        "Its line-ups ordered: {}; {}",
        started.said(),
        peak_resident()
    );
    let started = Stopwatch::start();
    let fitted = ranking::fit(&games, &vec![Start::default(); versions]);
    let fitted_s = started.said();
    let figures: Vec<f64> = fitted.strengths.iter().map(|s| s.value).collect();
    let last = fitted.next.clone();
    let mut order: Vec<usize> = (0..versions).collect();
    order.sort_by(|&a, &b| figures[b].total_cmp(&figures[a]));
    let started = Stopwatch::start();
    // Kept as `hill run`'s refit keeps it, for the next refit's interval of the same pair.
    let mut lead_solve = ranking::LeadSolve::default();
    let lead = fitted.lead_interval_from(order[0], order[1], &mut lead_solve);
    println!(
        "The lead of the first over the second: {lead:.3} points, {}",
        started.said()
    );
    println!(
        "Refit of {hill_size} of three (points): {fitted_s} (tau {:.3} against the truth); {}",
        kendall_tau(&strength, &figures),
        peak_resident()
    );
    for _ in 0..100 {
        let seats = near(versions, &mut rng);
        let scores = Model::Points.play(&strength, &seats, &mut rng);
        let seated: Vec<(usize, f64)> = seats.iter().copied().zip(scores).collect();
        games.add(&seated);
    }
    let started = Stopwatch::start();
    games.order_line_ups();
    let fitted = ranking::fit(&games, &last);
    let figures: Vec<f64> = fitted.strengths.iter().map(|s| s.value).collect();
    println!(
        "The same after 100 more games, from the last fit: {} (tau {:.3})",
        started.said(),
        kendall_tau(&strength, &figures)
    );
    let started = Stopwatch::start();
    let lead = fitted.lead_interval_from(order[0], order[1], &mut lead_solve);
    println!(
        "Its lead of the same two, solved from the last refit's: {lead:.3} points, {}",
        started.said()
    );
    // The refit that orders the line-ups again: the first after more than a sixteenth of them
    // came since they were last ordered.
    let last = fitted.next.clone();
    let line_ups = games.line_ups().unwrap_or(0);
    while games.line_ups().unwrap_or(0) <= line_ups + line_ups / 15 {
        let seats = near(versions, &mut rng);
        let scores = Model::Points.play(&strength, &seats, &mut rng);
        let seated: Vec<(usize, f64)> = seats.iter().copied().zip(scores).collect();
        games.add(&seated);
    }
    let added = peak_resident();
    let started = Stopwatch::start();
    games.order_line_ups();
    let ordered = format!("{}; {}", started.said(), peak_resident());
    let fitted = ranking::fit(&games, &last);
    let figures: Vec<f64> = fitted.strengths.iter().map(|s| s.value).collect();
    println!(
        "The same after a sixteenth more line-ups ({added}), ordered again first: {} (the \
         order {ordered}; tau {:.3}); {}",
        started.said(),
        kendall_tau(&strength, &figures),
        peak_resident()
    );
}
