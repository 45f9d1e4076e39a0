//! The leaderboard: points per game with a 95% interval, a Weng-Lin rating, how each bot's games
//! ended, and its timing; rendered as a terminal table, Markdown, CSV or JSON.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

use serde::Serialize;
use skillratings::MultiTeamOutcome;
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};

use koth_bot::{BotStatus, FaultCounts, FuelFigures, FuelStats};
use koth_game::stats;
use koth_game::{Average, Breakdown, Ranking};
use koth_ranking::{self as ranking, Entry, Games};

use super::gauntlet::GauntletReport;
use super::store::{Progress, StoredResult};

/// One bot's line on the leaderboard.
#[derive(Debug, Clone, Serialize)]
pub struct Standing {
    pub rank: usize,
    pub name: String,
    pub games: u32,
    pub total: f64,
    /// The mean score per game, arithmetic or geometric as the game wants.
    pub mean: f64,
    /// Half the width of the 95% interval of an arithmetic mean (Student's t); absent below two
    /// games and for geometric means, whose interval is not symmetric.
    pub interval: Option<f64>,
    /// The 95% interval of the mean; absent below two games.
    pub low: Option<f64>,
    pub high: Option<f64>,
    /// The figure the table is ordered by (the leaderboard's `statistic`): for a game of
    /// several players, points per game against average opponents (a points game) or an
    /// Elo-scale rating (a placement game), fitted over every game; for a game played alone,
    /// the mean. With its 95% interval's half-width.
    pub figure: f64,
    pub figure_interval: Option<f64>,
    pub rating: f64,
    pub uncertainty: f64,
    pub finished: u32,
    pub bad_output: u32,
    pub timed_out: u32,
    pub crashed: u32,
    pub failed_to_start: u32,
    /// Every fault it committed, by kind (the columns above count games by how they ended).
    pub faults: FaultCounts,
    /// Games in which it was not started, being on the bench.
    pub benched: u32,
    /// On the bench now: not started in the games still to play.
    pub on_bench: bool,
    /// Did not finish most of its games.
    pub flagged: bool,
    pub answers: u64,
    pub near_misses: u64,
    pub max_wall_ms: f64,
    pub max_cpu_ms: Option<f64>,
    /// A WASI bot's fuel per answer over its games (median, maximum, near misses against its
    /// budget); none for a process.
    pub fuel: Option<FuelFigures>,
}

/// The whole leaderboard with where the tournament stands.
#[derive(Debug, Clone, Serialize)]
pub struct Leaderboard {
    pub name: String,
    pub games_done: u32,
    pub games_total: u32,
    /// Games a gauntlet's test made unnecessary.
    pub games_skipped: u32,
    pub harness_faults: u32,
    pub average: Average,
    /// What the game's result means, and so what orders the table.
    pub ranking: Ranking,
    /// The figure each standing's `figure` is, in words.
    pub statistic: String,
    /// Whether the figure is a fit over the games (several players a game), not the mean.
    pub fitted: bool,
    /// The tournament ran its bots uncontained (`sandbox = false`): any bot could have
    /// changed the results, so the board says so.
    pub uncontained: bool,
    pub standings: Vec<Standing>,
    /// The game's own table, if it has one (Mad Cars: results by map and car).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub breakdown: Option<Breakdown>,
    /// A gauntlet's challenger against each opponent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gauntlet: Option<GauntletReport>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    Markdown,
    Csv,
    Json,
}

