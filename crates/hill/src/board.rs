//! The hill's leaderboard and status, read from what the run stores (the last fit, each
//! version's counts and ratings, the kings), so reading costs the number of versions, never the
//! number of games. Its JSON has a tournament leaderboard's shape (`standings` in rank order,
//! each with `name` and `games`) plus each bot's `version`.

use std::collections::HashMap;
use std::fmt::Write;

use serde::Serialize;

use koth_bot::FuelFigures;
use koth_ranking::{self as ranking, Entry, Ranking};
pub use koth_tournament::leaderboard::{Format, aligned};
use koth_tournament::store::Store;

use super::store::{self, Listed, VersionState};

/// One scheduled version's line.
#[derive(Debug, Clone, Serialize)]
pub struct HillStanding {
    /// Its place among the ranked; none while it plays its placement games (`state` is then
    /// `placing`, listed after the ranked, with its `games` of the board's `placement_games`).
    pub rank: Option<usize>,
    /// The bot's name (its versions share it).
    pub name: String,
    pub version: u32,
    /// Games it has played (rated).
    pub games: u32,
    /// The figure the ranking orders by (the board's `statistic`: points per game against
    /// average opponents for a points game, an Elo-scale rating for a placement game) and its
    /// 95% interval; before the first fit, none.
    pub rating: Option<f64>,
    pub low: Option<f64>,
    pub high: Option<f64>,
    /// The online rating (Weng-Lin) and its uncertainty, which matchmaking uses.
    pub mu: f64,
    pub sigma: f64,
    /// Games in which it faulted.
    pub faulted: u32,
    /// A WASI version's fuel per answer over its rated games (median, maximum, near misses
    /// against its budget); none for a process.
    pub fuel: Option<FuelFigures>,
    /// `active`, or `placing` before its placement games (a suspended version is listed apart,
    /// in the board's `suspended`).
    pub state: String,
}

/// A suspended version: not ranked among the active ones, listed apart with why.
#[derive(Debug, Clone, Serialize)]
pub struct SuspendedVersion {
    pub name: String,
    pub version: u32,
    pub games: u32,
    pub faulted: u32,
    /// `suspended`.
    pub state: String,
    pub reason: String,
}

/// A reign: who led the fitted ranking, from when.
#[derive(Debug, Clone, Serialize)]
pub struct Reign {
    pub name: String,
    pub version: u32,
    /// Games recorded when it was crowned.
    pub since_game: u32,
    /// Unix seconds.
    pub since: i64,
}

/// How sure the table's first is of its lead over the runner-up, at the last fit.
#[derive(Debug, Clone, Serialize)]
pub struct Lead {
    /// The first and the runner-up, as `NAME vN`.
    pub first: String,
    pub second: String,
    /// The first's figure less the runner-up's, and half the width of its 95% interval (for a
    /// points game clustered by game: two who meet often share their games' luck).
    pub by: f64,
    pub interval: f64,
    /// Whether the lead is sure: the first's 95% interval, as the table shows it, lies wholly
    /// above the runner-up's ([`ranking::apart`]).
    pub sure: bool,
}

/// A hill with fewer versions scheduled than a game seats, which plays nothing until more come.
#[derive(Debug, Clone, Serialize)]
pub struct Waiting {
    pub scheduled: usize,
    /// The fewest seats a game of the hill has (`min_players`).
    pub needs: usize,
}

impl Waiting {
    /// `waits for bots: 2 versions scheduled, each game needs 4`, as the terminal, `hill
    /// status` and the page say it after "the hill".
    pub fn line(&self) -> String {
        format!(
            "waits for bots: {} scheduled, each game needs {}",
            plural(self.scheduled, "version"),
            self.needs
        )
    }
}

/// `1 version`, `2 versions`.
fn plural(count: usize, noun: &str) -> String {
    format!("{count} {noun}{}", if count == 1 { "" } else { "s" })
}

