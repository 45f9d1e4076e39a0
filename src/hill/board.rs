//! The hill's leaderboard and status, read from what the run stores (the last fit, each
//! version's counts and ratings, the kings), so reading costs the number of versions, never the
//! number of games. Its JSON has a tournament leaderboard's shape (`standings` in rank order,
//! each with `name` and `games`) plus each bot's `version`.

use std::fmt::Write;

use serde::Serialize;

use crate::tournament::leaderboard::{Format, aligned};
use crate::tournament::store::Store;

use super::store::{self, Version};

/// One active version's line.
#[derive(Debug, Clone, Serialize)]
pub struct HillStanding {
    pub rank: usize,
    /// The bot's name (its versions share it).
    pub name: String,
    pub version: u32,
    /// Games it has played (rated).
    pub games: u32,
    /// The fitted rating (Elo scale, 1500 average) and its 95% interval; before the first fit,
    /// none.
    pub rating: Option<f64>,
    pub low: Option<f64>,
    pub high: Option<f64>,
    /// The online rating (Weng-Lin) and its uncertainty, which matchmaking uses.
    pub mu: f64,
    pub sigma: f64,
    /// Games in which it faulted.
    pub faulted: u32,
    /// Why it is not scheduled, if it is suspended.
    pub suspended: Option<String>,
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

/// The hill's leaderboard.
#[derive(Debug, Clone, Serialize)]
pub struct HillBoard {
    pub name: String,
    pub game: String,
    pub games_done: u32,
    pub king: Option<String>,
    pub standings: Vec<HillStanding>,
    pub kings: Vec<Reign>,
    /// Versions no longer scheduled (replaced or retired), with their state.
    pub history: Vec<(String, u32, String, u32)>,
}

/// Reads the leaderboard of the hill in `store`.
pub(crate) fn of(store: &Store) -> anyhow::Result<HillBoard> {
    let db = store.connection();
    let versions = store::versions(db)?;
    let fit = store::fit(db)?;
    let mut standings: Vec<HillStanding> = versions
        .iter()
        .filter(|v| v.state == "active")
        .map(|v| {
            let fitted = fit.iter().find(|f| f.0 == v.id);
            HillStanding {
                rank: 0,
                name: v.name.clone(),
                version: v.version,
                games: v.games,
                rating: fitted.map(|f| f.1),
                low: fitted.map(|f| f.1 - f.2),
                high: fitted.map(|f| f.1 + f.2),
                mu: v.mu,
                sigma: v.sigma,
                faulted: v.faulted,
                suspended: v.suspended.clone(),
            }
        })
        .collect();
    // By the fit; versions it has not seen yet after, by their online rating.
    standings.sort_by(|a, b| {
        b.rating
            .is_some()
            .cmp(&a.rating.is_some())
            .then(b.rating.unwrap_or(0.0).total_cmp(&a.rating.unwrap_or(0.0)))
            .then((b.mu - 3.0 * b.sigma).total_cmp(&(a.mu - 3.0 * a.sigma)))
    });
    for (k, s) in standings.iter_mut().enumerate() {
        s.rank = k + 1;
    }
    let label = |id: usize| versions.iter().find(|v| v.id == id);
    let kings: Vec<Reign> = store::kings(db)?
        .into_iter()
        .filter_map(|(id, since_game, since)| {
            let v = label(id)?;
            Some(Reign {
                name: v.name.clone(),
                version: v.version,
                since_game,
                since,
            })
        })
        .collect();
    let king = kings
        .last()
        .filter(|k| {
            standings
                .iter()
                .any(|s| s.name == k.name && s.version == k.version)
        })
        .map(|k| format!("{} v{}", k.name, k.version));
    let history = versions
        .iter()
        .filter(|v| v.state != "active")
        .map(|v: &Version| (v.name.clone(), v.version, v.state.clone(), v.games))
        .collect();
    Ok(HillBoard {
        name: store.meta("name")?.unwrap_or_default(),
        game: store.meta("game")?.unwrap_or_default(),
        games_done: store::games_rated(db, &versions)?,
        king,
        standings,
        kings,
        history,
    })
}

impl HillBoard {
    pub(crate) fn render(&self, format: Format) -> String {
        let head: Vec<String> = [
            "rank",
            "bot",
            "version",
            "rating",
            "95% interval",
            "games",
            "faulted",
            "status",
        ]
        .map(String::from)
        .to_vec();
        let rows: Vec<Vec<String>> = self
            .standings
            .iter()
            .map(|s| {
                vec![
                    s.rank.to_string(),
                    s.name.clone(),
                    format!("v{}", s.version),
                    s.rating.map_or("-".into(), |r| format!("{r:.0}")),
                    match (s.low, s.high) {
                        (Some(l), Some(h)) => format!("{l:.0}..{h:.0}"),
                        _ => "-".into(),
                    },
                    s.games.to_string(),
                    s.faulted.to_string(),
                    if s.suspended.is_some() {
                        "suspended".into()
                    } else {
                        "active".into()
                    },
                ]
            })
            .collect();
        let title = format!(
            "Hill {} ({}): {} games played; king: {}",
            self.name,
            self.game,
            self.games_done,
            self.king.as_deref().unwrap_or("none yet")
        );
        match format {
            Format::Json => serde_json::to_string_pretty(self).expect("plain data") + "\n",
            Format::Table => format!("{title}\n\n{}", aligned(&head, &rows, &[1, 2, 7])),
            Format::Markdown => {
                let mut text = format!("{title}\n\n| {} |\n|", head.join(" | "));
                text += &"---|".repeat(head.len());
                text.push('\n');
                for row in &rows {
                    writeln!(text, "| {} |", row.join(" | ")).unwrap();
                }
                text
            }
            Format::Csv => {
                let mut text =
                    "rank,bot,version,rating,low95,high95,games,faulted,status\n".to_string();
                for s in &self.standings {
                    let opt = |v: Option<f64>| v.map(|v| format!("{v:.1}")).unwrap_or_default();
                    writeln!(
                        text,
                        "{},\"{}\",{},{},{},{},{},{},{}",
                        s.rank,
                        s.name.replace('"', "\"\""),
                        s.version,
                        opt(s.rating),
                        opt(s.low),
                        opt(s.high),
                        s.games,
                        s.faulted,
                        if s.suspended.is_some() {
                            "suspended"
                        } else {
                            "active"
                        }
                    )
                    .unwrap();
                }
                text
            }
        }
    }

    /// `hill status`: the leaderboard, the suspended versions with why (and the whole command
    /// that resumes each, `target` naming the hill: `--hill DIR`), and the kings.
    pub(crate) fn status(&self, queued: usize, target: &str) -> String {
        let mut text = self.render(Format::Table);
        writeln!(text, "\n{queued} games queued or running").unwrap();
        for s in self.standings.iter().filter(|s| s.suspended.is_some()) {
            writeln!(
                text,
                "{} v{} is {}; `koth hill resume-bot {:?} {target}` brings it back",
                s.name,
                s.version,
                s.suspended.as_deref().unwrap_or_default(),
                s.name
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