impl Standing {
    /// The unranked line of the bot `name` from its own results `mine`: its figure is its fit
    /// over every game when the game has one, else its mean.
    fn of(
        name: &str,
        mine: &[&StoredResult],
        average: Average,
        fit: Option<&ranking::Strength>,
        rating: WengLinRating,
        on_bench: bool,
    ) -> Standing {
        let scores: Vec<f64> = mine.iter().map(|r| r.score).collect();
        let count = |status| mine.iter().filter(|r| r.status == status).count() as u32;
        let games = mine.len() as u32;
        let finished = count(BotStatus::Finished);
        let (mean, interval, low, high) = average_of(&scores, average);
        let (figure, figure_interval) = match fit {
            Some(fit) => (fit.value, Some(fit.interval)),
            None => (mean, interval),
        };
        Standing {
            rank: 0,
            name: name.to_string(),
            games,
            total: scores.iter().sum(),
            mean,
            interval,
            low,
            high,
            figure,
            figure_interval,
            rating: rating.rating,
            uncertainty: rating.uncertainty,
            finished,
            bad_output: count(BotStatus::BadOutput),
            timed_out: count(BotStatus::TimedOut),
            crashed: count(BotStatus::Crashed),
            failed_to_start: count(BotStatus::FailedToStart),
            faults: mine.iter().fold(FaultCounts::default(), |mut all, r| {
                all.merge(&r.faults);
                all
            }),
            benched: count(BotStatus::Benched),
            on_bench,
            flagged: games > 0 && 2 * finished < games,
            answers: mine.iter().map(|r| r.answers).sum(),
            near_misses: mine.iter().map(|r| r.near_misses).sum(),
            max_wall_ms: mine.iter().map(|r| r.max_wall_ms).fold(0.0, f64::max),
            max_cpu_ms: mine.iter().filter_map(|r| r.max_cpu_ms).reduce(f64::max),
            fuel: fuel_of(mine),
        }
    }
}

/// `standings` in the one order of every table ([`ranking::in_order`]), a bot without games
/// last, each numbered with its rank.
fn in_rank_order(standings: Vec<Standing>) -> Vec<Standing> {
    let mut order: Vec<Entry> = standings
        .iter()
        .enumerate()
        .map(|(id, s)| Entry {
            id,
            value: (s.games > 0).then_some(s.figure),
            interval: s.figure_interval.unwrap_or(0.0),
            games: s.games,
        })
        .collect();
    ranking::in_order(&mut order);
    let mut standings: Vec<Standing> = order.iter().map(|e| standings[e.id].clone()).collect();
    for (i, s) in standings.iter_mut().enumerate() {
        s.rank = i + 1;
    }
    standings
}

/// The figure the table is ordered by, in words: the game's fit when `fitted`, else the mean.
fn statistic_of(fitted: bool, average: Average, ranking: Ranking) -> String {
    if fitted {
        return ranking::statistic(ranking).to_string();
    }
    match average {
        Average::Arithmetic => "mean points per game (played alone: no opponents)",
        Average::Geometric => "geometric mean per game (played alone: no opponents)",
    }
    .to_string()
}

impl Leaderboard {
    /// Standings of `bots` from their stored results, ranked by the game's rule (the hill's
    /// own, [`koth_ranking`]): a game of several players by its fit over every game (points
    /// per game adjusted for the opponents met, or an order model's rating), a game played
    /// alone by its mean points per game; the bots numbered in `on_bench` are on the bench.
    pub(crate) fn new(
        name: String,
        progress: Progress,
        bots: &[String],
        on_bench: &[usize],
        results: &[StoredResult],
        (average, ranking): (Average, Ranking),
    ) -> Leaderboard {
        let ratings = ratings(bots.len(), results);
        let fitted = fitted(bots.len(), results, ranking);
        let standings: Vec<Standing> = bots
            .iter()
            .enumerate()
            .map(|(id, name)| {
                let mine: Vec<&StoredResult> = results.iter().filter(|r| r.bot == id).collect();
                Standing::of(
                    name,
                    &mine,
                    average,
                    fitted.as_ref().map(|fitted| &fitted[id]),
                    ratings[id],
                    on_bench.contains(&id),
                )
            })
            .collect();
        let standings = in_rank_order(standings);
        let statistic = statistic_of(fitted.is_some(), average, ranking);
        Leaderboard {
            name,
            games_done: progress.done,
            games_total: progress.total,
            games_skipped: progress.skipped,
            harness_faults: progress.harness_faults,
            average,
            ranking,
            statistic,
            fitted: fitted.is_some(),
            uncontained: false,
            standings,
            breakdown: None,
            gauntlet: None,
        }
    }