/// The hill's leaderboard.
#[derive(Debug, Clone, Serialize)]
pub struct HillBoard {
    pub name: String,
    pub game: String,
    /// What the game's result means (`points` or `placement`), and so what orders the table.
    pub ranking: Ranking,
    /// The figure in `rating`, in words.
    pub statistic: String,
    pub games_done: u32,
    /// The games a version plays before it is ranked.
    pub placement_games: u32,
    /// While fewer versions are scheduled than the fewest seats a game has: none is played.
    pub waiting: Option<Waiting>,
    /// The table's first ranked version (how sure its lead is, in `lead`); none while no
    /// version has played its placement games.
    pub king: Option<String>,
    /// The first's lead over the runner-up among the ranked; none with fewer than two ranked.
    pub lead: Option<Lead>,
    pub standings: Vec<HillStanding>,
    /// Suspended versions, apart from the ranking.
    pub suspended: Vec<SuspendedVersion>,
    pub kings: Vec<Reign>,
    /// Versions no longer scheduled (replaced or retired), with their state.
    pub history: Vec<(String, u32, String, u32)>,
}

/// The rule a hill's game ranks by (a hill of a game koth no longer has: placement).
pub fn ranking_of(store: &Store) -> anyhow::Result<Ranking> {
    Ok(store
        .meta("game")?
        .and_then(|game| koth_game::registry::by_name(&game))
        .map_or(Ranking::Placement, |game| game.ranking()))
}

/// Versions by id: a table of 10,000 versions looked each up in both lists took 485 ms
/// (docs/benchmarks.md, the hill at 10,000 versions).
type VersionsById<'a> = HashMap<usize, &'a Listed>;

/// Reads the leaderboard of the hill in `store`.
pub fn read(store: &Store) -> anyhow::Result<HillBoard> {
    let db: &dyn store::Connection = store;
    let versions = store::listed_versions(db)?;
    let ranking = ranking_of(store)?;
    let version_of: VersionsById = versions.iter().map(|v| (v.id, v)).collect();
    let placement_games = store::placement_games(store)?;
    let (order, ranked) = table_order(&versions, placement_games);
    let standings = standings(&order, ranked, &version_of);
    let suspended = suspended(&versions);
    let crowned = store::kings(db)?;
    let kings = reigns(&crowned, &version_of);
    // The king is the table's first, once placed; never another.
    let king = crowned
        .last()
        .filter(|(id, _, _)| order.first().is_some_and(|first| first.id == *id))
        .and_then(|(id, _, _)| version_of.get(id).copied())
        .map(Listed::label);
    let lead = lead_of(store::lead(store)?, &order[..ranked], &version_of);
    let history = versions
        .iter()
        .filter(|v| !v.state.current())
        .map(|v| (v.name.clone(), v.version, v.state.to_string(), v.games))
        .collect();
    Ok(HillBoard {
        name: store.meta("name")?.unwrap_or_default(),
        game: store.meta("game")?.unwrap_or_default(),
        ranking,
        statistic: ranking::statistic(ranking).to_string(),
        games_done: store::games_rated(db)?,
        placement_games,
        waiting: store::fewest_seats(store)?
            .filter(|&needs| standings.len() < needs)
            .map(|needs| Waiting {
                scheduled: standings.len(),
                needs,
            }),
        king,
        lead,
        standings,
        suspended,
        kings,
        history,
    })
}

/// The table's order of the scheduled versions, on the stored fit: the one order of the table
/// and the king ([`ranking::in_order`]) for the placed, then the versions still placing, most
/// games first; with how many are placed (ranked).
fn table_order(versions: &[Listed], placement_games: u32) -> (Vec<Entry>, usize) {
    let mut order: Vec<Entry> = versions
        .iter()
        .filter(|v| v.state == VersionState::Active)
        .map(|v| Entry {
            id: v.id,
            value: v.fit.map(|f| f.value),
            interval: v.fit.map_or(0.0, |f| f.half_width),
            games: v.fit.map_or(0, |f| f.games),
        })
        .collect();
    ranking::in_order(&mut order);
    let (mut order, placing): (Vec<Entry>, Vec<Entry>) = order
        .into_iter()
        .partition(|e| ranking::placed(e, placement_games));
    let ranked = order.len();
    order.extend(placing);
    order[ranked..].sort_by(|a, b| b.games.cmp(&a.games).then(a.id.cmp(&b.id)));
    (order, ranked)
}

/// The table's lines, in `order` (its first `ranked` ranked, the others placing).
fn standings(order: &[Entry], ranked: usize, version_of: &VersionsById) -> Vec<HillStanding> {
    let mut lines = Vec::with_capacity(order.len());
    lines.extend(order.iter().enumerate().filter_map(|(k, e)| {
        let v = version_of.get(&e.id).copied()?;
        Some(HillStanding {
            rank: (k < ranked).then_some(k + 1),
            name: v.name.clone(),
            version: v.version,
            games: v.games,
            rating: e.value,
            low: e.value.map(|r| r - e.interval),
            high: e.value.map(|r| r + e.interval),
            mu: v.mu,
            sigma: v.sigma,
            faulted: v.faulted,
            fuel: v.fuel.clone(),
            state: if k < ranked {
                v.state.to_string()
            } else {
                "placing".to_string()
            },
        })
    }));
    lines
}

/// The suspended versions, with why.
fn suspended(versions: &[Listed]) -> Vec<SuspendedVersion> {
    versions
        .iter()
        .filter(|v| v.state == VersionState::Suspended)
        .map(|v| SuspendedVersion {
            name: v.name.clone(),
            version: v.version,
            games: v.games,
            faulted: v.faulted,
            state: v.state.to_string(),
            reason: v.suspended.clone().unwrap_or_default(),
        })
        .collect()
}

/// The reigns of the `crowned` (version, games recorded then, Unix seconds), named.
fn reigns(crowned: &[(usize, u32, i64)], version_of: &VersionsById) -> Vec<Reign> {
    crowned
        .iter()
        .filter_map(|&(id, since_game, since)| {
            let v = version_of.get(&id).copied()?;
            Some(Reign {
                name: v.name.clone(),
                version: v.version,
                since_game,
                since,
            })
        })
        .collect()
}

/// The stored lead, while its two are still the table's first two `ranked`.
fn lead_of(
    stored: Option<store::Lead>,
    ranked: &[Entry],
    version_of: &VersionsById,
) -> Option<Lead> {
    let version = |id: usize| version_of.get(&id).copied();
    match (stored, ranked) {
        (Some(lead), [first, second, ..]) if lead.first == first.id && lead.second == second.id => {
            match (
                first.value,
                second.value,
                version(first.id),
                version(second.id),
            ) {
                (Some(a), Some(b), Some(v1), Some(v2)) => Some(Lead {
                    first: v1.label(),
                    second: v2.label(),
                    by: a - b,
                    interval: lead.interval,
                    sure: ranking::apart(first, second),
                }),
                _ => None,
            }
        }
        _ => None,
    }
}

impl HillBoard {
    /// As everyone may read it where a bot's stderr is its author's: suspensions' reasons in
    /// koth's words alone.
    pub fn in_public(&mut self) {
        for suspended in &mut self.suspended {
            suspended.reason = super::logs::public_reason(&suspended.reason);
        }
    }

    /// The king as the board reads: `A v1 (leads B v2 by 12.50, not yet sure (their intervals
    /// overlap))`; while there is none (no version ranked yet, or the king was suspended since
    /// the last fit), `none yet (A v1 leads B v2 by …)`.
    pub fn king_line(&self) -> String {
        match (&self.king, &self.lead, self.lead_line()) {
            (Some(king), _, Some(line)) => format!("{king} ({line})"),
            (Some(king), _, None) => king.clone(),
            (None, Some(lead), Some(line)) => format!("none yet ({} {line})", lead.first),
            (None, _, _) => "none yet".into(),
        }
    }