    /// The leaderboard as text in `format`. Names come from the database, so a table, Markdown
    /// or CSV shows them escaped ([`koth_base::text::shown`]); JSON escapes them its own way.
    pub(crate) fn render(&self, format: Format) -> String {
        match format {
            Format::Table => koth_base::text::shown_lines(&self.table()),
            Format::Markdown => koth_base::text::shown_lines(&self.markdown()),
            Format::Csv => koth_base::text::shown_lines(&self.csv()),
            Format::Json => {
                serde_json::to_string_pretty(self).expect("plain data serializes") + "\n"
            }
        }
    }

    fn header(&self) -> String {
        let mut text = format!(
            "Tournament {}: {} of {} games played",
            self.name, self.games_done, self.games_total
        );
        if self.games_skipped > 0 {
            write!(
                text,
                "; {} skipped, the gauntlet's test having decided",
                self.games_skipped
            )
            .unwrap();
        }
        if self.harness_faults > 0 {
            write!(
                text,
                "; {} harness faults (koth's own failures, retried, never counted against a bot)",
                self.harness_faults
            )
            .unwrap();
        }
        if self.uncontained {
            text += "\nWARNING: the bots ran uncontained (sandbox = false): any of them could \
                     have read the others' files or changed these results";
        }
        text
    }

    fn cells(&self) -> (Vec<&'static str>, Vec<Vec<String>>) {
        let mut head = vec![
            "#",
            "bot",
            "games",
            "points",
            match self.average {
                Average::Arithmetic => "mean ± 95%",
                Average::Geometric => "geo mean (95%)",
            },
            "rating ± σ",
            "finished",
            "bad_output",
            "timed_out",
            "crashed",
            "failed_to_start",
            "faults",
            "benched",
            "near-misses",
            "max ms",
            "fuel med/max",
        ];
        if self.fitted {
            head.insert(2, ranking::column(self.ranking));
        }
        let rows = self
            .standings
            .iter()
            .map(|s| {
                let mut row = vec![
                    s.rank.to_string(),
                    format!(
                        "{}{}{}",
                        s.name,
                        if s.flagged { " (!)" } else { "" },
                        if s.on_bench { " (benched)" } else { "" }
                    ),
                    s.games.to_string(),
                    // Whole points as they are; the rat race's geometric means summed, to one
                    // decimal like the mean.
                    if s.total.fract() == 0.0 {
                        format!("{}", s.total)
                    } else {
                        format!("{:.1}", s.total)
                    },
                    match (s.interval, s.low, s.high) {
                        (Some(i), _, _) => mean_and_interval(s.mean, i),
                        (None, Some(low), Some(high)) => {
                            format!("{:.1} ({:.1}–{:.1})", s.mean, low, high)
                        }
                        _ => format!("{:.1}", s.mean),
                    },
                    format!("{:.1} ± {:.1}", s.rating, s.uncertainty),
                    s.finished.to_string(),
                    s.bad_output.to_string(),
                    s.timed_out.to_string(),
                    s.crashed.to_string(),
                    s.failed_to_start.to_string(),
                    if s.faults.total() == 0 {
                        "0".to_string()
                    } else {
                        s.faults.to_string()
                    },
                    s.benched.to_string(),
                    s.near_misses.to_string(),
                    format!("{:.0}", s.max_cpu_ms.unwrap_or(s.max_wall_ms)),
                    FuelFigures::cell(s.fuel.as_ref()),
                ];
                if self.fitted {
                    row.insert(
                        2,
                        mean_and_interval(s.figure, s.figure_interval.unwrap_or(0.0)),
                    );
                }
                row
            })
            .collect();
        (head, rows)
    }

    fn footnote(&self) -> Option<String> {
        let names = |keep: fn(&Standing) -> bool| -> String {
            let names: Vec<&str> = self
                .standings
                .iter()
                .filter(|s| keep(s))
                .map(|s| s.name.as_str())
                .collect();
            names.join(", ")
        };
        let mut notes = Vec::new();
        let flagged = names(|s| s.flagged);
        if !flagged.is_empty() {
            notes.push(format!("(!) did not finish most of its games: {flagged}"));
        }
        let benched = names(|s| s.on_bench);
        if !benched.is_empty() {
            notes.push(format!(
                "(benched) not started in its games since it failed at start-up in {} games in \
                 a row: {benched}; `koth tournament resume <folder> --unbench <name>` gives it \
                 its seats back",
                super::BENCH_AFTER
            ));
        }
        (!notes.is_empty()).then(|| notes.join("\n"))
    }