    /// How sure the first's lead is, in words, by the intervals the table shows: `leads B v2 by
    /// 12.50, not yet sure (their intervals overlap)`, or `level with B v2 (their intervals
    /// overlap)` while the lead shows as 0 (none without a runner-up). The hill's page says the
    /// same (`hill.html`).
    pub fn lead_line(&self) -> Option<String> {
        let decimals = self.decimals();
        self.lead.as_ref().map(|lead| {
            let by = format!("{:.decimals$}", lead.by);
            if by.parse::<f64>() == Ok(0.0) {
                return format!("level with {} (their intervals overlap)", lead.second);
            }
            format!(
                "leads {} by {by}, {}",
                lead.second,
                if lead.sure {
                    "sure (their intervals are apart)"
                } else {
                    "not yet sure (their intervals overlap)"
                }
            )
        })
    }

    /// A standing's place as a person reads it: its rank, or `-` while it is placing.
    fn place(&self, standing: &HillStanding) -> String {
        standing.rank.map_or("-".into(), |rank| rank.to_string())
    }

    /// A standing's state as a person reads it: `placing (3 of 10 games)` while it places.
    pub fn state_shown(&self, standing: &HillStanding) -> String {
        match standing.rank {
            Some(_) => standing.state.clone(),
            None => format!(
                "placing ({} of {} games)",
                standing.games, self.placement_games
            ),
        }
    }

    /// Decimals of the ranking's figure: points to the hundredth, ratings whole.
    fn decimals(&self) -> usize {
        match self.ranking {
            Ranking::Points => 2,
            Ranking::Placement => 0,
        }
    }

    pub(crate) fn render(&self, format: Format) -> String {
        self.render_listing(format, true)
    }

    /// [`HillBoard::render`], written to `out`: the JSON is written as it is made, never held
    /// whole (2.7 MB at 10,000 versions, copied as it grew, in pages fresh from the kernel:
    /// docs/benchmarks.md, the hill at 10,000 versions).
    pub(crate) fn write_to(
        &self,
        format: Format,
        out: &mut impl std::io::Write,
    ) -> anyhow::Result<()> {
        match format {
            Format::Json => {
                serde_json::to_writer_pretty(&mut *out, self)?;
                out.write_all(b"\n")?;
            }
            _ => out.write_all(self.render(format).as_bytes())?,
        }
        Ok(out.flush()?)
    }

    /// [`Board::render`], with the suspended versions listed under the table or not
    /// (`suspended`): `hill status` lists each once, with the command that resumes it.
    fn render_listing(&self, format: Format, suspended: bool) -> String {
        // JSON and CSV first: the text table's rows (every figure formatted) were a quarter
        // of `koth leaderboard --format json` at 10,000 versions, and then thrown away.
        match format {
            Format::Json => {
                return serde_json::to_string_pretty(self).expect("plain data") + "\n";
            }
            Format::Csv => return self.csv(),
            Format::Table | Format::Markdown => {}
        }
        let column = ranking::column(self.ranking);
        let head: Vec<String> = [
            "rank",
            "bot",
            "version",
            column,
            "95% interval",
            "games",
            "faulted",
            "fuel med/max",
        ]
        .map(String::from)
        .to_vec();
        let rows = self.rows();
        let title = format!(
            "Hill {} ({}, ranked by {}): {} games played; king: {}",
            self.name,
            self.game,
            self.statistic,
            self.games_done,
            self.king_line()
        );
        let apart = if suspended {
            self.suspended_listing()
        } else {
            String::new()
        };
        if format == Format::Table {
            return format!("{title}\n\n{}{apart}", aligned(&head, &rows, &[1, 2]));
        }
        let mut text = format!("{title}\n\n| {} |\n|", head.join(" | "));
        text += &"---|".repeat(head.len());
        text.push('\n');
        for row in &rows {
            writeln!(text, "| {} |", row.join(" | ")).unwrap();
        }
        text + &apart
    }