    fn table(&self) -> String {
        let (head, rows) = self.cells();
        let mut text = self.header() + "\n\n";
        let head: Vec<String> = head.iter().map(|h| h.to_string()).collect();
        // Names read left-aligned, numbers right-aligned.
        text += &aligned(&head, &rows, &[1]);
        if let Some(note) = self.footnote() {
            text += &format!("\n{note}\n");
        }
        for (table, left) in self.extra_tables() {
            text += &format!("\n{}\n\n", table.title);
            text += &aligned(&table.columns, &table.rows, left);
        }
        text
    }

    /// The tables below the standings, each with the columns aligned left.
    fn extra_tables(&self) -> Vec<(Breakdown, &'static [usize])> {
        let mut tables = Vec::new();
        if let Some(g) = &self.gauntlet {
            tables.push((g.table(), &[0, 2, 6][..]));
        }
        if let Some(b) = &self.breakdown {
            tables.push((b.clone(), &[0, 1, 2][..]));
        }
        tables
    }

    fn markdown(&self) -> String {
        let (head, rows) = self.cells();
        let mut text = format!("{}\n\n| {} |\n|", self.header(), head.join(" | "));
        text += &"---|".repeat(head.len());
        text.push('\n');
        for row in rows {
            text += &format!("| {} |\n", row.join(" | "));
        }
        if let Some(note) = self.footnote() {
            text += &format!("\n{note}\n");
        }
        for (table, _) in self.extra_tables() {
            text += &format!(
                "\n{}\n\n| {} |\n|{}\n",
                table.title,
                table.columns.join(" | "),
                "---|".repeat(table.columns.len())
            );
            for row in &table.rows {
                text += &format!("| {} |\n", row.join(" | "));
            }
        }
        text
    }

    fn csv(&self) -> String {
        let mut text =
            "rank,bot,games,points,mean,interval95,low95,high95,rating,uncertainty,finished,\
bad_output,timed_out,crashed,failed_to_start,timed_out_faults,crashed_faults,bad_output_faults,\
failed_to_start_faults,benched,on_bench,flagged,answers,near_misses,max_wall_ms,max_cpu_ms,\
figure,figure_interval95,fuel_median,fuel_max,fuel_near_misses,fuel_budget\n"
                .to_string();
        for s in &self.standings {
            let quoted = format!("\"{}\"", s.name.replace('"', "\"\""));
            // Points and ratings to 4 decimals, milliseconds to the microsecond: more would be
            // the noise of binary fractions (16.633950000000002), not information.
            let points = |v: f64| rounded(v, 4);
            let ms = |v: f64| rounded(v, 3);
            let optional = |v: Option<f64>| v.map(points).unwrap_or_default();
            writeln!(
                text,
                "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                s.rank,
                quoted,
                s.games,
                points(s.total),
                points(s.mean),
                optional(s.interval),
                optional(s.low),
                optional(s.high),
                points(s.rating),
                points(s.uncertainty),
                s.finished,
                s.bad_output,
                s.timed_out,
                s.crashed,
                s.failed_to_start,
                s.faults.timed_out,
                s.faults.crashed,
                s.faults.bad_output,
                s.faults.failed_to_start,
                s.benched,
                s.on_bench,
                s.flagged,
                s.answers,
                s.near_misses,
                ms(s.max_wall_ms),
                s.max_cpu_ms.map(ms).unwrap_or_default(),
                points(s.figure),
                optional(s.figure_interval),
                FuelFigures::csv_fields(s.fuel.as_ref()),
            )
            .unwrap();
        }
        text
    }
}

/// A bot's fuel per answer over `results`, its games' histograms merged; none if it never ran as
/// a WASI bot.
fn fuel_of(results: &[&StoredResult]) -> Option<FuelFigures> {
    let mut fuel: Option<FuelStats> = None;
    for game in results.iter().filter_map(|r| r.fuel.as_ref()) {
        fuel.get_or_insert_default().merge(game);
    }
    fuel.map(|f| f.figures())
}

/// `value` to at most `decimals` decimals, written as short as it reads back (`16.634`, `2`).
fn rounded(value: f64, decimals: i32) -> String {
    let scale = 10f64.powi(decimals);
    let value = (value * scale).round() / scale;
    // No `-0`.
    if value == 0.0 { 0.0 } else { value }.to_string()
}

/// A mean with its 95% half-width, to as many decimals as show the half-width to two
/// significant digits (1 to 4): `12.5 ± 2.0`, `0.85 ± 0.18`.
fn mean_and_interval(mean: f64, half: f64) -> String {
    let decimals = if half > 0.0 {
        (1 - half.log10().floor() as i32).clamp(1, 4)
    } else {
        1
    } as usize;
    format!("{mean:.decimals$} ± {half:.decimals$}")
}

/// Weng-Lin ratings over the games in order, each bot a one-player team ranked by its score
/// (equal scores share a rank). A game of one bot is rated with the other one-bot games on its
/// seed, as one contest: a one-player tournament deals every bot the same seeds, so those are
/// its real contests. A contest of one bot teaches nothing and is skipped.
fn ratings(bots: usize, results: &[StoredResult]) -> Vec<WengLinRating> {
    rating_history(bots, results)
        .into_iter()
        .map(|history| history.last().copied().unwrap_or_default())
        .collect()
}

/// Each bot's rating after each of its rated games, in game order (as [`ratings`] rates them):
/// how a bot's rating and its uncertainty moved over the tournament.
pub fn rating_history(bots: usize, results: &[StoredResult]) -> Vec<Vec<WengLinRating>> {
    let mut ratings = vec![WengLinRating::new(); bots];
    let mut history = vec![Vec::new(); bots];
    let mut games: BTreeMap<u32, Vec<&StoredResult>> = BTreeMap::new();
    for r in results {
        games.entry(r.game).or_default().push(r);
    }
    // Each contest by its first game, so contests are rated in the order they began.
    let mut contests: BTreeMap<u32, Vec<&StoredResult>> = BTreeMap::new();
    let mut first_on_seed: HashMap<u64, u32> = HashMap::new();
    for (game, players) in games {
        let contest = match players[..] {
            [alone] => *first_on_seed.entry(alone.seed).or_insert(game),
            _ => game,
        };
        contests.entry(contest).or_default().extend(players);
    }
    for players in contests.values().filter(|p| p.len() > 1) {
        let before: Vec<WengLinRating> = players.iter().map(|p| ratings[p.bot]).collect();
        let scores: Vec<f64> = players.iter().map(|p| p.score).collect();
        for (p, rating) in players.iter().zip(rate_contest(&before, &scores)) {
            ratings[p.bot] = rating;
            history[p.bot].push(rating);
        }
    }
    history
}

/// The Weng-Lin ratings after one contest of players rated `ratings` scoring `scores`, each a
/// one-player team ranked by its score (equal scores share a rank).
pub fn rate_contest(ratings: &[WengLinRating], scores: &[f64]) -> Vec<WengLinRating> {
    let teams: Vec<[WengLinRating; 1]> = ratings.iter().map(|r| [*r]).collect();
    let teams_and_ranks: Vec<(&[WengLinRating], MultiTeamOutcome)> = scores
        .iter()
        .zip(&teams)
        .map(|(score, team)| {
            let better = scores.iter().filter(|o| *o > score).count();
            (&team[..], MultiTeamOutcome::new(better + 1))
        })
        .collect();
    weng_lin_multi_team(&teams_and_ranks, &WengLinConfig::new())
        .into_iter()
        .map(|team| team[0])
        .collect()
}

/// Every bot fitted by the game's `ranking` over the games of `results`, if any game had more
/// than one player; a game played alone has no opponents to adjust for, and its bots are ranked
/// by their mean.
fn fitted(
    bots: usize,
    results: &[StoredResult],
    ranking: Ranking,
) -> Option<Vec<ranking::Strength>> {
    let mut by_game: BTreeMap<u32, Vec<(usize, f64)>> = BTreeMap::new();
    for r in results {
        by_game.entry(r.game).or_default().push((r.bot, r.score));
    }
    if by_game.values().all(|seats| seats.len() < 2) {
        return None;
    }
    let mut games = Games::new(ranking);
    for seats in by_game.values() {
        games.add(seats);
    }
    Some(ranking::fit(&games, &vec![ranking::Start::default(); bots]).strengths)
}