    /// The table's rows as a person reads them, one per standing.
    fn rows(&self) -> Vec<Vec<String>> {
        let decimals = self.decimals();
        let figure = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.decimals$}"));
        self.standings
            .iter()
            .map(|s| {
                vec![
                    self.place(s),
                    s.name.clone(),
                    format!("v{}", s.version),
                    figure(s.rating),
                    match (s.low, s.high) {
                        (Some(low), Some(high)) => format!("{low:.decimals$}..{high:.decimals$}"),
                        _ => "-".into(),
                    },
                    match s.rank {
                        Some(_) => s.games.to_string(),
                        None => format!("{} of {} (placing)", s.games, self.placement_games),
                    },
                    s.faulted.to_string(),
                    FuelFigures::cell(s.fuel.as_ref()),
                ]
            })
            .collect()
    }

    /// The suspended versions under the table, `\nSuspended:\n  A v1 (…): why\n` (empty
    /// without any).
    fn suspended_listing(&self) -> String {
        let apart: Vec<String> = self
            .suspended
            .iter()
            .map(|s| {
                format!(
                    "{} v{} ({} games, not ranked): {}",
                    s.name, s.version, s.games, s.reason
                )
            })
            .collect();
        if apart.is_empty() {
            String::new()
        } else {
            format!("\nSuspended:\n  {}\n", apart.join("\n  "))
        }
    }

    /// The board as CSV: the standings, then the suspended versions without figures.
    fn csv(&self) -> String {
        let mut text = "rank,bot,version,figure,low95,high95,games,faulted,status,fuel_median,\
                        fuel_max,fuel_near_misses,fuel_budget\n"
            .to_string();
        let opt = |v: Option<f64>| v.map(|v| format!("{v:.3}")).unwrap_or_default();
        let quoted = |name: &str| format!("\"{}\"", name.replace('"', "\"\""));
        for s in &self.standings {
            writeln!(
                text,
                "{},{},{},{},{},{},{},{},{},{}",
                s.rank.map(|rank| rank.to_string()).unwrap_or_default(),
                quoted(&s.name),
                s.version,
                opt(s.rating),
                opt(s.low),
                opt(s.high),
                s.games,
                s.faulted,
                s.state,
                FuelFigures::csv_fields(s.fuel.as_ref()),
            )
            .unwrap();
        }
        for s in &self.suspended {
            writeln!(
                text,
                ",{},{},,,,{},{},{},,,,",
                quoted(&s.name),
                s.version,
                s.games,
                s.faulted,
                s.state
            )
            .unwrap();
        }
        text
    }

    /// `hill status`: the leaderboard, the suspended versions with why (and the whole command
    /// that resumes each, `target` naming the hill: `--hill DIR`), and the kings.
    pub(crate) fn status(&self, queued: usize, target: &str) -> String {
        let mut text = self.render_listing(Format::Table, false);
        writeln!(text, "\n{queued} games queued or running").unwrap();
        if let Some(waiting) = &self.waiting {
            writeln!(
                text,
                "The hill {} (`koth hill add BOT_DIR {target}`)",
                waiting.line()
            )
            .unwrap();
        }
        for s in &self.suspended {
            writeln!(
                text,
                "{} v{} is {}; `koth hill resume-bot {:?} {target}` brings it back",
                s.name, s.version, s.reason, s.name
            )
            .unwrap();
        }
        if !self.kings.is_empty() {
            writeln!(text, "\nKings:").unwrap();
            for k in &self.kings {
                writeln!(
                    text,
                    "  {} v{} from game {}",
                    k.name, k.version, k.since_game
                )
                .unwrap();
            }
        }
        for (name, version, state, games) in &self.history {
            writeln!(text, "{name} v{version}: {state} after {games} games").unwrap();
        }
        text
    }
}