/// A bot's mean score with its 95% interval: `(mean, half-width, low, high)`. A geometric
/// mean's interval is not symmetric, so it has no half-width.
fn average_of(scores: &[f64], average: Average) -> (f64, Option<f64>, Option<f64>, Option<f64>) {
    match average {
        Average::Arithmetic => {
            let m = stats::mean(scores);
            let half = stats::interval95(scores);
            (m, half, half.map(|h| m - h), half.map(|h| m + h))
        }
        Average::Geometric => {
            let g = stats::geometric_mean(scores);
            (
                g.mean,
                None,
                g.interval.map(|i| i.0),
                g.interval.map(|i| i.1),
            )
        }
    }
}

/// `head` and `rows` as columns padded to their widest cell, the `left` ones aligned left and
/// the others right.
pub fn aligned(head: &[String], rows: &[Vec<String>], left: &[usize]) -> String {
    let widths: Vec<usize> = (0..head.len())
        .map(|c| {
            rows.iter()
                .map(|r| r[c].chars().count())
                .chain([head[c].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    // Written into one string as it goes: each cell padded, each line joined and trimmed in
    // strings of their own cost a 10,000-version hill's `koth leaderboard` as a table some 14%
    // of its CPU (docs/benchmarks.md, the hill at 10,000 versions).
    let line_bytes: usize = widths.iter().map(|w| w + 2).sum::<usize>() + 1;
    let mut text = String::with_capacity(line_bytes * (rows.len() + 1));
    for cells in std::iter::once(head).chain(rows.iter().map(Vec::as_slice)) {
        let start = text.len();
        for (c, (cell, &w)) in cells.iter().zip(&widths).enumerate() {
            if c > 0 {
                text.push_str("  ");
            }
            let pad = w - cell.chars().count();
            if left.contains(&c) {
                text.push_str(cell);
                text.extend(std::iter::repeat_n(' ', pad));
            } else {
                text.extend(std::iter::repeat_n(' ', pad));
                text.push_str(cell);
            }
        }
        // As `trim_end` of the line alone, never of the lines before it.
        let kept = text[start..].trim_end().len();
        text.truncate(start + kept);
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(game: u32, bot: usize, score: f64, status: BotStatus) -> StoredResult {
        StoredResult {
            game,
            bot,
            score,
            status,
            answers: 10,
            max_wall_ms: 1.0,
            total_wall_ms: 5.0,
            max_cpu_ms: None,
            near_misses: 0,
            fuel: None,
            faults: FaultCounts::default(),
            seed: u64::from(game) + 1000,
        }
    }

    #[test]
    fn one_player_games_on_one_seed_are_rated_as_one_contest() {
        let alone = |game: u32, bot: usize, score: f64, seed: u64| StoredResult {
            seed,
            ..result(game, bot, score, BotStatus::Finished)
        };
        // Bot 0 beats bot 1 on both seeds they share.
        let shared = [
            alone(0, 0, 50.0, 7),
            alone(1, 1, 5.0, 7),
            alone(2, 1, 3.0, 8),
            alone(3, 0, 9.0, 8),
        ];
        let rated = ratings(2, &shared);
        assert!(rated[0].rating > rated[1].rating, "{rated:?}");
        let history: Vec<usize> = rating_history(2, &shared).iter().map(Vec::len).collect();
        assert_eq!(history, [2, 2]);
        // Each on a seed of its own: nothing to compare, nothing rated.
        let apart: Vec<StoredResult> = shared
            .iter()
            .map(|r| StoredResult {
                seed: u64::from(r.game),
                ..r.clone()
            })
            .collect();
        assert_eq!(rating_history(2, &apart), [Vec::new(), Vec::new()]);
    }

    #[test]
    fn a_geometric_game_ranks_by_geometric_mean_with_an_asymmetric_interval() {
        // Board points like the rat race's: one huge score must not outrank steady ones.
        let results = vec![
            // Played alone, a game each, as the rat race is.
            result(0, 0, 1.0, BotStatus::Finished),
            result(1, 0, 10000.0, BotStatus::Finished),
            result(2, 1, 200.0, BotStatus::Finished),
            result(3, 1, 200.0, BotStatus::Finished),
        ];
        let names = vec!["spiky".to_string(), "steady".to_string()];
        let board = Leaderboard::new(
            "t".into(),
            Progress::default(),
            &names,
            &[],
            &results,
            (Average::Geometric, Ranking::Points),
        );
        let [first, second] = &board.standings[..] else {
            panic!("two standings")
        };
        assert_eq!(first.name, "steady");
        assert!((first.mean - 200.0).abs() < 1e-9, "{}", first.mean);
        assert_eq!(second.name, "spiky");
        assert!((second.mean - 100.0).abs() < 1e-9, "{}", second.mean);
        let (low, high) = (second.low.unwrap(), second.high.unwrap());
        // Symmetric around the mean in logarithms, not in points.
        assert!((low * high - 100.0 * 100.0).abs() < 1e-6 * high);
        assert!(low < 100.0 && high > 100.0 && second.interval.is_none());
        assert!(board.render(Format::Table).contains("geo mean (95%)"));
    }

    #[test]
    fn the_steady_winner_leads_and_a_bot_that_mostly_crashes_is_flagged() {
        let mut results = Vec::new();
        for game in 0..6 {
            results.push(result(game, 0, 10.0 + game as f64, BotStatus::Finished));
            results.push(result(game, 1, 5.0, BotStatus::Finished));
            let status = if game < 4 {
                BotStatus::Crashed
            } else {
                BotStatus::Finished
            };
            results.push(result(game, 2, 0.0, status));
        }
        let names = vec!["a".to_string(), "b".to_string(), "c".to_string()];
        let board = Leaderboard::new(
            "t".into(),
            Progress::default(),
            &names,
            &[],
            &results,
            (Average::Arithmetic, Ranking::Points),
        );
        let order: Vec<&str> = board.standings.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(order, ["a", "b", "c"]);
        let [a, b, c] = &board.standings[..] else {
            panic!()
        };
        assert!(a.rating > b.rating && b.rating > c.rating);
        assert_eq!((a.total, a.mean), (75.0, 12.5));
        // sd of 10..15 is sqrt(3.5); t(5) = 2.571; half-width = 2.571 * 1.87 / sqrt(6).
        assert!(
            (a.interval.unwrap() - 1.9636).abs() < 1e-3,
            "{:?}",
            a.interval
        );
        assert_eq!(b.interval, Some(0.0));
        assert!(c.flagged && !a.flagged && !b.flagged);
        assert_eq!((c.crashed, c.finished), (4, 2));
        for format in [Format::Table, Format::Markdown, Format::Csv, Format::Json] {
            let text = board.render(format);
            assert!(text.contains("\"c\"") || text.contains("c (!)"), "{text}");
        }
        assert_eq!(board.render(Format::Csv).lines().count(), 4);
    }

    #[test]
    fn numbers_are_written_as_precisely_as_they_mean_something() {
        assert_eq!(rounded(16.633950000000002, 4), "16.634");
        assert_eq!(rounded(2.0, 4), "2");
        assert_eq!(rounded(-0.00001, 4), "0");
        assert_eq!(rounded(55.446422000000005, 3), "55.446");
        assert_eq!(mean_and_interval(12.5, 1.9636), "12.5 ± 2.0");
        assert_eq!(mean_and_interval(0.8539, 0.1755), "0.85 ± 0.18");
        assert_eq!(mean_and_interval(0.5, 0.0), "0.5 ± 0.0");
        assert_eq!(mean_and_interval(1234.5, 150.0), "1234.5 ± 150.0");
    }

    #[test]
    fn equal_scores_share_a_rank_and_the_same_rating() {
        let results = vec![
            result(0, 0, 4.0, BotStatus::Finished),
            result(0, 1, 4.0, BotStatus::Finished),
        ];
        let ratings = ratings(2, &results);
        assert_eq!(ratings[0], ratings[1]);
    }
}
